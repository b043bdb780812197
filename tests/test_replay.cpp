// Record and replay (docs/replay.md): live capture in sessions and run(), replay against
// another release of a server with a precise diff, over stdio and Streamable HTTP, recorded
// pace, server-to-client requests answered from the recording, golden recordings.
#include "support/every_transport.hpp"
#include "support/fixtures.hpp"

#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/replay/recorded_load.hpp>
#include <mcp_loadtest/replay/replay.hpp>
#include <mcp_loadtest/report/html.hpp>
#include <mcp_loadtest/run.hpp>
#include <mcp_loadtest/server_process.hpp>
#include <mcp_loadtest/detail/session/traffic_recorder.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;
using mlt_test::fixture;

namespace {

using mlt_test::quiet;

mlt::stdio_server release(int n, bool http = false) {
    std::vector<std::string> flags{"--release", std::to_string(n)};
    if (http) {
        flags.push_back("--http");
        flags.push_back("--port");
        flags.push_back("0");
    }
    return quiet(fixture("release_server.py", std::move(flags)));
}

/// The traffic the golden tests record: every tool of release 1, and tools/list.
asio::awaitable<void> release_traffic(mlt::session& s) {
    co_await s.list_tools();
    co_await s.call_tool("greet", mlt::args("name", "Ada"));
    co_await s.call_tool("quote", mlt::args("sku", "A1"));
    co_await s.call_tool("stock", mlt::args("sku", "A1"));
    co_await s.call_tool("stock", mlt::args("sku", "Z9"));
    co_await s.call_tool("divide", mlt::args("a", 6, "b", 3));
    co_await s.call_tool("divide", mlt::args("a", 1, "b", 0));
    auto numbers = mlt::json::array({1, 2, 3});
    co_await s.call_tool("legacy_total", mlt::args("items", numbers));
}

/// The rules a user of release_server writes: quoted_at is the time, and tools/list is a set.
mlt::diff_rules release_rules() {
    mlt::diff_rules rules;
    rules.unordered = {"/result/tools"};
    mlt::tool_diff_rules quote;
    quote.ignore = {"/result/structuredContent/quoted_at", "/result/content/*/text/quoted_at"};
    rules.per_tool["quote"] = quote;
    return rules;
}

asio::awaitable<mlt::recording> record_release_traffic(mlt::any_server server) {
    mlt::client_options o;
    o.record = true;
    auto s = co_await mlt::connect(std::move(server), o);
    co_await release_traffic(s);
    mlt::recording r;
    r.sessions.push_back(s.recorded());
    co_await s.close();
    co_return r;
}

/// (kind, tool, pointers) of every finding, for exact comparison.
using finding_key = std::tuple<std::string, std::string, std::vector<std::string>>;
std::set<finding_key> keys_of(const mlt::replay_report& r) {
    std::set<finding_key> keys;
    for (const auto& f : r.findings) {
        std::vector<std::string> pointers;
        for (const auto& d : f.diff.differences) pointers.push_back(d.pointer);
        keys.emplace(std::string(mlt::to_string(f.kind)), f.tool.empty() ? f.method : f.tool, std::move(pointers));
    }
    return keys;
}

/// What release 2 changed, and nothing else (fixtures/release_server.py's docstring).
const std::set<finding_key> release_2_changes = {
    {"reply_changed", "greet", {"/result/content/0/text"}},
    {"outcome_changed", "stock", {"/result/content/0/text", "/result/isError", "/result/structuredContent"}},
    {"vanished_error", "divide", {"/error", "/result"}},
    {"new_error", "legacy_total", {"/error", "/result"}},
    {"reply_changed", "tools/list", {"/result/tools/4", "/result/tools/0"}},  // legacy_total gone, discount new
};

}  // namespace

