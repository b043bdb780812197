// Integration tests: the stdio session against every bundled fixture server,
// as real child processes over real pipes.
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>

#include <asio/experimental/awaitable_operators.hpp>

#include "support/fixtures.hpp"
#include "support/leak_check.hpp"

#include <algorithm>
#include <csignal>
#include <fstream>
#include <map>
#include <set>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;
using mlt_test::fixture;
using ms = std::chrono::milliseconds;

namespace {

asio::awaitable<void> sleep_for(std::chrono::steady_clock::duration d) {
    asio::steady_timer t(co_await asio::this_coro::executor, d);
    co_await t.async_wait(asio::use_awaitable);
}

bool process_exists(pid_t pid) { return ::kill(pid, 0) == 0 || errno != ESRCH; }

std::string slurp(const std::string& path) {
    std::ifstream f(path);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

}  // namespace

// ---- the healthy reference server -------------------------------------------

MCP_LOADTEST_CASE("echo server: handshake, tools, resources, prompts, ping and a graceful close") {
    auto server = fixture("echo_server.py");
    auto s = co_await mlt::connect(server);
    CHECK(s.protocol_version() == "2025-11-25");
    CHECK(s.identity().name == "echo_server");
    CHECK(s.identity().capabilities.contains("tools"));
    CHECK(s.pid() > 0);
    CHECK(s.alive());

    auto tools = co_await s.list_tools();
    REQUIRE(tools.ok());
    REQUIRE(tools.find("echo") != nullptr);
    CHECK(tools.find("echo")->input_schema["type"] == "object");

    auto echo = co_await s.call_tool("echo", mlt::args("message", "hello \"world\"\n"));
    MCP_CHECK_OK(echo);
    CHECK(echo.text() == "hello \"world\"\n");
    CHECK(echo.method == "tools/call");
    CHECK(echo.tool == "echo");
    CHECK(echo.duration > 0ns);

    const mlt::json sum_args{{"a", 2}, {"b", 3}};
    auto sum = co_await s.call_tool("add", sum_args);
    CHECK(sum.text() == "5");

    auto failed = co_await s.call_tool("fail");
    MCP_CHECK_OUTCOME(failed, mlt::outcome::tool_error);
    CHECK(failed.answered());
    CHECK(failed.result()["isError"] == true);

    auto unknown = co_await s.call_tool("no_such_tool");
    MCP_CHECK_OUTCOME(unknown, mlt::outcome::protocol_error);
    CHECK(unknown.error_code == -32602);
    CHECK(unknown.message.find("Unknown tool") != std::string::npos);
    CHECK_THROWS_AS((void)unknown.result(), mlt::result_unavailable);

    MCP_CHECK_OK(co_await s.ping());

    auto unknown_method = co_await s.request("no/such/method");
    MCP_CHECK_OUTCOME(unknown_method, mlt::outcome::protocol_error);
    CHECK(unknown_method.error_code == -32601);

    auto resources = co_await s.list_resources();
    REQUIRE(resources.ok());
    CHECK(resources.size() == 3);
    auto read = co_await s.read_resource(resources[0].uri);
    MCP_CHECK_OK(read);
    CHECK(read.result()["contents"][0]["text"] == "content of " + resources[0].uri);
    auto missing = co_await s.read_resource("fixture://nope");
    MCP_CHECK_OUTCOME(missing, mlt::outcome::server_error);
    CHECK(missing.error_code == -32002);

    auto prompts = co_await s.list_prompts();
    REQUIRE(prompts.ok());
    REQUIRE(prompts.find("greet") != nullptr);
    const mlt::json prompt_args{{"name", "Ada"}};
    auto prompt = co_await s.get_prompt("greet", prompt_args);
    CHECK(prompt.result()["messages"][0]["content"]["text"] == "Hello, Ada!");

    CHECK(s.protocol_violations().empty());
    CHECK(s.stats().requests_sent == s.stats().replies_received);
    const pid_t pid = s.pid();
    auto closed = co_await s.close();
    CHECK(closed.graceful());
    CHECK(closed.status.exited);
    CHECK(closed.status.code == 0);
    CHECK_FALSE(process_exists(pid));
    auto again = co_await s.close();  // idempotent
    CHECK(again.status.code == 0);
}

MCP_LOADTEST_CASE("echo server: list_tools follows every pagination cursor") {
    auto server = fixture("echo_server.py", {"--page-size", "4", "--tools", "9"});
    auto s = co_await mlt::connect(server);
    auto tools = co_await s.list_tools();
    REQUIRE(tools.ok());
    CHECK(tools.size() == 7 + 9);
    CHECK(tools.pages == 4);
    std::set<std::string> names;
    for (const auto& t : tools) names.insert(t.name);
    CHECK(names.size() == tools.size());
    CHECK(names.count("tool_008") == 1);
    co_await s.close();
}

MCP_LOADTEST_CASE("echo server: a repeated list cursor is reported as malformed rather than followed round") {
    // The last page's nextCursor is the first page's again (fixtures/mcp_fixture.py --repeat-cursor):
    // followed blindly, the fixture sends the list round 10 times and the listing would end ok.
    auto server = fixture("echo_server.py", {"--page-size", "2", "--tools", "9", "--repeat-cursor"});
    auto s = co_await mlt::connect(server);
    auto tools = co_await s.list_tools();
    CHECK(tools.status.outcome == mlt::outcome::malformed);
    CHECK(tools.pages == 8);  // pages 0, 2, ..., 14: the last one's cursor "2" came after page 0
    CHECK(tools.size() == 7 + 9);
    CHECK(tools.status.message.find("tools/list returned the cursor \"2\" twice") != std::string::npos);
    // Every list method follows its cursors the same way (3 resources, 2 a page: "2" comes back).
    auto resources = co_await s.list_resources();
    CHECK(resources.status.outcome == mlt::outcome::malformed);
    CHECK(resources.pages == 2);
    CHECK(resources.status.message.find("resources/list returned the cursor \"2\" twice") != std::string::npos);
    // The session is unharmed.
    auto echo = co_await s.call_tool("echo", mlt::args("message", "still here"));
    MCP_CHECK_OK(echo);
    co_await s.close();
}

MCP_LOADTEST_CASE("echo server: 1000 calls in flight on one pipe are correlated by id") {
    auto server = fixture("echo_server.py");
    auto s = co_await mlt::connect(server);
    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < 1000; ++i) calls.push_back(s.call_tool("echo", mlt::args("message", "m" + std::to_string(i))));
    auto results = co_await mlt::when_all(std::move(calls));
    REQUIRE(results.size() == 1000);
    int matched = 0;
    for (int i = 0; i < 1000; ++i) matched += results[i].ok() && results[i].text() == "m" + std::to_string(i);
    CHECK(matched == 1000);
    co_await s.close();
}

