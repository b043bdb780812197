// Cases for the cancellation check (docs/detectors.md#cancellation), included
// by tests/test_detectors.cpp: fixtures/cancel_race_server.py replies to
// cancelled calls and dies of a cancel that lands between its handler
// returning and its reply being sent (python-sdk#2416; --fixed honours every
// cancel), server-everything, and run()'s cancellation injection.
#pragma once

#include <mcp_loadtest/detectors/cancellation.hpp>
#include <mcp_loadtest/run.hpp>

#include "support/json_schema.hpp"

// The case bodies are coroutines defined in a header: GCC warns that their
// frames hold doctest's unnamed types. Harmless here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsubobject-linkage"
#endif

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace cancellation_cases {

inline mlt::cancellation_report round_trip(const mlt::cancellation_report& r) {
    const mlt::json j = r;
    return j.get<mlt::cancellation_report>();
}

inline double seconds(std::chrono::nanoseconds d) { return std::chrono::duration<double>(d).count(); }

/// One line per run, for the figures in docs/detectors.md.
inline void print_figures(const char* what, const mlt::cancellation_report& r) {
    std::printf("[cancellation] %s: %s in %.2f s; sent %zu, honoured %zu, replied anyway %zu, crossed %zu, "
                "reply first %zu, crashes %zu\n",
                what, std::string(mlt::to_string(r.verdict)).c_str(), seconds(r.took), r.sent, r.honoured,
                r.replied_anyway, r.crossed, r.reply_first, r.crashes);
}

inline mlt::cancellation_options quick() {
    mlt::cancellation_options o;
    o.baseline_calls = 3;
    o.cancels_per_moment = 4;
    o.followup_calls = 3;
    o.call.timeout = std::chrono::seconds(5);
    return o;
}

/// A closed load of `users` calling `work` for `seconds`, cancelling `fraction` of them at `moment`.
inline mlt::run_options cancelling(double fraction, mlt::cancel_moment moment) {
    mlt::run_options o;
    o.sample_interval = std::chrono::milliseconds(0);
    o.call.timeout = std::chrono::seconds(5);
    o.cancel.fraction = fraction;
    o.cancel.moment = moment;
    return o;
}

inline bool has_violation(const mlt::load_report& r, const std::string& metric) {
    for (const auto& v : r.violations)
        if (v.metric == metric) return true;
    return false;
}

}  // namespace cancellation_cases

MCP_LOADTEST_CASE("cancellation: a cancel just as the reply is due crashes the racy server, with its exit and stderr") {
    using namespace cancellation_cases;
    auto server = fixture("cancel_race_server.py");
    server.stderr_to = mlt::stderr_mode::capture;  // keep the expected traceback out of the test log
    const auto options = quick();
    const auto report = co_await mlt::cancellation_check(server, "work", mlt::json::object(), options);
    print_figures("racy fixture", report);
    CHECK(report.verdict == mlt::cancellation_verdict::critical);
    CHECK_FALSE(report.passed());
    CHECK(report.crashes >= 1);

    const auto* due = report.moment(mlt::cancel_moment::reply_due);
    REQUIRE(due != nullptr);
    CHECK(due->crashed);
    CHECK(due->crashed_after_cancels >= 1);
    CHECK(due->exit.exited);
    CHECK(due->exit.code == 1);
    CHECK(due->stderr_tail.find("AssertionError: Request already responded to") != std::string::npos);
    CHECK(due->baseline_median > 100ms);  // 100 ms of work, 50 of replying
    for (const auto& c : due->calls)
        if (c.fate != mlt::cancel_fate::reply_first) {
            CHECK(c.cancel_after >= c.expected * 85 / 100);  // aimed at 90..100 % of the median
            CHECK(c.cancel_after < c.expected * 2);
        }

    // Right after the send the cancel reaches the handler: answered anyway, but no crash.
    const auto* first = report.moment(mlt::cancel_moment::after_send);
    REQUIRE(first != nullptr);
    CHECK_FALSE(first->crashed);
    CHECK(first->sent == options.cancels_per_moment);
    CHECK(first->replied_anyway == first->sent);
    CHECK(first->later_failed == 0);
    for (const auto& c : first->calls) CHECK(c.cancel_after < c.expected / 4);

    const std::string sentence = report.verdict_sentence();
    CHECK(sentence.find("CRASH AFTER CANCEL: the server exited with code 1") != std::string::npos);
    CHECK(sentence.find("Request already responded to") != std::string::npos);
    CHECK(sentence.find("answered") != std::string::npos);
    CHECK(mlt::detail::detector_failure(report) == sentence);
    MESSAGE(sentence);

    const auto back = round_trip(report);
    CHECK(mlt::json(back) == mlt::json(report));
    CHECK(back.moment(mlt::cancel_moment::reply_due)->exit.code == 1);
    CHECK(back.verdict_sentence() == sentence);
}

