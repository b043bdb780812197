// The cases every platform runs, through the public API only: a stdio server
// (the C++ fixture, fixtures/native) found on PATH through a shim, as npx is on
// Windows, then calls, a load, a call it never answers, and a close that leaves
// nothing of its process tree; the same fixture over TCP, Streamable HTTP,
// WebSocket and legacy HTTP+SSE, started with launch(); every detector against it,
// healthy and broken (hung, racy cancels, one worker, a slow start, a crash, a
// leak). Linux runs it natively; Windows under Wine.
#include <doctest/doctest.h>
#include <mcp_loadtest/doctest.hpp>
#include <mcp_loadtest/detail/os/process_tree.hpp>
#include <mcp_loadtest/detectors.hpp>
#include <mcp_loadtest/hang_evidence.hpp>
#include <mcp_loadtest/network.hpp>
#include <mcp_loadtest/report/baseline.hpp>
#include <mcp_loadtest/run.hpp>
#include <mcp_loadtest/server_process.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;

namespace {

#if defined(_WIN32)
// What npm writes for a package's command on Windows: a .cmd running the real program.
constexpr const char* shim_name = "mlt-fixture.cmd";
std::string shim_text(const std::string& program) { return "@\"" + program + "\" %*\r\n"; }
constexpr char path_separator = ';';
#else
constexpr const char* shim_name = "mlt-fixture";
std::string shim_text(const std::string& program) { return "#!/bin/sh\nexec '" + program + "' \"$@\"\n"; }
constexpr char path_separator = ':';
#endif

// A folder holding the shim `mlt-fixture`, to put first on the server's PATH; removed with
// everything in it when the case ends, however it ends.
struct shim_directory {
    std::filesystem::path path = std::filesystem::temp_directory_path() /
                                 ("mlt-portable-" + std::to_string(mlt::detail::this_process_id()) + "-" +
                                  std::to_string(std::rand()));
    shim_directory() {
        std::filesystem::create_directories(path);
        const auto shim = path / shim_name;
        if (std::FILE* f = std::fopen(shim.string().c_str(), "wb")) {
            const std::string text = shim_text(MCP_LOADTEST_NATIVE_FIXTURE);
            std::fwrite(text.data(), 1, text.size(), f);
            std::fclose(f);
        }
        std::filesystem::permissions(shim, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
    }
    shim_directory(const shim_directory&) = delete;
    shim_directory& operator=(const shim_directory&) = delete;
    ~shim_directory() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
};

mlt::stdio_server through_shim(const shim_directory& dir, std::vector<std::string> args) {
    mlt::stdio_server s{"mlt-fixture", std::move(args)};
    const char* path = std::getenv("PATH");
    s.env["PATH"] = dir.path.string() + (path ? path_separator + std::string(path) : std::string());
    s.stderr_to = mlt::stderr_mode::capture;
    s.shutdown.after_stdin_close = 1s;
    s.shutdown.after_sigterm = 1s;
    return s;
}

// The live processes of `root`'s tree now.
std::vector<mlt::pid_t> tree_of(mlt::pid_t root) {
    std::vector<mlt::pid_t> out;
    for (const auto& p : mlt::detail::process_tree_members(root, mlt::detail::snapshot_processes()))
        if (!p.dead()) out.push_back(p.pid);
    return out;
}

// A network server launched from `command`: calls, a call it never answers (abandoned),
// then a short closed load over a fresh session; the server's process closed at the end.
template <class Server>
asio::awaitable<void> calls_and_a_load(mlt::stdio_server command, const std::string& scheme) {
    auto proc = co_await mlt::launch(command);
    MESSAGE("listening at " << proc.url());
    REQUIRE(proc.url().rfind(scheme + "://127.0.0.1:", 0) == 0);
    Server server;
    server.url = proc.url();
    {
        auto s = co_await mlt::connect(server);
        const auto tools = co_await s.list_tools({.timeout = 10s});
        REQUIRE(tools.ok());
        CHECK(tools.size() == 2);
        auto echo = co_await s.call_tool("echo", mlt::args("message", "over " + scheme), {.timeout = 10s});
        MCP_CHECK_OK(echo);
        CHECK(echo.text() == "over " + scheme);
        auto big = co_await s.call_tool("echo", mlt::args("message", std::string(200'000, 'x')), {.timeout = 10s});
        MCP_CHECK_OK(big);
        CHECK(big.text().size() == 200'000);
        auto never = co_await s.call_tool("sleep", mlt::args("ms", 60000), {.timeout = 300ms});
        MCP_CHECK_OUTCOME(never, mlt::outcome::hang);
        CHECK(s.protocol_violations().empty());
        co_await s.close();
    }
    const mlt::workload load = mlt::closed_load{.users = 2, .duration = 1s};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "load"));
    const auto report = co_await mlt::run(server, load, calls);
    MESSAGE(report.overall.calls() << " calls over " << scheme << ", p50 " << report.overall.latency.p50.count() / 1000 << " us");
    CHECK(report.overall.calls() >= 20);
    CHECK(report.overall.outcomes[mlt::outcome::ok] == report.overall.calls());
    const auto closed = co_await proc.close();
    CHECK(closed.status.exited);
}

}  // namespace

MCP_LOADTEST_CASE("a stdio server found through a shim on PATH answers, and its whole tree is gone after close") {
    const shim_directory dir;
    const auto server = through_shim(dir, {"--crlf", "--spawn-child"});
    auto s = co_await mlt::connect(server);
    const auto tools = co_await s.list_tools({.timeout = 10s});
    REQUIRE(tools.ok());
    CHECK(tools.size() == 2);
    auto echo = co_await s.call_tool("echo", mlt::args("message", "from every platform"), {.timeout = 10s});
    MCP_CHECK_OK(echo);
    CHECK(echo.text() == "from every platform");
    CHECK(s.protocol_violations().empty());  // CRLF line ends are accepted

    // The shim (or the server it became), the server, and the child it started.
    std::vector<mlt::pid_t> tree;
    for (const auto deadline = std::chrono::steady_clock::now() + 5s;
         tree.size() < 2 && std::chrono::steady_clock::now() < deadline;)
        tree = tree_of(s.pid());
    MESSAGE("the server's tree: " << tree.size() << " process(es)");
    CHECK(tree.size() >= 2);

    const auto closed = co_await s.close();
    CHECK(closed.status.exited);
    for (const auto pid : tree) CHECK_FALSE(mlt::detail::read_proc(pid));
    CHECK(mlt::process_audit::survivors().empty());
}

MCP_LOADTEST_CASE("a call the server never answers is abandoned, hang evidence names its threads in words this system can back, and close ends the server") {
    const shim_directory dir;
    const auto server = through_shim(dir, {});
    auto s = co_await mlt::connect(server);
    // The fixture's sleep blocks it: it reads nothing more, not even the end of its stdin.
    auto never = co_await s.call_tool("sleep", mlt::args("ms", 60000), {.timeout = 300ms});
    MCP_CHECK_OUTCOME(never, mlt::outcome::hang);
    const auto ev = mlt::snapshot_hang_evidence(s.pid(), {.native_stacks = mlt::native_stacks_mode::automatic,
                                                          .native_stacks_timeout = std::chrono::milliseconds(5000)});
    MESSAGE(ev.summary());
    MESSAGE("native stacks: " << ev.native_stacks);
    REQUIRE(ev.taken());
    CHECK(ev.thread_count() >= 1);
    // The server, or on Windows the cmd.exe running its shim and the server under it.
    CHECK(std::any_of(ev.processes.begin(), ev.processes.end(),
                      [](const auto& p) { return p.command.find("mcp_fixture_server") != std::string::npos; }));
    if (const char* why = mlt::detail::native_stacks_unavailable()) {
        // Windows: no thread states and no gdb, each said as such (never a state that reads as measured).
        CHECK(ev.native_stacks == std::string("not taken: ") + why);
        for (const auto& p : ev.processes)
            for (const auto& t : p.threads) CHECK(t.activity.find("whose state is not shown") == 0);
    } else {
        for (const auto& p : ev.processes)
            for (const auto& t : p.threads) CHECK(t.activity.find("state is not shown") == std::string::npos);
    }
    const auto closed = co_await s.close();
    MESSAGE("ended: " << static_cast<int>(closed.ended) << ", " << closed.status.describe());
    CHECK(closed.status.exited);
    CHECK(closed.ended != mlt::shutdown_result::how::abandoned);
    CHECK(closed.took < 10s);
    CHECK(mlt::process_audit::survivors().empty());
}

MCP_LOADTEST_CASE("run(): an open load on a stdio server found through a shim, every call answered") {
    const shim_directory dir;
    const auto server = through_shim(dir, {});
    const mlt::workload load = mlt::open_load{.rate = 100, .duration = 2s};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "load"));
    mlt::run_options options;
    options.sample_interval = 100ms;
    const auto report = co_await mlt::run(server, load, calls, mlt::thresholds{}, options);
    MESSAGE(report.overall.calls() << " calls, p50 " << report.overall.latency.p50.count() / 1000 << " us");
    CHECK(report.overall.calls() >= 150);
    CHECK(report.overall.outcomes[mlt::outcome::ok] == report.overall.calls());
    REQUIRE(report.processes.size() == 1);
    CHECK(report.processes[0].samples.size() >= 5);  // the server was sampled
    CHECK(mlt::process_audit::survivors().empty());
}

MCP_LOADTEST_CASE("TCP: a launched server answers over a socket, and a call it never answers is abandoned") {
    const shim_directory dir;
    const auto command = through_shim(dir, {"--listen", "tcp"});
    auto proc = co_await mlt::launch(command);
    MESSAGE("listening at " << proc.url());
    REQUIRE(proc.url().rfind("tcp://127.0.0.1:", 0) == 0);
    {
        const mlt::socket_server server{proc.url()};
        auto s = co_await mlt::connect(server);
        const auto tools = co_await s.list_tools({.timeout = 10s});
        REQUIRE(tools.ok());
        CHECK(tools.size() == 2);
        auto echo = co_await s.call_tool("echo", mlt::args("message", "over TCP"), {.timeout = 10s});
        MCP_CHECK_OK(echo);
        CHECK(echo.text() == "over TCP");
        auto never = co_await s.call_tool("sleep", mlt::args("ms", 60000), {.timeout = 300ms});
        MCP_CHECK_OUTCOME(never, mlt::outcome::hang);
        co_await s.close();
    }
    const auto closed = co_await proc.close();
    CHECK(closed.status.exited);
    CHECK(mlt::process_audit::survivors().empty());
}

MCP_LOADTEST_CASE("Streamable HTTP: run() against a launched server over pooled connections, replies as JSON and as SSE") {
    const shim_directory dir;
    const auto command = through_shim(dir, {"--listen", "http", "--flood", "2"});
    auto proc = co_await mlt::launch(command);
    MESSAGE("listening at " << proc.url());
    REQUIRE(proc.url().rfind("http://127.0.0.1:", 0) == 0);
    mlt::http_server server{proc.url()};
    server.connections = 4;
    {
        auto s = co_await mlt::connect(server);
        // Two notifications, then the reply: one text/event-stream response.
        auto echo = co_await s.call_tool("echo", mlt::args("message", "over HTTP"), {.timeout = 10s});
        MCP_CHECK_OK(echo);
        CHECK(echo.text() == "over HTTP");
        co_await s.close();
    }
    const mlt::workload load = mlt::closed_load{.users = 4, .duration = 2s};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "load"));
    const auto report = co_await mlt::run(server, load, calls);
    MESSAGE(report.overall.calls() << " calls, p50 " << report.overall.latency.p50.count() / 1000 << " us");
    CHECK(report.overall.calls() >= 40);
    CHECK(report.overall.outcomes[mlt::outcome::ok] == report.overall.calls());
    const auto closed = co_await proc.close();
    CHECK(closed.status.exited);
    CHECK(mlt::process_audit::survivors().empty());
}

