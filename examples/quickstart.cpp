// Quickstart: load tests written as ordinary doctest cases.
//
// Build and run it with `cmake --workflow --preset example`. It drives the
// bundled fixtures/echo_server.py; point `server` at your own server instead.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>

#include <algorithm>
#include <cstdio>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;

MCP_LOADTEST_CASE("first tools/call answers") {
    mlt::stdio_server server{PYTHON, {ECHO_SERVER}};  // any command: {"python3", {"-m", "my_server"}}
    auto session = co_await mlt::connect(server);
    auto tools = co_await session.list_tools();
    REQUIRE(tools.ok());
    auto reply = co_await session.call_tool("echo", mlt::args("message", "hello"), {.timeout = 5s});
    MCP_CHECK_OK(reply);
    CHECK(reply.text() == "hello");
    co_await session.close();
}

MCP_LOADTEST_CASE("256 calls in flight on one session all succeed, p99 under 2 s") {
    mlt::stdio_server server{PYTHON, {ECHO_SERVER}};
    auto session = co_await mlt::connect(server);

    // Serialize the arguments once; every call reuses the bytes.
    const auto args = mlt::raw_json::from(mlt::args("message", "load"));
    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < 256; ++i) calls.push_back(session.call_tool("echo", args, {.timeout = 5s}));
    const auto results = co_await mlt::when_all(std::move(calls));

    std::vector<double> latency_ms;
    for (const auto& r : results) {
        MCP_CHECK_OK(r);
        latency_ms.push_back(std::chrono::duration<double, std::milli>(r.duration).count());
    }
    std::sort(latency_ms.begin(), latency_ms.end());
    const double p50 = latency_ms[latency_ms.size() / 2];
    const double p99 = latency_ms[latency_ms.size() * 99 / 100];
    std::printf("256 calls in flight: p50 %.2f ms, p99 %.2f ms, max %.2f ms\n", p50, p99, latency_ms.back());
    CHECK(p99 < 2000.0);
    co_await session.close();
}

MCP_LOADTEST_CASE("a lazy-init deadlock is caught as a hang, not a stuck test") {
    mlt::stdio_server server{PYTHON, {HANGING_SERVER}};
    auto session = co_await mlt::connect(server);
    auto tools = co_await session.list_tools({.timeout = 2s});  // works
    CHECK(tools.ok());
    auto reply = co_await session.call_tool("get_market_data", mlt::args("ticker", "AAPL"),
                                            {.timeout = 500ms, .grace = 500ms});
    MCP_CHECK_OUTCOME(reply, mlt::outcome::deadlock);  // never answered: the bug is found
    std::printf("%s\n", reply.describe().c_str());
    co_await session.close();  // stdin close is ignored; SIGTERM ends it
}