MCP_LOADTEST_CASE("slow server: out-of-order replies reach the right callers") {
    auto server = fixture("slow_server.py", {"--delay-ms", "150", "--jitter-ms", "100"});
    auto s = co_await mlt::connect(server);
    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < 40; ++i) {
        if (i % 2 == 0) calls.push_back(s.call_tool("slow"));
        else calls.push_back(s.call_tool("echo", mlt::args("message", std::to_string(i))));
    }
    auto results = co_await mlt::when_all(std::move(calls));
    for (int i = 0; i < 40; ++i) {
        CAPTURE(i);
        MCP_CHECK_OK(results[i]);
        if (i % 2 == 0) {
            CHECK(results[i].text() == "ok");
            CHECK(results[i].duration >= 140ms);
        } else {
            CHECK(results[i].text() == std::to_string(i));
        }
    }
    co_await s.close();
}

MCP_LOADTEST_CASE("echo server: progress and log notifications are collected") {
    std::vector<std::string> seen;
    mlt::client_options options;
    options.on_notification = [&seen](const mlt::notification& n) { seen.push_back(n.method); };
    auto server = fixture("echo_server.py");
    auto s = co_await mlt::connect(server, options);
    auto r = co_await s.call_tool("progress", mlt::args("steps", 3), {.progress = true});
    MCP_CHECK_OK(r);
    CHECK(r.progress_notifications == 3);
    auto logged = co_await s.call_tool("log", mlt::args("level", "warning", "message", "disk almost full"));
    MCP_CHECK_OK(logged);
    REQUIRE(s.notifications().size() == 4);
    CHECK(s.notifications().back().method == "notifications/message");
    CHECK(s.notifications().back().params["data"] == "disk almost full");
    CHECK(seen.size() == 4);
    co_await s.close();
}

MCP_LOADTEST_CASE("progress: the time to the first, and each broken rule named with its request id, in both eras") {
    using kind = mlt::protocol_violation::kind;
    for (const char* script : {"echo_server.py", "modern_server.py"}) {
        CAPTURE(script);
        auto server = fixture(script);
        auto s = co_await mlt::connect(server);
        const mlt::call_options with_progress{.timeout = 5s, .progress = true};
        auto good = co_await s.call_tool("progress", mlt::args("steps", 3), with_progress);
        MCP_CHECK_OK(good);
        CHECK(good.progress_requested);
        CHECK(good.progress_notifications == 3);
        CHECK(good.first_progress > 0ns);
        CHECK(good.first_progress <= good.duration);
        CHECK(good.progress_violations == 0);
        auto unasked = co_await s.call_tool("progress", mlt::args("steps", 3));
        CHECK_FALSE(unasked.progress_requested);
        CHECK(unasked.progress_notifications == 0);
        CHECK(unasked.first_progress == 0ns);
        CHECK(s.stats().protocol_violations == 0);

        // Progress 1, 3, 2: the third does not increase.
        auto decreasing = co_await s.call_tool("progress_broken", mlt::args("rule", "not_increasing"), with_progress);
        MCP_CHECK_OK(decreasing);
        CHECK(decreasing.progress_notifications == 3);
        CHECK(decreasing.progress_violations == 1);
        // The request's token sent back as a string: not its token, but it names the request.
        auto wrong = co_await s.call_tool("progress_broken", mlt::args("rule", "wrong_token", "steps", 2), with_progress);
        MCP_CHECK_OK(wrong);
        CHECK(wrong.progress_notifications == 0);
        CHECK(wrong.progress_violations == 2);
        // Two proper notifications, the reply, then one more 50 ms later.
        auto late = co_await s.call_tool("progress_broken", mlt::args("rule", "after_result", "steps", 2), with_progress);
        MCP_CHECK_OK(late);
        CHECK(late.progress_notifications == 2);
        CHECK(late.progress_violations == 0);
        for (int i = 0; i < 300 && s.stats().progress_after_result == 0; ++i) co_await sleep_for(10ms);
        CHECK(s.stats().progress_not_increasing == 1);
        CHECK(s.stats().progress_wrong_token == 2);
        CHECK(s.stats().progress_after_result == 1);
        CHECK(s.stats().protocol_violations == 4);
        std::map<kind, std::vector<std::uint64_t>> ids;
        for (const auto& v : s.protocol_violations()) {
            ids[v.what].push_back(v.request_id);
            CHECK(v.describe().find("request id " + std::to_string(v.request_id)) != std::string::npos);
        }
        CHECK(ids[kind::progress_not_increasing] == std::vector<std::uint64_t>{decreasing.request_id});
        CHECK(ids[kind::progress_wrong_token] == std::vector<std::uint64_t>{wrong.request_id, wrong.request_id});
        CHECK(ids[kind::progress_after_result] == std::vector<std::uint64_t>{late.request_id});
        co_await s.close();
    }
}

// ---- hangs, deadlocks and deadlines ------------------------------------------

MCP_LOADTEST_CASE("hang on first call: the call ends at its timeout as a hang and the test finishes") {
    auto server = fixture("hang_on_first_call.py");
    auto s = co_await mlt::connect(server);
    auto tools = co_await s.list_tools({.timeout = 2s});
    CHECK(tools.ok());
    const auto t0 = std::chrono::steady_clock::now();
    auto r = co_await s.call_tool("get_market_data", mlt::args("ticker", "AAPL"), {.timeout = 300ms});
    const auto took = std::chrono::steady_clock::now() - t0;
    MCP_CHECK_OUTCOME(r, mlt::outcome::hang);
    CHECK(r.duration >= 300ms);
    CHECK(took < 3s);
    CHECK(r.message.find("within 300 ms") != std::string::npos);
    CHECK_FALSE(r.answered());
    // The server is wedged: even ping goes unanswered now.
    MCP_CHECK_OUTCOME(co_await s.ping({.timeout = 200ms}), mlt::outcome::hang);
    auto closed = co_await s.close();
    CHECK(closed.ended == mlt::shutdown_result::how::terminated);
    CHECK(closed.status.signal == SIGTERM);
}

MCP_LOADTEST_CASE("hang on first call: with a grace period, no reply at all is a deadlock") {
    auto server = fixture("hang_on_first_call.py");
    auto s = co_await mlt::connect(server);
    auto r = co_await s.call_tool("get_market_data", mlt::args("ticker", "AAPL"), {.timeout = 200ms, .grace = 300ms});
    MCP_CHECK_OUTCOME(r, mlt::outcome::deadlock);
    CHECK(r.duration >= 500ms);
    CHECK(r.message.find("deadlocked") != std::string::npos);
    co_await s.close();
}

