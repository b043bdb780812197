// Protocol correctness against real server processes: raw bytes through a
// session (send_raw), the protocol fuzzer, strict schema validation and
// tool coverage (docs/protocol-correctness.md).
#include <doctest/doctest.h>
#include <mcp_loadtest/call_every_tool.hpp>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/fuzz.hpp>
#include <mcp_loadtest/mcp_loadtest.hpp>

#include "support/fixtures.hpp"

#include <string>
#include <vector>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;
using kind = mlt::protocol_violation::kind;

namespace {

const mlt::fuzz_finding* finding(const mlt::fuzz_report& r, const std::string& name) {
    for (const auto& f : r.findings)
        if (f.name == name) return &f;
    return nullptr;
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

// ---- the fuzzer ----------------------------------------------------------------

MCP_LOADTEST_CASE("fuzz: a server that crashes on arguments that are not an object, and on batches") {
    auto server = mlt_test::fixture("fragile_server.py");
    server.stderr_to = mlt::stderr_mode::capture;
    auto report = co_await mlt::fuzz(server, {.budget = 20s, .reply_timeout = 1s});
    INFO(report.summary());
    CHECK_FALSE(report.clean());
    CHECK(report.sent == report.planned);
    for (const char* name : {"arguments is null", "arguments is an array", "arguments is a string",
                             "arguments is a number", "a batch of two requests"}) {
        CAPTURE(name);
        const auto* f = finding(report, name);
        REQUIRE(f != nullptr);
        CHECK(f->verdict == mlt::fuzz_verdict::crash);
        CHECK(f->severity() == mlt::fuzz_severity::critical);
        CHECK(f->detail.find("exited with code 1") != std::string::npos);
        CHECK(f->detail.find("AttributeError") != std::string::npos);
    }
    const auto* null_args = finding(report, "arguments is null");
    REQUIRE(null_args != nullptr);
    CHECK(null_args->bytes.find(R"("arguments":null)") != std::string::npos);
    CHECK(null_args->reproduction() == "co_await s.send_raw(R\"mcp(" + null_args->bytes + ")mcp\");");
    // Restarted after each crash, and it crashed of nothing else.
    CHECK(report.restarts == report.count(mlt::fuzz_severity::critical));
    for (const auto& f : report.findings)
        if (f.verdict == mlt::fuzz_verdict::crash) {
            CAPTURE(f.describe());
            CHECK((f.category == "arguments" || f.category == "batch" || f.name.find("arguments is") != std::string::npos));
        }
    // The report survives its JSON form, bytes included.
    const auto back = mlt::json(report).get<mlt::fuzz_report>();
    REQUIRE(back.findings.size() == report.findings.size());
    CHECK(back.findings.front().bytes == report.findings.front().bytes);
    CHECK(back.summary() == report.summary());
}

MCP_LOADTEST_CASE("fuzz: a server that answers every malformed input correctly gets a clean report") {
    auto server = mlt_test::fixture("robust_server.py");
    server.stderr_to = mlt::stderr_mode::capture;
    auto report = co_await mlt::fuzz(server, {.budget = 20s, .reply_timeout = 1s});
    INFO(report.summary());
    for (const auto& f : report.findings) INFO(f.describe());
    MCP_CHECK_FUZZ_CLEAN(report);
    CHECK(report.findings.empty());
    CHECK(report.sent == report.planned);
    CHECK(report.restarts == 0);
    CHECK(report.categories.count("schema") == 1);
    CHECK(report.categories.at("schema").count(mlt::fuzz_verdict::correct_error) > 10);
}

MCP_LOADTEST_CASE("fuzz: the campaign stops at its count and time budgets") {
    auto server = mlt_test::fixture("robust_server.py");
    auto counted = co_await mlt::fuzz(server, {.max_inputs = 12});
    CHECK(counted.sent == 12);
    CHECK(counted.budget_exhausted);
    CHECK(counted.categories.size() >= 8);  // interleaved: a short campaign still covers the categories
    // A server that answers nothing: each input waits out reply_timeout, so the budget binds.
    auto silent = mlt_test::fixture("hang_on_first_call.py");
    auto timed = co_await mlt::fuzz(silent, {.budget = 1s, .reply_timeout = 200ms, .schema_mutations = false});
    CHECK(timed.budget_exhausted);
    CHECK(timed.sent < timed.planned);
    // Bounded: the budget, plus at most one input's reply timeout and liveness ping, plus a restart.
    CHECK(timed.elapsed < 1s + 3 * 200ms + 2s);
}
