// Cases for payload_sweep (included by tests/test_detectors.cpp): the wedging
// stdio fixture found and bracketed around its real buffer size, its healthy
// twin passing to 15 MiB, a truncated echo caught, server-everything, and
// 1/4/15 MiB echo round trips through every transport.
#pragma once

#include <mcp_loadtest/detectors/payload_sweep.hpp>
#include "support/every_transport.hpp"

#include <filesystem>
#include <string>
#include <unistd.h>

// This fragment is a header to GCC, which then warns that coroutine frames holding
// doctest's captures (CHECK_MESSAGE, the MCP_CHECK_* macros) use an anonymous
// namespace; the main file is exempt (as tests/CMakeLists.txt notes for doc_snippets).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsubobject-linkage"
#endif

namespace payload_cases {

using mlt_test::quiet;

inline mlt::stdio_server wedge(std::vector<std::string> flags) {
    return quiet(fixture("payload_wedge_server.py", std::move(flags)));
}

/// The sweep of the buggy fixture: short timeouts, so a hang costs about a second.
inline mlt::payload_sweep_options quick_echo_sweep() {
    mlt::payload_sweep_options o;
    o.expect_echo = true;
    o.timeout = 1500ms;
    return o;
}

/// The length of the request line the client writes for an echo of `bytes`
/// (request id `id`): the fixture wedges when it exceeds its buffer.
inline std::size_t echo_line_length(std::size_t bytes, std::uint64_t id) {
    const std::string envelope = R"({"jsonrpc":"2.0","id":)" + std::to_string(id) +
                                 R"(,"method":"tools/call","params":{"name":"echo","arguments":{"message":""}}})";
    return envelope.size() + bytes + 1;  // + newline
}


}  // namespace payload_cases

MCP_LOADTEST_CASE("payload sweep: a stdio server that wedges past its 4 KiB read buffer is bracketed around it") {
    // Two buffer sizes: the bracket follows the fixture's real limit, wherever it is.
    const std::vector<std::size_t> buffers{4096, 10000};
    for (const std::size_t buffer : buffers) {
        const auto server = payload_cases::wedge({"--buffer", std::to_string(buffer)});
        const auto t0 = std::chrono::steady_clock::now();
        const auto report = co_await mlt::payload_sweep(server, "echo", "message", payload_cases::quick_echo_sweep());
        const auto took = std::chrono::steady_clock::now() - t0;
        MESSAGE(report.verdict_sentence());
        MESSAGE("buffer " << buffer << ": verdict in " << mlt::detail::format_duration(took) << ", "
                          << report.probes.size() << " calls");
        CHECK_FALSE(report.passed());
        CHECK(report.verdict == mlt::payload_verdict::limit_found);
        CHECK(report.failure == mlt::payload_failure::hang);
        CHECK_FALSE(report.answered_after_failure);  // wedged for good: a ping went unanswered too
        CHECK(report.restarts >= 1);                 // a fresh server for the bisection
        CHECK(report.bisection_steps >= 2);
        // The real limit, request line <= buffer, lies in the bracket (ids: the request's own are
        // small numbers, so the line length is within a few bytes of this).
        REQUIRE(report.last_good_bytes < report.first_bad_bytes);
        CHECK(payload_cases::echo_line_length(report.last_good_bytes, 9) <= buffer + 2);
        CHECK(payload_cases::echo_line_length(report.first_bad_bytes, 9) > buffer - 2);
        CHECK(report.first_bad_bytes - report.last_good_bytes <= report.last_good_bytes / 8);  // bisected narrow
        CHECK(report.verdict_sentence().find("PAYLOAD LIMIT") == 0);
        CHECK(report.verdict_sentence().find("stdin loop") != std::string::npos);
        for (const auto& p : report.probes) {
            // Good exactly when the request line fits the buffer; a good one carried the payload both ways.
            CHECK_MESSAGE(p.good == (payload_cases::echo_line_length(p.bytes, 9) <= buffer), p.bytes);
            if (p.good) CHECK_MESSAGE((p.bytes_sent > p.bytes && p.bytes_received > p.bytes), p.bytes);
        }
        CHECK(took < 20s);
    }
}

