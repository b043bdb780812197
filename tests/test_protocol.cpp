// Unit tests of the JSON-RPC framing layer: the envelope scanner that
// correlates replies without a DOM, the envelope writer, and call_result.
#include <doctest/doctest.h>
#include <mcp_loadtest/detail/json_scan.hpp>
#include <mcp_loadtest/mcp_loadtest.hpp>

#include <string>

namespace mlt = mcp_loadtest;
using mlt::detail::envelope_scanner;

TEST_CASE("scanner: a success reply is located without parsing its result") {
    const std::string line = R"({"jsonrpc":"2.0","id":42,"result":{"content":[{"type":"text","text":"a \"q\" }"}]}})";
    const auto env = envelope_scanner::scan(line);
    CHECK(env.valid);
    CHECK(env.is_object);
    CHECK(env.jsonrpc_20);
    CHECK(env.id_is_integer);
    CHECK(env.id_value == 42);
    CHECK_FALSE(env.method.present());
    CHECK(env.result_is_object);
    CHECK_FALSE(env.result_is_error_flagged);
    CHECK(mlt::json::parse(env.result.in(line))["content"][0]["text"] == "a \"q\" }");
}

TEST_CASE("scanner: member order and whitespace do not matter") {
    const std::string line = " { \"result\" : { \"isError\" : true , \"content\" : [ ] } ,\t\"id\" : 7 , \"jsonrpc\" : \"2.0\" } ";
    const auto env = envelope_scanner::scan(line);
    CHECK(env.valid);
    CHECK(env.id_value == 7);
    CHECK(env.result_is_error_flagged);
}

TEST_CASE("scanner: isError is only read at the top of the result") {
    const std::string line = R"({"jsonrpc":"2.0","id":1,"result":{"content":[{"isError":true}],"nested":{"isError":true}}})";
    CHECK_FALSE(envelope_scanner::scan(line).result_is_error_flagged);
    const std::string flagged_false = R"({"jsonrpc":"2.0","id":1,"result":{"isError":false}})";
    CHECK_FALSE(envelope_scanner::scan(flagged_false).result_is_error_flagged);
}

TEST_CASE("scanner: error replies, requests and notifications") {
    const std::string err = R"({"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"nope"}})";
    auto env = envelope_scanner::scan(err);
    CHECK(env.valid);
    CHECK(env.error.present());
    CHECK(mlt::json::parse(env.error.in(err))["code"] == -32601);

    const std::string req = R"({"jsonrpc":"2.0","id":"srv-1","method":"roots/list","params":{}})";
    env = envelope_scanner::scan(req);
    CHECK(env.valid);
    CHECK(env.method.in(req) == "roots/list");
    CHECK(env.id.in(req) == "\"srv-1\"");
    CHECK_FALSE(env.id_is_integer);

    const std::string note = R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":1}})";
    env = envelope_scanner::scan(note);
    CHECK(env.valid);
    CHECK_FALSE(env.id.present());
    CHECK(env.params.present());
}

TEST_CASE("scanner: invalid JSON is rejected, but a leading id is still found") {
    const std::string truncated = R"({"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"te)";
    auto env = envelope_scanner::scan(truncated);
    CHECK_FALSE(env.valid);
    CHECK(env.id_is_integer);
    CHECK(env.id_value == 9);
    CHECK(env.error_offset > 0);

    for (const char* bad : {"INFO server starting", "{", "{}}", R"({"a":tru})", R"({"a":"\x"})", R"({"a":01})",
                            R"({"a":1.})", R"({"a":[1,]})", R"({"a" 1})", "{\"a\":\"\x01\"}", R"({"a":-})"}) {
        CAPTURE(bad);
        CHECK_FALSE(envelope_scanner::scan(bad).valid);
    }
    for (const char* good : {R"({"a":[1,2.5e-3,-0,true,false,null,{"b":"\u00e9\n"}]})", "{}", "[]", "3", R"("s")"}) {
        CAPTURE(good);
        CHECK(envelope_scanner::scan(good).valid);
    }
}

