// Every transport and both protocol eras, against real fixture processes:
// line-delimited JSON-RPC over TCP and Unix sockets, Streamable HTTP, legacy
// HTTP+SSE, WebSocket; the 2026-07-28 stateless era with discovery, -32022
// retry and multi round-trip input requests; automatic era detection; HTTP
// redirects and proxies (fixtures/proxy_server.py).
#include "support/every_transport.hpp"
#include "support/fixtures.hpp"

#include <doctest/doctest.h>
#include <mcp_loadtest/detail/transport/http_exchange.hpp>
#include <mcp_loadtest/detectors.hpp>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/run.hpp>
#include <mcp_loadtest/server_process.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <unistd.h>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;
using mlt_test::fixture;

namespace {

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

using mlt_test::quiet;

std::string unique_socket_path() {
    return (std::filesystem::temp_directory_path() / ("mlt-" + std::to_string(::getpid()) + "-" +
                                                       std::to_string(std::rand()) + ".sock"))
        .string();
}

// Stops a launched server after a pause, as the second branch of a when_all.
asio::awaitable<mlt::call_result> stop_after(mlt::server_process* proc, std::chrono::milliseconds pause) {
    asio::steady_timer t(co_await asio::this_coro::executor);
    t.expires_after(pause);
    co_await t.async_wait(asio::use_awaitable);
    co_await proc->close();
    co_return mlt::call_result{};
}

// The message of the connect_error connect() throws, or "" when it connects.
asio::awaitable<std::string> connect_failure(mlt::any_server server) {
    try {
        auto s = co_await mlt::connect(std::move(server));
        co_await s.close();
    } catch (const mlt::connect_error& e) {
        co_return std::string(e.what());
    }
    co_return std::string();
}

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// "127.0.0.1:<port>" of a launched fixture's URL.
std::string authority_of(const std::string& url) {
    const auto from = url.find("://") + 3;
    return url.substr(from, url.find('/', from) - from);
}

mlt::client_options with_elicitation() {
    mlt::client_options o;
    o.request_handlers["elicitation/create"] = [](const mlt::json&) {
        return mlt::json{{"action", "accept"}, {"content", {{"confirmed", true}}}};
    };
    return o;
}

}  // namespace

// ---- sockets ---------------------------------------------------------------

MCP_LOADTEST_CASE("tcp: a line-delimited server over TCP works like stdio, calls pipelined on one connection") {
    auto cmd = quiet(fixture("tcp_server.py"));
    auto proc = co_await mlt::launch(cmd);
    REQUIRE(contains(proc.url(), "tcp://127.0.0.1:"));
    const mlt::socket_server server{proc.url()};
    auto s = co_await mlt::connect(server);
    CHECK(s.pid() == -1);  // not ours: the session only holds a connection
    CHECK(s.identity().era == mlt::protocol_era::legacy);
    auto echo = co_await s.call_tool("echo", mlt::args("message", "over tcp"));
    MCP_CHECK_OK(echo);
    CHECK(echo.text() == "over tcp");

    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < 64; ++i) calls.push_back(s.call_tool("echo", mlt::args("message", std::to_string(i))));
    auto results = co_await mlt::when_all(std::move(calls));
    for (std::size_t i = 0; i < results.size(); ++i) {
        MCP_CHECK_OK(results[i]);
        CHECK(results[i].text() == std::to_string(i));
    }
    auto closed = co_await s.close();
    CHECK(closed.ended == mlt::shutdown_result::how::disconnected);
    auto stopped = co_await proc.close();
    CHECK(stopped.graceful());
}

MCP_LOADTEST_CASE("unix: a line-delimited server over a Unix domain socket") {
    const std::string path = unique_socket_path();
    auto cmd = quiet(fixture("tcp_server.py", {"--unix", path}));
    auto proc = co_await mlt::launch(cmd);
    CHECK(proc.url() == "unix://" + path);
    const mlt::socket_server server{proc.url()};
    auto s = co_await mlt::connect(server);
    const mlt::json two_and_three{{"a", 2}, {"b", 3}};
    auto sum = co_await s.call_tool("add", two_and_three);
    MCP_CHECK_OK(sum);
    CHECK(sum.text() == "5");
    co_await s.close();
    co_await proc.close();
}

MCP_LOADTEST_CASE("tcp: the server dropping the connection fails calls in flight as disconnected") {
    auto cmd = quiet(fixture("tcp_server.py"));
    auto proc = co_await mlt::launch(cmd);
    const mlt::socket_server server{proc.url()};
    auto s = co_await mlt::connect(server);
    const mlt::json five_seconds{{"ms", 5000}};
    std::vector<asio::awaitable<mlt::call_result>> both;
    both.push_back(s.call_tool("sleep", five_seconds));
    both.push_back(stop_after(&proc, 200ms));
    auto results = co_await mlt::when_all(std::move(both));
    const auto& r = results[0];
    CHECK(r.outcome == mlt::outcome::disconnected);
    CHECK(contains(r.message, "closed the connection"));
    co_await s.close();
}

MCP_LOADTEST_CASE("tcp: nothing listening is a clear connect error") {
    const mlt::socket_server server{"tcp://127.0.0.1:1"};
    std::string what;
    try {
        co_await mlt::connect(server);
    } catch (const mlt::connect_error& e) {
        what = e.what();
    }
    CHECK(contains(what, "cannot connect to 127.0.0.1:1"));
    CHECK(contains(what, "Hint"));
}

MCP_LOADTEST_CASE("launch: a server that exits before it is ready is a launch_error with its stderr") {
    auto cmd = quiet(fixture("tcp_server.py", {"--host", "0.0.0.0"}));  // refused by the fixture
    std::string what;
    try {
        co_await mlt::launch(cmd);
    } catch (const mlt::launch_error& e) {
        what = e.what();
    }
    CHECK(contains(what, "exited before it was ready"));
}

// ---- modern era over stdio -------------------------------------------------

MCP_LOADTEST_CASE("modern: era detection picks 2026-07-28 for a modern server over stdio") {
    mlt::forget_detected_eras();
    auto s = co_await mlt::connect(quiet(fixture("modern_server.py")));
    CHECK(s.identity().era == mlt::protocol_era::modern);
    CHECK(s.protocol_version() == "2026-07-28");
    CHECK(s.identity().name == "modern_server");
    auto tools = co_await s.list_tools();
    REQUIRE(tools.ok());
    CHECK(tools.find("confirm") != nullptr);
    auto echo = co_await s.call_tool("echo", mlt::args("message", "stateless"));
    MCP_CHECK_OK(echo);
    CHECK(echo.text() == "stateless");
    auto fail = co_await s.call_tool("fail");
    CHECK(fail.outcome == mlt::outcome::tool_error);
    co_await s.close();
}

MCP_LOADTEST_CASE("modern: era detection picks legacy for a legacy server, and the verdict is cached") {
    mlt::forget_detected_eras();
    auto server = quiet(fixture("echo_server.py"));
    auto s = co_await mlt::connect(server);
    CHECK(s.identity().era == mlt::protocol_era::legacy);
    CHECK(s.protocol_version() == "2025-11-25");
    CHECK(s.stats().requests_sent == 2);  // server/discover, then initialize
    auto again = co_await mlt::connect(server);
    CHECK(again.identity().era == mlt::protocol_era::legacy);
    CHECK(again.stats().requests_sent == 1);  // cached: initialize only
    co_await s.close();
    co_await again.close();
}

MCP_LOADTEST_CASE("modern: a dual-era server is spoken to in the modern era, pinning legacy still works") {
    mlt::forget_detected_eras();
    auto server = quiet(fixture("modern_server.py", {"--also-legacy"}));
    auto s = co_await mlt::connect(server);
    CHECK(s.identity().era == mlt::protocol_era::modern);
    mlt::client_options legacy;
    legacy.era = mlt::era_selection::legacy;
    auto old = co_await mlt::connect(server, legacy);
    CHECK(old.identity().era == mlt::protocol_era::legacy);
    auto echo = co_await old.call_tool("echo", mlt::args("message", "legacy"));
    MCP_CHECK_OK(echo);
    co_await s.close();
    co_await old.close();
}

MCP_LOADTEST_CASE("modern: a modern-only server refuses the legacy handshake with an actionable error") {
    mlt::client_options legacy;
    legacy.era = mlt::era_selection::legacy;
    std::string what;
    try {
        co_await mlt::connect(quiet(fixture("modern_server.py")), legacy);
    } catch (const mlt::connect_error& e) {
        what = e.what();
    }
    CHECK(contains(what, "initialize"));
    CHECK(contains(what, "2026-07-28"));
}

MCP_LOADTEST_CASE("modern: -32022 is answered by retrying with a mutually supported version") {
    mlt::client_options o;
    o.protocol_version = "2027-01-01";  // a future revision this server does not speak
    auto s = co_await mlt::connect(quiet(fixture("modern_server.py")), o);
    CHECK(s.identity().era == mlt::protocol_era::modern);
    CHECK(s.protocol_version() == "2026-07-28");
    CHECK(s.stats().requests_sent == 2);
    auto echo = co_await s.call_tool("echo", mlt::args("message", "retried"));
    MCP_CHECK_OK(echo);
    co_await s.close();
}