MCP_LOADTEST_CASE("WebSocket and legacy HTTP+SSE: launched servers answer calls and a load, and a call they never answer is abandoned") {
    const shim_directory dir;
    const auto websocket = through_shim(dir, {"--listen", "ws"});
    co_await calls_and_a_load<mlt::websocket_server>(websocket, "ws");
    const auto legacy_sse = through_shim(dir, {"--listen", "sse"});
    co_await calls_and_a_load<mlt::sse_server>(legacy_sse, "http");
    CHECK(mlt::process_audit::survivors().empty());
}

MCP_LOADTEST_CASE("detectors: a healthy server passes the deadlock probe, race, cross-talk and payload checks") {
    const shim_directory dir;
    const auto server = through_shim(dir, {});
    const auto message = mlt::args("message", "same for everyone");

    auto probe = co_await mlt::deadlock_probe(server, "echo", message,
                                              mlt::probe_options{.concurrent = 10, .hang_threshold = 5s});
    INFO(probe.explanation);
    MCP_CHECK_NO_DEADLOCK(probe);
    CHECK(probe.ok == 10);
    CHECK_FALSE(probe.evidence.taken());

    auto race = co_await mlt::race_check(server, "echo", message, mlt::race_options{.concurrent = 10});
    INFO(race.explanation());
    CHECK(race.calls == 10);
    CHECK(race.passed());

    auto isolated = co_await mlt::cross_talk_check(
        server, "echo", [](std::size_t i) { return mlt::args("message", "call " + std::to_string(i)); },
        mlt::cross_talk_options{.calls = 10, .sessions = 2});
    INFO(isolated.verdict_sentence());
    CHECK(isolated.verdict == mlt::cross_talk_verdict::isolated);
    CHECK(isolated.matched == 10);

    // Lines of up to 1 MiB through the pipes, echoed whole.
    auto sweep = co_await mlt::payload_sweep(server, "echo", "message",
                                             mlt::payload_sweep_options{.max_bytes = 1024 * 1024, .expect_echo = true});
    INFO(sweep.verdict_sentence());
    CHECK(sweep.verdict == mlt::payload_verdict::pass);
    CHECK(sweep.last_good_bytes >= 1024 * 1024);
    CHECK(mlt::process_audit::survivors().empty());
}