MCP_LOADTEST_CASE("cancellation: the healthy twin honours every cancel and passes") {
    using namespace cancellation_cases;
    auto server = fixture("cancel_race_server.py", {"--fixed"});
    server.stderr_to = mlt::stderr_mode::discard;
    const auto report = co_await mlt::cancellation_check(server, "work", mlt::json::object(), quick());
    print_figures("healthy twin", report);
    CHECK(report.verdict == mlt::cancellation_verdict::pass);
    CHECK(report.crashes == 0);
    CHECK(report.replied_anyway == 0);
    CHECK(report.later_failed == 0);
    CHECK(report.honoured >= 6);  // after_send and mid_call always reach the handler
    CHECK(report.sent == report.honoured + report.crossed);
    MCP_CHECK_CANCELLATION_SAFE(report);
    CHECK(report.verdict_sentence().rfind("cancellation safe:", 0) == 0);
    MESSAGE(report.verdict_sentence());
    CHECK(mlt::json(round_trip(report)) == mlt::json(report));
}

MCP_LOADTEST_CASE("cancellation: a tool that fails uncancelled is inconclusive, and bad options are refused") {
    auto server = fixture("cancel_race_server.py", {"--fixed"});
    server.stderr_to = mlt::stderr_mode::discard;
    auto options = cancellation_cases::quick();
    options.mid_call = options.reply_due = false;
    const auto report = co_await mlt::cancellation_check(server, "no_such_tool", mlt::json::object(), options);
    CHECK(report.verdict == mlt::cancellation_verdict::inconclusive);
    CHECK(report.passed());
    CHECK(report.sent == 0);
    CHECK(report.verdict_sentence().find("INCONCLUSIVE: the tool does not answer even uncancelled calls") == 0);

    options.after_send = false;
    CHECK_THROWS_AS((void)mlt::cancellation_check(server, "work", mlt::json::object(), options), std::invalid_argument);
    options.after_send = true;
    options.baseline_calls = 0;
    CHECK_THROWS_AS((void)mlt::cancellation_check(server, "work", mlt::json::object(), options), std::invalid_argument);
    CHECK_THROWS_AS(mlt::json::object().get<mlt::cancellation_report>(), std::exception);
}

MCP_LOADTEST_CASE("cancellation: server-everything honours cancels of its long-running operation"
                  * doctest::skip(!mlt_test::have_everything())) {
    using namespace cancellation_cases;
    const auto server = mlt_test::everything();
    const auto args = mlt::args("duration", 0.15, "steps", 1);
    const auto report = co_await mlt::cancellation_check(server, "trigger-long-running-operation", args, quick());
    print_figures("server-everything trigger-long-running-operation", report);
    MESSAGE(report.verdict_sentence());
    CHECK(report.verdict == mlt::cancellation_verdict::pass);
    CHECK(report.replied_anyway == 0);
    CHECK(report.crashes == 0);
    CHECK(report.honoured >= 6);
    MCP_CHECK_CANCELLATION_SAFE(report);
}

MCP_LOADTEST_CASE("cancellation: server-everything's echo is too fast to cancel mid-call, and passes"
                  * doctest::skip(!mlt_test::have_everything())) {
    using namespace cancellation_cases;
    const auto server = mlt_test::everything();
    const auto args = mlt::args("message", "cancel me");
    const auto report = co_await mlt::cancellation_check(server, "echo", args, quick());
    print_figures("server-everything echo", report);
    MESSAGE(report.verdict_sentence());
    CHECK(report.passed());
    CHECK(report.replied_anyway == 0);
    CHECK(report.crashes == 0);
    MCP_CHECK_CANCELLATION_SAFE(report);
}

// ---- run()'s cancellation injection (run_options::cancel) -------------------------

MCP_LOADTEST_CASE("cancellation: run() cancels a fraction of calls mid-call, honoured cancels are neither errors nor latency") {
    using namespace cancellation_cases;
    auto server = fixture("cancel_race_server.py", {"--fixed", "--work-ms", "60", "--reply-ms", "30"});
    server.stderr_to = mlt::stderr_mode::discard;
    const mlt::workload load = mlt::closed_load{.users = 2, .duration = 1500ms};
    const auto calls = mlt::mix::single("work", mlt::json::object());
    const mlt::thresholds no_objectives;  // named: not a braced temporary inside co_await (GCC 12)
    const auto options = cancelling(0.5, mlt::cancel_moment::mid_call);
    const auto report = co_await mlt::run(server, load, calls, no_objectives, options);
    const auto& c = report.cancellation;
    std::printf("[cancellation] run() mid_call on the healthy twin: %llu iterations, %llu sent, %llu honoured, "
                "%llu replied anyway, %llu no estimate, %llu ended first; cancel p50 %.1f ms, call p50 %.1f ms\n",
                static_cast<unsigned long long>(report.iterations_completed), static_cast<unsigned long long>(c.sent),
                static_cast<unsigned long long>(c.honoured), static_cast<unsigned long long>(c.replied_anyway),
                static_cast<unsigned long long>(c.no_estimate), static_cast<unsigned long long>(c.reply_first),
                mlt::detail::ms(c.cancel_after.p50), mlt::detail::ms(report.overall.latency.p50));
    CHECK(c.moment == "mid_call");
    CHECK(c.sent >= 4);
    CHECK(c.honoured == c.sent);
    CHECK(c.replied_anyway == 0);
    CHECK(c.servers_exited == 0);
    // Injected cancels are counted apart: no cancelled outcome, no error, no latency.
    CHECK(report.overall.outcomes[mlt::outcome::cancelled] == 0);
    CHECK(report.overall.error_rate() == 0);
    CHECK(report.overall.calls() + c.sent == report.iterations_completed);
    CHECK(report.overall.histogram.count() == report.overall.calls());
    CHECK(c.cancel_after.count == c.sent);
    CHECK(c.cancel_after.p50 > report.overall.latency.p50 / 4);  // half the median, with wide margins
    CHECK(c.cancel_after.p50 < report.overall.latency.p50);
    MCP_CHECK_PASSED(report);
    CHECK(report.summary().find("cancellation (mid_call): ") != std::string::npos);

    const mlt::json j = report;
    CHECK(mlt::json(j.get<mlt::load_report>()) == j);
    const auto schema = mlt_test::load_json(mlt_test::repo_dir + "/docs/schema/load_report.schema.json");
    const auto problems = mlt_test::validate(j, schema);
    for (const auto& p : problems) CHECK_MESSAGE(false, p);
}