MCP_LOADTEST_CASE("modern: InputRequiredResult rounds are answered through the request handlers") {
    auto o = with_elicitation();
    o.request_handlers["sampling/createMessage"] = [](const mlt::json&) {
        return mlt::json{{"role", "assistant"}, {"content", {{"type", "text"}, {"text", "42"}}}, {"model", "test"}};
    };
    o.roots = {{"file:///tmp/project", "project"}};
    int questions = 0;
    o.request_handlers["elicitation/create"] = [&questions](const mlt::json& params) {
        ++questions;
        if (params.contains("requestedSchema") && params["requestedSchema"]["properties"].contains("answer"))
            return mlt::json{{"action", "accept"}, {"content", {{"answer", "a" + std::to_string(questions)}}}};
        return mlt::json{{"action", "accept"}, {"content", {{"confirmed", true}}}};
    };
    auto s = co_await mlt::connect(quiet(fixture("modern_server.py")), o);
    REQUIRE(s.identity().era == mlt::protocol_era::modern);

    auto confirm = co_await s.call_tool("confirm", mlt::args("action", "deploy"));
    MCP_CHECK_OK(confirm);
    CHECK(confirm.text() == "confirmed deploy");
    CHECK(confirm.input_rounds == 1);

    auto all = co_await s.call_tool("ask_all");
    MCP_CHECK_OK(all);
    CHECK(contains(all.text(), "sampled: 42"));
    CHECK(contains(all.text(), "file:///tmp/project"));

    questions = 0;
    const mlt::json three_rounds{{"rounds", 3}};
    auto survey = co_await s.call_tool("survey", three_rounds);
    MCP_CHECK_OK(survey);
    CHECK(survey.input_rounds == 3);
    CHECK(survey.text() == "answers: a1,a2,a3");

    const mlt::json two_retries{{"retries", 2}};
    auto busy = co_await s.call_tool("busy", two_retries);
    MCP_CHECK_OK(busy);
    CHECK(busy.input_rounds == 2);
    co_await s.close();
}

MCP_LOADTEST_CASE("modern: a request handler that cancels the call it is answering ends that call, nothing more") {
    // The handler is user code run in the middle of the reply's handling: the call it cancels must end
    // once, as cancelled, and the retry it would have answered is never sent.
    auto o = with_elicitation();
    mlt::session* current = nullptr;
    o.request_handlers["elicitation/create"] = [&current](const mlt::json&) {
        for (const auto& call : current->in_flight()) current->cancel(call.request_id, "withdrawn by the handler");
        return mlt::json{{"action", "accept"}, {"content", {{"confirmed", true}}}};
    };
    auto s = co_await mlt::connect(quiet(fixture("modern_server.py")), o);
    REQUIRE(s.identity().era == mlt::protocol_era::modern);
    current = &s;
    const auto sent_before = s.stats().requests_sent;
    auto confirm = co_await s.call_tool("confirm", mlt::args("action", "deploy"), {.timeout = 5s});
    MCP_CHECK_OUTCOME(confirm, mlt::outcome::cancelled);
    CHECK(confirm.message == "withdrawn by the handler");
    CHECK(s.in_flight().empty());
    CHECK(s.stats().requests_sent == sent_before + 1);  // the call, and no retry
    current = nullptr;
    MCP_CHECK_OK(co_await s.call_tool("echo", mlt::args("message", "still here"), {.timeout = 5s}));
    co_await s.close();
}

MCP_LOADTEST_CASE("modern: an input request with no handler fails the call clearly, a round limit bounds it") {
    auto s = co_await mlt::connect(quiet(fixture("modern_server.py")));
    auto confirm = co_await s.call_tool("confirm", mlt::args("action", "x"));
    // Without the elicitation capability the server refuses (-32021) or asks anyway: either way, no ok.
    CHECK_FALSE(confirm.ok());
    CHECK(confirm.outcome == mlt::outcome::protocol_error);

    mlt::client_options o = with_elicitation();
    o.max_input_rounds = 2;
    auto limited = co_await mlt::connect(quiet(fixture("modern_server.py")), o);
    const mlt::json five_rounds{{"rounds", 5}};
    auto survey = co_await limited.call_tool("survey", five_rounds);
    CHECK(survey.outcome == mlt::outcome::protocol_error);
    CHECK(contains(survey.message, "max_input_rounds"));
    co_await s.close();
    co_await limited.close();
}

MCP_LOADTEST_CASE("modern: the deadlock probe flags a modern server hanging on tools/call") {
    auto server = quiet(fixture("modern_server.py", {"--hang-tools-call"}));
    const auto args = mlt::args("message", "x");
    auto probe = co_await mlt::deadlock_probe(server, "echo", args,
                                              mlt::probe_options{.concurrent = 4, .hang_threshold = 500ms});
    CHECK(probe.verdict == mlt::probe_verdict::critical);
    CHECK(probe.deadlocked >= 1);
}

// ---- Streamable HTTP ---------------------------------------------------------

namespace {

mlt::http_server http_at(const mlt::server_process& proc) {
    mlt::http_server h;
    h.url = proc.url();
    return h;
}

}  // namespace

MCP_LOADTEST_CASE("http: JSON replies, a session id, concurrent calls spread over the keep-alive pool") {
    mlt::forget_detected_eras();
    auto cmd = quiet(fixture("http_server.py"));
    auto proc = co_await mlt::launch(cmd);
    auto server = http_at(proc);
    server.connections = 8;
    auto s = co_await mlt::connect(server);
    CHECK(s.identity().era == mlt::protocol_era::legacy);
    CHECK(s.protocol_version() == "2025-11-25");
    auto echo = co_await s.call_tool("echo", mlt::args("message", "over http"));
    MCP_CHECK_OK(echo);
    CHECK(echo.text() == "over http");

    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < 64; ++i) calls.push_back(s.call_tool("echo", mlt::args("message", std::to_string(i))));
    auto results = co_await mlt::when_all(std::move(calls));
    for (std::size_t i = 0; i < results.size(); ++i) {
        MCP_CHECK_OK(results[i]);
        CHECK(results[i].text() == std::to_string(i));
    }
    auto tools = co_await s.list_tools();
    CHECK(tools.ok());
    CHECK(s.protocol_violations().empty());
    auto closed = co_await s.close();
    CHECK(closed.ended == mlt::shutdown_result::how::disconnected);
    co_await proc.close();
}

MCP_LOADTEST_CASE("http: SSE replies with priming events, comments, chunking and progress before the response") {
    auto cmd = quiet(fixture("http_server.py", {"--reply-mode", "sse", "--priming", "--sse-comments", "--chunked"}));
    auto proc = co_await mlt::launch(cmd);
    auto s = co_await mlt::connect(http_at(proc));
    const mlt::json three_steps{{"steps", 3}};
    mlt::call_options with_progress;
    with_progress.progress = true;
    auto progress = co_await s.call_tool("progress", three_steps, with_progress);
    MCP_CHECK_OK(progress);
    CHECK(progress.text() == "done");
    CHECK(progress.progress_notifications == 3);
    auto echo = co_await s.call_tool("echo", mlt::args("message", "sse"));
    MCP_CHECK_OK(echo);
    CHECK(s.protocol_violations().empty());
    co_await s.close();
    co_await proc.close();
}

MCP_LOADTEST_CASE("http: a server->client request on the GET stream is answered by POST") {
    auto cmd = quiet(fixture("http_server.py"));
    auto proc = co_await mlt::launch(cmd);
    mlt::client_options o;
    o.roots = {{"file:///srv/data", "data"}};
    auto s = co_await mlt::connect(http_at(proc), o);
    auto asked = co_await s.call_tool("ask_client");
    MCP_CHECK_OK(asked);
    CHECK(contains(asked.text(), "file:///srv/data"));
    CHECK(s.stats().server_requests_answered == 1);
    co_await s.close();
    co_await proc.close();
}

MCP_LOADTEST_CASE("http: an expired session is a clear disconnected outcome") {
    auto cmd = quiet(fixture("http_server.py", {"--expire-after", "3"}));
    auto proc = co_await mlt::launch(cmd);
    mlt::client_options legacy;
    legacy.era = mlt::era_selection::legacy;
    auto s = co_await mlt::connect(http_at(proc), legacy);
    auto first = co_await s.call_tool("echo", mlt::args("message", "1"));
    MCP_CHECK_OK(first);
    co_await s.call_tool("echo", mlt::args("message", "2"));
    auto gone = co_await s.call_tool("echo", mlt::args("message", "3"));
    CHECK(gone.outcome == mlt::outcome::disconnected);
    CHECK(gone.http_status == 404);
    CHECK(contains(gone.message, "no longer knows this session"));
    co_await s.close();
    co_await proc.close();
}

MCP_LOADTEST_CASE("http: with reinitialize_expired_sessions, an expired session is replaced and the call sent again") {
    auto cmd = quiet(fixture("http_server.py", {"--expire-after", "3"}));
    auto proc = co_await mlt::launch(cmd);
    auto server = http_at(proc);
    server.reinitialize_expired_sessions = true;
    mlt::client_options legacy;
    legacy.era = mlt::era_selection::legacy;
    auto s = co_await mlt::connect(server, legacy);
    for (int i = 0; i < 8; ++i) {
        CAPTURE(i);
        auto r = co_await s.call_tool("echo", mlt::args("message", std::to_string(i)));
        MCP_CHECK_OK(r);
    }
    co_await s.close();
    co_await proc.close();
}

