// Cases for session_churn and for sampling a server's whole process tree
// (included by tests/test_detectors.cpp).
#pragma once

#include <mcp_loadtest/detail/engine/evaluate_thresholds.hpp>
#include <mcp_loadtest/detectors/session_churn.hpp>
#include <mcp_loadtest/network.hpp>
#include <mcp_loadtest/process_audit.hpp>
#include <mcp_loadtest/run.hpp>
#include <mcp_loadtest/server_process.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace churn_test {

inline bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

inline mlt::stdio_server quiet(mlt::stdio_server s) {
    s.stderr_to = mlt::stderr_mode::capture;
    return s;
}

inline std::string unique_lock_path() {
    return (std::filesystem::temp_directory_path() /
            ("mlt-churn-" + std::to_string(::getpid()) + "-" + std::to_string(std::rand()) + ".lock"))
        .string();
}

// doctest's MESSAGE stays outside the coroutine frame (its type would be a frame field: -Wsubobject-linkage).
// The same for the assertion macros (they use INFO).
inline void show(const std::string& text) { MESSAGE(text); }
inline void check_clean(const mlt::churn_report& report) { MCP_CHECK_CLEAN_CHURN(report); }

// The std::invalid_argument message of a session_churn call, or "".
inline asio::awaitable<std::string> churn_error(const mlt::any_server* server, mlt::churn_options o) {
    try {
        co_await mlt::session_churn(*server, o);
    } catch (const std::invalid_argument& e) {
        co_return e.what();
    }
    co_return "";
}

inline mlt::churn_options echo_cycles(std::size_t cycles) {
    mlt::churn_options o;
    o.cycles = cycles;
    o.tool = "echo";
    o.arguments = R"({"message": "churn"})";
    return o;
}

}  // namespace churn_test

// ---- session churn: processes left behind ---------------------------------------

MCP_LOADTEST_CASE("session_churn: a server that starts a setsid() helper on every start is flagged, with pids and commands") {
    // A 250-character argument on each helper's command line: the report keeps it whole.
    const std::string tag = "tag-" + std::string(246, 't');
    const auto server = churn_test::quiet(fixture("setsid_child_server.py", {"--spawn-at-start", "--helper-tag", tag}));
    auto report = co_await mlt::session_churn(server, churn_test::echo_cycles(5));
    churn_test::show(report.verdict_sentence());
    CHECK(report.verdict == mlt::churn_verdict::leaves_processes);
    CHECK_FALSE(report.passed());
    CHECK(report.processes_watched);
    REQUIRE(report.cycles.size() == 5);
    CHECK(report.cycles_with_escaped == 5);  // one more per reconnect
    CHECK(report.escaped_processes == 5);
    for (const auto& c : report.cycles) {
        CHECK(c.ok);
        CHECK(c.tree_processes == 2);  // the server and its helper
        REQUIRE(c.escaped.size() == 1);
        const auto& helper = c.escaped.front();
        if (!churn_test::contains(helper.command, "setsid_child_server.py:helper"))
            churn_test::show("unexpected escaped process: pid " + std::to_string(helper.pid) + " `" + helper.command + "`");
        CHECK(churn_test::contains(helper.command, "setsid_child_server.py:helper"));
        CHECK(helper.command.ends_with(" " + tag));
        CHECK(helper.session == helper.pid);  // it made itself a session leader
        CHECK(helper.process_group != helper.parent);
        CHECK_FALSE(helper.alive_after_close);  // the library's audit killed it at close
    }
    CHECK(churn_test::contains(report.verdict_sentence(), "LEAVES PROCESSES: 5 of 5 starts left 5 process(es)"));
    CHECK(churn_test::contains(report.verdict_sentence(), "setsid_child_server.py:helper"));
    CHECK_FALSE(churn_test::contains(report.verdict_sentence(), tag));  // the sentence shows a short form
    CHECK(mlt::process_audit::survivors().empty());

    // JSON both ways.
    const mlt::json j = report;
    const auto back = j.get<mlt::churn_report>();
    CHECK(mlt::json(back) == j);
    CHECK(back.cycles[2].escaped[0].pid == report.cycles[2].escaped[0].pid);
    CHECK(j["verdict"] == "leaves_processes");
    CHECK(j["cycles"][0]["total_ns"].get<std::int64_t>() > 0);
}