MCP_LOADTEST_CASE("payload sweep: the healthy twin echoes every size up to 15 MiB") {
    const auto server = payload_cases::wedge({"--healthy"});
    mlt::payload_sweep_options options;
    options.expect_echo = true;
    const auto t0 = std::chrono::steady_clock::now();
    const auto report = co_await mlt::payload_sweep(server, "echo", "message", options);
    const auto took = std::chrono::steady_clock::now() - t0;
    MESSAGE(report.verdict_sentence());
    MESSAGE("healthy twin: verdict in " << mlt::detail::format_duration(took));
    MCP_CHECK_NO_PAYLOAD_LIMIT(report);
    CHECK(report.verdict == mlt::payload_verdict::pass);
    REQUIRE(report.probes.size() == 9);  // 16 B, 1, 4, 16, 64, 256 KiB, 1, 4, 15 MiB
    CHECK(report.probes.back().bytes == 15u * 1024 * 1024);
    CHECK(report.probes.back().bytes_sent > 15u * 1024 * 1024);
    CHECK(report.probes.back().bytes_received > 15u * 1024 * 1024);
    CHECK(report.last_good_bytes == 15u * 1024 * 1024);
    CHECK(report.first_bad_bytes == 0);
    CHECK(report.restarts == 0);

    // A non-echo tool, the swept value beside a fixed argument.
    mlt::payload_sweep_options notes;
    notes.max_bytes = 1024 * 1024;
    const auto base = mlt::args("title", "sweep");
    const auto saved = co_await mlt::payload_sweep(server, "save_note", "body", base, notes);
    MCP_CHECK_NO_PAYLOAD_LIMIT(saved);
    CHECK(saved.probes.size() == 7);
    CHECK(took < 20s);
}

MCP_LOADTEST_CASE("payload sweep: a truncated echo is a failure, bracketed at the truncation") {
    const auto server = payload_cases::wedge({"--healthy", "--truncate-echo", "100000"});
    const auto report = co_await mlt::payload_sweep(server, "echo", "message", payload_cases::quick_echo_sweep());
    MESSAGE(report.verdict_sentence());
    CHECK(report.verdict == mlt::payload_verdict::limit_found);
    CHECK(report.failure == mlt::payload_failure::echo_mismatch);
    CHECK(report.last_good_bytes <= 100000);
    CHECK(report.first_bad_bytes > 100000);
    CHECK(report.failure_message.find("matches for the first 100000 bytes, then ends (truncated)") !=
          std::string::npos);
    // Without the echo check the same server passes: the check is what finds it.
    mlt::payload_sweep_options unchecked;
    unchecked.max_bytes = 1024 * 1024;
    const auto blind = co_await mlt::payload_sweep(server, "echo", "message", unchecked);
    CHECK(blind.passed());
}

MCP_LOADTEST_CASE("payload sweep: a tool that fails even with a tiny value is inconclusive, and bad input throws") {
    const auto echo = payload_cases::quiet(fixture("echo_server.py"));
    const auto report = co_await mlt::payload_sweep(echo, "fail", "message", payload_cases::quick_echo_sweep());
    MESSAGE(report.verdict_sentence());
    CHECK(report.verdict == mlt::payload_verdict::inconclusive);
    CHECK(report.passed());
    CHECK(report.first_bad_bytes == 16);
    CHECK(report.probes.size() == 1);

    bool threw = false;
    try {
        co_await mlt::payload_sweep(echo, "no_such_tool", "message", payload_cases::quick_echo_sweep());
    } catch (const std::invalid_argument& e) {
        threw = std::string(e.what()).find("no tool named 'no_such_tool'") != std::string::npos;
    }
    CHECK(threw);
    threw = false;
    try {
        co_await mlt::payload_sweep(echo, "echo", "text", payload_cases::quick_echo_sweep());
    } catch (const std::invalid_argument& e) {
        threw = std::string(e.what()).find("no property 'text'") != std::string::npos;
    }
    CHECK(threw);
    mlt::payload_sweep_options too_big;
    too_big.expect_echo = true;
    too_big.max_bytes = 16 * 1024 * 1024;  // the echo would not fit the client's 16 MiB reply limit
    CHECK_THROWS_AS((void)mlt::payload_sweep(echo, "echo", "message", too_big), std::invalid_argument);
    mlt::payload_sweep_options flat;
    flat.growth = 1.0;
    CHECK_THROWS_AS((void)mlt::payload_sweep(echo, "echo", "message", flat), std::invalid_argument);
    const auto not_object = mlt::json::array();
    CHECK_THROWS_AS((void)mlt::payload_sweep(echo, "echo", "message", not_object, payload_cases::quick_echo_sweep()),
                    std::invalid_argument);
}

