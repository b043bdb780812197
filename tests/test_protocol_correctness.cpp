// Protocol correctness against real server processes: raw bytes through a
// session (send_raw), the protocol fuzzer, strict schema validation and
// tool coverage (docs/protocol-correctness.md).
#include <doctest/doctest.h>
#include <mcp_loadtest/call_every_tool.hpp>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/fuzz.hpp>
#include <mcp_loadtest/run.hpp>
#include <mcp_loadtest/strict.hpp>
#include <mcp_loadtest/mcp_loadtest.hpp>

#include "support/fixtures.hpp"

#include <filesystem>
#include <set>
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

// The official schemas, beside the repository (../shared/mcp-schema, as CI lays it out).
const std::string schema_dir = std::string(MCP_LOADTEST_TEST_FIXTURES) + "/../../shared/mcp-schema";
const bool have_schemas = std::filesystem::exists(schema_dir + "/2025-06-18.schema.json");

std::vector<std::string> pointers(const std::vector<mlt::schema_violation>& v, const std::string& tool) {
    std::vector<std::string> out;
    for (const auto& x : v)
        if (x.tool == tool) out.push_back(x.where + " " + x.pointer + " " + x.rule);
    return out;
}

}  // namespace

// ---- the generators (no server) -------------------------------------------------

TEST_CASE("fuzz corpus: unique names, unique ids, and every parse_error input really is not JSON") {
    const mlt::json args{{"message", "hi"}};
    const auto corpus = mlt::detail::envelope_corpus("echo", args, 1000000000);
    CHECK(corpus.size() >= 60);
    std::set<std::string> names, categories;
    std::set<std::string> ids;
    for (const auto& in : corpus) {
        CAPTURE(in.name);
        CHECK(names.insert(in.name).second);
        categories.insert(in.category);
        const bool parses = mlt::json::accept(in.bytes);
        if (in.expect == mlt::fuzz_expectation::parse_error) CHECK_FALSE(parses);
        if (in.reply_id && !in.reply_id->is_null() && in.category != "id") CHECK(ids.insert(in.reply_id->dump()).second);
    }
    for (const char* c : {"json", "envelope", "id", "method", "params", "arguments", "batch", "nesting", "strings",
                          "encoding", "notification", "lifecycle"})
        CHECK(categories.count(c) == 1);
    // Deterministic: the same corpus every time.
    const auto again = mlt::detail::envelope_corpus("echo", args, 1000000000);
    REQUIRE(again.size() == corpus.size());
    for (std::size_t i = 0; i < corpus.size(); ++i) CHECK(again[i].bytes == corpus[i].bytes);
}

TEST_CASE("schema arguments: examples satisfy their schema, and each mutation breaks it exactly when it says so") {
    const std::vector<mlt::json> schemas{
        mlt::json::parse(R"({"type":"object","properties":{"message":{"type":"string","maxLength":10}},"required":["message"]})"),
        mlt::json::parse(R"({"type":"object","additionalProperties":false,
            "properties":{"n":{"type":"integer","minimum":5,"maximum":9},"unit":{"type":"string","enum":["ms","s"]},
                          "tags":{"type":"array","items":{"type":"string"},"minItems":2},
                          "when":{"type":"string","format":"date-time"},"note":{"type":["string","null"]}},
            "required":["n","unit","tags"]})"),
        mlt::json::parse(R"({"type":"object","$defs":{"pt":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}},
            "properties":{"at":{"$ref":"#/$defs/pt"},"mode":{"anyOf":[{"const":"fast"},{"type":"integer"}]}},
            "required":["at","mode"]})")};
    for (const auto& schema : schemas) {
        CAPTURE(schema.dump());
        const auto compiled = mlt::json_schema::compile(schema);
        const auto example = mlt::detail::example_arguments(schema);
        CAPTURE(example.dump());
        CHECK(compiled.accepts(example));
        const auto mutations = mlt::detail::mutate_arguments(schema, 7);
        CHECK(mutations.size() >= 4);
        CHECK(mutations.size() <= 64);
        for (const auto& m : mutations) {
            CAPTURE(m.name);
            CAPTURE(m.arguments.dump().substr(0, 200));
            CHECK(compiled.accepts(m.arguments) == !m.must_be_rejected);
        }
        // The seed picks values, so the same seed gives the same mutations.
        const auto again = mlt::detail::mutate_arguments(schema, 7);
        REQUIRE(again.size() == mutations.size());
        for (std::size_t i = 0; i < again.size(); ++i) CHECK(again[i].arguments == mutations[i].arguments);
    }
}