MCP_LOADTEST_CASE("session_churn: the healthy twin (its helper stays in the group and dies with it) is clean") {
    const auto server = churn_test::quiet(fixture("setsid_child_server.py", {"--spawn-at-start", "--fixed"}));
    auto report = co_await mlt::session_churn(server, churn_test::echo_cycles(5));
    churn_test::show(report.verdict_sentence());
    churn_test::check_clean(report);
    REQUIRE(report.cycles.size() == 5);
    for (const auto& c : report.cycles) {
        CHECK(c.tree_processes == 2);  // the helper was seen: the tree is watched, it just stays in the group
        CHECK(c.escaped.empty());
        CHECK(c.survived.empty());
        CHECK(c.shutdown == "stdin_closed");
    }
    CHECK(report.cycle_median > std::chrono::nanoseconds(0));
    CHECK(report.cycle_max >= report.cycle_p90);
    CHECK(report.cycle_p90 >= report.cycle_median);
    CHECK(churn_test::contains(report.verdict_sentence(), "CLEAN: 5 stdio start/handshake/echo/close cycles"));
}

// ---- session churn: interrupted sessions -----------------------------------------

MCP_LOADTEST_CASE("session_churn: killed mid-call, a server whose lock file outlives it never starts again") {
    const std::string lock = churn_test::unique_lock_path();
    const auto server = churn_test::quiet(fixture("stale_lock_server.py", {"--lock-file", lock}));
    mlt::churn_options o;
    o.cycles = 3;
    o.interrupt = mlt::churn_interruption::kill_mid_call;
    o.slow_tool = "sleep";
    o.slow_arguments = R"({"ms": 5000})";
    o.interrupt_after = 300ms;
    auto report = co_await mlt::session_churn(server, o);
    std::filesystem::remove(lock);
    churn_test::show(report.verdict_sentence());
    CHECK(report.verdict == mlt::churn_verdict::reconnect_failed);
    REQUIRE(report.cycles.size() == 4);  // 3 interrupted and the session after the last one
    CHECK(report.cycles[0].ok);
    CHECK(report.cycles[0].interrupted_outcome == mlt::outcome::crash);
    for (std::size_t i = 1; i < report.cycles.size(); ++i) {
        CHECK_FALSE(report.cycles[i].ok);
        CHECK(report.cycles[i].failed_stage == "connect");
    }
    CHECK(report.failed_cycles == 3);
    CHECK(churn_test::contains(report.verdict_sentence(), "killed (SIGKILL) mid-call"));
    CHECK(churn_test::contains(report.verdict_sentence(), "another instance is running"));
}

MCP_LOADTEST_CASE("session_churn: killed mid-call, the flock() twin starts again every time and leaves nothing") {
    const std::string lock = churn_test::unique_lock_path();
    const auto server = churn_test::quiet(fixture("stale_lock_server.py", {"--lock-file", lock, "--fixed"}));
    mlt::churn_options o;
    o.cycles = 3;
    o.interrupt = mlt::churn_interruption::kill_mid_call;
    o.slow_tool = "sleep";
    o.slow_arguments = R"({"ms": 5000})";
    o.interrupt_after = 300ms;
    auto report = co_await mlt::session_churn(server, o);
    std::filesystem::remove(lock);
    churn_test::show(report.verdict_sentence());
    churn_test::check_clean(report);
    REQUIRE(report.cycles.size() == 4);
    CHECK(report.interruptions_landed == 3);
    for (std::size_t i = 0; i < 3; ++i) CHECK(report.cycles[i].interrupted_outcome == mlt::outcome::crash);
    CHECK(report.cycles[3].ok);
    CHECK_FALSE(report.cycles[3].interrupted);
}

// ---- session churn over the network ------------------------------------------------