MCP_LOADTEST_CASE("http: secrets never appear in error messages or reports") {
    mlt::http_server refused;
    refused.url = "http://alice:pw-SECRET-1@127.0.0.1:1/mcp?api_key=SECRET-2";
    refused.bearer_token = "tok-SECRET-3";
    refused.headers.push_back({"X-Api-Key", "SECRET-4"});
    std::string what;
    try {
        co_await mlt::connect(refused);
    } catch (const mlt::connect_error& e) {
        what = e.what();
    }
    CHECK_FALSE(what.empty());
    CHECK_FALSE(contains(what, "SECRET"));

    auto cmd = quiet(fixture("http_server.py"));
    auto proc = co_await mlt::launch(cmd);
    mlt::http_server server = http_at(proc);
    server.url += "?token=SECRET-5";
    server.bearer_token = "tok-SECRET-6";
    mlt::run_options options;
    options.sample_interval = 0ms;
    const auto trace = std::filesystem::temp_directory_path() / ("mlt-secret-trace-" + std::to_string(::getpid()));
    options.trace_path = trace;
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    const mlt::workload load = mlt::closed_load{.users = 2, .max_iterations = 20};
    const mlt::thresholds none;
    auto report = co_await mlt::run(server, load, calls, none, options);
    MCP_CHECK_PASSED(report);
    const mlt::json as_json = report;
    CHECK_FALSE(contains(as_json.dump(), "SECRET"));
    CHECK(contains(report.server, "token=***"));
    std::ifstream in(trace);
    const std::string traced((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK_FALSE(traced.empty());
    CHECK_FALSE(contains(traced, "SECRET"));
    std::filesystem::remove(trace);
    co_await proc.close();
}

MCP_LOADTEST_CASE("http: every misbehaving server ends in a bounded, classified failure") {
    std::vector<std::pair<std::string, mlt::outcome>> cases;
    cases.emplace_back("drop-mid-response", mlt::outcome::disconnected);
    cases.emplace_back("close-after-headers", mlt::outcome::disconnected);
    cases.emplace_back("endless-sse", mlt::outcome::hang);
    cases.emplace_back("huge-body", mlt::outcome::malformed);
    cases.emplace_back("never-respond", mlt::outcome::hang);
    for (const auto& [misbehave, expected] : cases) {
        CAPTURE(misbehave);
        auto cmd = quiet(fixture("http_server.py", {"--misbehave", misbehave}));
        auto proc = co_await mlt::launch(cmd);
        auto server = http_at(proc);
        server.limits.max_message_size = 1024 * 1024;
        auto s = co_await mlt::connect(server);
        const auto t0 = std::chrono::steady_clock::now();
        mlt::call_options one_second;
        one_second.timeout = 1s;
        auto r = co_await s.call_tool("echo", mlt::args("message", "x"), one_second);
        CHECK(r.outcome == expected);
        CHECK(std::chrono::steady_clock::now() - t0 < 5s);
        CHECK_FALSE(r.message.empty());
        // The session survives the broken exchange.
        auto list = co_await s.list_tools();
        CHECK(list.ok());
        co_await s.close();
        co_await proc.close();
    }
}

namespace {

std::size_t occurrences(const std::string& haystack, const std::string& needle) {
    std::size_t n = 0;
    for (auto at = haystack.find(needle); at != std::string::npos; at = haystack.find(needle, at + needle.size())) ++n;
    return n;
}

// The launched server's stderr once it holds `needle` (it arrives in its own time), waiting at most 5 s.
// A string literal: coroutine parameters stay trivially copyable (GCC 12).
asio::awaitable<std::string> stderr_once_it_says(const mlt::server_process& proc, const char* needle) {
    asio::steady_timer t(co_await asio::this_coro::executor);
    std::string tail = proc.stderr_tail(64 * 1024);
    for (const auto until = std::chrono::steady_clock::now() + 5s;
         !contains(tail, needle) && std::chrono::steady_clock::now() < until;) {
        t.expires_after(20ms);
        co_await t.async_wait(asio::use_awaitable);
        tail = proc.stderr_tail(64 * 1024);
    }
    co_return tail;
}

}  // namespace

MCP_LOADTEST_CASE("http: a reply stream that ends early is resumed with Last-Event-ID, at most 5 times a call") {
    mlt::call_options ten_seconds;
    ten_seconds.timeout = 10s;
    {
        // Each stream carries `retry: 20` and one event id, then ends; the 3rd resumption brings the
        // response. The fixture answers 400 to an id it did not give: each GET names the latest one.
        auto cmd = quiet(fixture("http_server.py", {"--misbehave", "cut-sse-resumable", "--resume-answers-after", "3"}));
        auto proc = co_await mlt::launch(cmd);
        auto s = co_await mlt::connect(http_at(proc));
        auto r = co_await s.call_tool("echo", mlt::args("message", "x"), ten_seconds);
        MCP_CHECK_OK(r);
        CHECK(r.text() == "resumed 3 times");
        auto again = co_await s.call_tool("echo", mlt::args("message", "y"), ten_seconds);  // per call
        CHECK(again.text() == "resumed 3 times");
        co_await s.close();
        co_await proc.close();
    }
    // A server that never brings the response: 5 resumptions, then the call is disconnected
    // (well before its 10 s deadline, which an unbounded resumption would run into as a hang).
    auto cmd = quiet(fixture("http_server.py", {"--misbehave", "cut-sse-resumable"}));
    auto proc = co_await mlt::launch(cmd);
    auto s = co_await mlt::connect(http_at(proc));
    auto r = co_await s.call_tool("echo", mlt::args("message", "x"), ten_seconds);
    CHECK(r.outcome == mlt::outcome::disconnected);
    CHECK(contains(r.message, "resuming with Last-Event-ID did not bring it either"));
    const std::string log = co_await stderr_once_it_says(proc, "resumption 5 of");
    CHECK(occurrences(log, "resumption ") == 5);
    CHECK_FALSE(contains(log, "resumption 6 of"));
    auto list = co_await s.list_tools();  // the session is unharmed
    CHECK(list.ok());
    co_await s.close();
    co_await proc.close();
}

MCP_LOADTEST_CASE("http: a reused keep-alive connection the server closed is retried once, on a fresh connection") {
    // Every connection answers one request: one sent on a reused connection is closed unanswered
    // (a keep-alive timeout firing as the request goes out), so each request here is retried once.
    auto cmd = quiet(fixture("http_server.py", {"--close-reused-connections"}));
    auto proc = co_await mlt::launch(cmd);
    auto server = http_at(proc);
    server.connections = 4;
    auto s = co_await mlt::connect(server);
    for (int i = 0; i < 3; ++i) {
        CAPTURE(i);
        auto r = co_await s.call_tool("echo", mlt::args("message", std::to_string(i)));
        MCP_CHECK_OK(r);
    }
    // Concurrent calls leave several idle connections, all stale: the retry must not take another one.
    for (int round = 0; round < 2; ++round) {
        CAPTURE(round);
        std::vector<asio::awaitable<mlt::call_result>> calls;
        for (int i = 0; i < 4; ++i) calls.push_back(s.call_tool("echo", mlt::args("message", std::to_string(i))));
        auto results = co_await mlt::when_all(std::move(calls));
        for (std::size_t i = 0; i < results.size(); ++i) {
            MCP_CHECK_OK(results[i]);
            CHECK(results[i].text() == std::to_string(i));
        }
        auto r = co_await s.call_tool("echo", mlt::args("message", "after"));
        MCP_CHECK_OK(r);
    }
    const std::string log = co_await stderr_once_it_says(proc, "closed unanswered");
    CHECK(occurrences(log, "POST on a reused keep-alive connection: closed unanswered") >= 3);
    CHECK(s.protocol_violations().empty());
    co_await s.close();
    co_await proc.close();
}

MCP_LOADTEST_CASE("http: the deadlock probe flags a server that hangs on its first tools/call") {
    auto cmd = quiet(fixture("http_server.py", {"--hang-tools-call"}));
    auto proc = co_await mlt::launch(cmd);
    const mlt::any_server server = http_at(proc);
    const auto args = mlt::args("message", "x");
    auto probe = co_await mlt::deadlock_probe(server, "echo", args,
                                              mlt::probe_options{.concurrent = 8, .hang_threshold = 500ms});
    CHECK(probe.verdict == mlt::probe_verdict::critical);
    CHECK(probe.deadlocked >= 1);
    CHECK(probe.took < 3s);
    co_await proc.close();
}

MCP_LOADTEST_CASE("http: era detection picks 2026-07-28 for the modern fixture over HTTP, MRTR works there") {
    mlt::forget_detected_eras();
    auto cmd = quiet(fixture("modern_server.py", {"--transport", "http"}));
    auto proc = co_await mlt::launch(cmd);
    auto o = with_elicitation();
    auto s = co_await mlt::connect(http_at(proc), o);
    CHECK(s.identity().era == mlt::protocol_era::modern);
    CHECK(s.protocol_version() == "2026-07-28");
    auto echo = co_await s.call_tool("echo", mlt::args("message", "modern http"));
    MCP_CHECK_OK(echo);
    auto confirm = co_await s.call_tool("confirm", mlt::args("action", "ship"));
    MCP_CHECK_OK(confirm);
    CHECK(confirm.text() == "confirmed ship");
    auto unlisted = co_await s.call_tool("route", mlt::args("region", "eu-west"));
    CHECK(unlisted.outcome == mlt::outcome::protocol_error);  // its x-mcp-header is not known yet: -32020
    CHECK(unlisted.error_code == -32020);
    auto tools = co_await s.list_tools();  // learns that `region` travels as Mcp-Param-Region
    REQUIRE(tools.ok());
    auto route = co_await s.call_tool("route", mlt::args("region", "eu-west"));
    MCP_CHECK_OK(route);
    auto unicode = co_await s.call_tool("route", mlt::args("region", " zürich "));  // sent base64-encoded
    MCP_CHECK_OK(unicode);
    CHECK(s.protocol_violations().empty());
    co_await s.close();
    co_await proc.close();
}

MCP_LOADTEST_CASE("http+sse: the legacy transport, replies correlated from the event stream") {
    auto cmd = quiet(fixture("sse_server.py"));
    auto proc = co_await mlt::launch(cmd);
    mlt::sse_server server;
    server.url = proc.url();
    auto s = co_await mlt::connect(server);
    CHECK(s.identity().era == mlt::protocol_era::legacy);
    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < 32; ++i) calls.push_back(s.call_tool("echo", mlt::args("message", std::to_string(i))));
    auto results = co_await mlt::when_all(std::move(calls));
    for (std::size_t i = 0; i < results.size(); ++i) {
        MCP_CHECK_OK(results[i]);
        CHECK(results[i].text() == std::to_string(i));
    }
    CHECK(s.protocol_violations().empty());
    co_await s.close();
    co_await proc.close();
}

MCP_LOADTEST_CASE("http: automatic detection falls back to legacy HTTP+SSE at the same URL") {
    mlt::forget_detected_eras();
    auto cmd = quiet(fixture("sse_server.py"));
    auto proc = co_await mlt::launch(cmd);
    auto s = co_await mlt::connect(http_at(proc));  // described as Streamable HTTP, found to be HTTP+SSE
    CHECK(s.identity().era == mlt::protocol_era::legacy);
    auto echo = co_await s.call_tool("echo", mlt::args("message", "fell back"));
    MCP_CHECK_OK(echo);
    co_await s.close();
    co_await proc.close();
}

MCP_LOADTEST_CASE("http+sse: the server cutting its stream fails the calls in flight as disconnected") {
    auto cmd = quiet(fixture("sse_server.py", {"--misbehave", "drop-stream-after", "2"}));
    auto proc = co_await mlt::launch(cmd);
    mlt::sse_server server;
    server.url = proc.url();
    mlt::client_options legacy;
    legacy.era = mlt::era_selection::legacy;
    auto s = co_await mlt::connect(server, legacy);
    const mlt::json long_sleep{{"ms", 3000}};
    auto r1 = co_await s.call_tool("echo", mlt::args("message", "a"));
    MCP_CHECK_OK(r1);
    mlt::call_options five_seconds;
    five_seconds.timeout = 5s;
    auto r2 = co_await s.call_tool("sleep", long_sleep, five_seconds);
    CHECK(r2.outcome == mlt::outcome::disconnected);
    co_await s.close();
    co_await proc.close();
}

// ---- Redirects -------------------------------------------------------------------

MCP_LOADTEST_CASE("http: redirects: 307 and 308 resend the POST, 303 and loops and too many hops fail clearly, credentials stay on their origin") {
    auto cmd = quiet(fixture("http_server.py",
                             {"--redirect", "/old=307:/mcp", "--redirect", "/moved=308:http://127.0.0.1:{port}/mcp",
                              "--redirect", "/see-other=303:/mcp", "--redirect", "/a=307:/b", "--redirect", "/b=307:a",
                              "--redirect", "/h3=307:/h2", "--redirect", "/h2=308:h1", "--redirect", "/h1=307:/mcp",
                              "--redirect", "/away=307:http://localhost:{port}/mcp", "--auth-by-host", "tok-SECRET"}));
    auto proc = co_await mlt::launch(cmd);
    const std::string base = "http://" + authority_of(proc.url());
    const auto at = [&](const std::string& path) {
        mlt::http_server h;
        h.url = base + path;
        h.bearer_token = "tok-SECRET";  // the fixture wants it on 127.0.0.1 and refuses it on localhost
        return h;
    };

    // 307, relative Location: every POST (and the GET stream, and DELETE) is sent again, with its body.
    const mlt::http_server old = at("/old");
    auto s = co_await mlt::connect(old);
    auto echo = co_await s.call_tool("echo", mlt::args("message", "redirected"));
    MCP_CHECK_OK(echo);
    CHECK(echo.text() == "redirected");
    CHECK(echo.redirects == 1);
    CHECK(s.stats().http_redirects >= 3);  // initialize, initialized, the GET stream, the call
    co_await s.close();

    // 308, absolute Location; three hops mixing 307 and 308 and relative references.
    const mlt::http_server moved = at("/moved");
    auto m = co_await mlt::connect(moved);
    auto echo2 = co_await m.call_tool("echo", mlt::args("message", "moved"));
    MCP_CHECK_OK(echo2);
    CHECK(echo2.redirects == 1);
    co_await m.close();
    const mlt::http_server three = at("/h3");
    auto h = co_await mlt::connect(three);
    auto echo3 = co_await h.call_tool("echo", mlt::args("message", "three hops"));
    MCP_CHECK_OK(echo3);
    CHECK(echo3.redirects == 3);
    co_await h.close();

    // Cross-origin (127.0.0.1 -> localhost): Authorization is dropped, as browsers and curl do; the
    // fixture answers 400 if it arrives there.
    const mlt::http_server away = at("/away");
    auto a = co_await mlt::connect(away);
    auto echo4 = co_await a.call_tool("echo", mlt::args("message", "elsewhere"));
    MCP_CHECK_OK(echo4);
    CHECK(echo4.redirects == 1);
    co_await a.close();

    mlt::http_server too_few = at("/h3");
    too_few.max_redirects = 2;
    const mlt::any_server too_few_any = too_few;
    const std::string hops = co_await connect_failure(too_few_any);
    CHECK(contains(hops, "max_redirects"));
    CHECK(contains(hops, "/h3 -> " + base + "/h2 -> " + base + "/h1 -> " + base + "/mcp"));

    const mlt::any_server see_other = at("/see-other");
    const std::string refused = co_await connect_failure(see_other);
    CHECK(contains(refused, "HTTP 303"));
    CHECK(contains(refused, "307 or 308"));

    const mlt::any_server loop = at("/a");
    const std::string looped = co_await connect_failure(loop);
    CHECK(contains(looped, "in a loop: " + base + "/a -> " + base + "/b -> " + base + "/a"));

    mlt::http_server not_followed = at("/old");
    not_followed.max_redirects = 0;
    const mlt::any_server not_followed_any = not_followed;
    const std::string off = co_await connect_failure(not_followed_any);
    CHECK(contains(off, "max_redirects is 0"));
    for (const auto* what : {&hops, &refused, &looped, &off}) CHECK_FALSE(contains(*what, "SECRET"));

    // Each call's redirects are in the per-call trace.
    mlt::run_options options;
    options.sample_interval = 0ms;
    const auto trace = std::filesystem::temp_directory_path() / ("mlt-redirect-trace-" + std::to_string(::getpid()));
    options.trace_path = trace;
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    const mlt::workload load = mlt::closed_load{.users = 2, .max_iterations = 10};
    const mlt::thresholds none;
    auto report = co_await mlt::run(old, load, calls, none, options);
    MCP_CHECK_PASSED(report);
    const std::string traced = read_file(trace);
    CHECK(contains(traced, R"("outcome":"ok","duration_ms":)"));
    CHECK(contains(traced, R"(,"redirects":1})"));
    CHECK_FALSE(contains(traced, "SECRET"));
    std::filesystem::remove(trace);
    co_await proc.close();
}

MCP_LOADTEST_CASE("http+sse: the GET of the event stream follows a 302, the endpoint resolves against where it landed") {
    auto cmd = quiet(fixture("sse_server.py", {"--redirect", "/old-sse=302:/sse"}));
    auto proc = co_await mlt::launch(cmd);
    mlt::sse_server server;
    server.url = "http://" + authority_of(proc.url()) + "/old-sse";
    mlt::client_options legacy;
    legacy.era = mlt::era_selection::legacy;
    auto s = co_await mlt::connect(server, legacy);
    CHECK(s.stats().http_redirects == 1);
    auto echo = co_await s.call_tool("echo", mlt::args("message", "after a 302"));
    MCP_CHECK_OK(echo);
    CHECK(echo.redirects == 0);  // the POSTs go straight to the endpoint
    co_await s.close();
    co_await proc.close();
}

// ---- WebSocket -----------------------------------------------------------------

MCP_LOADTEST_CASE("websocket: text frames, fragmented replies with pings in between, concurrent calls") {
    auto cmd = quiet(fixture("ws_server.py", {"--fragment", "7", "--ping-every", "20"}));
    auto proc = co_await mlt::launch(cmd);
    REQUIRE(contains(proc.url(), "ws://127.0.0.1:"));
    mlt::websocket_server server;
    server.url = proc.url();
    auto s = co_await mlt::connect(server);
    CHECK(s.identity().era == mlt::protocol_era::legacy);
    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < 64; ++i) calls.push_back(s.call_tool("echo", mlt::args("message", "ws-" + std::to_string(i))));
    auto results = co_await mlt::when_all(std::move(calls));
    for (std::size_t i = 0; i < results.size(); ++i) {
        MCP_CHECK_OK(results[i]);
        CHECK(results[i].text() == "ws-" + std::to_string(i));
    }
    const mlt::json pause{{"ms", 150}};
    auto slept = co_await s.call_tool("sleep", pause);  // the server pings every 20 ms meanwhile
    MCP_CHECK_OK(slept);
    auto pongs = co_await s.call_tool("ws_pongs");
    MCP_CHECK_OK(pongs);
    CHECK(pongs.text() != "0");  // the server's pings were answered
    CHECK(s.protocol_violations().empty());
    co_await s.close();
    co_await proc.close();
}