MCP_LOADTEST_CASE("record: a session keeps every message both ways, byte-exact and in time order") {
    auto server = quiet(fixture("echo_server.py"));
    mlt::client_options o;
    o.record = true;
    auto s = co_await mlt::connect(server, o);
    auto echo = co_await s.call_tool("echo", mlt::args("message", "caf\xc3\xa9 \"quoted\""));
    MCP_CHECK_OK(echo);
    s.notify("notifications/roots/list_changed", mlt::json::object());
    const mlt::recorded_session r = s.recorded();
    co_await s.close();

    CHECK(r.transport == "stdio");
    CHECK(r.server.find("echo_server.py") != std::string::npos);
    CHECK(r.protocol_version == s.protocol_version());
    CHECK(r.era == "legacy");
    CHECK(r.dropped_messages == 0);
    // The era probe (server/discover) and its error, initialize and its reply,
    // notifications/initialized, the call and its reply, the notification.
    REQUIRE(r.messages.size() == 8);
    CHECK(r.messages[0].method() == "server/discover");
    CHECK(r.messages[1].kind() == mlt::message_kind::error_reply);
    CHECK(r.messages[2].method() == "initialize");
    CHECK(r.messages[2].direction == mlt::message_direction::sent);
    CHECK(r.messages[3].direction == mlt::message_direction::received);
    CHECK(r.messages[3].kind() == mlt::message_kind::reply);
    CHECK(r.messages[4].method() == "notifications/initialized");
    CHECK(r.messages[5].tool() == "echo");
    CHECK(r.messages[6].raw == echo.raw);  // byte for byte as received
    CHECK(r.messages[6].raw.find("caf\\u00e9") != std::string::npos);  // the server's escape, kept
    CHECK(r.messages[7].kind() == mlt::message_kind::notification);
    for (const auto& m : r.messages) {
        CHECK(m.raw.find('\n') == std::string::npos);  // the line terminator is not part of the message
        CHECK(m.parsed().has_value());
    }
    for (std::size_t i = 1; i < r.messages.size(); ++i) CHECK(r.messages[i].at >= r.messages[i - 1].at);
    CHECK(r.messages[6].at > r.messages[5].at);

    // Not recording: nothing kept.
    auto plain = co_await mlt::connect(server);
    co_await plain.call_tool("echo", mlt::args("message", "x"));
    CHECK(plain.recorded().messages.empty());
    co_await plain.close();
}

MCP_LOADTEST_CASE("record: the size bound keeps the first messages and counts the rest as dropped") {
    auto server = quiet(fixture("echo_server.py"));
    mlt::client_options o;
    o.record = true;
    o.max_recording_bytes = 2000;
    auto s = co_await mlt::connect(server, o);
    for (int i = 0; i < 40; ++i) co_await s.call_tool("echo", mlt::args("message", std::string(50, 'x')));
    const auto r = s.recorded();
    co_await s.close();
    std::size_t bytes = 0;
    for (const auto& m : r.messages) bytes += m.raw.size();
    CHECK(bytes <= 2000);
    CHECK(r.messages.size() > 4);
    CHECK(r.dropped_messages > 40);  // of 80 call messages, most did not fit
    // The opening's messages (3, or 5 with the era probe when this server's era is not yet known), then the calls'.
    const auto first_call = std::find_if(r.messages.begin(), r.messages.end(), [](const auto& m) { return m.tool() == "echo"; });
    const auto opening = static_cast<std::size_t>(first_call - r.messages.begin());
    CHECK((opening == 3 || opening == 5));
    CHECK(r.messages.size() + r.dropped_messages == opening + 80);
}

TEST_CASE("record: a message's shared start and end with the previous one, at every length and position") {
    namespace d = mcp_loadtest::detail;
    // Against a byte-by-byte count: every length to 40 (across the 8-byte steps), one byte changed at each position.
    const auto slow_prefix = [](std::string_view a, std::string_view b) {
        std::size_t i = 0;
        while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
        return i;
    };
    const auto slow_suffix = [](std::string_view a, std::string_view b, std::size_t limit) {
        std::size_t i = 0;
        while (i < a.size() && i < b.size() && i < limit && a[a.size() - 1 - i] == b[b.size() - 1 - i]) ++i;
        return i;
    };
    for (std::size_t n = 0; n <= 40; ++n) {
        std::string base(n, 'x');
        for (std::size_t i = 0; i < n; ++i) base[i] = static_cast<char>('a' + i % 26);
        for (std::size_t at = 0; at <= n; ++at) {
            std::string other = base;
            if (at < n) other[at] = '#';
            for (const std::string& b : {other, other + "tail", std::string(other, 0, at)}) {
                const std::size_t p = d::shared_prefix(base, b);
                CHECK(p == slow_prefix(base, b));
                const std::size_t limit = std::min(base.size(), b.size()) - p;
                CHECK(d::shared_suffix(base, b, limit) == slow_suffix(base, b, limit));
                CHECK(d::shared_suffix(base, b, 3) == slow_suffix(base, b, 3));
            }
        }
    }
    // Identical messages: all of it is the prefix, nothing is left for the end.
    const std::string abc = "abc", x = "aXbcdefghijk", y = "aYbcdefghijk";
    CHECK(d::shared_prefix(abc, abc) == 3);
    CHECK(d::shared_suffix(abc, abc, 0) == 0);
    CHECK(d::shared_suffix(x, y, 11) == 10);
}

