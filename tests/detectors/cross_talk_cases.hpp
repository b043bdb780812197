// Cases for the cross-talk check (docs/detectors.md#cross-talk), included by
// tests/test_detectors.cpp: fixtures/crosstalk_server.py keeps per-request state
// in a module-level variable (--fixed: per call), and server-everything.
#pragma once

#include <mcp_loadtest/detectors/cross_talk.hpp>

// The case bodies are coroutines defined in a header: GCC warns that their
// frames hold doctest's (and the lambdas') unnamed types. Harmless here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsubobject-linkage"
#endif

#include <stdexcept>
#include <string>

namespace cross_talk_cases {

inline mlt::json user_arguments(std::size_t i) { return mlt::args("user", "user-" + std::to_string(i)); }

/// True when the reply's text names the request's own user.
inline bool names_own_user(const mlt::json& arguments, const mlt::call_result& reply) {
    return reply.text().find("profile of " + arguments.at("user").get<std::string>() + ":") != std::string::npos;
}

inline mlt::cross_talk_report round_trip(const mlt::cross_talk_report& r) {
    const mlt::json j = r;
    return j.get<mlt::cross_talk_report>();
}

}  // namespace cross_talk_cases

MCP_LOADTEST_CASE("cross-talk: a module-level per-request variable is caught, with whose data each reply carries") {
    auto buggy = fixture("crosstalk_server.py");
    auto report = co_await mlt::cross_talk_check(buggy, "lookup_user", cross_talk_cases::user_arguments,
                                                 {.calls = 12});
    CHECK(report.verdict == mlt::cross_talk_verdict::cross_talk);
    CHECK_FALSE(report.passed());
    CHECK(report.checked_by == "sequential oracle");
    CHECK(report.oracle_calls == 12 + 3);
    CHECK(report.reproducibility_checks == 3);
    CHECK(report.irreproducible.empty());
    CHECK(report.failures.empty());
    REQUIRE(!report.mismatches.empty());
    CHECK(report.matched + report.mismatches.size() == 12);
    CHECK(report.attributed == report.mismatches.size());
    for (const auto& m : report.mismatches) {
        CHECK(m.arguments == cross_talk_cases::user_arguments(m.index));
        CHECK(m.expected.find("profile of user-" + std::to_string(m.index) + ":") != std::string::npos);
        REQUIRE(m.carries_data_of.has_value());
        CHECK(*m.carries_data_of != m.index);
        // The evidence is real: the reply names the other request's user.
        CHECK(m.reply.find("profile of user-" + std::to_string(*m.carries_data_of) + ":") != std::string::npos);
        CHECK(m.evidence == "equals request " + std::to_string(*m.carries_data_of) + "'s sequential reply");
    }
    const std::string failure = mlt::detail::detector_failure(report);
    CHECK(failure.rfind("CROSS-TALK: " + std::to_string(report.mismatches.size()) + " of 12 concurrent replies", 0) == 0);
    CHECK(failure.find("module-level") != std::string::npos);

    const auto back = cross_talk_cases::round_trip(report);
    CHECK(mlt::json(back) == mlt::json(report));
    CHECK(back.mismatches.size() == report.mismatches.size());
    CHECK(back.mismatches[0].carries_data_of == report.mismatches[0].carries_data_of);
    CHECK(back.took == report.took);
}

MCP_LOADTEST_CASE("cross-talk: the healthy twin keeps state per call and passes") {
    auto fixed = fixture("crosstalk_server.py", {"--fixed"});
    auto report = co_await mlt::cross_talk_check(fixed, "lookup_user", cross_talk_cases::user_arguments,
                                                 {.calls = 12});
    MCP_CHECK_NO_CROSS_TALK(report);
    CHECK(report.verdict == mlt::cross_talk_verdict::isolated);
    CHECK(report.matched == 12);
    CHECK(report.mismatches.empty());
    // The calls really overlapped: all 12 were in flight within one backend wait (30 ms each).
    CHECK(report.concurrent_took < 12 * 30ms);
    CHECK(mlt::detail::detector_failure(report).empty());
    CHECK(report.verdict_sentence().rfind("no cross-talk: all 12", 0) == 0);
}

MCP_LOADTEST_CASE("cross-talk: across 2 sessions each process mixes up its own requests") {
    auto buggy = fixture("crosstalk_server.py");
    auto report = co_await mlt::cross_talk_check(buggy, "lookup_user", cross_talk_cases::user_arguments,
                                                 {.calls = 12, .sessions = 2});
    CHECK(report.verdict == mlt::cross_talk_verdict::cross_talk);
    CHECK(report.sessions == 2);
    REQUIRE(!report.mismatches.empty());
    for (const auto& m : report.mismatches) {
        CHECK(m.session == m.index % 2);
        REQUIRE(m.carries_data_of.has_value());
        CHECK(*m.carries_data_of % 2 == m.session);  // stdio sessions are separate processes
    }
    auto fixed = fixture("crosstalk_server.py", {"--fixed"});
    auto clean = co_await mlt::cross_talk_check(fixed, "lookup_user", cross_talk_cases::user_arguments,
                                                {.calls = 12, .sessions = 2});
    MCP_CHECK_NO_CROSS_TALK(clean);
    CHECK(clean.matched == 12);
}