MCP_LOADTEST_CASE("session_churn: TCP, Streamable HTTP and WebSocket fixtures churn clean, TCP survives dropped connections") {
    const auto tcp_cmd = churn_test::quiet(fixture("tcp_server.py"));
    const auto http_cmd = churn_test::quiet(fixture("http_server.py"));
    const auto ws_cmd = churn_test::quiet(fixture("ws_server.py"));
    auto tcp = co_await mlt::launch(tcp_cmd);
    auto http = co_await mlt::launch(http_cmd);
    auto ws = co_await mlt::launch(ws_cmd);
    mlt::http_server http_desc;
    http_desc.url = http.url();
    mlt::websocket_server ws_desc;
    ws_desc.url = ws.url();
    const std::vector<mlt::any_server> servers{mlt::socket_server{tcp.url()}, http_desc, ws_desc};
    const std::vector<pid_t> pids{tcp.pid(), http.pid(), ws.pid()};
    for (std::size_t i = 0; i < servers.size(); ++i) {
        auto o = churn_test::echo_cycles(6);
        o.server_pid = pids[i];
        auto report = co_await mlt::session_churn(servers[i], o);
        churn_test::show(report.transport + ": " + report.verdict_sentence());
        churn_test::check_clean(report);
        CHECK(report.processes_watched);
        CHECK(report.cycles.size() == 6);
        for (const auto& c : report.cycles) {
            CHECK(c.tree_processes >= 1);  // the server itself
            CHECK(c.shutdown == "disconnected");
        }
    }
    mlt::churn_options drop;
    drop.cycles = 3;
    drop.tool = "echo";
    drop.arguments = R"({"message": "after a drop"})";
    drop.interrupt = mlt::churn_interruption::close_mid_call;
    drop.slow_tool = "sleep";
    drop.slow_arguments = R"({"ms": 3000})";
    drop.interrupt_after = 200ms;
    drop.server_pid = tcp.pid();
    auto dropped = co_await mlt::session_churn(servers[0], drop);
    churn_test::show(dropped.verdict_sentence());
    churn_test::check_clean(dropped);
    CHECK(dropped.interruptions_landed == 3);
    CHECK(dropped.cycles.back().ok);
    co_await tcp.close();
    co_await http.close();
    co_await ws.close();
}

MCP_LOADTEST_CASE("session_churn: server-everything churns clean" * doctest::skip(!mlt_test::have_everything())) {
    const auto server = mlt_test::everything();
    auto report = co_await mlt::session_churn(server, churn_test::echo_cycles(3));
    churn_test::show(report.verdict_sentence());
    churn_test::check_clean(report);
    CHECK(report.cycles.size() == 3);
}

MCP_LOADTEST_CASE("session_churn: bad options are std::invalid_argument saying what to do") {
    const mlt::any_server server = churn_test::quiet(fixture("echo_server.py"));
    mlt::churn_options none;
    none.cycles = 0;
    CHECK(churn_test::contains(co_await churn_test::churn_error(&server, none), "cycles must be at least 1"));
    mlt::churn_options no_slow;
    no_slow.interrupt = mlt::churn_interruption::close_mid_call;
    CHECK(churn_test::contains(co_await churn_test::churn_error(&server, no_slow), "needs churn_options::slow_tool"));
    mlt::churn_options bad_json;
    bad_json.tool = "echo";
    bad_json.arguments = "[1, 2]";
    CHECK(churn_test::contains(co_await churn_test::churn_error(&server, bad_json), "must be a JSON object's text"));
    mlt::churn_options kill_network;
    kill_network.interrupt = mlt::churn_interruption::kill_mid_call;
    kill_network.slow_tool = "sleep";
    const mlt::any_server tcp = mlt::socket_server{"tcp://127.0.0.1:1"};
    CHECK(churn_test::contains(co_await churn_test::churn_error(&tcp, kill_network), "use close_mid_call"));
}

// ---- process sampling covers the whole process tree ---------------------------------