TEST_CASE("strict: a bad content item gives one finding, not one per content type it is not") {
    if (!have_schemas) return;
    const auto schema = mlt::mcp_schema::load(schema_dir + "/2025-06-18.schema.json");
    CHECK(schema.revision() == "2025-06-18");
    const auto* call_tool = schema.result_schema("tools/call");
    REQUIRE(call_tool != nullptr);
    std::vector<mlt::schema_violation> found;
    const auto result = mlt::json::parse(R"({"content":[{"type":"text","text":"ok"},{"type":"text"},{"type":"video"}]})");
    call_tool->validate(result, {"result", "t", "tools/call", ""}, found);
    std::vector<std::string> got;
    for (const auto& v : found) got.push_back(v.pointer + " " + v.rule);
    CHECK(got == std::vector<std::string>{"/content/1/text required", "/content/2 anyOf"});
    CHECK(schema.result_schema("ping") != nullptr);  // EmptyResult
    CHECK(schema.result_schema("no/such") == nullptr);
    CHECK_THROWS_WITH_AS(mlt::json_schema::compile(mlt::json::parse(R"({"type":5})")),
                         doctest::Contains("not a usable JSON Schema"), mlt::invalid_schema);
}

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

MCP_LOADTEST_CASE("send_raw: a second reply and an answered notification are protocol violations") {
    auto s = co_await mlt::connect(mlt_test::fixture("hostile_reply_server.py"));
    auto twice = co_await s.call_tool("twice");
    MCP_CHECK_OK(twice);
    CHECK(twice.text() == "first");
    auto poke = co_await s.send_raw(R"({"jsonrpc":"2.0","method":"notifications/poke"})");
    CHECK(poke.outcome == mlt::outcome::protocol_error);
    CHECK(poke.error_code == 0);
    CHECK(poke.message.find("MUST NOT reply to a Notification") != std::string::npos);
    MCP_CHECK_OK(co_await s.ping());  // the second reply has arrived by now (one pipe, in order)
    std::vector<kind> kinds;
    std::string seen;
    for (const auto& v : s.protocol_violations()) {
        seen += v.describe() + "\n";
        kinds.push_back(v.what);
    }
    CAPTURE(seen);
    CHECK(kinds == std::vector<kind>{kind::duplicate_reply, kind::reply_to_notification});
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

MCP_LOADTEST_CASE("fuzz: a server that echoes the fuzzer's own lone surrogate is told so, as a warning, not an error") {
    auto server = mlt_test::fixture("echo_server.py");
    server.stderr_to = mlt::stderr_mode::capture;
    auto report = co_await mlt::fuzz(server, {.budget = 20s, .reply_timeout = 1s, .schema_mutations = false});
    INFO(report.summary());
    const auto* echoed = finding(report, "an escaped lone surrogate");
    REQUIRE(echoed != nullptr);
    CHECK(echoed->verdict == mlt::fuzz_verdict::echoed_input);
    CHECK(echoed->severity() == mlt::fuzz_severity::warning);
    CHECK(echoed->reply.find("\\ud800") != std::string::npos);
    CHECK(echoed->detail.find("the fuzzer's own input") != std::string::npos);
    // Not excused: the same surrogate sent as invalid UTF-8 (CESU-8), which the server had to
    // reject with -32700, and echoed instead.
    const auto* cesu = finding(report, "an encoded surrogate (CESU-8)");
    REQUIRE(cesu != nullptr);
    CHECK(cesu->severity() == mlt::fuzz_severity::error);
    CHECK(mlt::json(report).get<mlt::fuzz_report>().findings.size() == report.findings.size());
}

TEST_CASE("fuzz: an echoed lone surrogate is the input's, a paired one or a surrogate of the server's own is not") {
    mlt::call_result r;
    r.outcome = mlt::outcome::malformed;
    r.message = "the reply is not valid JSON (unpaired UTF-16 surrogate escape at byte 60 of 80)";
    r.raw = R"({"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"\uD800"}]}})";
    CHECK(mlt::detail::echoes_invalid_input(R"({"arguments":{"message":"\ud800"}})", r));
    CHECK_FALSE(mlt::detail::echoes_invalid_input(R"({"arguments":{"message":"\udc00"}})", r));  // not what came back
    CHECK_FALSE(mlt::detail::echoes_invalid_input(R"({"arguments":{"message":"\ud800\udc00"}})", r));  // a pair
    CHECK_FALSE(mlt::detail::echoes_invalid_input(R"({"arguments":{"message":"plain"}})", r));
    r.message = "the reply is not valid JSON (syntax error at byte 3 of 80)";
    CHECK_FALSE(mlt::detail::echoes_invalid_input(R"({"arguments":{"message":"\ud800"}})", r));
}