MCP_LOADTEST_CASE("slow server: a reply inside the grace period is a hang that carries the reply") {
    auto server = fixture("slow_server.py", {"--delay-ms", "400"});
    auto s = co_await mlt::connect(server);
    auto r = co_await s.call_tool("slow", mlt::json::object(), {.timeout = 100ms, .grace = 3s});
    MCP_CHECK_OUTCOME(r, mlt::outcome::hang);
    CHECK(r.answered());
    CHECK(r.text() == "ok");
    CHECK(r.duration >= 400ms);
    co_await s.close();
}

MCP_LOADTEST_CASE("slow server: a reply after the timeout is recorded as late, not lost") {
    auto server = fixture("slow_server.py", {"--delay-ms", "300"});
    auto s = co_await mlt::connect(server);
    auto r = co_await s.call_tool("slow", mlt::json::object(), {.timeout = 100ms, .cancel_on_timeout = false});
    MCP_CHECK_OUTCOME(r, mlt::outcome::hang);
    co_await sleep_for(600ms);
    REQUIRE(s.late_replies().size() == 1);
    CHECK(s.late_replies()[0].request_id == r.request_id);
    CHECK(s.late_replies()[0].after >= 300ms);
    CHECK(s.protocol_violations().empty());
    co_await s.close();
}

MCP_LOADTEST_CASE("session deadline: calls still running end as timeout, later calls fail at once") {
    mlt::client_options options;
    options.session_deadline = 1500ms;
    auto server = fixture("echo_server.py");
    auto s = co_await mlt::connect(server, options);
    MCP_CHECK_OK(co_await s.call_tool("echo", mlt::args("message", "before")));
    auto r = co_await s.call_tool("sleep", mlt::args("ms", 5000));
    MCP_CHECK_OUTCOME(r, mlt::outcome::timeout);
    CHECK(r.message.find("session deadline") != std::string::npos);
    const auto t0 = std::chrono::steady_clock::now();
    MCP_CHECK_OUTCOME(co_await s.ping(), mlt::outcome::timeout);
    CHECK(std::chrono::steady_clock::now() - t0 < 100ms);
    co_await s.close();
}

MCP_LOADTEST_CASE("cancellation: explicit cancel and Asio cancellation both send notifications/cancelled") {
    using namespace asio::experimental::awaitable_operators;
    auto server = fixture("slow_server.py", {"--delay-ms", "5000"});
    auto s = co_await mlt::connect(server);

    // Asio cancellation: a race against a timer cancels the losing call.
    asio::steady_timer timer(co_await asio::this_coro::executor, 100ms);
    auto raced = co_await (s.call_tool("slow") || timer.async_wait(asio::use_awaitable));
    CHECK(raced.index() == 1);
    CHECK(s.in_flight().empty());

    // Explicit cancel of a call in flight.
    std::optional<mlt::call_result> cancelled;
    asio::co_spawn(co_await asio::this_coro::executor,
                   [&]() -> asio::awaitable<void> { cancelled = co_await s.call_tool("slow"); }, asio::detached);
    co_await sleep_for(50ms);
    REQUIRE(s.in_flight().size() == 1);
    CHECK(s.cancel(s.in_flight()[0].request_id, "no longer needed"));
    co_await sleep_for(20ms);
    REQUIRE(cancelled.has_value());
    MCP_CHECK_OUTCOME(*cancelled, mlt::outcome::cancelled);
    CHECK(cancelled->message == "no longer needed");
    CHECK(s.stats().notifications_sent >= 3);  // initialized + 2 cancellations
    // The server honoured the cancellations: the echo still answers promptly.
    MCP_CHECK_OK(co_await s.call_tool("echo", mlt::args("message", "still here"), {.timeout = 2s}));
    co_await s.close();
}

// ---- crashes -------------------------------------------------------------------

MCP_LOADTEST_CASE("crash mid-call: every in-flight call fails as a crash at once, with the exit code") {
    auto server = fixture("crash_server.py", {"--after", "3", "--exit-code", "3"});
    server.stderr_to = mlt::stderr_mode::capture;
    auto s = co_await mlt::connect(server);
    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < 10; ++i) calls.push_back(s.call_tool("echo", mlt::args("message", "x"), {.timeout = 30s}));
    const auto t0 = std::chrono::steady_clock::now();
    auto results = co_await mlt::when_all(std::move(calls));
    CHECK(std::chrono::steady_clock::now() - t0 < 5s);  // far below the 30 s timeout
    MCP_CHECK_OK(results[0]);
    MCP_CHECK_OK(results[1]);
    for (int i = 2; i < 10; ++i) {
        CAPTURE(i);
        MCP_CHECK_OUTCOME(results[i], mlt::outcome::crash);
        CHECK(results[i].message.find("exited with code 3") != std::string::npos);
        CHECK(results[i].message.find("simulated crash") != std::string::npos);  // stderr tail
    }
    CHECK_FALSE(s.alive());
    CHECK(s.exit().code == 3);
    // Later calls fail at once with the same diagnosis.
    MCP_CHECK_OUTCOME(co_await s.ping(), mlt::outcome::crash);
    auto closed = co_await s.close();
    CHECK(closed.ended == mlt::shutdown_result::how::already_exited);
}

MCP_LOADTEST_CASE("crash by signal: the signal is named") {
    auto server = fixture("crash_server.py", {"--signal", "SIGSEGV"});
    auto s = co_await mlt::connect(server);
    auto r = co_await s.call_tool("echo", mlt::args("message", "x"));
    MCP_CHECK_OUTCOME(r, mlt::outcome::crash);
    CHECK(r.message.find("killed by signal 11 (SIGSEGV)") != std::string::npos);
    co_await s.close();
}

MCP_LOADTEST_CASE("crash at startup: connect throws an actionable error with the stderr tail") {
    auto server = fixture("crash_server.py", {"--at-startup"});
    server.stderr_to = mlt::stderr_mode::capture;
    server.stderr_path = std::filesystem::temp_directory_path() / ("mlt-stderr-" + std::to_string(::getpid()) + ".log");
    bool threw = false;
    try {
        auto s = co_await mlt::connect(server);
    } catch (const mlt::connect_error& e) {
        threw = true;
        const std::string what = e.what();
        CHECK(what.find("exited with code 3") != std::string::npos);
        CHECK(what.find("simulated crash") != std::string::npos);
        CHECK(what.find(server.stderr_path.string()) != std::string::npos);
        CHECK(e.result.outcome == mlt::outcome::crash);
    }
    CHECK(threw);
    CHECK(slurp(server.stderr_path.string()).find("simulated crash") != std::string::npos);
    std::filesystem::remove(server.stderr_path);
}