MCP_LOADTEST_CASE("detectors: a server that never answers a call is a critical deadlock with its evidence, and nothing survives it") {
    const shim_directory dir;
    const auto server = through_shim(dir, {"--hang-on-call"});
    auto probe = co_await mlt::deadlock_probe(server, "echo", mlt::args("message", "x"),
                                              mlt::probe_options{.concurrent = 4, .hang_threshold = 1s});
    INFO(probe.explanation);
    CHECK(probe.verdict == mlt::probe_verdict::critical);
    CHECK(probe.deadlocked == 4);
    REQUIRE(probe.evidence.taken());
    CHECK(probe.evidence.thread_count() >= 1);
    CHECK(probe.explanation.find("Hang evidence:") != std::string::npos);
    CHECK(mlt::process_audit::survivors().empty());
}

MCP_LOADTEST_CASE("detectors: session churn of a server that starts a child leaves nothing behind") {
    const shim_directory dir;
    const auto server = through_shim(dir, {"--spawn-child"});
    auto churn = co_await mlt::session_churn(server, mlt::churn_options{.cycles = 5, .tool = "echo",
                                                                      .arguments = R"({"message":"churn"})"});
    INFO(churn.verdict_sentence());
    CHECK(churn.verdict == mlt::churn_verdict::clean);
    CHECK(churn.processes_watched);
    CHECK(churn.failed_cycles == 0);
    CHECK(churn.surviving_processes == 0);
    CHECK(mlt::process_audit::survivors().empty());
}

