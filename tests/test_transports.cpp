// Every transport and both protocol eras, against real fixture processes:
// line-delimited JSON-RPC over TCP and Unix sockets, Streamable HTTP, legacy
// HTTP+SSE, WebSocket; the 2026-07-28 stateless era with discovery, -32022
// retry and multi round-trip input requests; automatic era detection.
#include "support/fixtures.hpp"

#include <doctest/doctest.h>
#include <mcp_loadtest/detectors.hpp>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/run.hpp>
#include <mcp_loadtest/server_process.hpp>

#include <filesystem>
#include <string>
#include <unistd.h>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;
using mlt_test::fixture;

namespace {

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

mlt::stdio_server quiet(mlt::stdio_server s) {
    s.stderr_to = mlt::stderr_mode::capture;
    return s;
}

std::string unique_socket_path() {
    return (std::filesystem::temp_directory_path() / ("mlt-" + std::to_string(::getpid()) + "-" +
                                                       std::to_string(std::rand()) + ".sock"))
        .string();
}

// Stops a launched server after a pause, as the second branch of a when_all.
asio::awaitable<mlt::call_result> stop_after(mlt::server_process* proc, std::chrono::milliseconds pause) {
    asio::steady_timer t(co_await asio::this_coro::executor);
    t.expires_after(pause);
    co_await t.async_wait(asio::use_awaitable);
    co_await proc->close();
    co_return mlt::call_result{};
}

mlt::client_options with_elicitation() {
    mlt::client_options o;
    o.request_handlers["elicitation/create"] = [](const mlt::json&) {
        return mlt::json{{"action", "accept"}, {"content", {{"confirmed", true}}}};
    };
    return o;
}

}  // namespace

// ---- sockets ---------------------------------------------------------------

MCP_LOADTEST_CASE("tcp: a line-delimited server over TCP works like stdio, calls pipelined on one connection") {
    auto cmd = quiet(fixture("tcp_server.py"));
    auto proc = co_await mlt::launch(cmd);
    REQUIRE(contains(proc.url(), "tcp://127.0.0.1:"));
    const mlt::socket_server server{proc.url()};
    auto s = co_await mlt::connect(server);
    CHECK(s.pid() == -1);  // not ours: the session only holds a connection
    CHECK(s.identity().era == mlt::protocol_era::legacy);
    auto echo = co_await s.call_tool("echo", mlt::args("message", "over tcp"));
    MCP_CHECK_OK(echo);
    CHECK(echo.text() == "over tcp");

    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < 64; ++i) calls.push_back(s.call_tool("echo", mlt::args("message", std::to_string(i))));
    auto results = co_await mlt::when_all(std::move(calls));
    for (std::size_t i = 0; i < results.size(); ++i) {
        MCP_CHECK_OK(results[i]);
        CHECK(results[i].text() == std::to_string(i));
    }
    auto closed = co_await s.close();
    CHECK(closed.ended == mlt::shutdown_result::how::disconnected);
    auto stopped = co_await proc.close();
    CHECK(stopped.graceful());
}

MCP_LOADTEST_CASE("unix: a line-delimited server over a Unix domain socket") {
    const std::string path = unique_socket_path();
    auto cmd = quiet(fixture("tcp_server.py", {"--unix", path}));
    auto proc = co_await mlt::launch(cmd);
    CHECK(proc.url() == "unix://" + path);
    const mlt::socket_server server{proc.url()};
    auto s = co_await mlt::connect(server);
    const mlt::json two_and_three{{"a", 2}, {"b", 3}};
    auto sum = co_await s.call_tool("add", two_and_three);
    MCP_CHECK_OK(sum);
    CHECK(sum.text() == "5");
    co_await s.close();
    co_await proc.close();
}