TEST_CASE("scanner: agrees with a real parser on strings that cross every 8- and 16-byte boundary") {
    // The string scan reads 16 (SSE2) or 8 (SWAR) bytes per step: put quotes,
    // backslashes, escapes and control bytes at every offset of a block and at
    // the line's end, and compare validity and error position with nlohmann.
    std::uint64_t state = 0x9e3779b97f4a7c15ULL;
    const auto next = [&state] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    const char alphabet[] = {'a', 'Z', '0', ' ', '"', '\\', 'n', 'u', '/', '\x01', '\x1f', '\x7f', '{', ':'};
    std::size_t checked = 0, valid = 0;
    for (std::size_t length = 0; length <= 40; ++length) {
        for (int round = 0; round < 300; ++round) {
            std::string body;
            for (std::size_t i = 0; i < length; ++i) {
                // Mostly plain bytes, so that whole blocks pass before a special one.
                const std::uint64_t r = next();
                body += (r % 4 != 0) ? static_cast<char>('a' + r % 26) : alphabet[(r >> 8) % sizeof alphabet];
            }
            for (const std::string& line : {R"({"jsonrpc":"2.0","id":1,"result":{"text":")" + body + "\"}}",
                                            "\"" + body + "\"", R"({"k":")" + body}) {
                const auto env = envelope_scanner::scan(line);
                const bool expected = mlt::json::accept(line);
                CAPTURE(line);
                REQUIRE(env.valid == expected);
                ++checked;
                valid += expected;
            }
        }
    }
    CHECK(checked == 41 * 300 * 3);
    CHECK(valid > 1000);  // the generator reaches both sides
    CHECK(valid < checked - 1000);
}

TEST_CASE("scanner: deep nesting is bounded, not a stack overflow") {
    const std::string deep = std::string(100000, '[') + std::string(100000, ']');
    CHECK_FALSE(envelope_scanner::scan(deep).valid);
    const std::string ok = std::string(500, '[') + std::string(500, ']');
    CHECK(envelope_scanner::scan(ok).valid);
}

TEST_CASE("scanner: ids that are not ours are not mistaken for integers") {
    CHECK_FALSE(envelope_scanner::scan(R"({"id":-1,"result":{}})").id_is_integer);
    CHECK_FALSE(envelope_scanner::scan(R"({"id":1.5,"result":{}})").id_is_integer);
    CHECK_FALSE(envelope_scanner::scan(R"({"id":null,"error":{}})").id_is_integer);
    CHECK(envelope_scanner::scan(R"({"id":18446744073709551615,"result":{}})").id_value == 18446744073709551615ULL);
}

TEST_CASE("writer: request envelopes and string escaping round-trip through a real parser") {
    std::string out;
    mlt::detail::begin_request(out, 12, "tools/call");
    out += R"(,"params":{"name":)";
    const std::string nasty = "quote\" back\\ nl\n tab\t ctl\x01 utf8 é";
    mlt::detail::append_json_string(out, nasty);
    out += "}}";
    const auto j = mlt::json::parse(out);
    CHECK(j["jsonrpc"] == "2.0");
    CHECK(j["id"] == 12);
    CHECK(j["method"] == "tools/call");
    CHECK(j["params"]["name"] == nasty);
}

TEST_CASE("outcome taxonomy: error codes and names") {
    CHECK(mlt::classify_error_code(-32700) == mlt::outcome::protocol_error);
    CHECK(mlt::classify_error_code(-32601) == mlt::outcome::protocol_error);
    CHECK(mlt::classify_error_code(-32603) == mlt::outcome::protocol_error);
    CHECK(mlt::classify_error_code(-32000) == mlt::outcome::server_error);
    CHECK(mlt::classify_error_code(-32002) == mlt::outcome::server_error);
    CHECK(mlt::classify_error_code(42) == mlt::outcome::server_error);
    for (auto o : mlt::all_outcomes) {
        CHECK_FALSE(mlt::to_string(o).empty());
        CHECK_FALSE(mlt::meaning(o).empty());
    }
}

TEST_CASE("call_result: payload is parsed lazily and only when present") {
    mlt::call_result r;
    r.outcome = mlt::outcome::ok;
    r.raw = R"({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]}})";
    const auto env = envelope_scanner::scan(r.raw);
    r.payload_begin = env.result.begin;
    r.payload_size = env.result.size;
    CHECK(r.text() == "a\nb");
    CHECK(r.error().is_null());

    mlt::call_result hung;
    hung.outcome = mlt::outcome::hang;
    hung.method = "tools/call";
    hung.tool = "slow";
    CHECK_THROWS_AS((void)hung.result(), mlt::result_unavailable);
    CHECK(hung.describe_call() == "tools/call slow (id 0)");
}

TEST_CASE("arguments: json, braced lists, args() and raw_json all serialize once") {
    CHECK(mlt::arguments().text() == "{}");
    CHECK(mlt::arguments(mlt::json{{"a", 1}}).text() == R"({"a":1})");
    CHECK(mlt::arguments({{"a", 1}, {"b", "x"}}).text() == R"({"a":1,"b":"x"})");
    CHECK(mlt::arguments(mlt::args("a", 1, "b", "x")).text() == R"({"a":1,"b":"x"})");
    CHECK(mlt::arguments(mlt::raw_json::serialized(R"({"pre":true})")).text() == R"({"pre":true})");
    CHECK(mlt::arguments(mlt::json()).text() == "{}");
}
