// Unit tests of the JSON-RPC framing layer: the envelope scanner that
// correlates replies without a DOM, the envelope writer, and call_result;
// and how a session classifies replies that are almost right (hostile fixture).
#include <doctest/doctest.h>
#include <mcp_loadtest/detail/text/command_text.hpp>
#include <mcp_loadtest/detail/wire/json_scan.hpp>
#include <mcp_loadtest/detail/wire/jsonrpc_writer.hpp>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/mcp_loadtest.hpp>

#include "support/fixtures.hpp"

#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace mlt = mcp_loadtest;
using mlt::detail::envelope_scanner;
using namespace std::chrono_literals;

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

TEST_CASE("scanner: whitespace between any two tokens changes no finding, and a stray byte there fails at its offset") {
    // The scanner tests first for the byte it expects and skips whitespace only where that byte
    // is not there: every such place, each kind of whitespace, and a byte that is not whitespace.
    const std::string line =
        R"({"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"a, b: {c}"},1,[true,null,{}]],)"
        R"("isError":true},"x":[]})";
    const auto compact = envelope_scanner::scan(line);
    REQUIRE(compact.valid);
    REQUIRE(compact.result_is_error_flagged);
    const auto result = mlt::json::parse(compact.result.in(line));
    std::vector<std::size_t> boundaries;  // next to a structural byte, outside strings
    bool in_string = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        if (std::string_view("{}[]:,").find(c) != std::string_view::npos) {
            boundaries.push_back(i);
            boundaries.push_back(i + 1);
        }
    }
    REQUIRE(boundaries.size() > 40);
    for (const std::size_t at : boundaries) {
        for (const char* ws : {" ", "\t", "\n", "\r", " \r\n\t "}) {
            std::string spaced = line;
            spaced.insert(at, ws);
            CAPTURE(spaced);
            const auto env = envelope_scanner::scan(spaced);
            REQUIRE(env.valid);
            CHECK(env.jsonrpc_20);
            CHECK(env.id_value == 12);
            CHECK(env.result_is_object);
            CHECK(env.result_is_error_flagged);
            CHECK(env.duplicate == nullptr);
            CHECK(mlt::json::parse(env.result.in(spaced)) == result);
        }
        std::string stray = line;
        stray.insert(at, "x");
        CAPTURE(stray);
        const auto env = envelope_scanner::scan(stray);
        CHECK_FALSE(env.valid);
        CHECK(env.failure == mlt::detail::scan_failure::syntax);
        CHECK(env.error_offset == at);
    }
}