MCP_LOADTEST_CASE("detectors: a server that drops cancelled calls is cancellation safe, one that answers them anyway dies of a cancel in its reply phase") {
    const shim_directory dir;
    mlt::cancellation_options options;
    options.baseline_calls = 3;
    options.cancels_per_moment = 4;
    options.followup_calls = 3;
    options.call.timeout = 10s;
    const auto message = mlt::args("message", "cancel me");

    const auto honouring = through_shim(dir, {"--delay-ms", "100", "--reply-ms", "50"});
    const auto healthy = co_await mlt::cancellation_check(honouring, "echo", message, options);
    INFO(healthy.verdict_sentence());
    MCP_CHECK_CANCELLATION_SAFE(healthy);
    CHECK(healthy.crashes == 0);
    CHECK(healthy.replied_anyway == 0);
    CHECK(healthy.honoured >= 6);  // after_send and mid_call always reach the handler

    // python-sdk#2416: a cancel between the handler's return and its reply.
    const auto racy = through_shim(dir, {"--delay-ms", "100", "--reply-ms", "50", "--racy-cancel"});
    const auto report = co_await mlt::cancellation_check(racy, "echo", message, options);
    INFO(report.verdict_sentence());
    CHECK(report.verdict == mlt::cancellation_verdict::critical);
    CHECK(report.crashes >= 1);
    const auto* due = report.moment(mlt::cancel_moment::reply_due);
    REQUIRE(due != nullptr);
    CHECK(due->crashed);
    CHECK(due->exit.exited);
    CHECK(due->exit.code == 1);
    CHECK(due->stderr_tail.find("Request already responded to") != std::string::npos);
    const auto* first = report.moment(mlt::cancel_moment::after_send);
    REQUIRE(first != nullptr);
    CHECK_FALSE(first->crashed);
    CHECK(first->replied_anyway == first->sent);  // answered at once with "Request cancelled"
    CHECK(mlt::process_audit::survivors().empty());
}