MCP_LOADTEST_CASE("websocket: a dropped connection, a 1 GB frame and masked server frames are classified") {
    std::vector<std::pair<std::string, mlt::outcome>> cases;
    cases.emplace_back("drop-mid-frame", mlt::outcome::disconnected);
    cases.emplace_back("huge-frame", mlt::outcome::malformed);
    cases.emplace_back("masked-frames", mlt::outcome::malformed);
    for (const auto& [misbehave, expected] : cases) {
        CAPTURE(misbehave);
        auto cmd = quiet(fixture("ws_server.py", {"--misbehave", misbehave}));
        auto proc = co_await mlt::launch(cmd);
        mlt::websocket_server server;
        server.url = proc.url();
        server.limits.max_message_size = 1024 * 1024;
        auto s = co_await mlt::connect(server);
        const auto t0 = std::chrono::steady_clock::now();
        mlt::call_options two_seconds;
        two_seconds.timeout = 2s;
        auto r = co_await s.call_tool("echo", mlt::args("message", "x"), two_seconds);
        CHECK(r.outcome == expected);
        CHECK(std::chrono::steady_clock::now() - t0 < 2s);
        CHECK_FALSE(r.message.empty());
        co_await s.close();
        co_await proc.close();
    }
}

MCP_LOADTEST_CASE("websocket: the handshake failing on a wrong path is a clear connect error") {
    auto cmd = quiet(fixture("ws_server.py"));
    auto proc = co_await mlt::launch(cmd);
    mlt::websocket_server server;
    server.url = proc.url() + "-wrong";
    std::string what;
    try {
        co_await mlt::connect(server);
    } catch (const mlt::connect_error& e) {
        what = e.what();
    }
    CHECK(contains(what, "WebSocket handshake"));
    CHECK(contains(what, "404"));
    co_await proc.close();
}