MCP_LOADTEST_CASE("cross-talk: a predicate judges each reply, and attribution falls back to argument strings") {
    auto buggy = fixture("crosstalk_server.py");
    auto report = co_await mlt::cross_talk_check(buggy, "lookup_user", cross_talk_cases::user_arguments,
                                                 cross_talk_cases::names_own_user, {.calls = 12});
    CHECK(report.verdict == mlt::cross_talk_verdict::cross_talk);
    CHECK(report.checked_by == "predicate");
    CHECK(report.oracle_calls == 0);
    REQUIRE(!report.mismatches.empty());
    for (const auto& m : report.mismatches) {
        CHECK(m.expected.empty());
        REQUIRE(m.carries_data_of.has_value());
        CHECK(m.evidence == "contains request " + std::to_string(*m.carries_data_of) + "'s argument \"user-" +
                                std::to_string(*m.carries_data_of) + "\"");
    }
    auto fixed = fixture("crosstalk_server.py", {"--fixed"});
    auto clean = co_await mlt::cross_talk_check(fixed, "lookup_user", cross_talk_cases::user_arguments,
                                                cross_talk_cases::names_own_user, {.calls = 12});
    MCP_CHECK_NO_CROSS_TALK(clean);
    CHECK(clean.matched == 12);
}

MCP_LOADTEST_CASE("cross-talk: replies that legitimately vary give indeterminate, never a false alarm") {
    auto fixed = fixture("crosstalk_server.py", {"--fixed"});
    const auto labels = [](std::size_t i) { return mlt::args("label", "label-" + std::to_string(i)); };
    auto report = co_await mlt::cross_talk_check(fixed, "stamp", labels, {.calls = 8});
    CHECK(report.verdict == mlt::cross_talk_verdict::indeterminate);
    CHECK(report.passed());
    MCP_CHECK_NO_CROSS_TALK(report);
    CHECK(report.irreproducible.size() == 3);
    CHECK(report.mismatches.empty());
    CHECK(report.concurrent_took == 0ns);  // no concurrent phase: nothing to judge it by
    CHECK(report.reason.find("replied differently the second time") != std::string::npos);
    CHECK(report.verdict_sentence().rfind("INDETERMINATE", 0) == 0);
    const auto back = cross_talk_cases::round_trip(report);
    CHECK(mlt::json(back) == mlt::json(report));
    REQUIRE(!back.irreproducible.empty());
    CHECK(back.irreproducible[0].first_reply != back.irreproducible[0].second_reply);

    // A predicate that checks each reply against its own label judges it after all.
    const auto own_label = [](const mlt::json& arguments, const mlt::call_result& reply) {
        return reply.text().rfind(arguments.at("label").get<std::string>() + " nonce=", 0) == 0;
    };
    auto judged = co_await mlt::cross_talk_check(fixed, "stamp", labels, own_label, {.calls = 8});
    MCP_CHECK_NO_CROSS_TALK(judged);
    CHECK(judged.verdict == mlt::cross_talk_verdict::isolated);
    CHECK(judged.matched == 8);
}

MCP_LOADTEST_CASE("cross-talk: a call that fails alone is indeterminate, bad options are rejected") {
    auto fixed = fixture("crosstalk_server.py", {"--fixed"});
    auto report = co_await mlt::cross_talk_check(fixed, "no_such_tool", cross_talk_cases::user_arguments,
                                                 {.calls = 4});
    CHECK(report.verdict == mlt::cross_talk_verdict::indeterminate);
    CHECK(report.oracle_calls == 1);
    CHECK(report.reason.find("made alone, did not succeed") != std::string::npos);

    CHECK_THROWS_AS((void)mlt::cross_talk_check(fixed, "lookup_user", cross_talk_cases::user_arguments, {.calls = 1}),
                    std::invalid_argument);
    const auto not_an_object = [](std::size_t i) { return mlt::json(i); };
    CHECK_THROWS_AS((void)mlt::cross_talk_check(fixed, "lookup_user", not_an_object, {.calls = 4}),
                    std::invalid_argument);
}

MCP_LOADTEST_CASE("cross-talk: server-everything's echo and get-sum keep requests apart" *
                  doctest::skip(!mlt_test::have_everything())) {
    auto everything = mlt_test::everything();
    const auto messages = [](std::size_t i) { return mlt::args("message", "message-" + std::to_string(i)); };
    auto echo = co_await mlt::cross_talk_check(everything, "echo", messages, {.calls = 16});
    MCP_CHECK_NO_CROSS_TALK(echo);
    CHECK(echo.verdict == mlt::cross_talk_verdict::isolated);
    CHECK(echo.matched == 16);

    const auto sums = [](std::size_t i) { return mlt::args("a", i, "b", 1000 * i); };
    auto sum = co_await mlt::cross_talk_check(everything, "get-sum", sums, {.calls = 16, .sessions = 2});
    MCP_CHECK_NO_CROSS_TALK(sum);
    CHECK(sum.matched == 16);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