MCP_LOADTEST_CASE("crash on initialize, with stderr inherited: the hint says where stderr went") {
    auto server = fixture("crash_server.py", {"--on-initialize"});
    server.stderr_to = mlt::stderr_mode::discard;
    try {
        auto s = co_await mlt::connect(server);
        FAIL("connect should have thrown");
    } catch (const mlt::connect_error& e) {
        CHECK(std::string(e.what()).find("stderr_mode::capture") != std::string::npos);
    }
}

// ---- broken replies and protocol violations ------------------------------------

MCP_LOADTEST_CASE("error server: JSON-RPC errors map onto the taxonomy") {
    auto server = fixture("error_server.py");
    auto s = co_await mlt::connect(server);
    const std::vector<std::pair<mlt::outcome, std::int64_t>> expected{
        {mlt::outcome::protocol_error, -32601}, {mlt::outcome::protocol_error, -32602},
        {mlt::outcome::protocol_error, -32603}, {mlt::outcome::server_error, -32000},
        {mlt::outcome::protocol_error, -32700}, {mlt::outcome::tool_error, 0},
        {mlt::outcome::ok, 0}};
    for (std::size_t round = 0; round < 2; ++round) {
        for (const auto& [outcome, code] : expected) {
            auto r = co_await s.call_tool("cycle");
            MCP_CHECK_OUTCOME(r, outcome);
            CHECK(r.error_code == code);
        }
    }
    auto custom = co_await s.call_tool("error", mlt::args("code", -32050, "message", "quota exceeded"));
    MCP_CHECK_OUTCOME(custom, mlt::outcome::server_error);
    CHECK(custom.message.find("quota exceeded") != std::string::npos);
    CHECK(custom.error()["code"] == -32050);
    co_await s.close();
}

MCP_LOADTEST_CASE("malformed server: broken replies are classified and the session continues") {
    for (const char* mode : {"truncated", "nojsonrpc", "array"}) {
        CAPTURE(mode);
        auto server = fixture("malformed_server.py", {"--every", "2", "--mode", mode});
        auto s = co_await mlt::connect(server);
        MCP_CHECK_OK(co_await s.call_tool("echo", mlt::args("message", "1")));
        auto broken = co_await s.call_tool("echo", mlt::args("message", "2"), {.timeout = 2s});
        MCP_CHECK_OUTCOME(broken, mlt::outcome::malformed);
        CHECK_FALSE(broken.message.empty());
        MCP_CHECK_OK(co_await s.call_tool("echo", mlt::args("message", "3")));
        co_await s.close();
    }
}

MCP_LOADTEST_CASE("noisy stdout: log lines on stdout are reported with their text, calls still work") {
    auto server = fixture("noisy_stdout_server.py");
    auto s = co_await mlt::connect(server);
    for (int i = 0; i < 5; ++i) MCP_CHECK_OK(co_await s.call_tool("echo", mlt::args("message", "x")));
    REQUIRE(s.protocol_violations().size() >= 6);
    CHECK(s.protocol_violations()[0].what == mlt::protocol_violation::kind::non_json_line);
    CHECK(s.protocol_violations()[0].sample == "INFO server starting");
    CHECK(s.protocol_violations()[1].sample.find("DEBUG handling tools/call") == 0);
    CHECK(s.stats().protocol_violations == s.protocol_violations().size());
    co_await s.close();
}

MCP_LOADTEST_CASE("flood: a 100 MB line is discarded without losing framing or memory") {
    auto server = fixture("flood_server.py", {"--huge-line-mb", "100", "--then-normal"});
    auto s = co_await mlt::connect(server);
    auto huge = co_await s.call_tool("echo", mlt::args("message", "x"), {.timeout = 30s});
    MCP_CHECK_OUTCOME(huge, mlt::outcome::malformed);
    CHECK(huge.message.find("max_message_size") != std::string::npos);
    auto next = co_await s.call_tool("echo", mlt::args("message", "after"), {.timeout = 30s});
    MCP_CHECK_OK(next);
    CHECK(next.text() == "after");
    REQUIRE_FALSE(s.protocol_violations().empty());
    CHECK(s.protocol_violations()[0].what == mlt::protocol_violation::kind::oversized_message);
    CHECK(s.protocol_violations()[0].size >= 100u * 1024 * 1024);
    co_await s.close();
}

MCP_LOADTEST_CASE("flood: an oversized reply whose id comes last still ends its call at once as malformed") {
    auto server = fixture("flood_server.py", {"--huge-line-mb", "2", "--then-normal", "--id-last"});
    server.max_message_size = 1024 * 1024;
    auto s = co_await mlt::connect(server);
    const auto t0 = std::chrono::steady_clock::now();
    auto huge = co_await s.call_tool("echo", mlt::args("message", "x"), {.timeout = 20s});
    MCP_CHECK_OUTCOME(huge, mlt::outcome::malformed);
    CHECK(std::chrono::steady_clock::now() - t0 < 10s);
    CHECK(huge.message.find("max_message_size") != std::string::npos);
    auto next = co_await s.call_tool("echo", mlt::args("message", "after"), {.timeout = 20s});
    MCP_CHECK_OK(next);
    co_await s.close();
}

MCP_LOADTEST_CASE("flood: bytes that never end in a newline fail the call, not the test") {
    auto server = fixture("flood_server.py", {"--no-newline-mb", "40"});
    auto s = co_await mlt::connect(server);
    auto r = co_await s.call_tool("echo", mlt::args("message", "x"), {.timeout = 20s});
    MCP_CHECK_OUTCOME(r, mlt::outcome::malformed);
    CHECK(r.message.find("at least") != std::string::npos);
    co_await s.close();
}

MCP_LOADTEST_CASE("flood: endless garbage on stdout and stderr is drained, the session stays bounded") {
    auto stdout_server = fixture("flood_server.py", {"--flood-stdout"});
    auto s = co_await mlt::connect(stdout_server);
    auto r = co_await s.call_tool("echo", mlt::args("message", "x"), {.timeout = 10s});
    CHECK((r.ok() || r.outcome == mlt::outcome::hang));
    co_await sleep_for(300ms);
    CHECK(s.stats().protocol_violations > 100);
    CHECK(s.protocol_violations().size() == 100);  // only the first 100 are kept
    co_await s.close();

    auto stderr_server = fixture("flood_server.py", {"--flood-stderr"});
    stderr_server.stderr_to = mlt::stderr_mode::capture;
    stderr_server.stderr_tail_bytes = 4096;
    auto e = co_await mlt::connect(stderr_server);
    for (int i = 0; i < 20; ++i) MCP_CHECK_OK(co_await e.call_tool("echo", mlt::args("message", "x"), {.timeout = 10s}));
    CHECK(e.stderr_tail(100000).size() <= 2 * 4096);
    co_await e.close();
}

