// diff_json(), the reply diff of record and replay (docs/reports.md#comparing-replies): rules,
// pointers, canonical JSON. Included by tests/test_reports.cpp; no server, no Asio.
#include <mcp_loadtest/replay/json_diff.hpp>

#include <stdexcept>
#include <string>

namespace json_diff_cases {

using mlt::json;

/// "pointer kind" of each difference, one per line: what a test compares against.
inline std::string summary(const mlt::json_diff& d) {
    std::string s;
    for (const auto& x : d.differences) s += x.pointer + " " + std::string(mlt::to_string(x.kind)) + "\n";
    return s;
}

/// A tools/call reply whose content text is `text`.
inline json reply(const std::string& text, int id = 1) {
    return json{{"jsonrpc", "2.0"}, {"id", id}, {"result", {{"content", json::array({{{"type", "text"}, {"text", text}}})}}}};
}

}  // namespace json_diff_cases

TEST_CASE("json diff: equal documents whose keys come in another order have no difference") {
    using namespace json_diff_cases;
    const auto before = json::parse(R"({"a":1,"b":{"x":[1,2,{"p":true,"q":null}],"y":"s"}})");
    const auto after = json::parse(R"({"b":{"y":"s","x":[1,2,{"q":null,"p":true}]},"a":1})");
    const auto d = mlt::diff_json(before, after);
    CHECK(d.equal());
    CHECK(d.total() == 0);
    CHECK(mlt::canonical_json(before) == mlt::canonical_json(after));
    CHECK(mlt::canonical_json(before) == R"({"a":1,"b":{"x":[1,2,{"p":true,"q":null}],"y":"s"}})");
    CHECK(mlt::to_string(d).empty());
}

TEST_CASE("json diff: each kind of difference at its pointer, in document order") {
    using namespace json_diff_cases;
    const auto before = json::parse(R"({"changed":1,"gone":true,"list":[1,2,3],"set":["a","b","c"],"typed":"7","z":{"deep":"x"}})");
    const auto after = json::parse(R"({"changed":2,"list":[1,2],"new":{"k":1},"set":["c","a","b"],"typed":7,"z":{"deep":"y"}})");
    const auto d = mlt::diff_json(before, after);
    CHECK(summary(d) ==
          "/changed changed\n"
          "/gone removed\n"
          "/list/2 removed\n"
          "/new added\n"
          "/set reordered\n"
          "/typed type_changed\n"
          "/z/deep changed\n");
    REQUIRE(d.differences.size() == 7);
    CHECK(d.differences[0].before == 1);
    CHECK(d.differences[0].after == 2);
    CHECK(d.differences[1].before == true);
    CHECK(d.differences[1].after.is_null());
    CHECK(d.differences[2].before == 3);
    CHECK(d.differences[3].before.is_null());
    CHECK(d.differences[3].after == json{{"k", 1}});
    CHECK(d.differences[4].before == json{"a", "b", "c"});
    CHECK(d.differences[4].after == json{"c", "a", "b"});
    CHECK(mlt::to_string(d.differences[0]) == "/changed: changed 1 -> 2");
    CHECK(mlt::to_string(d.differences[1]) == "/gone: removed true");
    CHECK(mlt::to_string(d.differences[3]) == R"(/new: added {"k":1})");
    CHECK(mlt::to_string(d.differences[5]) == R"(/typed: type_changed "7" (string) -> 7 (number))");
    // A whole document of another type is one difference at the empty pointer.
    const auto whole = mlt::diff_json(json::array(), json::object());
    REQUIRE(whole.differences.size() == 1);
    CHECK(whole.differences[0].pointer.empty());
    CHECK(mlt::to_string(whole.differences[0]) == "(the whole value): type_changed [] (array) -> {} (object)");
    // Long values are cut in the one-line form, not in the difference.
    const auto longer = mlt::diff_json(json{{"t", std::string(1000, 'a')}}, json{{"t", "b"}});
    REQUIRE(longer.differences.size() == 1);
    CHECK(longer.differences[0].before.get<std::string>().size() == 1000);
    CHECK(mlt::to_string(longer.differences[0]).size() < 230);
}

TEST_CASE("json diff: ignore patterns, with * for any key or index") {
    using namespace json_diff_cases;
    const auto before = json::parse(
        R"({"result":{"content":[{"text":"a","_meta":{"t":1}},{"text":"b","_meta":{"t":2}}],"structuredContent":{"generatedAt":"10:00","v":1}}})");
    const auto after = json::parse(
        R"({"result":{"content":[{"text":"a","_meta":{"t":5}},{"text":"b"}],"structuredContent":{"generatedAt":"10:07","v":1}}})");
    CHECK(summary(mlt::diff_json(before, after)) ==
          "/result/content/0/_meta/t changed\n"
          "/result/content/1/_meta removed\n"
          "/result/structuredContent/generatedAt changed\n");
    mlt::diff_rules rules;
    rules.ignore = {"/result/content/*/_meta", "/result/structuredContent/generatedAt"};
    CHECK(mlt::diff_json(before, after, rules).equal());
    // Only what the pattern names: a changed value beside it is still a difference.
    auto changed = after;
    changed["result"]["structuredContent"]["v"] = 2;
    CHECK(summary(mlt::diff_json(before, changed, rules)) == "/result/structuredContent/v changed\n");
    // An index segment names one element only.
    rules.ignore = {"/result/content/0/_meta"};
    CHECK(summary(mlt::diff_json(before, after, rules)) ==
          "/result/content/1/_meta removed\n/result/structuredContent/generatedAt changed\n");
}