TEST_CASE("scanner: the compact opening \"jsonrpc\":\"2.0\", (read in one step) is still checked like any member") {
    auto env = envelope_scanner::scan(R"({"jsonrpc":"2.0", "id":3,"result":{}})");
    CHECK(env.valid);
    CHECK(env.jsonrpc_20);
    CHECK(env.id_value == 3);
    for (const char* bad : {R"({"jsonrpc":"2.0",})", R"({"jsonrpc":"2.0",)", R"({"jsonrpc":"2.0",,"id":1})",
                            R"({"jsonrpc":"2.0","id":1)"}) {
        CAPTURE(bad);
        CHECK_FALSE(envelope_scanner::scan(bad).valid);
    }
    env = envelope_scanner::scan(R"({"jsonrpc":"2.1","id":3,"result":{}})");  // sixteen bytes, not the opening
    CHECK(env.valid);
    CHECK_FALSE(env.jsonrpc_20);
    env = envelope_scanner::scan(R"({"jsonrpc":"2.0","id":3,"jsonrpc":"2.0","result":{}})");
    REQUIRE(env.duplicate != nullptr);
    CHECK(std::string(env.duplicate) == "jsonrpc");
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

// ---- text a JSON parser rejects: invalid UTF-8, unpaired surrogate escapes ----

TEST_CASE("scanner: strings must be UTF-8 (RFC 3629) and the failing byte is reported") {
    for (const char* good : {"{\"t\":\"caf\xC3\xA9 \xE2\x82\xAC \xF0\x9D\x84\x9E \xF4\x8F\xBF\xBF \xEF\xBF\xBF\"}",
                             "{\"\xC3\xA9\":\"\xE4\xB8\xAD\xE6\x96\x87\xE4\xB8\xAD\xE6\x96\x87\xE4\xB8\xAD\xE6\x96\x87 and ASCII after\"}",
                             R"({"t":"\ud83d\ude00 \u00e9 \uffff"})"}) {
        CAPTURE(good);
        CHECK(envelope_scanner::scan(good).valid);
        CHECK(mlt::json::accept(good));
    }
    // {"t":"ab<bad>","id":3}: the bad sequence starts at byte 8 (counting from 0).
    for (const char* bad : {"\xC3\x28", "\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80",
                            "\xFF", "\x80", "\xE2\x82", "\xF0\x9F\x98"}) {
        const std::string line = std::string("{\"t\":\"ab") + bad + "\",\"id\":3}";
        CAPTURE(line);
        const auto env = envelope_scanner::scan(line);
        CHECK_FALSE(env.valid);
        CHECK(env.failure == mlt::detail::scan_failure::invalid_utf8);
        CHECK(env.error_offset == 8);
        CHECK_FALSE(mlt::json::accept(line));
        // The structure around it is sound: members after it are still located.
        CHECK(env.id_is_integer);
        CHECK(env.id_value == 3);
    }
    // Outside a string too, and where the line ends mid-character.
    CHECK(envelope_scanner::scan("{\"t\":\xC3\xA9}").failure == mlt::detail::scan_failure::syntax);
    CHECK(envelope_scanner::scan("{\"t\":\xC3\x28}").failure == mlt::detail::scan_failure::invalid_utf8);
    CHECK_FALSE(envelope_scanner::scan("\"abcdefghijklmnopqrstuvwxyz\xE2\x82").valid);
}

TEST_CASE("scanner: an unpaired UTF-16 surrogate escape is rejected, as the payload parser does") {
    for (const char* bad : {R"({"t":"\ud800","id":4})", R"({"t":"\udc00","id":4})", R"({"t":"\ud800\u0041","id":4})",
                            R"({"t":"\ud800x","id":4})"}) {
        CAPTURE(bad);
        const auto env = envelope_scanner::scan(bad);
        CHECK_FALSE(env.valid);
        CHECK(env.failure == mlt::detail::scan_failure::unpaired_surrogate);
        CHECK(env.error_offset == 6);
        CHECK_FALSE(mlt::json::accept(bad));
        CHECK(env.id_value == 4);
    }
}

TEST_CASE("scanner: agrees with a real parser on UTF-8 at every 8- and 16-byte boundary") {
    // As the ASCII differential test above, with valid and broken multibyte
    // sequences in the mix: the string scan leaves its fast path at non-ASCII.
    std::uint64_t state = 0x2545f4914f6cdd1dULL;
    const auto next = [&state] {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    const std::string pieces[] = {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9D\x84\x9E", "\xEF\xBF\xBF", "\xF4\x8F\xBF\xBF",
                                  "\xC3", "\x80", "\xE2\x82", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80",
                                  "\xFF", "\\ud83d\\ude00", "\\ud800", "\\udfff", "\"", "\\"};
    std::size_t checked = 0, valid = 0;
    for (std::size_t length = 0; length <= 40; ++length) {
        for (int round = 0; round < 200; ++round) {
            std::string body;
            while (body.size() < length) {
                const std::uint64_t r = next();
                if (r % 5 != 0) body += static_cast<char>('a' + r % 26);
                else body += pieces[(r >> 8) % std::size(pieces)];
            }
            for (const std::string& line : {R"({"jsonrpc":"2.0","id":1,"result":{"text":")" + body + "\"}}",
                                            "\"" + body + "\"", R"({")" + body + R"(":1})"}) {
                const auto env = envelope_scanner::scan(line);
                const bool expected = mlt::json::accept(line);
                CAPTURE(line);
                REQUIRE(env.valid == expected);
                ++checked;
                valid += expected;
            }
        }
    }
    CHECK(checked == 41 * 200 * 3);
    CHECK(valid > 1000);
    CHECK(valid < checked - 1000);
}

TEST_CASE("call_result: a payload the parser rejects throws result_unavailable, never a parser exception") {
    mlt::call_result r;
    r.outcome = mlt::outcome::ok;
    r.method = "tools/call";
    r.tool = "echo";
    r.request_id = 7;
    r.raw = "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"caf\xC3\x28\"}]}}";
    r.payload_begin = static_cast<std::uint32_t>(r.raw.find("{\"content"));
    r.payload_size = static_cast<std::uint32_t>(r.raw.size() - 1 - r.payload_begin);
    CHECK_THROWS_AS((void)r.result(), mlt::result_unavailable);
    CHECK_THROWS_AS((void)r.text(), mlt::result_unavailable);
    CHECK_THROWS_WITH_AS((void)r.result(), doctest::Contains("tools/call echo (id 7)"), mlt::result_unavailable);

    r.error_code = -32000;
    r.outcome = mlt::outcome::server_error;
    CHECK_THROWS_AS((void)r.error(), mlt::result_unavailable);

    // Valid JSON that is not the shape text() reads: a content item whose text is not a string.
    mlt::call_result odd;
    odd.outcome = mlt::outcome::ok;
    odd.raw = R"({"content":[{"type":"text","text":5}]})";
    odd.payload_size = static_cast<std::uint32_t>(odd.raw.size());
    CHECK(odd.result()["content"][0]["text"] == 5);
    CHECK_THROWS_WITH_AS((void)odd.text(), doctest::Contains("content[0].text"), mlt::result_unavailable);
}

TEST_CASE("messages: server text is cut on character boundaries and bytes that are not UTF-8 are escaped") {
    using mcp_loadtest::detail::truncate_for_message;
    CHECK(truncate_for_message("plain\tline\r\n") == "plain\tline  ");
    CHECK(truncate_for_message("caf\xc3\xa9 \xe6\x97\xa5") == "caf\xc3\xa9 \xe6\x97\xa5");   // kept as written
    CHECK(truncate_for_message("a\xff" "b\xc3(") == "a\\xffb\\xc3(");                     // not UTF-8: escaped
    CHECK(truncate_for_message("\xed\xa0\x80") == "\\xed\\xa0\\x80");                     // a surrogate is not UTF-8
    CHECK(truncate_for_message("ab\xe6\x97\xa5", 3) == "ab...");                             // never half a character
    CHECK(truncate_for_message("abcdef", 3) == "abc...");
}

TEST_CASE("command lines: reports keep them whole and quoted, sentences keep the program, the script and the last words") {
    using namespace mcp_loadtest::detail;
    const std::string deep = "/home/someone/src/" + std::string(160, 'd') + "/mcp-loadtest/fixtures";
    const std::string long_arg(250, 'x');
    const std::vector<std::string> argv{"/usr/bin/python3", "-c", "import sys\nprint('hi')", deep + "/server.py:helper",
                                        "300", "", long_arg};
    const std::string whole = join_command(argv);
    CHECK(whole == "/usr/bin/python3 -c 'import sys print('\\''hi'\\'')' " + deep + "/server.py:helper 300 '' " +
                       long_arg);
    CHECK(split_command(whole) == std::vector<std::string>{"/usr/bin/python3", "-c", "import sys print('hi')",
                                                           deep + "/server.py:helper", "300", "", long_arg});
    CHECK(join_command({"a", "bcdef"}, 4) == "a bc...");  // the bound, marked
    CHECK(join_command({"caf\xc3\xa9"}, 4) == "caf...");   // never half a character

    // Short forms: the file names, not the head of the path; the last words that fit.
    const std::string brief = short_command(whole);
    MESSAGE(brief);
    CHECK(brief.size() <= 100);
    CHECK(brief.starts_with("python3 "));
    CHECK(brief.find(".../server.py:helper") != std::string::npos);
    CHECK(brief.find("/home/someone") == std::string::npos);
    CHECK(brief.ends_with("xxx..."));  // the last argument, cut to its head
    CHECK(short_command("node dist/index.js stdio") == "node dist/index.js stdio");
    CHECK(short_command("npx -y @modelcontextprotocol/server-everything") ==
          "npx -y @modelcontextprotocol/server-everything");
    CHECK(short_command("python3 " + deep + "/child_leak_server.py --worker") == "python3 .../child_leak_server.py --worker");
    CHECK(short_command(join_command({R"(C:\Program Files\nodejs\node.exe)", R"(C:\src\server\index.js)"})) ==
          "node.exe .../index.js");
    std::string many = "server";
    for (int i = 0; i < 40; ++i) many += " --flag" + std::to_string(i);
    CHECK(short_command(many, 40) == "server ... --flag37 --flag38 --flag39");
    CHECK(short_command("[python3]") == "[python3]");
    CHECK(short_command("") == "");
}

TEST_CASE("scanner: a member the envelope is read from, given twice, is reported with its offset") {
    const std::string once = R"({"jsonrpc":"2.0","id":5,"result":{"isError":false,"content":[{"id":1,"id":2}]}})";
    CHECK(envelope_scanner::scan(once).duplicate == nullptr);  // nested members are the payload's business
    const std::pair<std::string, std::string> twice[] = {
        {R"({"id":5,"jsonrpc":"2.0","id":"x","result":{}})", "id"},
        {R"({"jsonrpc":"2.0","id":5,"result":{},"result":{}})", "result"},
        {R"({"jsonrpc":"2.0","id":5,"error":{},"error":{}})", "error"},
        {R"({"jsonrpc":"2.0","jsonrpc":"1.0","id":5,"result":{}})", "jsonrpc"},
        {R"({"jsonrpc":"2.0","method":"a","method":"b"})", "method"},
        {R"({"jsonrpc":"2.0","method":"a","params":{},"params":{}})", "params"},
        {R"({"jsonrpc":"2.0","id":5,"result":{"isError":true,"isError":false}})", "result.isError"},
    };
    for (const auto& [line, name] : twice) {
        CAPTURE(line);
        const auto env = envelope_scanner::scan(line);
        CHECK(env.valid);  // valid JSON (RFC 8259 only says names SHOULD be unique), but ambiguous
        REQUIRE(env.duplicate != nullptr);
        CHECK(std::string(env.duplicate) == name);
        const std::string key = "\"" + name.substr(name.rfind('.') + 1) + "\"";
        CHECK(line.compare(env.duplicate_offset, key.size(), key) == 0);
        CHECK(line.find(key) < env.duplicate_offset);  // the second one
    }
    // A name written with escapes is the same name to a parser.
    const std::string escaped_twice = R"({"id":5,"\u0069d":"x","jsonrpc":"2.0","result":{"\u0069sError":true,"isError":false}})";
    CHECK(mlt::json::parse(escaped_twice)["id"] == "x");
    auto escaped = envelope_scanner::scan(escaped_twice);
    REQUIRE(escaped.duplicate != nullptr);
    CHECK(std::string(escaped.duplicate) == "id");
    CHECK(escaped.duplicate_offset == 8);
    escaped = envelope_scanner::scan(R"({"jsonrpc":"2.0","\u0069d":7,"r\u0065sult":{"is\u0045rror":true,"isError":true}})");
    CHECK(escaped.id_value == 7);
    CHECK(escaped.result.present());
    CHECK(escaped.result_is_error_flagged);
    REQUIRE(escaped.duplicate != nullptr);
    CHECK(std::string(escaped.duplicate) == "result.isError");
    CHECK(envelope_scanner::scan(R"({"i\nd":1,"\u00e9":2,"\"id\"":3,"\u0069\u0064\u0069":4})").duplicate == nullptr);

    // Two ids: the first integer one is kept, so a call it names can be failed.
    const auto env = envelope_scanner::scan(R"({"id":"x","id":5,"result":{}})");
    CHECK(env.id_is_integer);
    CHECK(env.id_value == 5);
}

TEST_CASE("scanner: the fast path for valid objects reports what the exact path does, on every edit of real replies") {
    // scan() reads a valid object on a fast path and anything else again on the exact
    // one (scan_exact). Replies as servers write them, and every line one edit away:
    // cut short, a byte deleted, a byte inserted (whitespace, a quote, a backslash, a
    // bracket, a digit, non-ASCII), a byte replaced.
    const std::vector<std::string> replies = {
        R"({"jsonrpc":"2.0","id":12345,"result":{"content":[{"type":"text","text":"ok"}]}})",
        R"({"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Unknown tool: nope"}})",
        R"({"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"boom"}],"isError":true}})",
        R"({"result":{"content":[{"type":"text","text":"x"}]},"jsonrpc":"2.0","id":9})",
        R"({"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"a \"quoted\" caf\u00e9 é"}],)"
        R"("structuredContent":{"n":-1.5e3,"ok":true,"no":false,"none":null,"list":[1,[2,{}],[]]}}})",
        R"({"jsonrpc": "2.0", "id": 4, "result": {"content": [{"type": "text", "text": "spaced"}], "isError": false}})",
        R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":5,"progress":1}})",
        R"({"jsonrpc":"2.0","id":"s-1","method":"sampling/createMessage","params":{"messages":[]}})",
        R"({"jsonrpc":"2.0","id":1,"id":2,"result":{"isError":true,"isError":false}})",
        R"({"jsonrpc":"2.0","\u0069d":5,"result":{"\u0069sError":true}})",
        R"({"jsonrpc":"2.0","id":18446744073709551616,"result":{}})",
        R"({"jsonrpc":"2.0","id":0,"result":{"content":[]}})",
    };
    const std::string inserts = " \t\"\\{}[]:,05-e\x80\xff";
    std::size_t lines = 0, valid = 0;
    const auto check = [&](const std::string& line) {
        const auto env = envelope_scanner::scan(line);
        CAPTURE(line);
        CHECK(env == envelope_scanner::scan_exact(line));
        ++lines;
        valid += env.valid;
    };
    for (const std::string& reply : replies) {
        check(reply);
        check(reply + "\n");
        check("  " + reply + " \r\n");
        for (std::size_t at = 0; at <= reply.size(); ++at) {
            check(reply.substr(0, at));
            if (at < reply.size()) check(reply.substr(0, at) + reply.substr(at + 1));
            for (const char c : inserts) {
                check(reply.substr(0, at) + c + reply.substr(at));
                if (at < reply.size()) check(reply.substr(0, at) + c + reply.substr(at + 1));
            }
        }
    }
    // Nesting around the fast path's own limit (64) and the exact path's (512).
    for (const int depth : {62, 63, 64, 65, 66, 510, 511, 512, 513}) {
        const std::string arrays = std::string(static_cast<std::size_t>(depth), '[') + std::string(static_cast<std::size_t>(depth), ']');
        check(R"({"jsonrpc":"2.0","id":1,"result":{"v":)" + arrays + "}}");
        check(R"({"jsonrpc":"2.0","id":1,"params":)" + arrays + "}");
    }
    MESSAGE(lines << " lines, " << valid << " valid");
    CHECK(valid > 1000);  // the fast path had valid lines to read, not only failures
}