// ---- lifecycle, shutdown and process hygiene -----------------------------------

MCP_LOADTEST_CASE("slow initialize: startup_timeout bounds the handshake with a clear message") {
    auto slow = fixture("slow_init_server.py", {"--delay-ms", "5000"});
    slow.startup_timeout = 300ms;
    try {
        auto s = co_await mlt::connect(slow);
        FAIL("connect should have thrown");
    } catch (const mlt::connect_error& e) {
        CHECK(e.result.outcome == mlt::outcome::hang);
        CHECK(std::string(e.what()).find("startup_timeout") != std::string::npos);
    }
    auto ok = fixture("slow_init_server.py", {"--delay-ms", "300"});
    auto s = co_await mlt::connect(ok);
    MCP_CHECK_OK(co_await s.ping());
    co_await s.close();
}

MCP_LOADTEST_CASE("stubborn server: close escalates to SIGKILL and takes its children with it") {
    auto server = fixture("stubborn_server.py");
    server.shutdown = {.after_stdin_close = 200ms, .after_sigterm = 200ms, .after_sigkill = 5s};
    server.stderr_to = mlt::stderr_mode::capture;
    auto s = co_await mlt::connect(server);
    MCP_CHECK_OK(co_await s.call_tool("echo", mlt::args("message", "x")));
    const pid_t pid = s.pid();
    auto closed = co_await s.close();
    CHECK(closed.ended == mlt::shutdown_result::how::killed);
    CHECK(closed.status.signal == SIGKILL);
    CHECK(closed.took < 3s);
    CHECK_FALSE(process_exists(pid));
    for (const auto& p : mlt::process_audit::survivors()) CHECK_MESSAGE(p.process_group != pid, p.describe());
}

MCP_LOADTEST_CASE("a session dropped without close() kills and reaps its server") {
    pid_t pid = 0;
    {
        auto server = fixture("stubborn_server.py");
        server.stderr_to = mlt::stderr_mode::discard;
        auto s = co_await mlt::connect(server);
        pid = s.pid();
        CHECK(process_exists(pid));
    }
    CHECK_FALSE(process_exists(pid));
    for (const auto& p : mlt::process_audit::survivors()) CHECK_MESSAGE(p.process_group != pid, p.describe());
}

MCP_LOADTEST_CASE("spawn errors say what was wrong and what to do") {
    mlt::stdio_server missing{"mcp-loadtest-no-such-binary"};
    try {
        auto s = co_await mlt::connect(missing);
        FAIL("connect should have thrown");
    } catch (const mlt::spawn_error& e) {
        CHECK(std::string(e.what()).find("was not found on PATH") != std::string::npos);
    }
    auto bad_dir = fixture("echo_server.py");
    bad_dir.working_dir = "/nonexistent/dir";
    CHECK_THROWS_WITH_AS(co_await mlt::connect(bad_dir), doctest::Contains("working directory"), mlt::spawn_error);
    mlt::stdio_server empty;
    CHECK_THROWS_WITH_AS(co_await mlt::connect(empty), doctest::Contains("command is empty"), mlt::spawn_error);
}

MCP_LOADTEST_CASE("a server that exits at once with code 0 is diagnosed as such") {
    mlt::stdio_server quits{mlt_test::python, {"-c", "pass"}};
    try {
        auto s = co_await mlt::connect(quits);
        FAIL("connect should have thrown");
    } catch (const mlt::connect_error& e) {
        CHECK(std::string(e.what()).find("exited with code 0") != std::string::npos);
    }
}

MCP_LOADTEST_CASE("connect_error names an exit before initialize and the lines written to stdout before it") {
    mlt::stdio_server banner{mlt_test::python, {"-c", "import sys; print('Starting my server v2', flush=True); "
                                                      "sys.stderr.write('no API key\\n'); sys.exit(2)"}};
    banner.stderr_to = mlt::stderr_mode::capture;
    try {
        auto s = co_await mlt::connect(banner);
        FAIL("connect should have thrown");
    } catch (const mlt::connect_error& e) {
        const std::string what = e.what();
        CHECK(what.find("exited with code 2 before answering initialize") != std::string::npos);
        CHECK(what.find("no API key") != std::string::npos);
        CHECK(what.find("1 line(s) to stdout that are not JSON-RPC") != std::string::npos);
        CHECK(what.find("\"Starting my server v2\"") != std::string::npos);
    }
}

MCP_LOADTEST_CASE("connect_error suspects Python's buffered stdout when initialize goes unanswered") {
    auto buffered = fixture("buffered_stdout_server.py");
    buffered.env["PYTHONUNBUFFERED"] = "";  // empty: unset, for Python and for the hint
    buffered.startup_timeout = 500ms;
    try {
        auto s = co_await mlt::connect(buffered);
        FAIL("connect should have thrown");
    } catch (const mlt::connect_error& e) {
        CHECK(e.result.outcome == mlt::outcome::hang);
        CHECK(std::string(e.what()).find("without -u or PYTHONUNBUFFERED") != std::string::npos);
    }
    buffered.env["PYTHONUNBUFFERED"] = "1";  // the cure, and no suspicion
    auto s = co_await mlt::connect(buffered);
    MCP_CHECK_OK(co_await s.ping());
    co_await s.close();
    auto slow = fixture("slow_init_server.py", {"--delay-ms", "5000"});
    slow.args.insert(slow.args.begin(), "-u");
    slow.startup_timeout = 300ms;
    try {
        auto w = co_await mlt::connect(slow);
        FAIL("connect should have thrown");
    } catch (const mlt::connect_error& e) {
        CHECK(std::string(e.what()).find("PYTHONUNBUFFERED") == std::string::npos);
    }
}