TEST_CASE("json diff: per-tool rules apply to that tool's replies only, and to a method by name") {
    using namespace json_diff_cases;
    const auto before = json::parse(R"({"result":{"id":"run-1","n":1}})");
    const auto after = json::parse(R"({"result":{"id":"run-2","n":1}})");
    mlt::diff_rules rules;
    rules.per_tool["start_job"].ignore = {"/result/id"};
    rules.per_tool["resources/read"].ignore = {"/result/id"};
    CHECK(mlt::diff_json(before, after, rules, "start_job").equal());
    CHECK(mlt::diff_json(before, after, rules, "resources/read").equal());
    CHECK(summary(mlt::diff_json(before, after, rules, "other_tool")) == "/result/id changed\n");
    CHECK(summary(mlt::diff_json(before, after, rules)) == "/result/id changed\n");
    // A tool's number tolerance replaces the general one for that tool.
    rules.per_tool["measure"].number_tolerance = 0.5;
    const auto b = json{{"v", 1.0}}, a = json{{"v", 1.25}};
    CHECK(mlt::diff_json(b, a, rules, "measure").equal());
    CHECK(!mlt::diff_json(b, a, rules, "start_job").equal());
}

TEST_CASE("json diff: unordered arrays are multisets, duplicates counted") {
    using namespace json_diff_cases;
    mlt::diff_rules rules;
    rules.unordered = {"/tags", "/items/*/ids"};
    const auto before = json::parse(R"({"tags":["a","b","a",{"k":1,"j":2}],"items":[{"ids":[3,1,2]}]})");
    const auto same = json::parse(R"({"tags":[{"j":2,"k":1},"a","b","a"],"items":[{"ids":[1,2,3]}]})");
    CHECK(mlt::diff_json(before, same, rules).equal());
    // Without the rule, the same documents are reordered arrays.
    CHECK(summary(mlt::diff_json(before, same)) == "/items/0/ids reordered\n/tags reordered\n");
    // One "a" fewer and a "c" more: the duplicate is counted (equal elements are matched in
    // order, so the second "a" is the one left over); the removed, then the added, each at its
    // own side's index.
    const auto fewer = json::parse(R"({"tags":["b","c","a",{"k":1,"j":2}],"items":[{"ids":[2,3,1,1]}]})");
    const auto d = mlt::diff_json(before, fewer, rules);
    CHECK(summary(d) == "/items/0/ids/3 added\n/tags/2 removed\n/tags/1 added\n");
    REQUIRE(d.differences.size() == 3);
    CHECK(d.differences[0].after == 1);
    CHECK(d.differences[1].before == "a");
    CHECK(d.differences[2].after == "c");
    // Ignore rules apply inside the elements being matched.
    rules.unordered = {"/events"};
    rules.ignore = {"/events/*/at"};
    const auto eb = json::parse(R"({"events":[{"n":"x","at":1},{"n":"y","at":2}]})");
    const auto ea = json::parse(R"({"events":[{"n":"y","at":8},{"n":"x","at":9}]})");
    CHECK(mlt::diff_json(eb, ea, rules).equal());
}

TEST_CASE("json diff: numbers by value, 1 equals 1.0, within a tolerance when one is set") {
    using namespace json_diff_cases;
    CHECK(mlt::diff_json(json{{"n", 1}}, json{{"n", 1.0}}).equal());
    CHECK(mlt::diff_json(json{{"n", 1u}}, json{{"n", 1}}).equal());
    CHECK(mlt::diff_json(json::parse(R"({"n":-0.0})"), json::parse(R"({"n":0})")).equal());
    CHECK(mlt::canonical_json(json::parse("[1.0,1,-0.0,2.5,1e3,18446744073709551615]")) ==
          "[1,1,0,2.5,1000,18446744073709551615]");
    CHECK(summary(mlt::diff_json(json{{"n", 1}}, json{{"n", 1.001}})) == "/n changed\n");
    CHECK(summary(mlt::diff_json(json{{"n", -1}}, json{{"n", 18446744073709551615u}})) == "/n changed\n");
    mlt::diff_rules rules;
    rules.number_tolerance = 0.01;
    CHECK(mlt::diff_json(json{{"n", 1}}, json{{"n", 1.001}}, rules).equal());
    CHECK(mlt::diff_json(json{{"n", 100}}, json{{"n", 99.995}}, rules).equal());
    CHECK(summary(mlt::diff_json(json{{"n", 1}}, json{{"n", 1.02}}, rules)) == "/n changed\n");
    CHECK(summary(mlt::diff_json(json{{"n", 1}}, json{{"n", "1"}}, rules)) == "/n type_changed\n");
}

