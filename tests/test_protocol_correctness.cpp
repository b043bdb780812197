// Protocol correctness against real server processes: raw bytes through a
// session (send_raw), the protocol fuzzer, strict schema validation and
// tool coverage (docs/protocol-correctness.md).
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/mcp_loadtest.hpp>

#include "support/fixtures.hpp"

#include <string>
#include <vector>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;
using kind = mlt::protocol_violation::kind;

namespace {

bool saw(const mlt::session& s, kind k) {
    for (const auto& v : s.protocol_violations())
        if (v.what == k) return true;
    return false;
}

}  // namespace

// ---- send_raw ----------------------------------------------------------------

MCP_LOADTEST_CASE("send_raw: each malformed message gets its JSON-RPC answer, and the session stays usable") {
    auto s = co_await mlt::connect(mlt_test::fixture("echo_server.py"));

    auto parse = co_await s.send_raw(R"({"jsonrpc":"2.0","id":1000000001,"method":)");
    CHECK(parse.outcome == mlt::outcome::protocol_error);
    CHECK(parse.error_code == -32700);
    CHECK(mlt::json::parse(parse.raw)["id"].is_null());

    auto unknown = co_await s.send_raw(R"({"jsonrpc":"2.0","id":1000000002,"method":"tools/frobnicate"})");
    CHECK(unknown.error_code == -32601);
    CHECK(mlt::json::parse(unknown.raw)["id"] == 1000000002);

    auto string_id = co_await s.send_raw(R"({"jsonrpc":"2.0","id":"ид-1","method":"ping"})");
    MCP_CHECK_OK(string_id);
    CHECK(mlt::json::parse(string_id.raw)["id"] == "ид-1");

    auto call = co_await s.send_raw(
        R"({"jsonrpc":"2.0","id":1000000003,"method":"tools/call","params":{"name":"echo","arguments":{"message":"raw"}}})");
    MCP_CHECK_OK(call);
    CHECK(call.method == "tools/call");
    CHECK(call.text() == "raw");

    // A notification expects nothing: the quiet period passes and nothing came.
    auto note = co_await s.send_raw(R"({"jsonrpc":"2.0","method":"notifications/whatever"})", {.quiet = 100ms});
    MCP_CHECK_OK(note);
    CHECK_FALSE(note.answered());

    auto after = co_await s.call_tool("echo", mlt::args("message", "still here"));
    MCP_CHECK_OK(after);
    CHECK(after.text() == "still here");
    CHECK(s.protocol_violations().empty());
    co_await s.close();
}

MCP_LOADTEST_CASE("send_raw: a server that answers nothing ends as hang within the raw timeout") {
    auto s = co_await mlt::connect(mlt_test::fixture("echo_server.py"));
    // A response the server never asked for: it must not answer, so expect none...
    auto response = co_await s.send_raw(R"({"jsonrpc":"2.0","id":"srv-99","result":{}})", {.quiet = 100ms});
    MCP_CHECK_OK(response);
    // ...while a request it never answers (its id is reused by a cancel) is a hang.
    auto slow = co_await s.send_raw(
        R"({"jsonrpc":"2.0","id":1000000010,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":3000}}})",
        {.timeout = 200ms});
    CHECK(slow.outcome == mlt::outcome::hang);
    co_await s.close();
}
