// Cases for hang_evidence (included by tests/test_detectors.cpp): where a
// wedged server's threads are stuck, from /proc and gdb, and nothing taken on a
// healthy server.
#pragma once

#include <mcp_loadtest/detectors/deadlock_probe.hpp>
#include <mcp_loadtest/hang_evidence.hpp>

#include <algorithm>

// The case bodies are coroutines defined in a header: GCC warns that their
// frames hold doctest's (and the lambdas') unnamed types. Harmless here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsubobject-linkage"
#endif

namespace hang_evidence_test {

inline std::size_t threads_in(const mlt::hang_evidence& ev, const std::string& syscall) {
    std::size_t n = 0;
    for (const auto& p : ev.processes)
        for (const auto& t : p.threads) n += t.syscall_name == syscall;
    return n;
}

inline bool have_gdb() { return !mlt::detail::find_on_path("gdb").empty(); }

inline char state_of(pid_t pid) { return mlt::detail::process_state(pid); }

/// One transfer with a short deadlock verdict (a named type: a lambda's would
/// have no linkage inside the combinator's frame).
struct transfer_call {
    mlt::session* s;
    asio::awaitable<mlt::call_result> operator()(std::size_t) const {
        return s->call_tool("transfer", mlt::json::object(), mlt::call_options{.timeout = 500ms, .grace = 100ms});
    }
};

}  // namespace hang_evidence_test

TEST_CASE("hang evidence: system calls are named and classified, gdb output is split by thread") {
    mlt::detail::thread_reading t;
    t.state = 'S';
    mlt::detail::parse_syscall_line("0 0x0 0x7f00 0x10000 0x0 0x0 0x0 0x7ffd 0x7f01", t);
    CHECK(t.syscall == 0);
    CHECK(t.args[1] == 0x7f00);
    CHECK(mlt::detail::describe_activity(t, "read") == "in read on fd 0: waiting for input");
    mlt::detail::parse_syscall_line("running", t);
    CHECK(t.syscall == -2);
    mlt::detail::parse_syscall_line("-1 0x7ffd 0x7f01", t);
    CHECK(t.syscall == -1);
#if defined(__x86_64__)
    CHECK(mlt::detail::syscall_name(202) == "futex");
    CHECK(mlt::detail::syscall_name(232) == "epoll_wait");
#elif defined(__aarch64__)
    CHECK(mlt::detail::syscall_name(98) == "futex");
    CHECK(mlt::detail::syscall_name(63) == "read");
#endif
    CHECK(mlt::detail::syscall_name(99999) == "syscall 99999");

    const std::string gdb_output =
        "[Thread debugging using libthread_db enabled]\n"
        "Thread 2 (Thread 0x7f1 (LWP 4243) \"python3\"):\n"
        "#0  __futex_abstimed_wait_common (futex_word=0x1) at ./nptl/futex-internal.c:103\n"
        "#1  0x00007f in do_futex_wait (sem=0x1) at ./nptl/sem_waitcommon.c:111\n"
        "#2  0x00007f in PyThread_acquire_lock_timed (lock=0x1) at Python/thread_pthread.h:483\n"
        "#10 0x00007f in _PyEval_EvalFrameDefault () from /usr/lib/libpython3.11.so\n"
        "\n"
        "Thread 1 (Thread 0x7f2 (LWP 4242) \"python3\"):\n"
        "#0  0x00007f in read () from /lib/x86_64-linux-gnu/libc.so.6\n"
        "#1  0x00007f in _Py_read (fd=0) at Python/fileutils.c:1800\n";
    const auto stacks = mlt::detail::parse_gdb_threads(gdb_output);
    REQUIRE(stacks.size() == 2);
    CHECK(stacks[0].tid == 4243);
    CHECK(stacks[0].functions.size() == 4);
    CHECK(stacks[0].functions[3] == "_PyEval_EvalFrameDefault");
    CHECK(mlt::detail::own_top_frame(stacks[0]) == "PyThread_acquire_lock_timed");
    CHECK(stacks[1].tid == 4242);
    CHECK(mlt::detail::own_top_frame(stacks[1]) == "_Py_read");
}