TEST_CASE("record: a recording growing from 16 KiB to 1 MiB blocks, and past them, keeps every byte and time in order") {
    namespace d = mcp_loadtest::detail;
    const auto t0 = d::clock::now();
    d::traffic_recorder recorder(std::size_t{64} << 20, t0);
    std::vector<std::string> sent;
    // Times as callers give them: a sent request's was read before it was sent, so they can go back.
    const auto time_of = [&](int i) { return t0 + std::chrono::microseconds(10 * i - (i % 3 == 0 ? 25 : 0)); };
    // Sizes that straddle every block boundary, one message larger than a block, and the empty message.
    for (int i = 0; i < 3000; ++i) {
        const std::size_t size = i == 1500 ? (std::size_t{3} << 20) : i == 2000 ? 0 : static_cast<std::size_t>(37 * i % 4001);
        std::string m(size, static_cast<char>('a' + i % 26));
        if (!m.empty()) m.front() = '{';
        recorder.add(i % 2 ? mlt::message_direction::received : mlt::message_direction::sent, m, time_of(i));
        sent.push_back(std::move(m));
    }
    const auto r = recorder.snapshot("2025-06-18", "legacy");
    REQUIRE(r.messages.size() == sent.size());
    for (std::size_t i = 0; i < sent.size(); ++i) {
        CHECK(r.messages[i].raw == sent[i]);
        CHECK(r.messages[i].direction == (i % 2 ? mlt::message_direction::received : mlt::message_direction::sent));
        CHECK(r.messages[i].at == time_of(static_cast<int>(i)) - t0);
    }
    CHECK(r.dropped_messages == 0);
}

TEST_CASE("record: busy recordings take blocks touched ahead by one shared thread, which ends with the last holder") {
    namespace d = mcp_loadtest::detail;
    {
        const auto supply = d::prefaulted_blocks::acquire();
        CHECK(d::prefaulted_blocks::acquire() == supply);  // one per process
        // The thread fills at the lowest priority; on a busy machine that can take a while.
        std::vector<std::unique_ptr<char[]>> taken;
        for (int tries = 0; tries < 1000 && supply->taken_ready() == 0; ++tries) {
            std::this_thread::sleep_for(10ms);
            taken.push_back(supply->take());
            taken.back()[d::prefaulted_blocks::block_size - 1] = 1;  // every byte is the caller's
            if (taken.size() > 4) taken.erase(taken.begin());
        }
        CHECK(supply->taken_ready() > 0);
    }
    // The last holder gone, the thread and its ready blocks are too: the next holder starts afresh.
    const auto next = d::prefaulted_blocks::acquire();
    CHECK(next->taken_ready() + next->taken_fresh() == 0);
}

MCP_LOADTEST_CASE("record: run() records every session and hands the recording over") {
    auto server = quiet(fixture("echo_server.py"));
    mlt::run_options options;
    options.sessions = 2;
    options.client.record = true;
    options.record_into = std::make_shared<mlt::recording>();
    const auto root = std::filesystem::temp_directory_path() / ("mlt-record-run-" + std::to_string(::getpid()));
    options.run_directory.root = root;
    mlt::closed_load load;
    load.users = 2;
    load.duration = 10s;
    load.max_iterations = 20;
    const auto calls = mlt::mix::single("echo", mlt::args("message", "hi"));
    auto report = co_await mlt::run(server, load, calls, mlt::thresholds{}, options);
    CHECK(report.overall.calls() == 20);
    const mlt::recording& r = *options.record_into;
    REQUIRE(r.sessions.size() == 2);
    CHECK(r.sessions[0].index == 1);
    CHECK(r.sessions[1].index == 2);
    std::size_t echoes = 0, replies = 0;
    for (const auto& s : r.sessions) {
        for (const auto& m : s.messages) {
            if (m.tool() == "echo") ++echoes;
            if (m.kind() == mlt::message_kind::reply) ++replies;
        }
    }
    CHECK(echoes == 20);
    CHECK(replies >= 20 + 2);  // the calls, each session's initialize, and the unmeasured tools/list
    // The run directory holds the same recording, written atomically.
    const auto written = mlt::read_recording_file(mlt::last_run_directory().path / "recording.jsonl");
    CHECK(written.sessions.size() == 2);
    CHECK(written.message_count() == r.message_count());
    std::filesystem::remove_all(root);
}