MCP_LOADTEST_CASE("detectors: a fast call waits behind a slow one on a server with one worker, and not on one with a thread per call") {
    const shim_directory dir;
    const mlt::head_of_line_call fast{"echo", mlt::args("message", "fast")};
    const mlt::head_of_line_call slow{"sleep", mlt::args("ms", 200)};

    const auto one_worker = through_shim(dir, {"--workers", "1"});
    auto blocked = co_await mlt::head_of_line_check(one_worker, fast, slow, {.across_sessions = false});
    INFO(blocked.verdict_sentence());
    CHECK(blocked.verdict == mlt::head_of_line_verdict::blocked);
    CHECK(blocked.blocking_starts_at_k == 1);
    CHECK(blocked.slow_alone.p50 >= 200ms);

    const auto threaded = through_shim(dir, {"--thread-per-call"});
    auto report = co_await mlt::head_of_line_check(threaded, fast, slow, {.sweep = mlt::in_flight_sweep::doubling(4)});
    INFO(report.verdict_sentence());
    MCP_CHECK_NO_HEAD_OF_LINE_BLOCKING(report);
    CHECK(report.verdict == mlt::head_of_line_verdict::not_blocked);
    REQUIRE(report.sweeps.size() == 2);  // one session, and across sessions (each its own process)
    for (const auto& sweep : report.sweeps) CHECK(sweep.steps.size() == 3);
    CHECK(mlt::process_audit::survivors().empty());
}

MCP_LOADTEST_CASE("detectors: cold start times spawn, a slow initialize and the first call, each start") {
    const shim_directory dir;
    const auto server = through_shim(dir, {"--init-delay-ms", "200"});
    auto report = co_await mlt::cold_start(server, "echo", mlt::args("message", "x"), mlt::cold_start_options{.iterations = 3});
    MESSAGE("spawn p50 " << report.spawn_summary.p50.count() / 1'000'000 << " ms, initialize p50 "
                         << report.initialize_summary.p50.count() / 1'000'000 << " ms, first call p50 "
                         << report.first_call_summary.p50.count() / 1'000'000 << " ms");
    CHECK(report.samples.size() == 4);
    CHECK(report.discarded == 1);
    CHECK(report.failures == 0);
    CHECK(report.initialize.count() == 3);
    CHECK(report.initialize_summary.p50 >= 200ms);
    CHECK(report.total_summary.min >= report.initialize_summary.min);
    CHECK(mlt::process_audit::survivors().empty());
}

MCP_LOADTEST_CASE("run(): a server that crashes mid-load ends the run early with its exit code, abort_on_critical set") {
    const shim_directory dir;
    const auto server = through_shim(dir, {"--crash-after", "30"});
    mlt::thresholds slo;
    slo.abort_on_critical = true;
    const mlt::workload load = mlt::open_load{.rate = 100, .duration = 10s};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));
    mlt::run_options options;
    options.call.timeout = 5s;
    const auto t0 = std::chrono::steady_clock::now();
    auto report = co_await mlt::run(server, load, calls, slo, options);
    INFO(report.summary());
    CHECK(std::chrono::steady_clock::now() - t0 < 8s);  // far below the 10 s of load
    CHECK(report.aborted);
    CHECK(report.abort_reason.find("crash") != std::string::npos);
    CHECK(report.crashes() >= 1);
    CHECK(report.overall.outcomes[mlt::outcome::ok] >= 30);
    CHECK_FALSE(report.passed);
    CHECK(mlt::process_audit::survivors().empty());
}

MCP_LOADTEST_CASE("leak detection: a server keeping 100 KB per call is flagged from its samples, one keeping nothing is not") {
    const shim_directory dir;
    mlt::run_options options;
    options.sample_interval = 50ms;
    options.leak.warmup = 500ms;
    options.leak.rss_growth_mb = 3;
    options.call.timeout = 5s;
    const mlt::workload load = mlt::open_load{.rate = 150, .duration = 3s};
    const auto calls = mlt::mix::single("echo", mlt::args("message", "x"));

    const mlt::thresholds slo{.rss_growth_mb = 3};

    const auto keeping = through_shim(dir, {"--leak-kb", "100"});
    auto leaking = co_await mlt::run(keeping, load, calls, slo, options);
    INFO(leaking.summary());
    CHECK_FALSE(leaking.passed);
    CHECK(mlt::detail::no_leak_failure(leaking).find("rss_mb") != std::string::npos);

    const auto plain = through_shim(dir, {});
    auto flat = co_await mlt::run(plain, load, calls, slo, options);
    INFO(flat.summary());
    MCP_CHECK_NO_LEAK(flat);
    MCP_CHECK_PASSED(flat);
    CHECK(mlt::process_audit::survivors().empty());
}

TEST_CASE("a baseline's measurement environment names this machine") {
    const auto env = mlt::measurement_environment::current();
    MESSAGE(env.cpu_model << ", " << env.cores << " cores, " << env.kernel << ", " << env.compiler);
    CHECK(env.cores >= 1);
    CHECK_FALSE(env.cpu_model.empty());
    CHECK_FALSE(env.kernel.empty());
    CHECK(env.kernel != "unknown");
}