// ---- TLS -----------------------------------------------------------------------

#if defined(MCP_LOADTEST_WITH_TLS)
namespace {
// A throwaway self-signed certificate for 127.0.0.1 (made with the openssl CLI).
struct test_certificate {
    std::string cert, key;
    bool ok = false;
};

const test_certificate& certificate() {
    static const test_certificate c = [] {
        test_certificate t;
        const auto dir = std::filesystem::temp_directory_path() / ("mlt-tls-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        t.cert = (dir / "cert.pem").string();
        t.key = (dir / "key.pem").string();
        const std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 "
                                "-addext subjectAltName=IP:127.0.0.1 -keyout " + t.key + " -out " + t.cert +
                                " >/dev/null 2>&1";
        t.ok = std::system(cmd.c_str()) == 0;
        return t;
    }();
    return c;
}
}  // namespace

MCP_LOADTEST_CASE("tls: https and wss with certificate verification, an untrusted certificate is refused") {
    const auto& cert = certificate();
    REQUIRE_MESSAGE(cert.ok, "the openssl command is needed to make a test certificate (apt-get install openssl)");
    auto https_cmd = quiet(fixture("http_server.py", {"--tls-cert", cert.cert, "--tls-key", cert.key}));
    auto https = co_await mlt::launch(https_cmd);
    REQUIRE(contains(https.url(), "https://127.0.0.1:"));

    mlt::http_server trusted;
    trusted.url = https.url();
    trusted.tls.ca_file = cert.cert;
    auto s = co_await mlt::connect(trusted);
    auto echo = co_await s.call_tool("echo", mlt::args("message", "over tls"));
    MCP_CHECK_OK(echo);
    CHECK(echo.text() == "over tls");
    co_await s.close();

    mlt::http_server untrusted;  // verification on, the self-signed certificate unknown
    untrusted.url = https.url();
    std::string what;
    try {
        co_await mlt::connect(untrusted);
    } catch (const mlt::connect_error& e) {
        what = e.what();
    }
    CHECK(contains(what, "TLS handshake"));
    CHECK(contains(what, "certificate"));
    CHECK(contains(what, "tls.ca_file"));

    mlt::http_server unverified;
    unverified.url = https.url();
    unverified.tls.verify = false;
    auto u = co_await mlt::connect(unverified);
    auto echo2 = co_await u.call_tool("echo", mlt::args("message", "unverified"));
    MCP_CHECK_OK(echo2);
    co_await u.close();
    co_await https.close();

    auto wss_cmd = quiet(fixture("ws_server.py", {"--tls-cert", cert.cert, "--tls-key", cert.key}));
    auto wss = co_await mlt::launch(wss_cmd);
    REQUIRE(contains(wss.url(), "wss://127.0.0.1:"));
    mlt::websocket_server ws;
    ws.url = wss.url();
    ws.tls.ca_file = cert.cert;
    auto w = co_await mlt::connect(ws);
    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < 16; ++i) calls.push_back(w.call_tool("echo", mlt::args("message", std::to_string(i))));
    auto results = co_await mlt::when_all(std::move(calls));
    for (std::size_t i = 0; i < results.size(); ++i) MCP_CHECK_OK(results[i]);
    co_await w.close();
    co_await wss.close();
}

