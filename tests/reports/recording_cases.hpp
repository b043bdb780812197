// Recordings (docs/replay.md#the-recording-format): the JSON Lines form, byte-exact both ways,
// its schema, read errors, the message accessors, import_messages(). Included by
// tests/test_reports.cpp; no server, no Asio.
#include <mcp_loadtest/replay/recording.hpp>

#include "support/json_schema.hpp"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace recording_cases {

using mlt::json;

inline mlt::recorded_message message(mlt::message_direction d, std::chrono::nanoseconds at, std::string raw) {
    mlt::recorded_message m;
    m.direction = d;
    m.at = at;
    m.raw = std::move(raw);
    return m;
}

/// Two sessions whose messages include every form the writer must keep byte for byte.
inline mlt::recording sample() {
    using mlt::message_direction;
    mlt::recording r;
    mlt::recorded_session a;
    a.index = 1;
    a.transport = "stdio";
    a.server = "python3 x.py";
    a.protocol_version = "2025-06-18";
    a.era = "legacy";
    a.started = std::chrono::system_clock::time_point(std::chrono::microseconds(1764363784123456));
    a.messages = {
        // Listed out of time order: written (and read back) sorted by time.
        message(message_direction::received, 2500us, R"({"jsonrpc":"2.0","id":1,"result":{"v":1.0,"w":1e2,"s":"caf\u00e9"}})"),
        message(message_direction::sent, 1500ns, R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":"\u00e9"}}})"),
        message(message_direction::received, 3ms, "Traceback (most recent call last): not JSON"),
        message(message_direction::received, 4ms, "{\"jsonrpc\":\"2.0\",\n \"method\":\"notifications/message\"}"),
        message(message_direction::received, 5ms, "{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 2,\n  \"result\": {}\n}"),
    };
    mlt::recorded_session b;
    b.index = 2;
    b.transport = "streamable-http";
    b.server = "http://localhost:8080/mcp";
    b.era = "";
    b.started = a.started + 1s;
    b.dropped_messages = 3;
    b.messages = {message(message_direction::sent, 0ns, R"({"jsonrpc":"2.0","method":"notifications/initialized"})")};
    r.sessions = {a, b};
    return r;
}

inline std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const auto end = text.find('\n', pos);
        out.push_back(text.substr(pos, end - pos));
        pos = end == std::string::npos ? text.size() : end + 1;
    }
    return out;
}

/// The line number and message of read_recording()'s error on `text`.
inline std::pair<std::size_t, std::string> read_error(const std::string& text) {
    try {
        (void)mlt::read_recording(text);
    } catch (const mlt::recording_error& e) {
        return {e.line, e.what()};
    }
    return {0, "no error"};
}

inline const std::string header = R"({"mcp_loadtest_recording":1,"created":"2026-11-28T21:03:04Z","sessions":1,"messages":1,"truncated":false})";
inline const std::string session_line =
    R"({"session":1,"transport":"stdio","server":"s","protocol_version":"","era":"","started":"2026-11-28T21:03:04.000000Z","started_us":1764363784000000,"dropped":0})";

}  // namespace recording_cases