namespace churn_test {

// run() for 2 s at 200 echo calls/s, sampling every 50 ms, tight leak thresholds.
inline asio::awaitable<mlt::load_report> run_against(const mlt::stdio_server* server) {
    const auto calls = mlt::mix::single("echo", mlt::args("message", "work"));
    const mlt::workload load = mlt::open_load{.rate = 200, .duration = 2s};
    mlt::run_options options;
    options.sample_interval = 50ms;
    options.leak.rss_growth_mb = 20;
    options.leak.thread_growth = 5;
    co_return co_await mlt::run(*server, load, calls, mlt::thresholds{}, options);
}

// The first verdict on `resource` among `leaks`.
inline mlt::leak_verdict verdict_of(const std::vector<mlt::leak_analysis>& leaks, const std::string& resource) {
    for (const auto& l : leaks)
        if (l.resource == resource) return l.verdict;
    return mlt::leak_verdict::insufficient_data;
}

inline std::string no_leak_text(const mlt::load_report& r) { return mlt::detail::no_leak_failure(r); }

}  // namespace churn_test

MCP_LOADTEST_CASE("run(): a worker child that leaks memory and threads is flagged, and named, though the server stays flat") {
    const auto server = churn_test::quiet(fixture("child_leak_server.py", {"--leak", "both"}));
    const auto report = co_await churn_test::run_against(&server);
    REQUIRE(report.processes.size() == 1);
    const auto& p = report.processes[0];
    REQUIRE(p.descendants.size() == 1);
    const auto& worker = p.descendants[0];
    CHECK(churn_test::contains(worker.command, "child_leak_server.py"));
    CHECK(churn_test::contains(worker.command, " --worker"));
    CHECK(worker.parent == p.pid);
    CHECK(worker.samples.size() >= 10);
    CHECK(churn_test::verdict_of(worker.leaks, "rss_mb") == mlt::leak_verdict::leak);
    CHECK(churn_test::verdict_of(worker.leaks, "threads") == mlt::leak_verdict::leak);
    CHECK(churn_test::verdict_of(std::vector(p.leaks.begin(), p.leaks.begin() + 3), "rss_mb") == mlt::leak_verdict::no_leak);
    CHECK(p.tree_stats.peak_rss_mb > p.stats.peak_rss_mb + worker.stats.peak_rss_mb * 0.5);
    const std::string failure = churn_test::no_leak_text(report);
    churn_test::show(failure);
    CHECK(churn_test::contains(failure, "descendant pid " + std::to_string(worker.pid)));
    CHECK(churn_test::contains(failure, "child_leak_server.py --worker"));
    CHECK(churn_test::contains(failure, "Thread count grew"));

    // Growth objectives judge the worker's growth too, not the flat server's alone.
    const auto violations = mlt::detail::evaluate_thresholds(report, {.rss_growth_mb = 1, .thread_growth = 2});
    std::string broken;
    for (const auto& v : violations) broken += v.metric + ": " + v.meaning + "\n";
    INFO(broken);
    CHECK(churn_test::contains(broken, "server[0]:rss_growth_mb: descendant pid " + std::to_string(worker.pid)));
    CHECK(churn_test::contains(broken, "server[0]:thread_growth: descendant pid " + std::to_string(worker.pid)));

    // The report keeps its shape both ways, descendants included.
    const mlt::json j = report;
    REQUIRE(j["processes"][0].contains("descendants"));
    const auto back = j.get<mlt::load_report>();
    CHECK(mlt::json(back) == j);
}

MCP_LOADTEST_CASE("run(): the twin whose worker keeps nothing is not flagged, though its worker is sampled") {
    const auto server = churn_test::quiet(fixture("child_leak_server.py", {"--leak", "both", "--fixed"}));
    const auto report = co_await churn_test::run_against(&server);
    REQUIRE(report.processes.size() == 1);
    const auto& p = report.processes[0];
    REQUIRE(p.descendants.size() == 1);
    CHECK(p.descendants[0].samples.size() >= 10);
    CHECK(p.leaks.size() == 3);  // no descendant leak appended
    const std::string failure = churn_test::no_leak_text(report);
    churn_test::show(failure.empty() ? std::string("no leak") : failure);
    CHECK(failure.empty());
}
