// Interop: the official TypeScript SDK's reference server,
// @modelcontextprotocol/server-everything (pinned in tests/interop/package.json,
// installed by `npm ci`), spawned over stdio.
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>

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