TEST_CASE("recording: to_jsonl and read_recording give back every message byte for byte, in time order") {
    using namespace recording_cases;
    const auto original = sample();
    const std::string text = to_jsonl(original);
    const auto l = lines(text);
    REQUIRE(l.size() == 1 + 1 + 5 + 1 + 1);
    CHECK(text.back() == '\n');
    CHECK(l[0].rfind(R"({"mcp_loadtest_recording":1,"created":")", 0) == 0);
    CHECK(l[0].find(R"(Z","sessions":2,"messages":6,"truncated":true})") != std::string::npos);
    CHECK(l[1] == R"({"session":1,"transport":"stdio","server":"python3 x.py","protocol_version":"2025-06-18","era":"legacy",)"
                  R"("started":"2025-11-28T21:03:04.123456Z","started_us":1764363784123456,"dropped":0})");
    // One-line JSON goes in as itself (1.0 and \u00e9 stay as written), the rest as strings.
    CHECK(l[2] == R"({"session":1,"dir":"sent","t_us":1,"message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"x":"\u00e9"}}}})");
    CHECK(l[3] == R"({"session":1,"dir":"received","t_us":2500,"message":{"jsonrpc":"2.0","id":1,"result":{"v":1.0,"w":1e2,"s":"caf\u00e9"}}})");
    CHECK(l[4] == R"({"session":1,"dir":"received","t_us":3000,"raw":"Traceback (most recent call last): not JSON"})");
    CHECK(l[5] == R"({"session":1,"dir":"received","t_us":4000,"raw":"{\"jsonrpc\":\"2.0\",\n \"method\":\"notifications/message\"}"})");
    CHECK(l[6].find(R"("raw":"{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 2,)") != std::string::npos);
    CHECK(l[7].find(R"("session":2,"transport":"streamable-http")") != std::string::npos);
    CHECK(l[7].find(R"("dropped":3})") != std::string::npos);

    const auto back = mlt::read_recording(text);
    REQUIRE(back.sessions.size() == 2);
    const auto& a = back.sessions[0];
    CHECK(a.index == 1);
    CHECK(a.transport == "stdio");
    CHECK(a.server == "python3 x.py");
    CHECK(a.protocol_version == "2025-06-18");
    CHECK(a.era == "legacy");
    CHECK(a.started == original.sessions[0].started);
    REQUIRE(a.messages.size() == 5);
    CHECK(a.messages[0].raw == original.sessions[0].messages[1].raw);
    CHECK(a.messages[0].at == 1us);  // 1500 ns, truncated to whole microseconds
    CHECK(a.messages[0].direction == mlt::message_direction::sent);
    CHECK(a.messages[1].raw == original.sessions[0].messages[0].raw);
    CHECK(a.messages[1].raw.find(R"("v":1.0,"w":1e2,"s":"caf\u00e9")") != std::string::npos);  // not 100.0 or é
    CHECK(a.messages[1].direction == mlt::message_direction::received);
    for (std::size_t i = 2; i < 5; ++i) CHECK(a.messages[i].raw == original.sessions[0].messages[i].raw);
    CHECK(back.sessions[1].dropped_messages == 3);
    CHECK(back.sessions[1].messages.at(0).raw == R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    CHECK(back.message_count() == 6);
    CHECK(back.message_bytes() == original.message_bytes());
    CHECK(back.truncated());
    // Written again, the same lines but the header's "created".
    const auto again = lines(to_jsonl(back));
    REQUIRE(again.size() == l.size());
    for (std::size_t i = 1; i < l.size(); ++i) CHECK(again[i] == l[i]);
}

TEST_CASE("recording: every line to_jsonl writes matches docs/schema/recording.schema.json") {
    using namespace recording_cases;
    const auto schema = mlt_test::load_json(mlt_test::repo_dir + "/docs/schema/recording.schema.json");
    const auto l = lines(to_jsonl(sample()));
    REQUIRE(l.size() == 9);
    for (const auto& line : l) {
        const auto problems = mlt_test::validate(json::parse(line), schema);
        for (const auto& p : problems) CHECK_MESSAGE(false, line << ": " << p);
    }
    // The schema does reject: a bad direction, a line with both forms, a future version.
    CHECK(!mlt_test::validate(json::parse(R"({"session":1,"dir":"up","t_us":1,"message":{}})"), schema).empty());
    CHECK(!mlt_test::validate(json::parse(R"({"session":1,"dir":"sent","t_us":1,"message":{},"raw":"x"})"), schema).empty());
    CHECK(!mlt_test::validate(json::parse(R"({"mcp_loadtest_recording":2,"created":"2026-11-28T21:03:04Z","sessions":0,"messages":0,"truncated":false})"), schema).empty());
}

TEST_CASE("recording: read_recording names the line and what to fix") {
    using namespace recording_cases;
    const std::string good_message = R"({"session":1,"dir":"sent","t_us":5,"message":{"jsonrpc":"2.0","id":1,"method":"ping"}})";
    CHECK(mlt::read_recording(header + "\n" + session_line + "\n" + good_message + "\n").message_count() == 1);

    auto [line, what] = read_error(R"({"session":1})" "\n");
    CHECK(line == 1);
    CHECK(what.find("line 1: the first line must be the header") != std::string::npos);

    std::tie(line, what) = read_error(R"({"mcp_loadtest_recording":2,"created":"x","sessions":0,"messages":0,"truncated":false})");
    CHECK(line == 1);
    CHECK(what.find("written by a newer mcp-loadtest") != std::string::npos);
    CHECK(what.find("upgrade mcp-loadtest") != std::string::npos);

    std::tie(line, what) = read_error(header + "\n" + session_line + "\n\n" +
                                      R"({"session":2,"dir":"sent","t_us":5,"message":{}})" + "\n");
    CHECK(line == 4);  // the blank line counts
    CHECK(what.find("line 4: a message of session 2, which has no session line before it") != std::string::npos);

    std::tie(line, what) = read_error(header + "\n" + session_line + "\n" +
                                      R"({"session":1,"dir":"out","t_us":5,"message":{}})");
    CHECK(line == 3);
    CHECK(what.find(R"(line 3: 'dir' must be "sent" or "received", not "out")") != std::string::npos);

    std::tie(line, what) = read_error(header + "\r\n" + session_line + "\r\n" + good_message + "\r\n" +
                                      R"({"session":1,"dir":"sent","t_us":5,"message":{"id":)" + "\r\n");
    CHECK(line == 4);
    CHECK(what.find("line 4: not JSON") != std::string::npos);

    std::tie(line, what) = read_error("");
    CHECK(line == 1);
    CHECK(what.find("empty") != std::string::npos);
}

TEST_CASE("recording: a hand-written message line with other spacing still reads its message") {
    using namespace recording_cases;
    const auto r = mlt::read_recording(header + "\n" + session_line + "\n" +
                                       R"({ "session": 1, "message": {"id": 7, "result": {}}, "dir": "received", "t_us": 9 })");
    REQUIRE(r.sessions.at(0).messages.size() == 1);
    const auto& m = r.sessions[0].messages[0];
    CHECK(m.raw == R"({"id":7,"result":{}})");  // re-serialised: its own bytes are not at the line's end
    CHECK(m.at == 9us);
    CHECK(m.kind() == mlt::message_kind::reply);
    const auto spaced = mlt::read_recording(header + "\n" + session_line + "\n" +
                                            R"({"session":1,"dir":"sent","t_us":1,"message": {"id": 1, "method":"ping"} })");
    CHECK(spaced.sessions.at(0).messages.at(0).raw == R"({"id": 1, "method":"ping"})");
}

TEST_CASE("recording: recorded_message tells its kind, method, id and tool") {
    using namespace recording_cases;
    using mlt::message_direction;
    using mlt::message_kind;
    const auto call = message(message_direction::sent, 0ns,
                              R"({"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"search","arguments":{}}})");
    CHECK(call.kind() == message_kind::request);
    CHECK(call.method() == "tools/call");
    CHECK(call.id() == json("a-1"));
    CHECK(call.tool() == "search");
    const auto prompt = message(message_direction::sent, 0ns, R"({"jsonrpc":"2.0","id":2,"method":"prompts/get","params":{"name":"greet"}})");
    CHECK(prompt.tool() == "greet");
    const auto read = message(message_direction::sent, 0ns,
                              R"({"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///a.txt"}})");
    CHECK(read.tool() == "file:///a.txt");
    const auto note = message(message_direction::sent, 0ns, R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    CHECK(note.kind() == message_kind::notification);
    CHECK(note.id() == std::nullopt);
    CHECK(note.tool() == "");
    const auto reply = message(message_direction::received, 0ns, R"({"jsonrpc":"2.0","id":2,"result":{}})");
    CHECK(reply.kind() == message_kind::reply);
    CHECK(reply.method() == "");
    CHECK(reply.id() == json(2));
    const auto error = message(message_direction::received, 0ns,
                               R"({"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad"}})");
    CHECK(error.kind() == message_kind::error_reply);
    const auto batch = message(message_direction::sent, 0ns, R"([{"jsonrpc":"2.0","method":"ping","id":1}])");
    CHECK(batch.kind() == message_kind::other);
    REQUIRE(batch.parsed().has_value());
    CHECK(batch.parsed()->is_array());
    const auto junk = message(message_direction::received, 0ns, "oops {");
    CHECK(junk.kind() == message_kind::other);
    CHECK(junk.parsed() == std::nullopt);
    CHECK(junk.method() == "");
    CHECK(junk.id() == std::nullopt);
    CHECK(mlt::to_string(message_direction::sent) == "sent");
    CHECK(mlt::to_string(message_direction::received) == "received");
}

TEST_CASE("recording: import_messages infers directions, expands arrays and keeps each text") {
    const std::vector<std::string> log = {
        "  " R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}})" "\n",
        R"({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{}}})",
        R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
        R"({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}})",
        // The server asks the client (its id may equal one of ours), and we answer.
        R"({"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{}})",
        R"({"jsonrpc":"2.0","id":1,"result":{"role":"assistant"}})",
        R"({"jsonrpc":"2.0","id":1,"result":{"content":[]}})",
        R"([{"jsonrpc":"2.0","id":2,"method":"ping"}, {"jsonrpc":"2.0","id":3,"method":"roots/list"}])",
        R"({"jsonrpc":"2.0","id":3,"result":{"roots":[]}})",
        R"({"jsonrpc":"2.0","id":2,"result":{}})",
        R"({"jsonrpc":"2.0","id":99,"result":{}})",
    };
    const auto r = mlt::import_messages(log, "proxy log of server X");
    REQUIRE(r.sessions.size() == 1);
    const auto& s = r.sessions[0];
    CHECK(s.index == 1);
    CHECK(s.transport == "imported");
    CHECK(s.server == "proxy log of server X");
    CHECK(s.protocol_version == "2025-06-18");  // the reply's wins over the request's
    CHECK(s.era == "legacy");
    REQUIRE(s.messages.size() == 12);
    using mlt::message_direction;
    const std::vector<message_direction> expected = {
        message_direction::sent,      message_direction::received, message_direction::sent,
        message_direction::sent,      message_direction::received, message_direction::sent,
        message_direction::received,  message_direction::sent,     message_direction::received,
        message_direction::sent,      message_direction::received, message_direction::received,
    };
    for (std::size_t i = 0; i < expected.size(); ++i) {
        CAPTURE(i);
        CHECK(mlt::to_string(s.messages[i].direction) == mlt::to_string(expected[i]));
        CHECK(s.messages[i].at == std::chrono::milliseconds(i));
    }
    CHECK(s.messages[0].raw == R"({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-03-26"}})");
    CHECK(s.messages[5].raw == log[5]);
    CHECK(s.messages[7].raw == R"({"id":2,"jsonrpc":"2.0","method":"ping"})");  // an array's elements are re-serialised
    CHECK(s.messages[8].method() == "roots/list");
    // Without an initialize, nothing is known of the protocol.
    const auto bare = mlt::import_messages({R"({"jsonrpc":"2.0","id":1,"method":"tools/list"})"});
    CHECK(bare.sessions.at(0).server == "imported");
    CHECK(bare.sessions.at(0).protocol_version == "");
    CHECK(bare.sessions.at(0).era == "");
}