MCP_LOADTEST_CASE("tcp: the server dropping the connection fails calls in flight as disconnected") {
    auto cmd = quiet(fixture("tcp_server.py"));
    auto proc = co_await mlt::launch(cmd);
    const mlt::socket_server server{proc.url()};
    auto s = co_await mlt::connect(server);
    const mlt::json five_seconds{{"ms", 5000}};
    std::vector<asio::awaitable<mlt::call_result>> both;
    both.push_back(s.call_tool("sleep", five_seconds));
    both.push_back(stop_after(&proc, 200ms));
    auto results = co_await mlt::when_all(std::move(both));
    const auto& r = results[0];
    CHECK(r.outcome == mlt::outcome::disconnected);
    CHECK(contains(r.message, "closed the connection"));
    co_await s.close();
}

MCP_LOADTEST_CASE("tcp: nothing listening is a clear connect error") {
    const mlt::socket_server server{"tcp://127.0.0.1:1"};
    std::string what;
    try {
        co_await mlt::connect(server);
    } catch (const mlt::connect_error& e) {
        what = e.what();
    }
    CHECK(contains(what, "cannot connect to 127.0.0.1:1"));
    CHECK(contains(what, "Hint"));
}

MCP_LOADTEST_CASE("launch: a server that exits before it is ready is a launch_error with its stderr") {
    auto cmd = quiet(fixture("tcp_server.py", {"--host", "0.0.0.0"}));  // refused by the fixture
    std::string what;
    try {
        co_await mlt::launch(cmd);
    } catch (const mlt::launch_error& e) {
        what = e.what();
    }
    CHECK(contains(what, "exited before it was ready"));
}

// ---- modern era over stdio -------------------------------------------------

MCP_LOADTEST_CASE("modern: era detection picks 2026-07-28 for a modern server over stdio") {
    mlt::forget_detected_eras();
    auto s = co_await mlt::connect(quiet(fixture("modern_server.py")));
    CHECK(s.identity().era == mlt::protocol_era::modern);
    CHECK(s.protocol_version() == "2026-07-28");
    CHECK(s.identity().name == "modern_server");
    auto tools = co_await s.list_tools();
    REQUIRE(tools.ok());
    CHECK(tools.find("confirm") != nullptr);
    auto echo = co_await s.call_tool("echo", mlt::args("message", "stateless"));
    MCP_CHECK_OK(echo);
    CHECK(echo.text() == "stateless");
    auto fail = co_await s.call_tool("fail");
    CHECK(fail.outcome == mlt::outcome::tool_error);
    co_await s.close();
}

MCP_LOADTEST_CASE("modern: era detection picks legacy for a legacy server, and the verdict is cached") {
    mlt::forget_detected_eras();
    auto server = quiet(fixture("echo_server.py"));
    auto s = co_await mlt::connect(server);
    CHECK(s.identity().era == mlt::protocol_era::legacy);
    CHECK(s.protocol_version() == "2025-11-25");
    CHECK(s.stats().requests_sent == 2);  // server/discover, then initialize
    auto again = co_await mlt::connect(server);
    CHECK(again.identity().era == mlt::protocol_era::legacy);
    CHECK(again.stats().requests_sent == 1);  // cached: initialize only
    co_await s.close();
    co_await again.close();
}

MCP_LOADTEST_CASE("modern: a dual-era server is spoken to in the modern era; pinning legacy still works") {
    mlt::forget_detected_eras();
    auto server = quiet(fixture("modern_server.py", {"--also-legacy"}));
    auto s = co_await mlt::connect(server);
    CHECK(s.identity().era == mlt::protocol_era::modern);
    mlt::client_options legacy;
    legacy.era = mlt::era_selection::legacy;
    auto old = co_await mlt::connect(server, legacy);
    CHECK(old.identity().era == mlt::protocol_era::legacy);
    auto echo = co_await old.call_tool("echo", mlt::args("message", "legacy"));
    MCP_CHECK_OK(echo);
    co_await s.close();
    co_await old.close();
}

MCP_LOADTEST_CASE("modern: a modern-only server refuses the legacy handshake with an actionable error") {
    mlt::client_options legacy;
    legacy.era = mlt::era_selection::legacy;
    std::string what;
    try {
        co_await mlt::connect(quiet(fixture("modern_server.py")), legacy);
    } catch (const mlt::connect_error& e) {
        what = e.what();
    }
    CHECK(contains(what, "initialize"));
    CHECK(contains(what, "2026-07-28"));
}