namespace {
// A private CA that signs a server certificate for 127.0.0.1 and a client
// certificate, and a second CA with a client certificate of its own that the
// first does not trust; made with the openssl CLI in the build tree (beside
// the test program, one directory per process, removed at exit).
struct test_pki {
    std::string dir, ca, ca_dir, server_cert, server_key, client_cert, client_key, client_key_encrypted;
    std::string other_ca, other_client_cert, other_client_key;
    bool ok = false;
    ~test_pki() {
        std::error_code ignored;
        if (!dir.empty()) std::filesystem::remove_all(dir, ignored);
    }
};

const test_pki& pki() {
    static const test_pki p = [] {
        test_pki t;
        std::error_code ec;
        auto exe = std::filesystem::canonical("/proc/self/exe", ec);
        const auto dir = (ec ? std::filesystem::temp_directory_path() : exe.parent_path()) / "tls-pki" /
                         std::to_string(::getpid());
        std::filesystem::create_directories(dir / "ca_dir");
        t.dir = dir.string();
        auto at = [&](const char* name) { return (dir / name).string(); };
        t.ca = at("ca.pem");
        t.ca_dir = at("ca_dir");
        t.server_cert = at("server.pem");
        t.server_key = at("server.key");
        t.client_cert = at("client.pem");
        t.client_key = at("client.key");
        t.client_key_encrypted = at("client-encrypted.key");
        t.other_ca = at("other-ca.pem");
        t.other_client_cert = at("other-client.pem");
        t.other_client_key = at("other-client.key");
        const std::string ec_key = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes ";
        auto make_ca = [&](const std::string& name) {
            return "openssl req -x509 " + ec_key + "-days 2 -subj /CN=mlt-" + name + " -keyout " + name +
                   ".key -out " + name + ".pem && ";
        };
        auto issue = [&](const std::string& ca, const std::string& name, const std::string& subject,
                         const std::string& ext) {
            return "openssl req " + ec_key + "-subj /CN=" + subject + " -keyout " + name + ".key -out " + name +
                   ".csr && openssl x509 -req -in " + name + ".csr -CA " + ca + ".pem -CAkey " + ca +
                   ".key -CAcreateserial -days 2 " + ext + "-out " + name + ".pem && ";
        };
        const std::string cmd = "cd '" + t.dir + "' && printf 'subjectAltName=IP:127.0.0.1\\n' > san.ext && " +
                                make_ca("ca") + issue("ca", "server", "127.0.0.1", "-extfile san.ext ") +
                                issue("ca", "client", "mlt-client", "") + make_ca("other-ca") +
                                issue("other-ca", "other-client", "mlt-client", "") +
                                "openssl pkey -in client.key -aes256 -passout pass:open-sesame-42 "
                                "-out client-encrypted.key && "
                                "cp ca.pem ca_dir/$(openssl x509 -hash -noout -in ca.pem).0 >/dev/null 2>&1";
        t.ok = std::system(("(" + cmd + ") >/dev/null 2>&1").c_str()) == 0;
        return t;
    }();
    return p;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What connect() throws (empty when it connected), its outcome, and whether a call then worked.
struct tls_attempt {
    std::string error;
    mlt::outcome result = mlt::outcome::ok;
    bool echoed = false;
};

template <class Server>
asio::awaitable<tls_attempt> try_tls(Server server) {
    tls_attempt a;
    try {
        auto s = co_await mlt::connect(server);
        auto r = co_await s.call_tool("echo", mlt::args("message", "over mutual tls"));
        a.echoed = r.ok() && r.text() == "over mutual tls";
        co_await s.close();
    } catch (const mlt::connect_error& e) {
        a.error = e.what();
        a.result = e.result.outcome;
    }
    co_return a;
}

mlt::tls_options client_tls(const test_pki& p) {
    mlt::tls_options t;
    t.ca_file = p.ca;
    t.cert_file = p.client_cert;
    t.key_file = p.client_key;
    return t;
}
}  // namespace

MCP_LOADTEST_CASE("tls: mutual TLS over https and wss, the right client certificate passes, none or another CA's is refused clearly") {
    const auto& p = pki();
    REQUIRE_MESSAGE(p.ok, "the openssl command is needed to make test certificates (apt-get install openssl)");
    auto https_cmd = quiet(fixture("http_server.py", {"--tls-cert", p.server_cert, "--tls-key", p.server_key,
                                                      "--tls-client-ca", p.ca}));
    auto https = co_await mlt::launch(https_cmd);
    mlt::http_server server;
    server.url = https.url();

    server.tls = client_tls(p);  // the right certificate, from files
    auto right = co_await try_tls(server);
    CHECK_MESSAGE(right.error.empty(), right.error);
    CHECK(right.echoed);

    server.tls = {};  // the same, in memory; the CA alone trusted
    server.tls.ca_pem = read_text(p.ca);
    server.tls.system_trust = false;
    server.tls.cert_pem = read_text(p.client_cert);
    server.tls.key_pem = read_text(p.client_key);
    auto in_memory = co_await try_tls(server);
    CHECK_MESSAGE(in_memory.error.empty(), in_memory.error);
    CHECK(in_memory.echoed);

    server.tls = client_tls(p);  // an encrypted key with its pass phrase; the CA from a hashed directory
    server.tls.ca_file.clear();
    server.tls.ca_dir = p.ca_dir;
    server.tls.system_trust = false;
    server.tls.key_file = p.client_key_encrypted;
    server.tls.key_password = "open-sesame-42";
    auto encrypted = co_await try_tls(server);
    CHECK_MESSAGE(encrypted.error.empty(), encrypted.error);
    CHECK(encrypted.echoed);

    server.tls = {};  // no client certificate: TLS 1.3 refuses it after the client's side of the handshake
    server.tls.ca_file = p.ca;
    mlt::forget_detected_eras();  // a first connection: era detection must keep the reason too
    auto none = co_await try_tls(server);
    CAPTURE(none.error);
    CHECK_FALSE(none.echoed);
    CHECK(none.result == mlt::outcome::disconnected);
    CHECK(contains(none.error, "requires a client certificate"));  // "probably requires" when the alert was lost
    CHECK(contains(none.error, "tls.cert_file"));

    server.tls = client_tls(p);  // a client certificate from a CA the server does not trust
    server.tls.cert_file = p.other_client_cert;
    server.tls.key_file = p.other_client_key;
    auto other = co_await try_tls(server);
    CAPTURE(other.error);
    CHECK_FALSE(other.echoed);
    CHECK(contains(other.error, "refused the client certificate"));

    server.tls = client_tls(p);  // a custom CA that did not sign the server's certificate
    server.tls.ca_file = p.other_ca;
    server.tls.system_trust = false;
    auto wrong_ca = co_await try_tls(server);
    CAPTURE(wrong_ca.error);
    CHECK_FALSE(wrong_ca.echoed);
    CHECK(contains(wrong_ca.error, "certificate verify failed"));
    CHECK(contains(wrong_ca.error, "tls.ca_file"));

    server.tls = {};  // verification off still sends a client certificate when given one
    server.tls.verify = false;
    server.tls.cert_file = p.client_cert;
    server.tls.key_file = p.client_key;
    auto unverified = co_await try_tls(server);
    CHECK_MESSAGE(unverified.error.empty(), unverified.error);
    CHECK(unverified.echoed);
    co_await https.close();

    // TLS 1.2 refuses a missing certificate inside the handshake, with a less specific alert.
    auto tls12_cmd = quiet(fixture("http_server.py", {"--tls-cert", p.server_cert, "--tls-key", p.server_key,
                                                      "--tls-client-ca", p.ca, "--tls-version", "1.2"}));
    auto tls12 = co_await mlt::launch(tls12_cmd);
    server.url = tls12.url();
    server.tls = client_tls(p);
    auto right12 = co_await try_tls(server);
    CHECK_MESSAGE(right12.error.empty(), right12.error);
    CHECK(right12.echoed);
    server.tls.cert_file.clear();
    server.tls.key_file.clear();
    auto none12 = co_await try_tls(server);
    CAPTURE(none12.error);
    CHECK(contains(none12.error, "may require a client certificate"));
    CHECK(contains(none12.error, "tls.cert_file"));
    co_await tls12.close();

    auto wss_cmd = quiet(fixture("ws_server.py", {"--tls-cert", p.server_cert, "--tls-key", p.server_key,
                                                  "--tls-client-ca", p.ca}));
    auto wss = co_await mlt::launch(wss_cmd);
    mlt::websocket_server ws;
    ws.url = wss.url();
    ws.tls = client_tls(p);
    auto ws_right = co_await try_tls(ws);
    CHECK_MESSAGE(ws_right.error.empty(), ws_right.error);
    CHECK(ws_right.echoed);
    ws.tls.cert_file.clear();
    ws.tls.key_file.clear();
    auto ws_none = co_await try_tls(ws);
    CAPTURE(ws_none.error);
    CHECK(contains(ws_none.error, "requires a client certificate"));
    CHECK(contains(ws_none.error, "tls.cert_file"));
    ws.tls = client_tls(p);
    ws.tls.cert_file = p.other_client_cert;
    ws.tls.key_file = p.other_client_key;
    auto ws_other = co_await try_tls(ws);
    CAPTURE(ws_other.error);
    CHECK(contains(ws_other.error, "refused the client certificate"));
    co_await wss.close();
}

MCP_LOADTEST_CASE("tls: wrong client certificate options are clear errors that name the file and never the key or its password") {
    const auto& p = pki();
    REQUIRE_MESSAGE(p.ok, "the openssl command is needed to make test certificates (apt-get install openssl)");
    auto https_cmd = quiet(fixture("http_server.py", {"--tls-cert", p.server_cert, "--tls-key", p.server_key,
                                                      "--tls-client-ca", p.ca}));
    auto https = co_await mlt::launch(https_cmd);
    mlt::http_server server;
    server.url = https.url();
    const std::string key_text = read_text(p.client_key);
    const std::string key_body = key_text.substr(key_text.find('\n') + 1, 40);  // a piece of the secret key

    struct bad_case {
        std::string what;
        std::function<void(mlt::tls_options&)> change;
        std::vector<std::string> says;
    };
    const std::string missing = p.dir + "/no-such-client.pem";
    const std::vector<bad_case> cases = {
        {"missing certificate file", [&](mlt::tls_options& t) { t.cert_file = missing; },
         {"tls.cert_file '" + missing + "'", "no such file"}},
        {"missing key file", [&](mlt::tls_options& t) { t.key_file = missing; },
         {"tls.key_file '" + missing + "'", "no such file"}},
        {"CA file is a directory", [&](mlt::tls_options& t) { t.ca_file = p.ca_dir; },
         {"tls.ca_file '" + p.ca_dir + "'", "directory", "tls.ca_dir"}},
        {"CA directory is a file", [&](mlt::tls_options& t) { t.ca_dir = p.ca; }, {"tls.ca_dir", "not a directory"}},
        {"CA file that is not PEM", [&](mlt::tls_options& t) { t.ca_file = p.dir + "/san.ext"; },
         {"tls.ca_file", "no PEM certificate"}},
        {"key of another certificate", [&](mlt::tls_options& t) { t.key_file = p.other_client_key; },
         {"does not match the client certificate", "tls.key_file '" + p.other_client_key + "'"}},
        {"key in memory of another certificate",
         [&](mlt::tls_options& t) {
             t.key_file.clear();
             t.key_pem = read_text(p.other_client_key);
         },
         {"does not match", "tls.key_pem"}},
        {"wrong pass phrase",
         [&](mlt::tls_options& t) {
             t.key_file = p.client_key_encrypted;
             t.key_password = "not-the-pass-phrase";
         },
         {"cannot decrypt", "tls.key_password is wrong"}},
        {"no pass phrase", [&](mlt::tls_options& t) { t.key_file = p.client_key_encrypted; },
         {"cannot decrypt", "tls.key_password is empty"}},
        {"no key in the certificate file", [&](mlt::tls_options& t) { t.key_file.clear(); },
         {"holds no private key", "tls.key_file"}},
        {"key without certificate", [&](mlt::tls_options& t) { t.cert_file.clear(); },
         {"without its certificate", "tls.cert_file"}},
        {"both a file and text",
         [&](mlt::tls_options& t) { t.cert_pem = read_text(p.client_cert); },
         {"tls.cert_file and tls.cert_pem are both set"}},
    };
    for (const auto& c : cases) {
        CAPTURE(c.what);
        server.tls = client_tls(p);
        c.change(server.tls);
        auto a = co_await try_tls(server);
        CAPTURE(a.error);
        CHECK_FALSE(a.echoed);
        for (const auto& s : c.says) CHECK(contains(a.error, s));
        CHECK_FALSE(contains(a.error, "not-the-pass-phrase"));
        CHECK_FALSE(contains(a.error, key_body));
    }
    co_await https.close();
}

// ---- Proxies (the tunnels need the test certificate above) -----------------------

MCP_LOADTEST_CASE("proxy: https:// and wss:// (and ws://) through CONNECT tunnels with proxy credentials, refusals name the proxy") {
    const auto& cert = certificate();
    REQUIRE_MESSAGE(cert.ok, "the openssl command is needed to make a test certificate (apt-get install openssl)");
    const auto stats_path = std::filesystem::temp_directory_path() / ("mlt-tunnel-stats-" + std::to_string(::getpid()));
    const std::string stats_file = stats_path.string();
    auto proxy_cmd = quiet(fixture("proxy_server.py", {"--auth", "alice:pw-SECRET", "--stats", stats_file}));
    auto proxy = co_await mlt::launch(proxy_cmd);
    const std::string with_credentials = "http://alice:pw-SECRET@" + authority_of(proxy.url());
    auto https_cmd = quiet(fixture("http_server.py", {"--tls-cert", cert.cert, "--tls-key", cert.key}));
    auto https = co_await mlt::launch(https_cmd);
    auto wss_cmd = quiet(fixture("ws_server.py", {"--tls-cert", cert.cert, "--tls-key", cert.key}));
    auto wss = co_await mlt::launch(wss_cmd);
    auto ws_cmd = quiet(fixture("ws_server.py"));
    auto ws = co_await mlt::launch(ws_cmd);

    mlt::http_server h;
    h.url = https.url();
    h.tls.ca_file = cert.cert;
    h.proxy.url = with_credentials;
    auto s = co_await mlt::connect(h);
    auto echo = co_await s.call_tool("echo", mlt::args("message", "tunnelled"));
    MCP_CHECK_OK(echo);
    CHECK(echo.text() == "tunnelled");
    co_await s.close();
    mlt::websocket_server w;
    w.url = wss.url();
    w.tls.ca_file = cert.cert;
    w.proxy.url = with_credentials;
    auto sw = co_await mlt::connect(w);
    auto echo_wss = co_await sw.call_tool("echo", mlt::args("message", "wss"));
    MCP_CHECK_OK(echo_wss);
    co_await sw.close();
    mlt::websocket_server plain;
    plain.url = ws.url();
    plain.proxy.url = with_credentials;
    auto sp = co_await mlt::connect(plain);
    auto echo_ws = co_await sp.call_tool("echo", mlt::args("message", "ws"));
    MCP_CHECK_OK(echo_ws);
    co_await sp.close();
    const mlt::json counted = mlt::json::parse(read_file(stats_path));
    CHECK(counted.at("connects").get<int>() >= 4);  // the pool's connections, the GET stream, wss, ws
    CHECK(counted.at("forwarded").get<int>() == 0);
    const std::string hosts = counted.at("hosts").dump();
    CHECK(contains(hosts, authority_of(https.url())));
    CHECK(contains(hosts, authority_of(wss.url())));
    CHECK(contains(hosts, authority_of(ws.url())));

    mlt::http_server no_credentials = h;
    no_credentials.proxy.url = proxy.url();
    const mlt::any_server no_credentials_any = no_credentials;
    const std::string refused = co_await connect_failure(no_credentials_any);
    CHECK(contains(refused, "the proxy " + proxy.url() + " (proxy.url) did not open a tunnel to " + authority_of(https.url())));
    CHECK(contains(refused, "HTTP 407"));
    mlt::websocket_server w_no_credentials = w;
    w_no_credentials.proxy.url = proxy.url();
    const mlt::any_server w_no_credentials_any = w_no_credentials;
    const std::string w_refused = co_await connect_failure(w_no_credentials_any);
    CHECK(contains(w_refused, "HTTP 407"));

    auto refusing_cmd = quiet(fixture("proxy_server.py", {"--refuse-connect"}));
    auto refusing = co_await mlt::launch(refusing_cmd);
    mlt::http_server forbidden = h;
    forbidden.proxy.url = refusing.url();
    const mlt::any_server forbidden_any = forbidden;
    const std::string forbade = co_await connect_failure(forbidden_any);
    CHECK(contains(forbade, "HTTP 403"));
    CHECK(contains(forbade, "proxy.no_proxy"));
    co_await refusing.close();

    mlt::http_server down = h;
    down.proxy.url = "http://alice:pw-SECRET@127.0.0.1:1";
    const mlt::any_server down_any = down;
    const std::string unreachable = co_await connect_failure(down_any);
    CHECK(contains(unreachable, "cannot connect to the proxy http://127.0.0.1:1 (proxy.url)"));
    for (const auto* what : {&refused, &w_refused, &forbade, &unreachable}) CHECK_FALSE(contains(*what, "SECRET"));
    std::filesystem::remove(stats_path);
    co_await ws.close();
    co_await wss.close();
    co_await https.close();
    co_await proxy.close();
}
#endif

MCP_LOADTEST_CASE("proxy: http:// through http_proxy in absolute form, NO_PROXY, an explicit proxy and no proxy overriding the environment") {
    const auto stats_path = std::filesystem::temp_directory_path() / ("mlt-proxy-stats-" + std::to_string(::getpid()));
    const std::string stats_file = stats_path.string();
    auto proxy_cmd = quiet(fixture("proxy_server.py", {"--resolve", "mcp.test=127.0.0.1", "--stats", stats_file}));
    auto proxy = co_await mlt::launch(proxy_cmd);
    auto server_cmd = quiet(fixture("http_server.py"));
    auto server = co_await mlt::launch(server_cmd);
    const std::string server_at = authority_of(server.url());
    const std::string port = server_at.substr(server_at.find(':') + 1);
    // mcp.test resolves nowhere but in the proxy: only traffic through it can reach the server.
    mlt::http_server via_env;
    via_env.url = "http://mcp.test:" + port + "/mcp";
    ::setenv("http_proxy", proxy.url().c_str(), 1);
    auto s = co_await mlt::connect(via_env);
    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < 16; ++i) calls.push_back(s.call_tool("echo", mlt::args("message", std::to_string(i))));
    auto results = co_await mlt::when_all(std::move(calls));
    for (std::size_t i = 0; i < results.size(); ++i) {
        MCP_CHECK_OK(results[i]);
        CHECK(results[i].text() == std::to_string(i));
    }
    co_await s.close();
    const mlt::json counted = mlt::json::parse(read_file(stats_path));
    CHECK(counted.at("forwarded").get<int>() >= 18);  // initialize, initialized, 16 calls (and the GET, DELETE)
    CHECK(counted.at("connects").get<int>() == 0);
    CHECK(counted.at("hosts").dump() == "[\"mcp.test:" + port + "\"]");