// ---- a session against replies that are almost right -------------------------

MCP_LOADTEST_CASE("hostile replies: invalid UTF-8 or a lone surrogate is malformed, attributed to its call at once") {
    auto server = mlt_test::fixture("hostile_reply_server.py");
    auto s = co_await mlt::connect(server);
    for (const char* tool : {"bad_utf8", "lone_surrogate"}) {
        for (const bool id_last : {false, true}) {
            CAPTURE(tool);
            CAPTURE(id_last);
            auto r = co_await s.call_tool(tool, mlt::args("id_last", id_last), {.timeout = 5s});
            MCP_CHECK_OUTCOME(r, mlt::outcome::malformed);
            CHECK(r.duration < 2s);  // classified on arrival, not by the timeout
            CHECK(r.message.find("at byte") != std::string::npos);
            CHECK_THROWS_AS((void)r.result(), mlt::result_unavailable);
            CHECK_THROWS_AS((void)r.text(), mlt::result_unavailable);
        }
    }
    auto after = co_await s.call_tool("echo", mlt::args("message", "still fine"));
    MCP_CHECK_OK(after);
    CHECK(after.text() == "still fine");
    co_await s.close();
}

MCP_LOADTEST_CASE("hostile replies: a number beyond a double is ok, and its result() throws result_unavailable") {
    auto server = mlt_test::fixture("hostile_reply_server.py");
    auto s = co_await mlt::connect(server);
    auto r = co_await s.call_tool("big_number");
    MCP_CHECK_OK(r);
    CHECK(r.payload_text().find("1e400") != std::string_view::npos);
    CHECK_THROWS_AS((void)r.result(), mlt::result_unavailable);
    co_await s.close();
}

