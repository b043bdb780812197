// A load test against a remote (network) MCP server. Point it at your own:
//
//     MCP_SERVER_URL=https://mcp.example.com/mcp MCP_BEARER_TOKEN=... ./example_remote_server
//
// Without MCP_SERVER_URL it starts the bundled Streamable HTTP fixture on
// 127.0.0.1, so it runs anywhere. The token is read from the environment and
// never printed: reports and failure messages show the URL without secrets.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/http.hpp>
#include <mcp_loadtest/run.hpp>
#include <mcp_loadtest/server_process.hpp>

#include <cstdlib>
#include <optional>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;

namespace {
std::string env_or(const char* name, std::string fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::string(v) : std::move(fallback);
}
}  // namespace

MCP_LOADTEST_CASE("remote server: sustained load over Streamable HTTP meets its SLOs") {
    std::optional<mlt::server_process> local;
    std::string url = env_or("MCP_SERVER_URL", "");
    if (url.empty()) {
        // No server given: start the bundled fixture (it prints its URL when ready).
        const mlt::stdio_server fixture{PYTHON, {FIXTURES "/http_server.py"}};
        local = co_await mlt::launch(fixture);
        url = local->url();
    }
    mlt::http_server server;
    server.url = url;
    server.bearer_token = env_or("MCP_BEARER_TOKEN", "");  // sent as Authorization: Bearer, never printed
    server.connections = 8;

    mlt::run_options options;
    options.sessions = 1;
    if (local) options.sample_pids = {local->pid()};  // sample the server we started
    const auto calls = mlt::mix::single(env_or("MCP_TOOL", "echo"), mlt::args("message", "hello"));
    const mlt::workload load = mlt::open_load{.rate = 100, .duration = 2s};
    mlt::thresholds objectives;
    objectives.p99 = 500ms;
    objectives.error_rate = 0.01;
    auto report = co_await mlt::run(server, load, calls, objectives, options);
    MESSAGE(report.summary());
    MCP_REQUIRE_PASSED(report);
    if (local) co_await local->close();
}