    ::setenv("NO_PROXY", "example.org,mcp.test", 1);
    const mlt::any_server bypassing = via_env;
    const std::string bypassed = co_await connect_failure(bypassing);
    CHECK(contains(bypassed, "mcp.test"));  // reached directly: the name does not resolve
    ::unsetenv("NO_PROXY");

    mlt::http_server direct = via_env;
    direct.proxy.from_environment = false;  // "no proxy", whatever the environment says
    const mlt::any_server direct_any = direct;
    const std::string not_proxied = co_await connect_failure(direct_any);
    CHECK(contains(not_proxied, "mcp.test"));

    ::setenv("http_proxy", "http://127.0.0.1:1", 1);  // nothing listens there
    mlt::http_server explicit_proxy = via_env;
    explicit_proxy.proxy.url = proxy.url();  // overrides the environment
    auto e = co_await mlt::connect(explicit_proxy);
    auto echo = co_await e.call_tool("echo", mlt::args("message", "explicit"));
    MCP_CHECK_OK(echo);
    co_await e.close();
    const mlt::any_server dead_any = via_env;
    const std::string dead = co_await connect_failure(dead_any);
    CHECK(contains(dead, "cannot connect to the proxy http://127.0.0.1:1 (http_proxy)"));
    ::unsetenv("http_proxy");
    std::filesystem::remove(stats_path);
    co_await server.close();
    co_await proxy.close();
}

using mlt_test::every_transport;

MCP_LOADTEST_CASE("run(): the same load test body over stdio, TCP, Unix sockets, Streamable HTTP, HTTP+SSE and WebSocket") {
    every_transport every;
    co_await every.launch(true);
    const auto& servers = every.servers;
    const auto& names = every.names;
    for (std::size_t i = 0; i < servers.size(); ++i) {
        CAPTURE(names[i]);
        mlt::run_options options;
        options.sample_interval = 0ms;
        const auto calls = mlt::mix::single("echo", mlt::args("message", "load"));
        const mlt::workload load = mlt::closed_load{.users = 8, .duration = 1s};
        mlt::thresholds objectives;
        objectives.error_rate = 0.0;
        auto report = co_await mlt::run(servers[i], load, calls, objectives, options);
        MCP_CHECK_PASSED(report);
        CHECK(report.transport == names[i]);
        CHECK(report.protocol_era == "legacy");
        CHECK(report.overall.outcomes.total() > 50);
    }
    co_await every.close();
}

MCP_LOADTEST_CASE("send_raw: raw bytes over stdio, TCP, Streamable HTTP, HTTP+SSE and WebSocket get their answers") {
    every_transport every;
    co_await every.launch(false);
    const auto& servers = every.servers;
    const auto& names = every.names;
    for (std::size_t i = 0; i < servers.size(); ++i) {
        CAPTURE(names[i]);
        auto s = co_await mlt::connect(servers[i]);
        auto parse = co_await s.send_raw("{\"jsonrpc\":\"2.0\",\"id\":1000000001,");
        // HTTP+SSE answers as the TypeScript SDK does: 400 with a plain-text body.
        if (names[i] == "http+sse") CHECK(parse.http_status == 400);
        else CHECK(parse.error_code == -32700);
        auto unknown = co_await s.send_raw(R"({"jsonrpc":"2.0","id":1000000002,"method":"tools/frobnicate"})");
        CHECK(unknown.error_code == -32601);
        auto call = co_await s.send_raw(
            R"({"jsonrpc":"2.0","id":1000000003,"method":"tools/call","params":{"name":"echo","arguments":{"message":"raw"}}})");
        MCP_CHECK_OK(call);
        CHECK(call.text() == "raw");
        auto note = co_await s.send_raw(R"({"jsonrpc":"2.0","method":"notifications/unknown"})", {.quiet = 100ms});
        MCP_CHECK_OK(note);
        CHECK_FALSE(note.answered());
        auto after = co_await s.call_tool("echo", mlt::args("message", "after"));
        MCP_CHECK_OK(after);
        CHECK(s.protocol_violations().empty());
        co_await s.close();
    }
    co_await every.close();
}

// ---- hostile HTTP servers and the opening's budget -------------------------------

TEST_CASE("http: which Content-Type carries a JSON reply") {
    using mlt::detail::is_json_media_type;
    CHECK(is_json_media_type("application/json"));
    CHECK(is_json_media_type("Application/JSON; charset=utf-8"));
    CHECK(is_json_media_type("application/vnd.api+json"));
    CHECK(is_json_media_type("JSON"));
    CHECK_FALSE(is_json_media_type("text/html; charset=utf-8"));
    CHECK_FALSE(is_json_media_type("text/plain; note=json"));  // only the type and subtype count
    CHECK_FALSE(is_json_media_type("jso"));
    CHECK_FALSE(is_json_media_type(""));
}

MCP_LOADTEST_CASE("http: a 200 reply that is neither JSON nor SSE ends the call at once as malformed") {
    const std::vector<std::string> types{"text/html; charset=utf-8", "text/plain", "application/octet-stream"};
    for (const auto& type : types) {
        CAPTURE(type);
        auto cmd = quiet(fixture("http_server.py", {"--misbehave", "wrong-content-type", "--content-type", type}));
        auto proc = co_await mlt::launch(cmd);
        auto s = co_await mlt::connect(http_at(proc));
        mlt::call_options five_seconds;
        five_seconds.timeout = 5s;
        const auto t0 = std::chrono::steady_clock::now();
        auto r = co_await s.call_tool("echo", mlt::args("message", "x"), five_seconds);
        CHECK(std::chrono::steady_clock::now() - t0 < 2s);  // at once, not at the timeout
        CHECK(r.outcome == mlt::outcome::malformed);
        CHECK(r.http_status == 200);
        CHECK(contains(r.message, type));               // names the content type
        CHECK(contains(r.message, "<!DOCTYPE html>"));  // and shows the start of the body
        auto list = co_await s.list_tools();            // the session goes on
        CHECK(list.ok());
        co_await s.close();
        co_await proc.close();
    }
    // A JSON answer is the request's reply in Streamable HTTP: one that is not ends the call too.
    auto cmd = quiet(fixture("http_server.py", {"--misbehave", "wrong-id"}));
    auto proc = co_await mlt::launch(cmd);
    auto s = co_await mlt::connect(http_at(proc));
    mlt::call_options five_seconds;
    five_seconds.timeout = 5s;
    const auto t0 = std::chrono::steady_clock::now();
    auto r = co_await s.call_tool("echo", mlt::args("message", "x"), five_seconds);
    CHECK(std::chrono::steady_clock::now() - t0 < 2s);
    CHECK(r.outcome == mlt::outcome::malformed);
    CHECK(contains(r.message, "not its reply"));
    co_await s.close();
    co_await proc.close();
}