MCP_LOADTEST_CASE("replay: the same release answers alike once the timestamp is ignored") {
    auto r = co_await record_release_traffic(release(1));
    mlt::replay_options o;
    o.rules = release_rules();
    auto same = co_await mlt::replay(r, release(1), o);
    MCP_CHECK_REPLAY_MATCHES(same);
    CHECK(same.sessions == 1);
    CHECK(same.requests == 8);
    CHECK(same.compared == 8);
    CHECK(same.identical == 8);

    // Without the rule, the nondeterministic field is the one difference.
    auto strict = co_await mlt::replay(r, release(1));
    CHECK_FALSE(strict.passed());
    REQUIRE(strict.findings.size() == 1);
    CHECK(strict.findings[0].tool == "quote");
    std::set<std::string> pointers;
    for (const auto& d : strict.findings[0].diff.differences) pointers.insert(d.pointer);
    CHECK(pointers == std::set<std::string>{"/result/content/0/text/quoted_at", "/result/structuredContent/quoted_at"});
}

MCP_LOADTEST_CASE("replay: the next release's changes are named exactly, each with its kind") {
    auto r = co_await record_release_traffic(release(1));
    mlt::replay_options o;
    o.rules = release_rules();
    auto next = co_await mlt::replay(r, release(2), o);
    CHECK_FALSE(next.passed());
    for (const auto& [kind, tool, pointers] : keys_of(next)) {
        std::string all;
        for (const auto& p : pointers) all += p + " ";
        INFO(kind << " " << tool << " " << all);
        CHECK(release_2_changes.count(finding_key{kind, tool, pointers}) == 1);
    }
    CHECK(keys_of(next) == release_2_changes);
    CHECK(next.count(mlt::replay_finding_kind::new_error) == 1);
    CHECK(next.count(mlt::replay_finding_kind::vanished_error) == 1);
    for (const auto& f : next.findings) {
        if (f.tool == "stock") CHECK((f.before == "ok" && f.after == "tool_error"));
        if (f.tool == "legacy_total") CHECK((f.before == "ok" && f.after == "error -32602"));
        if (f.tool == "divide") CHECK((f.before == "error -32603" && f.after == "ok"));
    }
    // The failure message names every change and what to do.
    const std::string failure = mlt::detail::detector_failure(next);
    CHECK(failure.find("replay differs: 5 of 8") != std::string::npos);
    CHECK(failure.find("legacy_total") != std::string::npos);
    CHECK(failure.find("/result/content/0/text: changed \"Hello, Ada!\" -> \"Hello, Ada.\"") != std::string::npos);
    CHECK(failure.find("MCP_LOADTEST_UPDATE_BASELINES=1") != std::string::npos);
    // Latency per tool, recorded against replayed: release 2's quote sleeps 20 ms more.
    const auto quote = std::find_if(next.latency.begin(), next.latency.end(), [](const auto& l) { return l.tool == "quote"; });
    REQUIRE(quote != next.latency.end());
    CHECK(quote->requests == 1);
    CHECK(quote->after_p50_ms >= 20.0);
    // JSON and Markdown carry the same findings.
    mlt::json j = next;
    CHECK(j["findings"].size() == 5);
    CHECK(j["passed"] == false);
    const std::string md = mlt::to_markdown(next);
    CHECK(md.find("### new_error: session 1, request 8 (tools/call legacy_total)") != std::string::npos);
    const std::string html = mlt::to_html(next, "replay against release 2");
    CHECK(html.find("FAILED: replay against release 2") != std::string::npos);
    CHECK(html.find("Unknown tool: legacy_total") != std::string::npos);
}