TEST_CASE("json diff: JSON inside a tool result's text is compared as JSON, the pointer going on inside") {
    using namespace json_diff_cases;
    const auto before = reply(R"({"items":[{"id":1,"name":"a"},{"id":2,"name":"b"}],"at":"10:00"})");
    const auto after = reply(R"({"at":"10:05",  "items":[{"name":"a","id":1},{"name":"b","id":3}]})");
    const auto d = mlt::diff_json(before, after);
    CHECK(summary(d) == "/result/content/0/text/at changed\n/result/content/0/text/items/1/id changed\n");
    REQUIRE(d.differences.size() == 2);
    CHECK(d.differences[1].before == 2);
    CHECK(d.differences[1].after == 3);
    mlt::diff_rules rules;
    rules.ignore = {"/result/content/*/text/at"};
    CHECK(summary(mlt::diff_json(before, after, rules)) == "/result/content/0/text/items/1/id changed\n");
    // Off: the strings are compared as strings.
    rules.parse_text_json = false;
    CHECK(summary(mlt::diff_json(before, after, rules)) == "/result/content/0/text changed\n");
    // Text that is not JSON on one side stays a string difference.
    CHECK(summary(mlt::diff_json(before, reply("Error: timeout"))) == "/result/content/0/text changed\n");
    CHECK(summary(mlt::diff_json(reply("[1,2"), reply("[1,3]"))) == "/result/content/0/text changed\n");
    CHECK(mlt::diff_json(reply(R"({"a":1,"b":2})"), reply(R"({"b":2, "a":1.0})")).equal());
}

TEST_CASE("json diff: keys with / and ~ are escaped in pointers and in patterns") {
    using namespace json_diff_cases;
    const auto before = json::parse(R"({"a/b":{"c~d":1},"~":2})");
    const auto after = json::parse(R"({"a/b":{"c~d":5},"~":3})");
    CHECK(summary(mlt::diff_json(before, after)) == "/a~1b/c~0d changed\n/~0 changed\n");
    mlt::diff_rules rules;
    rules.ignore = {"/a~1b/c~0d"};
    CHECK(summary(mlt::diff_json(before, after, rules)) == "/~0 changed\n");
    // "~1" is a key "/", never the wildcard; "*" escaped is not possible, so a key "*" is matched by "*".
    rules.ignore = {"/~1"};
    CHECK(mlt::diff_json(before, after, rules).total() == 2);
}

TEST_CASE("json diff: a bad pattern is refused, naming it and what a valid one looks like") {
    using namespace json_diff_cases;
    const auto refused = [](const mlt::diff_rules& rules) -> std::string {
        try {
            (void)mlt::diff_json(json::object(), json::object(), rules, "t");
        } catch (const std::invalid_argument& e) {
            return e.what();
        }
        return "accepted";
    };
    mlt::diff_rules no_slash;
    no_slash.ignore = {"result/id"};
    const auto m1 = refused(no_slash);
    CHECK(m1.find("\"result/id\"") != std::string::npos);
    CHECK(m1.find("does not start with '/'") != std::string::npos);
    CHECK(m1.find("/result/content/*/_meta") != std::string::npos);
    mlt::diff_rules bad_escape;
    bad_escape.unordered = {"/a~2b"};
    const auto m2 = refused(bad_escape);
    CHECK(m2.find("unordered pattern \"/a~2b\"") != std::string::npos);
    CHECK(m2.find("'~' must be followed by 0") != std::string::npos);
    mlt::diff_rules tool_bad;  // checked even when the diff is for another tool
    tool_bad.per_tool["other"].ignore = {"/x~"};
    CHECK(refused(tool_bad).find("per_tool[\"other\"].ignore pattern \"/x~\"") != std::string::npos);
    mlt::diff_rules empty;
    empty.ignore = {""};
    CHECK(refused(empty).find("it is empty") != std::string::npos);
    mlt::diff_rules good;
    good.ignore = {"/", "/a~0~1/*/0"};
    CHECK(refused(good) == "accepted");
}

TEST_CASE("json diff: past max_differences the rest are counted, not kept") {
    using namespace json_diff_cases;
    json before = json::object(), after = json::object();
    for (int i = 0; i < 250; ++i) {
        before["k" + std::to_string(1000 + i)] = i;
        after["k" + std::to_string(1000 + i)] = i + 1;
    }
    const auto d = mlt::diff_json(before, after);
    CHECK(d.differences.size() == 100);
    CHECK(d.not_shown == 150);
    CHECK(d.total() == 250);
    CHECK(d.differences.back().pointer == "/k1099");
    mlt::diff_rules rules;
    rules.max_differences = 3;
    const auto three = mlt::diff_json(before, after, rules);
    CHECK(three.differences.size() == 3);
    CHECK(three.not_shown == 247);
    const auto text = mlt::to_string(three);
    CHECK(text.find("/k1002: changed 2 -> 3\n... and 247 more differences") != std::string::npos);
}