MCP_LOADTEST_CASE("hang evidence: a lock-order deadlock shows threads in futex wait and the main thread reading stdin") {
    auto server = fixture("lock_server.py");
    auto s = co_await mlt::connect(server);
    // Two concurrent transfers take one lock each and wait for the other's forever.
    auto calls = co_await mlt::concurrently(4, hang_evidence_test::transfer_call{&s});
    for (const auto& c : calls) CHECK(c.outcome == mlt::outcome::deadlock);

    // /proc only: cheap, no debugger.
    const auto quick = mlt::snapshot_hang_evidence(s.pid(), mlt::evidence_options{.native_stacks = mlt::native_stacks_mode::off});
    INFO(quick.summary());
    REQUIRE(quick.taken());
    CHECK(quick.processes.front().pid == s.pid());
    CHECK(hang_evidence_test::threads_in(quick, "futex") >= 4);  // the 4 transfers
    CHECK(hang_evidence_test::threads_in(quick, "read") == 1);   // the main loop, on stdin
    std::size_t with_wchan = 0;
    for (const auto& t : quick.processes.front().threads) {
        CHECK(t.state == 'S');
        with_wchan += !t.wchan.empty();
        if (t.syscall_name == "read") CHECK(t.fd_target.rfind("pipe:", 0) == 0);
    }
    // The kernel hides a thread's wchan ("0") at the instant it is on a CPU: the
    // main thread may be, waking for a message. The blocked workers never are.
    CHECK(with_wchan + 1 >= quick.processes.front().threads.size());
    CHECK_FALSE(quick.native_stacks_taken);
    CHECK(quick.native_stacks.rfind("off", 0) == 0);
    const std::string summary = quick.summary();
    CHECK(summary.find("threads blocked in futex wait: a lock") != std::string::npos);
    CHECK(summary.find("1 thread in read on fd 0: waiting for input") != std::string::npos);
    CHECK(summary.find("process " + std::to_string(s.pid())) != std::string::npos);

    // With gdb (installed here; CI installs it): stacks per thread, bounded, and the server keeps running.
    if (hang_evidence_test::have_gdb()) {
        auto full = co_await mlt::async_snapshot_hang_evidence(s.pid(), mlt::evidence_options{.native_stacks = mlt::native_stacks_mode::on});
        INFO(full.summary());
        INFO(full.native_stacks);
        CHECK(full.native_stacks_taken);
        std::size_t with_stack = 0;
        for (const auto& t : full.processes.front().threads) with_stack += !t.native_stack.empty() && !t.top_frame.empty();
        CHECK(with_stack == full.processes.front().threads.size());
        CHECK(full.summary().find("Native stacks (gdb):") != std::string::npos);
        CHECK(full.processes.front().state_after == 'S');
        CHECK_FALSE(full.processes.front().resumed);
        CHECK(full.took < 10s);
    }
    // Not left stopped: its state, and it still answers on its main thread.
    CHECK(hang_evidence_test::state_of(s.pid()) != 'T');
    CHECK(hang_evidence_test::state_of(s.pid()) != 't');
    auto pong = co_await s.ping(mlt::call_options{.timeout = 2s});
    MCP_CHECK_OK(pong);
    co_await s.close();
}