MCP_LOADTEST_CASE("environment and working directory reach the server") {
    mlt::stdio_server server{mlt_test::python, {"-c", R"(
import json, os, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m: continue
    r = {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {}, "serverInfo": {"name": os.getcwd(), "version": os.environ.get("MLT_PROBE", "")}}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": r}), flush=True)
)"}};
    server.env["MLT_PROBE"] = "probe-value";
    server.working_dir = "/tmp";
    auto s = co_await mlt::connect(server);
    CHECK(s.identity().name == "/tmp");
    CHECK(s.identity().version == "probe-value");
    co_await s.close();
}

// ---- protocol versions and server->client requests -----------------------------

MCP_LOADTEST_CASE("version negotiation: an older server version is accepted, an unknown one refused") {
    auto older = fixture("echo_server.py", {"--versions", "2024-11-05,2025-03-26"});
    auto s = co_await mlt::connect(older);
    CHECK(s.protocol_version() == "2025-03-26");
    co_await s.close();

    auto weird = fixture("echo_server.py", {"--force-version", "1999-01-01"});
    try {
        auto w = co_await mlt::connect(weird);
        FAIL("connect should have thrown");
    } catch (const mlt::connect_error& e) {
        CHECK(std::string(e.what()).find("\"1999-01-01\"") != std::string::npos);
        CHECK(std::string(e.what()).find("client_options.protocol_version") != std::string::npos);
    }

    mlt::client_options pinned;
    pinned.protocol_version = "2024-11-05";
    auto p = co_await mlt::connect(fixture("echo_server.py"), pinned);
    CHECK(p.protocol_version() == "2024-11-05");
    co_await p.close();
}

MCP_LOADTEST_CASE("server->client requests: roots, sampling, elicitation and ping are always answered") {
    mlt::client_options options;
    options.roots = {{"file:///tmp/project", "project"}};
    options.request_handlers["sampling/createMessage"] = [](const mlt::json& params) {
        return mlt::json{{"role", "assistant"},
                         {"content", {{"type", "text"}, {"text", "sampled " + params.value("tag", "")}}},
                         {"model", "fake-model"}};
    };
    auto server = fixture("client_requests_server.py");
    auto s = co_await mlt::connect(server, options);
    co_await sleep_for(200ms);  // roots/list is sent right after notifications/initialized

    auto roots = co_await s.call_tool("last_roots");
    MCP_CHECK_OK(roots);
    const auto roots_json = mlt::json::parse(roots.text());
    CHECK(roots_json["roots"][0]["uri"] == "file:///tmp/project");

    const mlt::json sampling_args{{"method", "sampling/createMessage"}, {"params", {{"tag", "t1"}}}};
    auto sampled = co_await s.call_tool("ask", sampling_args);
    CHECK(mlt::json::parse(sampled.text())["result"]["content"]["text"] == "sampled t1");

    auto elicited = co_await s.call_tool("ask", mlt::args("method", "elicitation/create"));
    const auto elicit_reply = mlt::json::parse(elicited.text());
    CHECK(elicit_reply["error"]["code"] == -32601);
    CHECK(elicit_reply["error"]["message"].get<std::string>().find("request_handlers") != std::string::npos);

    auto pinged = co_await s.call_tool("ask", mlt::args("method", "ping"));
    CHECK(mlt::json::parse(pinged.text())["result"] == mlt::json::object());
    CHECK(s.stats().server_requests_answered == 4);
    co_await s.close();
}

MCP_LOADTEST_CASE("server->client requests: a throwing handler becomes a JSON-RPC error reply") {
    mlt::client_options options;
    options.request_handlers["elicitation/create"] = [](const mlt::json&) -> mlt::json {
        throw mlt::rpc_error(-32042, "user declined");
    };
    options.request_handlers["sampling/createMessage"] = [](const mlt::json&) -> mlt::json {
        throw std::runtime_error("model unavailable");
    };
    auto server = fixture("client_requests_server.py");
    auto s = co_await mlt::connect(server, options);
    auto declined = co_await s.call_tool("ask", mlt::args("method", "elicitation/create"));
    CHECK(mlt::json::parse(declined.text())["error"]["code"] == -32042);
    auto failed = co_await s.call_tool("ask", mlt::args("method", "sampling/createMessage"));
    const auto reply = mlt::json::parse(failed.text());
    CHECK(reply["error"]["code"] == -32603);
    CHECK(reply["error"]["message"].get<std::string>().find("model unavailable") != std::string::npos);
    co_await s.close();
}

// ---- nothing leaks -------------------------------------------------------------

namespace {

// Connects to a server whose first tools/call never returns and calls it;
// with `two`, one frame owns two sessions and waits on both.
asio::awaitable<void> call_until_dropped(std::vector<pid_t>* pids, int* suspended, bool two) {
    using namespace asio::experimental::awaitable_operators;
    auto server = fixture("hang_on_first_call.py");
    server.stderr_to = mlt::stderr_mode::discard;
    auto first = co_await mlt::connect(server);
    pids->push_back(first.pid());
    if (!two) {
        ++*suspended;
        (void)co_await first.call_tool("get_market_data", mlt::args("ticker", "A"), {.timeout = 120s});
    } else {
        auto second = co_await mlt::connect(server);
        pids->push_back(second.pid());
        ++*suspended;
        auto a = first.call_tool("get_market_data", mlt::args("ticker", "A"), {.timeout = 120s});
        auto b = second.call_tool("get_market_data", mlt::args("ticker", "B"), {.timeout = 120s});
        (void)co_await (std::move(a) && std::move(b));
    }
    FAIL("the call should still be suspended when its event loop is destroyed");
}

}  // namespace

// A framework or user code can abandon a case by destroying its event loop
// while calls are suspended: the frames own the sessions, the sessions hold
// the frames' completion handlers. Nothing may survive that.
TEST_CASE("200 sessions dropped mid-call by destroying their io_context leave no process or fd behind") {
    const auto fds_before = mlt_test::open_fds();
    const auto audit_before = mlt::process_audit::spawned();
    constexpr int rounds = 20, per_round = 10;  // the last coroutine of a round owns two sessions
    std::vector<pid_t> pids;
    for (int round = 0; round < rounds; ++round) {
        CAPTURE(round);
        std::vector<pid_t> round_pids;
        int suspended = 0;
        {
            asio::io_context ctx;
            for (int i = 0; i < per_round - 1; ++i) {
                asio::co_spawn(ctx, call_until_dropped(&round_pids, &suspended, i == per_round - 2), asio::detached);
            }
            const auto until = std::chrono::steady_clock::now() + 30s;
            while (suspended < per_round - 1 && std::chrono::steady_clock::now() < until) ctx.run_one_for(100ms);
            REQUIRE(suspended == per_round - 1);
            ctx.run_for(20ms);  // the requests reach the servers, whose first tools/call never returns
            for (pid_t pid : round_pids) REQUIRE(process_exists(pid));
            if (round % 2 == 1) ctx.stop();  // a stopped loop is destroyed the same way
        }
        for (pid_t pid : round_pids) CHECK_MESSAGE(!process_exists(pid), "server " << pid << " outlived its event loop");
        pids.insert(pids.end(), round_pids.begin(), round_pids.end());
    }
    CHECK(pids.size() == static_cast<std::size_t>(rounds * per_round));
    CHECK(mlt::process_audit::spawned() == audit_before + pids.size());
    CHECK(mlt::process_audit::unreaped() == 0);
    for (const auto& p : mlt::process_audit::survivors()) CHECK_MESSAGE(false, "survivor: " << p.describe());
    const auto fds_after = mlt_test::open_fds();
    for (const auto& [fd, target] : fds_after) CHECK_MESSAGE(fds_before.count(fd) == 1, "leaked fd " << fd << " -> " << target);
    CHECK(fds_after.size() == fds_before.size());
}

MCP_LOADTEST_CASE("every kind of ending leaves no process, zombie or file descriptor behind") {
    const auto audit_before = mlt::process_audit::spawned();
    co_await sleep_for(1ms);  // the io_context opens its reactor's descriptors lazily: count after that
    const auto fds_before = mlt_test::open_fds();
    for (const char* name : {"echo_server.py", "hang_on_first_call.py", "crash_server.py", "stubborn_server.py"}) {
        CAPTURE(name);
        auto server = fixture(name);
        server.stderr_to = mlt::stderr_mode::capture;
        server.shutdown = {.after_stdin_close = 200ms, .after_sigterm = 200ms, .after_sigkill = 5s};
        auto s = co_await mlt::connect(server);
        (void)co_await s.call_tool("echo", mlt::args("message", "x"), {.timeout = 300ms});
        co_await s.close();
    }
    CHECK(mlt::process_audit::spawned() == audit_before + 4);
    CHECK(mlt::process_audit::unreaped() == 0);
    const auto survivors = mlt::process_audit::survivors();
    for (const auto& p : survivors) CHECK_MESSAGE(false, "survivor: " << p.describe());
    CHECK(survivors.empty());
    const auto fds_after = mlt_test::open_fds();
    for (const auto& [fd, target] : fds_after) CHECK_MESSAGE(fds_before.count(fd) == 1, "leaked fd " << fd << " -> " << target);
    CHECK(fds_after.size() == fds_before.size());
}

// ---- framing -------------------------------------------------------------------

MCP_LOADTEST_CASE("framing: split writes, CRLF, blank lines and a last line without a newline") {
    // Replies to calls 2..5 arrive in awkward shapes; the last one ends at EOF.
    mlt::stdio_server server{mlt_test::python, {"-c", R"(
import json, sys, time
out = sys.stdout
def send(raw):
    out.write(raw); out.flush()
line = sys.stdin.readline()
m = json.loads(line)
send(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": {"protocolVersion": m["params"]["protocolVersion"], "capabilities": {}, "serverInfo": {"name": "framing", "version": "1"}}}) + "\n")
sys.stdin.readline()  # notifications/initialized
ids = [json.loads(sys.stdin.readline())["id"] for _ in range(4)]
def reply(i, text):
    return json.dumps({"jsonrpc": "2.0", "id": i, "result": {"content": [{"type": "text", "text": text}]}})
r = reply(ids[0], "split")
send(r[:7]); time.sleep(0.05); send(r[7:20]); time.sleep(0.05); send(r[20:] + "\n")
send("\n\n  \r\n" + reply(ids[1], "crlf") + "\r\n")
send(reply(ids[2], "two") + "\n" + reply(ids[3], "at-once"))
time.sleep(0.05)
send("")
sys.stdout.close()
time.sleep(0.2)
)"}};
    auto s = co_await mlt::connect(server);
    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < 4; ++i) calls.push_back(s.call_tool("t", mlt::args("i", i), {.timeout = 5s}));
    auto results = co_await mlt::when_all(std::move(calls));
    const std::vector<std::string> expected{"split", "crlf", "two", "at-once"};
    for (int i = 0; i < 4; ++i) {
        CAPTURE(i);
        MCP_CHECK_OK(results[i]);
        CHECK(results[i].text() == expected[i]);
    }
    CHECK(s.protocol_violations().empty());
    co_await s.close();
}

// ---- the C++ fixture server (fixtures/native/) ---------------------------------------
// The Python fixtures' misbehaviours from one native program (what the Windows suite will
// start): each flag must give the library the outcome its Python twin gives.

MCP_LOADTEST_CASE("native fixture: handshake, list_tools, echo, sleep, errors, ping and a graceful close") {
    auto server = mlt_test::native_fixture();
    auto s = co_await mlt::connect(server);
    CHECK(s.protocol_version() == "2025-11-25");
    CHECK(s.identity().name == "mcp_fixture_server");
    CHECK(s.identity().capabilities.contains("tools"));

    auto tools = co_await s.list_tools();
    REQUIRE(tools.ok());
    CHECK(tools.size() == 2);
    REQUIRE(tools.find("echo") != nullptr);
    CHECK(tools.find("echo")->input_schema["required"] == mlt::json::array({"message"}));
    REQUIRE(tools.find("sleep") != nullptr);
    CHECK(tools.find("sleep")->input_schema["properties"]["ms"]["type"] == "integer");

    auto echo = co_await s.call_tool("echo", mlt::args("message", "hello \"world\"\n"));
    MCP_CHECK_OK(echo);
    CHECK(echo.text() == "hello \"world\"\n");
    auto slept = co_await s.call_tool("sleep", mlt::args("ms", 50));
    MCP_CHECK_OK(slept);
    CHECK(slept.text() == "slept");
    CHECK(slept.duration >= 50ms);

    auto unknown = co_await s.call_tool("no_such_tool");
    MCP_CHECK_OUTCOME(unknown, mlt::outcome::tool_error);
    CHECK(unknown.result()["isError"] == true);
    auto unknown_method = co_await s.request("no/such/method");
    MCP_CHECK_OUTCOME(unknown_method, mlt::outcome::protocol_error);
    CHECK(unknown_method.error_code == -32601);
    MCP_CHECK_OK(co_await s.ping());

    CHECK(s.protocol_violations().empty());
    const pid_t pid = s.pid();
    auto closed = co_await s.close();
    CHECK(closed.graceful());
    CHECK(closed.status.code == 0);
    CHECK_FALSE(process_exists(pid));

    mlt::client_options pinned;
    pinned.protocol_version = "2024-11-05";
    auto plain = mlt_test::native_fixture();
    auto p = co_await mlt::connect(plain, pinned);
    CHECK(p.protocol_version() == "2024-11-05");
    co_await p.close();
}

MCP_LOADTEST_CASE("native fixture: --delay-ms answers concurrent calls concurrently") {
    auto server = mlt_test::native_fixture({"--delay-ms", "200"});
    auto s = co_await mlt::connect(server);
    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < 8; ++i) calls.push_back(s.call_tool("echo", mlt::args("message", std::to_string(i)), {.timeout = 10s}));
    const auto t0 = std::chrono::steady_clock::now();
    auto results = co_await mlt::when_all(std::move(calls));
    const auto took = std::chrono::steady_clock::now() - t0;
    for (int i = 0; i < 8; ++i) {
        CAPTURE(i);
        MCP_CHECK_OK(results[i]);
        CHECK(results[i].text() == std::to_string(i));
        CHECK(results[i].duration >= 200ms);
    }
    CHECK(took < 1200ms);  // one after another: 8 x 200 ms
    co_await s.close();
}

MCP_LOADTEST_CASE("native fixture: --crash-after 2 answers two calls, then the third ends as a crash with code 3") {
    auto server = mlt_test::native_fixture({"--crash-after", "2"});
    server.stderr_to = mlt::stderr_mode::capture;
    auto s = co_await mlt::connect(server);
    MCP_CHECK_OK(co_await s.call_tool("echo", mlt::args("message", "1")));
    MCP_CHECK_OK(co_await s.call_tool("echo", mlt::args("message", "2")));
    const auto t0 = std::chrono::steady_clock::now();
    auto third = co_await s.call_tool("echo", mlt::args("message", "3"), {.timeout = 30s});
    CHECK(std::chrono::steady_clock::now() - t0 < 5s);  // far below the 30 s timeout
    MCP_CHECK_OUTCOME(third, mlt::outcome::crash);
    CHECK(third.message.find("exited with code 3") != std::string::npos);
    CHECK(third.message.find("simulated crash") != std::string::npos);  // stderr tail
    CHECK_FALSE(s.alive());
    CHECK(s.exit().code == 3);
    auto closed = co_await s.close();
    CHECK(closed.ended == mlt::shutdown_result::how::already_exited);
}

MCP_LOADTEST_CASE("native fixture: --hang-on-call ends the call at its timeout as a hang, and close() still ends it") {
    auto server = mlt_test::native_fixture({"--hang-on-call"});
    auto s = co_await mlt::connect(server);
    const auto t0 = std::chrono::steady_clock::now();
    auto r = co_await s.call_tool("echo", mlt::args("message", "x"), {.timeout = 300ms});
    const auto took = std::chrono::steady_clock::now() - t0;
    MCP_CHECK_OUTCOME(r, mlt::outcome::hang);
    CHECK(r.duration >= 300ms);
    CHECK(took < 3s);
    CHECK(r.message.find("within 300 ms") != std::string::npos);
    CHECK_FALSE(r.answered());
    // Unlike hang_on_first_call.py, only the call is stuck: ping still answers, and stdin EOF ends it.
    MCP_CHECK_OK(co_await s.ping({.timeout = 2s}));
    const pid_t pid = s.pid();
    auto closed = co_await s.close();
    CHECK(closed.graceful());
    CHECK(closed.took < 3s);
    CHECK_FALSE(process_exists(pid));
}

MCP_LOADTEST_CASE("native fixture: --pollute-stdout is reported with its text, as noisy_stdout_server.py is") {
    auto server = mlt_test::native_fixture({"--pollute-stdout"});
    auto s = co_await mlt::connect(server);
    for (int i = 0; i < 3; ++i) MCP_CHECK_OK(co_await s.call_tool("echo", mlt::args("message", "x")));
    REQUIRE(s.protocol_violations().size() == 1);
    CHECK(s.protocol_violations()[0].what == mlt::protocol_violation::kind::non_json_line);
    CHECK(s.protocol_violations()[0].sample == "starting up...");
    CHECK(s.stats().protocol_violations == 1);
    co_await s.close();
}

MCP_LOADTEST_CASE("native fixture: --crlf lines are read as lines, with nothing malformed or in violation") {
    auto server = mlt_test::native_fixture({"--crlf"});
    auto s = co_await mlt::connect(server);
    auto tools = co_await s.list_tools();
    REQUIRE(tools.ok());
    CHECK(tools.size() == 2);
    for (int i = 0; i < 5; ++i) {
        auto echo = co_await s.call_tool("echo", mlt::args("message", "line " + std::to_string(i)));
        MCP_CHECK_OK(echo);
        CHECK(echo.text() == "line " + std::to_string(i));
    }
    MCP_CHECK_OK(co_await s.ping());
    CHECK(s.protocol_violations().empty());
    CHECK(s.stats().protocol_violations == 0);
    co_await s.close();
}

MCP_LOADTEST_CASE("native fixture: --flood sends its log notifications before each tools/call reply") {
    auto server = mlt_test::native_fixture({"--flood", "5"});
    auto s = co_await mlt::connect(server);
    for (int i = 0; i < 3; ++i) MCP_CHECK_OK(co_await s.call_tool("echo", mlt::args("message", "x")));
    REQUIRE(s.notifications().size() == 15);
    for (const auto& n : s.notifications()) CHECK(n.method == "notifications/message");
    CHECK(s.notifications().back().params["data"] == "flood 5 of 5");
    CHECK(s.protocol_violations().empty());
    co_await s.close();
}

MCP_LOADTEST_CASE("native fixture: --spawn-child leaves a child in the server's group, which close() ends with it") {
    auto server = mlt_test::native_fixture({"--spawn-child"});
    server.stderr_to = mlt::stderr_mode::capture;
    auto s = co_await mlt::connect(server);
    const pid_t pgid = s.pid();
    // The server logs the child's pid before reading stdin; the stderr tail arrives in its own time.
    pid_t child = 0;
    for (const auto until = std::chrono::steady_clock::now() + 5s; child == 0 && std::chrono::steady_clock::now() < until;) {
        const std::string tail = s.stderr_tail();
        if (const auto at = tail.find("child pid "); at != std::string::npos) child = static_cast<pid_t>(std::stol(tail.substr(at + 10)));
        else co_await sleep_for(10ms);
    }
    REQUIRE(child > 0);
    const auto while_open = mlt::process_audit::survivors();
    const auto found = std::find_if(while_open.begin(), while_open.end(),
                                    [&](const mlt::audited_process& p) { return p.pid == child; });
    REQUIRE(found != while_open.end());  // the audit sees what the server left running
    CHECK(found->process_group == pgid);
    CHECK(found->escaped_from == 0);
    CHECK(found->command.find("--sleep-forever") != std::string::npos);

    auto closed = co_await s.close();
    CHECK(closed.graceful());  // the server itself exits at stdin EOF; the group's SIGKILL takes the child
    auto survivors = mlt::process_audit::survivors();
    for (const auto until = std::chrono::steady_clock::now() + 2s; !survivors.empty() && std::chrono::steady_clock::now() < until;) {
        co_await sleep_for(10ms);
        survivors = mlt::process_audit::survivors();
    }
    for (const auto& p : survivors) CHECK_MESSAGE(false, "survivor: " << p.describe());
    CHECK(survivors.empty());
}