MCP_LOADTEST_CASE("modern: -32022 is answered by retrying with a mutually supported version") {
    mlt::client_options o;
    o.protocol_version = "2027-01-01";  // a future revision this server does not speak
    auto s = co_await mlt::connect(quiet(fixture("modern_server.py")), o);
    CHECK(s.identity().era == mlt::protocol_era::modern);
    CHECK(s.protocol_version() == "2026-07-28");
    CHECK(s.stats().requests_sent == 2);
    auto echo = co_await s.call_tool("echo", mlt::args("message", "retried"));
    MCP_CHECK_OK(echo);
    co_await s.close();
}

MCP_LOADTEST_CASE("modern: InputRequiredResult rounds are answered through the request handlers") {
    auto o = with_elicitation();
    o.request_handlers["sampling/createMessage"] = [](const mlt::json&) {
        return mlt::json{{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "42"}}}, {"model", "test"}};
    };
    o.roots = {{"file:///tmp/project", "project"}};
    int questions = 0;
    o.request_handlers["elicitation/create"] = [&questions](const mlt::json& params) {
        ++questions;
        if (params.contains("requestedSchema") && params["requestedSchema"]["properties"].contains("answer"))
            return mlt::json{{"action", "accept"}, {"content", {{"answer", "a" + std::to_string(questions)}}}};
        return mlt::json{{"action", "accept"}, {"content", {{"confirmed", true}}}};
    };
    auto s = co_await mlt::connect(quiet(fixture("modern_server.py")), o);
    REQUIRE(s.identity().era == mlt::protocol_era::modern);

    auto confirm = co_await s.call_tool("confirm", mlt::args("action", "deploy"));
    MCP_CHECK_OK(confirm);
    CHECK(confirm.text() == "confirmed deploy");
    CHECK(confirm.input_rounds == 1);

    auto all = co_await s.call_tool("ask_all");
    MCP_CHECK_OK(all);
    CHECK(contains(all.text(), "sampled: 42"));
    CHECK(contains(all.text(), "file:///tmp/project"));

    questions = 0;
    const mlt::json three_rounds{{"rounds", 3}};
    auto survey = co_await s.call_tool("survey", three_rounds);
    MCP_CHECK_OK(survey);
    CHECK(survey.input_rounds == 3);
    CHECK(survey.text() == "answers: a1,a2,a3");

    const mlt::json two_retries{{"retries", 2}};
    auto busy = co_await s.call_tool("busy", two_retries);
    MCP_CHECK_OK(busy);
    CHECK(busy.input_rounds == 2);
    co_await s.close();
}

MCP_LOADTEST_CASE("modern: an input request with no handler fails the call clearly; a round limit bounds it") {
    auto s = co_await mlt::connect(quiet(fixture("modern_server.py")));
    auto confirm = co_await s.call_tool("confirm", mlt::args("action", "x"));
    // Without the elicitation capability the server refuses (-32021) or asks anyway: either way, no ok.
    CHECK_FALSE(confirm.ok());
    CHECK(confirm.outcome == mlt::outcome::protocol_error);

    mlt::client_options o = with_elicitation();
    o.max_input_rounds = 2;
    auto limited = co_await mlt::connect(quiet(fixture("modern_server.py")), o);
    const mlt::json five_rounds{{"rounds", 5}};
    auto survey = co_await limited.call_tool("survey", five_rounds);
    CHECK(survey.outcome == mlt::outcome::protocol_error);
    CHECK(contains(survey.message, "max_input_rounds"));
    co_await s.close();
    co_await limited.close();
}

MCP_LOADTEST_CASE("modern: the deadlock probe flags a modern server hanging on tools/call") {
    auto server = quiet(fixture("modern_server.py", {"--hang-tools-call"}));
    const auto args = mlt::args("message", "x");
    auto probe = co_await mlt::deadlock_probe(server, "echo", args,
                                              mlt::probe_options{.concurrent = 4, .hang_threshold = 500ms});
    CHECK(probe.verdict == mlt::probe_verdict::critical);
    CHECK(probe.deadlocked >= 1);
}