MCP_LOADTEST_CASE("hostile replies: a duplicated member never completes a call") {
    auto server = mlt_test::fixture("hostile_reply_server.py");
    auto s = co_await mlt::connect(server);
    const std::vector<std::pair<std::string, bool>> cases{
        {"id", true}, {"id", false}, {"result", false}, {"error", false}, {"jsonrpc", false}, {"isError", false}};
    for (const auto& [member, call_id_first] : cases) {
        CAPTURE(member);
        CAPTURE(call_id_first);
        auto r = co_await s.call_tool("duplicate", mlt::args("member", member, "call_id_first", call_id_first),
                                      {.timeout = 3s});
        MCP_CHECK_OUTCOME(r, mlt::outcome::malformed);
        CHECK(r.duration < 2s);  // failed on arrival, not left to its timeout
        const std::string name = member == "isError" ? "result.isError" : member;
        CHECK(r.message.find("\"" + name + "\" twice") != std::string::npos);
    }
    MCP_CHECK_OK(co_await s.call_tool("echo", mlt::args("message", "x")));
    REQUIRE(s.protocol_violations().size() == cases.size());
    for (const auto& v : s.protocol_violations()) CHECK(v.what == mlt::protocol_violation::kind::duplicate_member);
    co_await s.close();
}

MCP_LOADTEST_CASE("hostile replies: replies to ids never sent are unknown_response whatever the id's type") {
    auto server = mlt_test::fixture("hostile_reply_server.py");
    auto s = co_await mlt::connect(server);
    auto r = co_await s.call_tool("unknown_ids");
    MCP_CHECK_OK(r);
    CHECK(r.text() == "real");
    using kind = mlt::protocol_violation::kind;
    std::vector<kind> kinds;
    for (const auto& v : s.protocol_violations()) kinds.push_back(v.what);
    const std::vector<kind> expected{kind::unknown_response, kind::unknown_response, kind::unknown_response,
                                     kind::unknown_response, kind::unknown_response, kind::unknown_response,
                                     kind::not_jsonrpc,      kind::not_jsonrpc,      kind::not_jsonrpc};
    REQUIRE(kinds.size() == expected.size());
    for (std::size_t i = 0; i < kinds.size(); ++i) {
        CAPTURE(s.protocol_violations()[i].describe());
        CHECK(kinds[i] == expected[i]);
    }
    co_await s.close();
}