MCP_LOADTEST_CASE("cancellation: run() counts replies to cancelled calls, a violation above max_replied_anyway") {
    using namespace cancellation_cases;
    auto server = fixture("cancel_race_server.py", {"--work-ms", "60", "--reply-ms", "30"});
    server.stderr_to = mlt::stderr_mode::capture;
    const mlt::workload load = mlt::closed_load{.users = 2, .duration = 1s};
    const auto calls = mlt::mix::single("work", mlt::json::object());
    const mlt::thresholds no_objectives;  // named: not a braced temporary inside co_await (GCC 12)
    auto options = cancelling(0.5, mlt::cancel_moment::after_send);
    options.cancel.max_replied_anyway = 0;
    const auto report = co_await mlt::run(server, load, calls, no_objectives, options);
    const auto& c = report.cancellation;
    CHECK(c.sent >= 4);
    // Right after the send the cancel reaches the handler, which answers it with an error at once; only a
    // cancel before any call completed (no latency to judge by) gets the benefit of the doubt (crossed).
    CHECK(c.replied_anyway + c.crossed == c.sent);
    CHECK(c.replied_anyway + 1 >= c.sent);
    CHECK(c.no_estimate == 0);          // after_send needs no latency estimate
    CHECK(report.overall.outcomes[mlt::outcome::cancelled] == 0);
    CHECK(has_violation(report, "cancellation:replied_anyway"));
    CHECK_FALSE(report.passed);
}

MCP_LOADTEST_CASE("cancellation: run() cancelling just as replies are due kills the racy server: a violation with its exit") {
    using namespace cancellation_cases;
    auto server = fixture("cancel_race_server.py");
    server.stderr_to = mlt::stderr_mode::capture;
    const mlt::workload load = mlt::closed_load{.users = 1, .duration = 4s};
    const auto calls = mlt::mix::single("work", mlt::json::object());
    const mlt::thresholds no_objectives;  // named: not a braced temporary inside co_await (GCC 12)
    const auto options = cancelling(0.5, mlt::cancel_moment::reply_due);
    const auto report = co_await mlt::run(server, load, calls, no_objectives, options);
    const auto& c = report.cancellation;
    CHECK(c.sent >= 1);
    CHECK(c.no_estimate == 0);  // the first iteration is not chosen at 0.5, and times the rest
    REQUIRE(c.servers_exited == 1);
    REQUIRE(c.exit_samples.size() == 1);
    CHECK(c.exit_samples.front().find("exited with code 1") != std::string::npos);
    CHECK(c.exit_samples.front().find("Request already responded to") != std::string::npos);
    CHECK(has_violation(report, "cancellation:servers_exited"));
    CHECK(report.aborted);  // its only server is gone
    CHECK(report.duration_s < 3.5);
    CHECK_FALSE(report.passed);
    MESSAGE(report.summary());
}

MCP_LOADTEST_CASE("cancellation: run() refuses a cancel fraction outside 0..1") {
    auto server = fixture("cancel_race_server.py", {"--fixed"});
    const mlt::workload load = mlt::closed_load{.users = 1, .duration = 100ms};
    const auto calls = mlt::mix::single("work", mlt::json::object());
    const mlt::thresholds no_objectives;  // named: not a braced temporary inside co_await (GCC 12)
    auto options = cancellation_cases::cancelling(1.5, mlt::cancel_moment::mid_call);
    bool refused = false;
    try {
        co_await mlt::run(server, load, calls, no_objectives, options);
    } catch (const std::invalid_argument& e) {
        refused = std::string(e.what()).find("run_options.cancel.fraction") != std::string::npos;
    }
    CHECK(refused);
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