MCP_LOADTEST_CASE("http: an oversized reply is malformed wherever it is oversized (head, JSON body, SSE event)") {
    struct shape {
        std::string misbehave, reply_mode;
    };
    const std::vector<shape> shapes{{"huge-header", "json"}, {"huge-body", "json"}, {"huge-body", "sse"}};
    for (const auto& [misbehave, reply_mode] : shapes) {
        CAPTURE(misbehave);
        CAPTURE(reply_mode);
        auto cmd = quiet(fixture("http_server.py", {"--misbehave", misbehave, "--reply-mode", reply_mode}));
        auto proc = co_await mlt::launch(cmd);
        auto server = http_at(proc);
        server.limits.max_message_size = 1024 * 1024;
        auto s = co_await mlt::connect(server);
        mlt::call_options three_seconds;
        three_seconds.timeout = 3s;
        auto r = co_await s.call_tool("echo", mlt::args("message", "x"), three_seconds);
        CHECK(r.outcome == mlt::outcome::malformed);
        CHECK(contains(r.message, "exceeded"));
        if (misbehave == "huge-body") CHECK(contains(r.message, "max_message_size (1048576 bytes)"));
        const auto& violations = s.protocol_violations();
        CHECK(std::any_of(violations.begin(), violations.end(), [](const mlt::protocol_violation& v) {
            return v.what == mlt::protocol_violation::kind::oversized_message;
        }));
        auto list = co_await s.list_tools();
        CHECK(list.ok());
        co_await s.close();
        co_await proc.close();
    }
    // The bound is per message: an SSE reply carrying more than max_message_size in all is fine.
    auto cmd = quiet(fixture("http_server.py", {"--reply-mode", "sse"}));
    auto proc = co_await mlt::launch(cmd);
    auto server = http_at(proc);
    server.limits.max_message_size = 4096;
    auto s = co_await mlt::connect(server);
    const mlt::json hundred_steps{{"steps", 100}};  // ~13 KB of progress events before the response
    mlt::call_options with_progress;
    with_progress.progress = true;
    auto r = co_await s.call_tool("progress", hundred_steps, with_progress);
    MCP_CHECK_OK(r);
    CHECK(r.progress_notifications == 100);
    co_await s.close();
    co_await proc.close();
}

MCP_LOADTEST_CASE("http: notification POSTs the server never answers do not hold the connection pool forever") {
    auto cmd = quiet(fixture("http_server.py", {"--ignore-cancellations"}));
    auto proc = co_await mlt::launch(cmd);
    auto server = http_at(proc);
    server.connections = 2;
    server.limits.connect_timeout = 500ms;
    mlt::client_options legacy;  // the legacy era sends notifications/cancelled as POSTs
    legacy.era = mlt::era_selection::legacy;
    auto s = co_await mlt::connect(server, legacy);
    const mlt::json long_sleep{{"ms", 1500}};
    mlt::call_options brief;
    brief.timeout = 100ms;
    for (int i = 0; i < 2; ++i) {  // each timeout sends a cancellation the server reads and never answers
        auto r = co_await s.call_tool("sleep", long_sleep, brief);
        CHECK(r.outcome == mlt::outcome::hang);
    }
    mlt::call_options three_seconds;
    three_seconds.timeout = 3s;
    auto echo = co_await s.call_tool("echo", mlt::args("message", "still served"), three_seconds);
    MCP_CHECK_OK(echo);
    const auto& violations = s.protocol_violations();
    CHECK(std::any_of(violations.begin(), violations.end(), [](const mlt::protocol_violation& v) {
        return contains(v.sample, "notifications/cancelled");
    }));
    co_await s.close();
    co_await proc.close();
}

MCP_LOADTEST_CASE("connect: automatic era detection spends startup_timeout once against a silent server") {
    mlt::forget_detected_eras();
    mlt::stdio_server silent{mlt_test::python, {"-c", "import sys\nfor line in sys.stdin: pass\n"}};
    silent.startup_timeout = 1000ms;
    const auto t0 = std::chrono::steady_clock::now();
    std::string what;
    try {
        co_await mlt::connect(silent);
    } catch (const mlt::connect_error& e) {
        what = e.what();
    }
    const auto took = std::chrono::steady_clock::now() - t0;
    CHECK(took < 1600ms);  // the probe and initialize share the 1000 ms (it took 2000 ms)
    CHECK(contains(what, "server/discover"));
    CHECK(contains(what, "startup_timeout (1000 ms)"));
}

// ---- peers that stop reading ---------------------------------------------------

namespace {

// A field of /proc/self/status in KiB (VmRSS: resident now; VmHWM: peak since the reset).
long status_kib(const std::string& field) {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
    return -1;
}

// What a bounded client may grow by during one call. Sanitizer runtimes keep
// freed blocks in quarantine and shadow what they touch, so they get more; an
// unbounded queue grows by gigabytes either way.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr long bounded_growth_kib = 256 * 1024;
#else
constexpr long bounded_growth_kib = 32 * 1024;
#endif

struct measured_call {
    mlt::call_result result;
    long peak_growth_kib = 0;  // the test process's peak RSS during the call, over its RSS before
    std::chrono::steady_clock::duration took{};
};

// One echo call, with how much the client's memory grew while it ran.
asio::awaitable<measured_call> call_measuring_memory(mlt::session* s, std::chrono::milliseconds timeout) {
    std::ofstream("/proc/self/clear_refs") << "5";  // resets VmHWM to VmRSS
    const long before = status_kib("VmRSS");
    const auto t0 = std::chrono::steady_clock::now();
    measured_call m;
    m.result = co_await s->call_tool("echo", mlt::args("message", "x"), {.timeout = timeout});
    m.took = std::chrono::steady_clock::now() - t0;
    m.peak_growth_kib = status_kib("VmHWM") - before;
    co_return m;
}

}  // namespace

MCP_LOADTEST_CASE("websocket: a server flooding pings and never reading grows the client by little, the hang says why") {
    auto cmd = quiet(fixture("ws_server.py", {"--misbehave", "ping-flood"}));
    auto proc = co_await mlt::launch(cmd);
    {
        mlt::websocket_server server;
        server.url = proc.url();
        auto s = co_await mlt::connect(server);
        const auto m = co_await call_measuring_memory(&s, 3s);
        CAPTURE(m.result.message);
        CHECK(m.result.outcome == mlt::outcome::hang);
        CHECK(m.took < 6s);
        // The "stopped reading" hint needs the client's writes to have stalled (the
        // server's receive buffer full of pongs): a slow client (ASan) may not get
        // there in 3 s. The second part below forces the stall and checks the hint.
        if (!contains(m.result.message, "stopped reading")) MESSAGE("no write stall within 3 s: " << m.result.message);
        MESSAGE("peak RSS growth during a 3 s ping flood: " << m.peak_growth_kib << " KiB");
        CHECK(m.peak_growth_kib < bounded_growth_kib);  // was +2 GB: one queued pong per ping
        co_await s.close();
    }
    co_await proc.close();

    // Calls sent to a server that no longer reads: bounded by limits.max_send_queue.
    auto proc2 = co_await mlt::launch(cmd);
    mlt::websocket_server server;
    server.url = proc2.url();
    server.limits.max_send_queue = 256 * 1024;
    auto s = co_await mlt::connect(server);
    auto first = co_await s.call_tool("echo", mlt::args("message", "x"), {.timeout = 1s});  // starts the flood
    CHECK(first.outcome == mlt::outcome::hang);
    const std::string big(64 * 1024, 'y');
    std::vector<asio::awaitable<mlt::call_result>> calls;
    for (int i = 0; i < 200; ++i) calls.push_back(s.call_tool("echo", mlt::args("message", big), {.timeout = 10s}));
    const auto t0 = std::chrono::steady_clock::now();
    auto results = co_await mlt::when_all(std::move(calls));
    CHECK(std::chrono::steady_clock::now() - t0 < 5s);
    std::size_t ended_by_limit = 0;
    for (const auto& r : results) {
        CHECK(r.outcome == mlt::outcome::hang);
        if (contains(r.message, "stopped reading") && contains(r.message, "max_send_queue")) ++ended_by_limit;
    }
    CHECK(ended_by_limit == results.size());
    co_await s.close();
    co_await proc2.close();
}

MCP_LOADTEST_CASE("stdio: a server flooding requests and never reading its stdin ends as a hang at max_send_queue") {
    auto server = quiet(fixture("flood_server.py", {"--requests-flood"}));
    server.max_send_queue = 1024 * 1024;
    auto s = co_await mlt::connect(server);
    const auto m = co_await call_measuring_memory(&s, 20s);
    CAPTURE(m.result.message);
    CHECK(m.result.outcome == mlt::outcome::hang);
    CHECK(m.took < 15s);
    CHECK(contains(m.result.message, "stopped reading"));
    CHECK(contains(m.result.message, "max_send_queue"));
    MESSAGE("peak RSS growth: " << m.peak_growth_kib << " KiB");
    CHECK(m.peak_growth_kib < bounded_growth_kib);  // was +2 GB: a reply queued per ping request
    co_await s.close();
}
#include "transports/auth_cases.hpp"