MCP_LOADTEST_CASE("replay: over Streamable HTTP, from one release to the next") {
    auto v1 = co_await mlt::launch(release(1, true));
    auto v2 = co_await mlt::launch(release(2, true));
    mlt::http_server one, two;
    one.url = v1.url();
    two.url = v2.url();
    auto r = co_await record_release_traffic(one);
    REQUIRE(r.sessions.size() == 1);
    CHECK(r.sessions[0].transport == "streamable-http");
    mlt::replay_options o;
    o.rules = release_rules();
    auto same = co_await mlt::replay(r, one, o);
    MCP_CHECK_REPLAY_MATCHES(same);
    CHECK(same.compared == 8);
    auto next = co_await mlt::replay(r, two, o);
    CHECK(keys_of(next) == release_2_changes);
    // Recorded over HTTP, replayed over stdio: the transport is not part of the answer.
    auto other_transport = co_await mlt::replay(r, release(1), o);
    MCP_CHECK_REPLAY_MATCHES(other_transport);
    co_await v1.close();
    co_await v2.close();
}

MCP_LOADTEST_CASE("replay: a request that asked for progress asks again, and its notifications are counted") {
    auto server = quiet(fixture("echo_server.py"));
    mlt::client_options o;
    o.record = true;
    auto s = co_await mlt::connect(server, o);
    const auto with = co_await s.call_tool("progress", mlt::args("steps", 3), {.progress = true});
    MCP_CHECK_OK(with);
    CHECK(with.progress_notifications == 3);
    MCP_CHECK_OK(co_await s.call_tool("progress", mlt::args("steps", 2)));  // no token: no notifications
    mlt::recording r;
    r.sessions.push_back(s.recorded());
    co_await s.close();

    const auto replayed = co_await mlt::replay(r, server);
    MCP_CHECK_REPLAY_MATCHES(replayed);
    CHECK(replayed.progress_requests == 1);
    CHECK(replayed.progress_notifications == 3);
    const mlt::json as_json = replayed;
    CHECK(as_json["progress_notifications"] == 3);
    CHECK(mlt::to_markdown(replayed).find("| requests asking for progress / notifications they received | 1 / 3 |") !=
          std::string::npos);
}

MCP_LOADTEST_CASE("replay: server-to-client requests are answered from the recording") {
    auto server = quiet(fixture("client_requests_server.py"));
    mlt::client_options o;
    o.record = true;
    o.request_handlers["sampling/createMessage"] = [](const mlt::json&) {
        return mlt::json{{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "recorded answer"}}}, {"model", "m"}};
    };
    auto s = co_await mlt::connect(server, o);
    auto params = mlt::json{{"messages", mlt::json::array()}, {"maxTokens", 5}};
    auto asked = co_await s.call_tool("ask", mlt::args("method", "sampling/createMessage", "params", params));
    MCP_CHECK_OK(asked);
    CHECK(asked.text().find("recorded answer") != std::string::npos);
    mlt::recording r;
    r.sessions.push_back(s.recorded());
    co_await s.close();

    // The replaying session has no handler of its own: the recording answers.
    auto again = co_await mlt::replay(r, server);
    MCP_CHECK_REPLAY_MATCHES(again);
    CHECK(again.server_requests_answered == 1);
    CHECK(again.server_requests_unanswered == 0);
}

MCP_LOADTEST_CASE("replay: recorded and scaled pace keep the recorded gaps") {
    auto server = quiet(fixture("echo_server.py"));
    mlt::client_options o;
    o.record = true;
    auto s = co_await mlt::connect(server, o);
    asio::steady_timer gap(co_await asio::this_coro::executor);
    for (int i = 0; i < 5; ++i) {
        co_await s.call_tool("echo", mlt::args("message", std::to_string(i)));
        gap.expires_after(150ms);
        co_await gap.async_wait(asio::use_awaitable);
    }
    mlt::recording r;
    r.sessions.push_back(s.recorded());
    co_await s.close();

    mlt::replay_options paced;
    paced.pace = mlt::replay_pace::recorded;
    auto at_pace = co_await mlt::replay(r, server, paced);
    MCP_CHECK_REPLAY_MATCHES(at_pace);
    CHECK(at_pace.timing.pace == "recorded");
    CHECK(at_pace.timing.paced_requests == 5);
    // Four gaps of 150 ms at least: the replay cannot be faster than the recording.
    const double span_s = std::chrono::duration<double>(r.sessions[0].messages.back().at - r.sessions[0].messages[3].at).count();
    CHECK(span_s >= 0.6);
    MESSAGE("send time error at recorded pace: p50 " << at_pace.timing.p50_error_ms << " ms, max "
                                                     << at_pace.timing.max_error_ms << " ms");

    mlt::replay_options fast;
    fast.pace = mlt::replay_pace::scaled;
    fast.speed = 4;
    auto scaled = co_await mlt::replay(r, server, fast);
    MCP_CHECK_REPLAY_MATCHES(scaled);
    CHECK(scaled.timing.speed == 4);
    CHECK(scaled.timing.paced_requests == 5);
    auto fastest = co_await mlt::replay(r, server);
    CHECK(fastest.timing.paced_requests == 0);
}