TEST_CASE("fuzz: where JSON-RPC and MCP leave the choice, -32600 and -32602 are both correct") {
    const auto with_code = [](std::int64_t code) {
        mlt::call_result r;
        r.outcome = mlt::outcome::protocol_error;
        r.error_code = code;
        r.raw = R"({"jsonrpc":"2.0","id":1,"error":{"code":)" + std::to_string(code) + R"(,"message":"x"}})";
        return r;
    };
    using mlt::fuzz_expectation;
    const auto either = fuzz_expectation::invalid_request_or_params;
    CHECK(mlt::detail::classify_fuzz_answer(either, with_code(-32600), false) == mlt::fuzz_verdict::correct_error);
    CHECK(mlt::detail::classify_fuzz_answer(either, with_code(-32602), false) == mlt::fuzz_verdict::correct_error);
    CHECK(mlt::detail::classify_fuzz_answer(either, with_code(-32601), false) == mlt::fuzz_verdict::wrong_code);
    CHECK(mlt::detail::classify_fuzz_answer(fuzz_expectation::invalid_params, with_code(-32600), false) ==
          mlt::fuzz_verdict::wrong_code);
    bool found = false;
    for (const auto& in : mlt::detail::envelope_corpus("echo", mlt::args("message", "x"), 1))
        if (in.name == "tools/call params is null") {
            found = true;
            CHECK(in.expect == either);
        }
    CHECK(found);
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
    // Bounded: the budget, plus at most one input's reply timeout and liveness ping, plus a restart
    // (a Python server's restart took 2.1 s on a loaded 2-core machine: 4 s are allowed for it).
    CHECK(timed.elapsed < 1s + 3 * 200ms + 4s);
}

// ---- strict validation -------------------------------------------------------

MCP_LOADTEST_CASE("strict: results that break their outputSchema, omit structuredContent or break the MCP schema" *
                  doctest::skip(!have_schemas)) {
    mlt::client_options o;
    o.strict = mlt::strict_mode({.mcp_schemas = {schema_dir}});
    auto s = co_await mlt::connect(mlt_test::fixture("schema_breaking_server.py"), o);
    CHECK(s.protocol_version() == "2025-11-25");
    auto tools = co_await s.list_tools();
    MCP_REQUIRE_OK(tools.status);
    const mlt::json city{{"city", "Oslo"}};
    for (const auto& t : tools) MCP_CHECK_OK(co_await s.call_tool(t.name, city));
    const auto& v = s.schema_violations();
    for (const auto& x : v) INFO(x.describe());
    using list = std::vector<std::string>;
    CHECK(pointers(v, "weather") == list{"structuredContent /structuredContent/temperature type",
                                         "structuredContent /structuredContent/conditions required"});
    CHECK(pointers(v, "forecast") == list{"structuredContent /structuredContent required"});
    CHECK(pointers(v, "bad_content") == list{"result /content/0/text required"});
    CHECK(pointers(v, "bad_image") == list{"result /content/0/mimeType required"});
    // One cause, one finding: its root type is "objekt", which also makes it unusable and breaks
    // the MCP schema's Tool definition (twice: its "type" const and its "required" array).
    const auto broken = pointers(v, "broken_schema_tool");
    REQUIRE(broken.size() == 1);
    CHECK(broken[0] == "inputSchema /type type");
    for (const auto& x : v) CHECK(x.pointer.find("/tools/") == std::string::npos);
    for (const auto& x : v)
        if (x.tool == "broken_schema_tool") {
            CHECK(x.message.find("and this one is not a usable JSON Schema") != std::string::npos);
            CHECK(x.message.find("the MCP schema agrees: at /tools/4/inputSchema/type") != std::string::npos);
            CHECK(x.message.find("the MCP schema agrees: at /tools/4/inputSchema/required") != std::string::npos);
        }
    CHECK(pointers(v, "good").empty());
    CHECK(s.stats().schema_violations == v.size());
    // The assertion names each one.
    const std::string failure = mlt::detail::schema_violations_failure(s);
    CHECK(failure.find("structuredContent of 'weather' at /structuredContent/temperature breaks \"type\" (value \"hot\")") !=
          std::string::npos);
    co_await s.close();
}

MCP_LOADTEST_CASE("strict: the healthy twin passes in every revision, and invalid arguments are the test's bug" *
                  doctest::skip(!have_schemas)) {
    mlt::client_options o;
    o.strict = mlt::strict_mode({.mcp_schemas = {schema_dir}});
    for (const char* version : {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}) {
        CAPTURE(version);
        o.protocol_version = version;
        const auto healthy = mlt_test::fixture("schema_breaking_server.py", {"--healthy"});
        auto s = co_await mlt::connect(healthy, o);
        auto tools = co_await s.list_tools();
        const mlt::json city{{"city", "Oslo"}};
        for (const auto& t : tools) MCP_CHECK_OK(co_await s.call_tool(t.name, city));
        MCP_CHECK_NO_SCHEMA_VIOLATIONS(s);
        bool thrown = false;
        try {
            const mlt::json wrong{{"city", 7}};
            co_await s.call_tool("good", wrong);
        } catch (const mlt::invalid_arguments& e) {
            thrown = true;
            CHECK(std::string(e.what()).find("at /city breaks \"type\"") != std::string::npos);
            REQUIRE(e.violations().size() == 1);
            CHECK(e.violations()[0].where == "arguments");
        }
        CHECK(thrown);
        co_await s.close();
    }
}