MCP_LOADTEST_CASE("payload sweep: the report round-trips through JSON") {
    const auto server = payload_cases::wedge({});
    auto options = payload_cases::quick_echo_sweep();
    options.bisect_steps = 1;
    const auto report = co_await mlt::payload_sweep(server, "echo", "message", options);
    REQUIRE(report.verdict == mlt::payload_verdict::limit_found);
    const mlt::json j = report;
    CHECK(j.at("verdict") == "limit_found");
    CHECK(j.at("failure") == "hang");
    CHECK(j.at("probes").at(0).at("duration_ns").is_number_integer());
    const auto back = j.get<mlt::payload_sweep_report>();
    CHECK(mlt::json(back) == j);
    CHECK(back.verdict_sentence() == report.verdict_sentence());
    CHECK(back.probes.size() == report.probes.size());
    CHECK(back.took == report.took);
}

MCP_LOADTEST_CASE("payload sweep: server-everything's echo, bracketed at its SDK's 10 MiB stdio limit" *
                  doctest::skip(!mlt_test::have_everything())) {
    const auto server = mlt_test::everything();
    mlt::payload_sweep_options options;
    options.expect_echo = true;
    // The limit is the finding, not the speed: under ThreadSanitizer, four tests at a time on
    // two cores, a 9.5 MiB echo took 4.5 s of the default 5.4 s allowed at that size.
    options.timeout_per_mib = std::chrono::seconds(1);
    const auto t0 = std::chrono::steady_clock::now();
    const auto report = co_await mlt::payload_sweep(server, "echo", "message", options);
    const auto took = std::chrono::steady_clock::now() - t0;
    MESSAGE(report.verdict_sentence());
    MESSAGE("server-everything: verdict in " << mlt::detail::format_duration(took));
    for (const auto& p : report.probes)
        MESSAGE(p.bytes << " bytes: " << mlt::to_string(p.outcome) << " in "
                        << mlt::detail::format_duration(p.duration));
    // A finding, not a failure of ours: the TypeScript SDK's stdio transport (ReadBuffer,
    // STDIO_DEFAULT_MAX_BUFFER_SIZE = 10 MiB in @modelcontextprotocol/sdk 1.32.2) closes on a longer
    // message and the server exits with code 0. The sweep brackets that limit.
    const std::size_t sdk_limit = 10u * 1024 * 1024;
    CHECK(report.verdict == mlt::payload_verdict::limit_found);
    CHECK(report.failure == mlt::payload_failure::crash);
    CHECK(report.last_good_bytes < sdk_limit);
    CHECK(report.first_bad_bytes + 64 * 1024 > sdk_limit);
    CHECK(report.verdict_sentence().find("exited cleanly") != std::string::npos);
    // Below that limit it passes: no false positive.
    mlt::payload_sweep_options below;
    below.expect_echo = true;
    below.max_bytes = 8u * 1024 * 1024;
    below.timeout_per_mib = options.timeout_per_mib;
    const auto under = co_await mlt::payload_sweep(server, "echo", "message", below);
    MESSAGE(under.verdict_sentence());
    MESSAGE("server-everything up to 8 MiB: verdict in " << mlt::detail::format_duration(under.took));
    MCP_CHECK_NO_PAYLOAD_LIMIT(under);
}

MCP_LOADTEST_CASE("payload sweep: 1, 4 and 15 MiB echoes round-trip on every transport") {
    mlt_test::every_transport every;
    co_await every.launch();
    mlt::payload_sweep_options options;
    options.expect_echo = true;
    options.min_bytes = 1024 * 1024;  // 16 B, then 1, 4 and 15 MiB
    options.timeout_per_mib = std::chrono::seconds(1);  // as above: sizes, not speed, are checked
    for (std::size_t i = 0; i < every.servers.size(); ++i) {
        const auto report = co_await mlt::payload_sweep(every.servers[i], "echo", "message", options);
        MESSAGE(every.names[i] << ": " << report.verdict_sentence());
        for (const auto& p : report.probes)
            MESSAGE("  " << p.bytes << " bytes: " << mlt::to_string(p.outcome) << " in "
                         << mlt::detail::format_duration(p.duration) << ", sent " << p.bytes_sent << ", received "
                         << p.bytes_received);
        MCP_CHECK_NO_PAYLOAD_LIMIT(report);
        CHECK_MESSAGE(report.transport == every.names[i], every.names[i]);
        REQUIRE(report.probes.size() == 4);
        CHECK(report.probes.back().bytes == 15u * 1024 * 1024);
        CHECK(report.probes.back().bytes_received > 15u * 1024 * 1024);
    }
    co_await every.close();
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