TEST_CASE("recording: import_messages names the element that is not a message") {
    const std::string long_junk = "this is a log line, not JSON " + std::string(100, 'x');
    try {
        (void)mlt::import_messages({R"({"jsonrpc":"2.0","id":1,"method":"ping"})", long_junk});
        FAIL("no error");
    } catch (const mlt::recording_error& e) {
        const std::string what = e.what();
        CHECK(what.find("element 2 is not JSON") != std::string::npos);
        CHECK(what.find(long_junk.substr(0, 80) + "...") != std::string::npos);
        CHECK(what.find(long_junk.substr(0, 81)) == std::string::npos);
    }
    CHECK_THROWS_WITH_AS((void)mlt::import_messages({"42"}), doctest::Contains("element 1 is a JSON number"), mlt::recording_error);
    CHECK_THROWS_WITH_AS((void)mlt::import_messages({R"([{"id":1,"method":"ping"}, "x"])"}),
                         doctest::Contains("element 1 is an array holding a string"), mlt::recording_error);
}

TEST_CASE("recording: write_recording and read_recording_file round trip through a new directory") {
    using namespace recording_cases;
    const auto dir = std::filesystem::temp_directory_path() /
                     ("mcp-loadtest-recording-" + std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
    const auto path = dir / "nested" / "run.jsonl";
    const auto original = sample();
    mlt::write_recording(original, path);
    REQUIRE(std::filesystem::exists(path));
    const auto back = mlt::read_recording_file(path);
    REQUIRE(back.sessions.size() == 2);
    REQUIRE(back.sessions[0].messages.size() == 5);
    CHECK(back.sessions[0].messages[4].raw == original.sessions[0].messages[4].raw);
    CHECK(back.message_bytes() == original.message_bytes());
    // An error in a file names the file and the line.
    std::ofstream(dir / "bad.jsonl") << header << "\n" << session_line << "\n" << R"({"session":1,"dir":"sent"})" << "\n";
    try {
        (void)mlt::read_recording_file(dir / "bad.jsonl");
        FAIL("no error");
    } catch (const mlt::recording_error& e) {
        CHECK(e.line == 3);
        CHECK(std::string(e.what()).find("bad.jsonl: recording line 3: a message line needs \"t_us\"") != std::string::npos);
    }
    CHECK_THROWS_AS((void)mlt::read_recording_file(dir / "absent.jsonl"), mlt::recording_error);
    std::filesystem::remove_all(dir);
}