MCP_LOADTEST_CASE("strict: a load run counts schema violations and its threshold gates them" * doctest::skip(!have_schemas)) {
    mlt::run_options options;
    options.sample_interval = 0ms;
    options.client.strict = mlt::strict_mode({.mcp_schemas = {schema_dir}});
    mlt::thresholds slo;
    slo.max_schema_violations = 0;
    const mlt::workload load = mlt::closed_load{.users = 2, .max_iterations = 20};
    const auto calls = mlt::mix::single("weather", mlt::json::object());
    const auto server = mlt_test::fixture("schema_breaking_server.py");
    auto report = co_await mlt::run(server, load, calls, slo, options);
    for (const auto& sample : report.schema_violation_samples) INFO(sample);
    // Two per call, and one from the listing before the run: broken_schema_tool's inputSchema
    // (its one cause, however many rules it breaks: max_schema_violations counts causes).
    CHECK(report.schema_violations == 2 * 20 + 1);
    CHECK_FALSE(report.passed);
    REQUIRE(report.schema_violation_samples.size() == 10);
    CHECK(report.schema_violation_samples[0].find("inputSchema of 'broken_schema_tool'") != std::string::npos);
    CHECK(report.schema_violation_samples[1].find("/structuredContent/temperature breaks \"type\"") != std::string::npos);
    const auto back = mlt::json(report).get<mlt::load_report>();
    CHECK(back.schema_violations == report.schema_violations);
    CHECK(back.schema_violation_samples == report.schema_violation_samples);
}

// ---- coverage ----------------------------------------------------------------

MCP_LOADTEST_CASE("coverage: the never-called tools of a server listing more than the test calls") {
    auto s = co_await mlt::connect(mlt_test::fixture("many_tools_server.py"));
    co_await s.list_tools();
    co_await s.call_tool("echo", mlt::args("message", "a"));
    co_await s.call_tool("echo", mlt::args("message", "b"));
    co_await s.call_tool("fail_always");
    const auto c = s.coverage();
    CHECK(c.ratio() == doctest::Approx(2.0 / 8.0));
    CHECK(c.never_called() == std::vector<std::string>{"add", "count", "lower", "reverse", "sleep_ms", "upper"});
    CHECK(c.always_failing() == std::vector<std::string>{"fail_always"});
    const std::string failure = mlt::detail::coverage_failure(c, 1.0);
    CHECK(failure.find("expected at least 100.0% called, got 25.0%") != std::string::npos);
    CHECK(failure.find("\n  - sleep_ms") != std::string::npos);
    CHECK(mlt::detail::coverage_failure(c, 0.25).empty());
    CHECK(mlt::json(c).get<mlt::coverage_report>() == c);

    // The smoke pass calls every listed tool once, with arguments from its inputSchema.
    auto smoke = co_await mlt::call_every_tool(s);
    CHECK(smoke.tools.size() == 8);
    const auto failed = smoke.failed();
    REQUIRE(failed.size() == 1);
    CHECK(failed[0]->tool == "fail_always");
    MCP_CHECK_COVERAGE(s.coverage(), 1.0);
    co_await s.close();
}

MCP_LOADTEST_CASE("coverage: a load run lists the server once and reports what it never called") {
    mlt::run_options options;
    options.sample_interval = 0ms;
    options.sessions = 2;
    const mlt::workload load = mlt::closed_load{.users = 2, .max_iterations = 10};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    const auto server = mlt_test::fixture("many_tools_server.py");
    const mlt::thresholds none;
    auto report = co_await mlt::run(server, load, calls, none, options);
    CHECK(report.coverage.ratio() == doctest::Approx(1.0 / 8.0));
    CHECK(report.coverage.never_called().size() == 7);
    CHECK(report.coverage.ratio("prompt") == 0.0);  // listed (the fixture declares prompts), never got
    const auto* echo = [&]() -> const mlt::coverage_item* {
        for (const auto& i : report.coverage.items)
            if (i.kind == "tool" && i.name == "echo") return &i;
        return nullptr;
    }();
    REQUIRE(echo != nullptr);
    CHECK(echo->calls == 10);
    CHECK(echo->ok == 10);
    CHECK(report.overall.calls() == 10);  // the listing is not measured
}