MCP_LOADTEST_CASE("replay_golden: MCP_LOADTEST_UPDATE_BASELINES=1 records it, later runs replay it") {
    const auto dir = std::filesystem::temp_directory_path() / ("mlt-golden-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const auto path = dir / "release.jsonl";
    mlt::replay_options o;
    o.rules = release_rules();

    ::unsetenv("MCP_LOADTEST_UPDATE_BASELINES");
    auto missing = co_await mlt::replay_golden(path, release(1), release_traffic, o);
    CHECK_FALSE(missing.passed());
    REQUIRE(missing.errors.size() == 1);
    CHECK(missing.errors[0].find("no golden recording at " + path.string()) != std::string::npos);
    CHECK(missing.errors[0].find("MCP_LOADTEST_UPDATE_BASELINES=1 ctest") != std::string::npos);

    ::setenv("MCP_LOADTEST_UPDATE_BASELINES", "1", 1);
    auto written = co_await mlt::replay_golden(path, release(1), release_traffic, o);
    ::unsetenv("MCP_LOADTEST_UPDATE_BASELINES");
    MCP_CHECK_REPLAY_MATCHES(written);
    CHECK(written.golden_written);
    CHECK(std::filesystem::exists(path));

    auto v2 = co_await mlt::replay_golden(path, release(2), release_traffic, o);
    CHECK_FALSE(v2.golden_written);
    CHECK(keys_of(v2) == release_2_changes);
    std::filesystem::remove_all(dir);
}

MCP_LOADTEST_CASE("replay: traffic imported from a plain message log replays like a recording") {
    const std::vector<std::string> log = {
        R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"proxy","version":"1"}}})",
        R"({"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"greet","arguments":{"name":"Ada"}}})",
        R"({"jsonrpc":"2.0","id":"a","result":{"content":[{"type":"text","text":"Hello, Ada!"}]}})",
        R"({"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"stock","arguments":{"sku":"Z9"}}})",
        R"({"jsonrpc":"2.0","id":"b","result":{"content":[{"type":"text","text":"{\"sku\": \"Z9\", \"available\": 0}"}],"structuredContent":{"sku":"Z9","available":0}}})",
    };
    const mlt::recording r = mlt::import_messages(log, "proxy log");
    auto same = co_await mlt::replay(r, release(1));
    MCP_CHECK_REPLAY_MATCHES(same);
    CHECK(same.compared == 2);
    auto next = co_await mlt::replay(r, release(2));
    CHECK(next.findings.size() == 2);
}