MCP_LOADTEST_CASE("hang evidence: the deadlock probe attaches it to its report, a healthy server gets none") {
    // The lazy-init deadlock: the main thread waits on an event no one sets.
    auto server = fixture("hang_on_first_call.py");
    const auto args = mlt::args("ticker", "AAPL");
    auto probe = co_await mlt::deadlock_probe(server, "get_market_data", args,
                                              mlt::probe_options{.concurrent = 4, .hang_threshold = 1s,
                                                                 .evidence = {.native_stacks = mlt::native_stacks_mode::automatic}});
    INFO(probe.explanation);
    CHECK(probe.verdict == mlt::probe_verdict::critical);
    REQUIRE(probe.evidence.taken());
    CHECK(hang_evidence_test::threads_in(probe.evidence, "futex") == 1);
    CHECK(probe.explanation.find("Hang evidence: 1 thread blocked in futex wait") != std::string::npos);
    CHECK(mlt::detail::no_deadlock_failure(probe).find("futex wait") != std::string::npos);
    if (hang_evidence_test::have_gdb()) {  // automatic: taken when gdb is installed
        CHECK(probe.evidence.native_stacks_taken);
        CHECK(probe.evidence.processes.front().state_after == 'S');
    }
    // The report round-trips through JSON, evidence and all.
    const mlt::json j = probe;
    const auto back = j.get<mlt::deadlock_report>();
    CHECK(mlt::json(back) == j);
    CHECK(j.at("evidence").at("summary").get<std::string>() == probe.evidence.summary());
    CHECK(back.evidence.processes.front().threads.front().syscall_name == "futex");

    // Several wedged sessions: one tree each, in one evidence.
    auto locks = fixture("lock_server.py");
    auto both = co_await mlt::deadlock_probe(locks, "transfer", mlt::json::object(),
                                             mlt::probe_options{.concurrent = 4, .hang_threshold = 1s, .sessions = 2});
    INFO(both.explanation);
    CHECK(both.deadlocked == 8);
    CHECK(both.evidence.processes.size() == 2);
    CHECK(hang_evidence_test::threads_in(both.evidence, "futex") == 8);
    CHECK(both.explanation.find("8 threads blocked in futex wait") != std::string::npos);
    CHECK(both.explanation.find("2 processes") != std::string::npos);
    // The probe's default: gdb's stacks when gdb is installed (automatic).
    CHECK(both.evidence.native_stacks_taken == hang_evidence_test::have_gdb());
    CHECK(both.took < 4s + both.evidence.took);

    // Healthy twin: the same calls, one lock order.
    auto fixed = fixture("lock_server.py", {"--fixed"});
    auto ok = co_await mlt::deadlock_probe(fixed, "transfer", mlt::json::object(), mlt::probe_options{.concurrent = 4, .hang_threshold = 2s});
    MCP_CHECK_NO_DEADLOCK(ok);
    CHECK_FALSE(ok.evidence.taken());
    CHECK(ok.evidence.summary() == "no hang evidence taken.");
}

MCP_LOADTEST_CASE("hang evidence: a call declared deadlock says where the threads wait") {
    auto server = fixture("lock_server.py");
    mlt::client_options client;
    client.describe_deadlocked_server = mlt::where_threads_wait;
    auto s = co_await mlt::connect(server, client);
    const mlt::call_options bounded{.timeout = 300ms, .grace = 300ms};
    std::vector<asio::awaitable<mlt::call_result>> armed;  // two calls, one lock each: a lock-order deadlock
    for (int i = 0; i < 2; ++i) armed.push_back(s.call_tool("transfer", mlt::json::object(), bounded));
    auto calls = co_await mlt::release_together(std::move(armed));
    for (const auto& c : calls.results) {
        CHECK(c.outcome == mlt::outcome::deadlock);
        CHECK(c.message.find("Where it waits: ") != std::string::npos);
        CHECK(c.message.find("futex wait") != std::string::npos);
    }
    // Without the hook the message says how to get it.
    auto plain = co_await mlt::connect(server);
    for (int i = 0; i < 2; ++i) armed.push_back(plain.call_tool("transfer", mlt::json::object(), bounded));
    auto lone = co_await mlt::release_together(std::move(armed));
    CHECK(lone.results[0].outcome == mlt::outcome::deadlock);
    CHECK(lone.results[0].message.find("describe_deadlocked_server") != std::string::npos);
}

MCP_LOADTEST_CASE("hang evidence: none on server-everything" * doctest::skip(!mlt_test::have_everything())) {
    auto server = mlt_test::everything();
    const auto args = mlt::args("message", "x");
    auto ok = co_await mlt::deadlock_probe(server, "echo", args, mlt::probe_options{.concurrent = 20, .hang_threshold = 2s});
    MCP_CHECK_NO_DEADLOCK(ok);
    CHECK(ok.ok == 20);
    CHECK_FALSE(ok.evidence.taken());
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