MCP_LOADTEST_CASE("load from a recording: its sessions arrive as recorded, at N times the pace, with its mix") {
    // Three recorded sessions, 200 ms apart, each: greet, 300 ms of thought, stock twice.
    mlt::recording r;
    for (int i = 0; i < 3; ++i) {
        mlt::client_options o;
        o.record = true;
        auto s = co_await mlt::connect(release(1), o);
        asio::steady_timer pause(co_await asio::this_coro::executor);
        co_await s.call_tool("greet", mlt::args("name", "user " + std::to_string(i)));
        pause.expires_after(300ms);
        co_await pause.async_wait(asio::use_awaitable);
        co_await s.call_tool("stock", mlt::args("sku", "A1"));
        co_await s.call_tool("stock", mlt::args("sku", "C3"));
        r.sessions.push_back(s.recorded());
        r.sessions.back().index = static_cast<std::uint32_t>(i + 1);
        co_await s.close();
        pause.expires_after(200ms);
        co_await pause.async_wait(asio::use_awaitable);
    }
    mlt::recorded_load_options twice;
    twice.speed = 2;
    const auto shape = mlt::load_from_recording(r, twice);
    CHECK(shape.sessions == 3);
    CHECK(shape.requests == 9);
    CHECK(shape.recorded_span_s > 1.0);  // three sessions of >= 300 ms, two gaps of >= 200 ms
    mlt::run_options options;
    options.run_directory.enabled = false;
    auto report = co_await mlt::run(release(1), shape.load, shape.body, mlt::thresholds{}, options);
    INFO(report.summary());
    CHECK(report.overall.calls() == 9);
    CHECK(report.overall.outcomes[mlt::outcome::ok] == 9);
    REQUIRE(report.per_tool.count("greet") == 1);
    CHECK(report.per_tool.at("greet").calls() == 3);
    CHECK(report.per_tool.at("stock").calls() == 6);
    // At twice the pace, the recorded span takes at least half as long (arrivals and thought waited for).
    CHECK(report.duration_s >= shape.recorded_span_s / 2 * 0.95);
    CHECK(report.duration_s < shape.recorded_span_s);

    CHECK_THROWS_WITH_AS(mlt::load_from_recording(mlt::recording{}), doctest::Contains("holds no request to send"),
                         std::invalid_argument);
}

MCP_LOADTEST_CASE("replay: latency per tool, recorded against replayed, goes through compare()") {
    // 100 quotes and 100 greetings, 10 in flight: release 2's quote takes 20 ms more.
    mlt::client_options o;
    o.record = true;
    auto s = co_await mlt::connect(release(1), o);
    for (int group = 0; group < 10; ++group) {
        std::vector<asio::awaitable<mlt::call_result>> calls;
        for (int i = 0; i < 10; ++i) {
            calls.push_back(s.call_tool("quote", mlt::args("sku", "A1")));
            calls.push_back(s.call_tool("greet", mlt::args("name", "Ada")));
        }
        co_await mlt::when_all(std::move(calls));
    }
    mlt::recording r;
    r.sessions.push_back(s.recorded());
    co_await s.close();
    mlt::replay_options options;
    options.rules.per_tool["quote"].ignore = {"/result/structuredContent/quoted_at", "/result/content/*/text/quoted_at"};
    auto slower = co_await mlt::replay(r, release(2), options);
    CHECK(slower.findings.size() == 100);  // greet's text changed; quote answered alike
    const auto* quote = [&]() -> const mlt::metric_comparison* {
        for (const auto& m : slower.latency_changes)
            if (m.scope == "tool quote" && m.metric == "p50") return &m;
        return nullptr;
    }();
    REQUIRE(quote != nullptr);
    INFO(quote->sentence);
    CHECK(quote->verdict == mlt::change_verdict::regressed);
    CHECK(quote->current - quote->baseline >= 15.0);  // ms: the 20 ms sleep, less what the recording queued
    const mlt::json j = slower;
    CHECK(j["latency_changes"].is_array());
}

MCP_LOADTEST_CASE("record: credentials, tokens and secret headers stay out of the recording") {
    auto proc = co_await mlt::launch(release(1, true));
    // The fixture ignores the query and the userinfo: they only have to stay out of the file.
    std::string url = proc.url();
    url.insert(url.find("://") + 3, "alice:url-password-123@");
    url += "?api_key=query-secret-456";
    mlt::http_server server;
    server.url = url;
    server.bearer_token = "bearer-secret-789";
    server.headers.push_back({"X-Api-Key", "header-secret-000"});
    mlt::client_options o;
    o.record = true;
    auto s = co_await mlt::connect(server, o);
    co_await s.call_tool("greet", mlt::args("name", "Ada"));
    mlt::recording r;
    r.sessions.push_back(s.recorded());
    co_await s.close();
    co_await proc.close();
    const std::string file = mlt::to_jsonl(r);
    CHECK(file.find("\"greet\"") != std::string::npos);  // the traffic is there
    CHECK(r.sessions[0].server.find("127.0.0.1") != std::string::npos);
    for (const char* secret : {"url-password-123", "alice", "query-secret-456", "bearer-secret-789", "header-secret-000"}) {
        INFO(secret);
        CHECK(file.find(secret) == std::string::npos);
    }
}
