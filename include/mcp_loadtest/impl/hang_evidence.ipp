// Definitions of hang_evidence.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/hang_evidence.hpp>

#include <mcp_loadtest/detail/text/command_text.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::size_t hang_evidence::thread_count() const noexcept {
    std::size_t n = 0;
    for (const auto& p : processes) n += p.threads.size();
    return n;
}

}  // namespace mcp_loadtest

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string describe_activity(const thread_reading& t, const std::string& call) {
    if (t.state == state_not_shown)
        return "whose state is not shown (this system gives no thread's wait state to another process)";
    switch (t.state) {
        case 'Z':
        case 'X': return "a zombie: exited, not reaped by its parent";
        case 'T':
        case 't': return "stopped: by a signal or a debugger";
        default: break;
    }
    if (t.state == 'R' || t.syscall == -2) return "running: busy on a CPU (a loop that never waits?)";
    if (t.state == 'D')
        return "in uninterruptible sleep" + (t.wchan.empty() ? std::string() : " (" + t.wchan + ")") +
               ": disk, network file system or kernel I/O";
    if (t.syscall == -3)
        return "sleeping" + (t.wchan.empty() ? std::string() : " in " + t.wchan) +
               " (its system call could not be read: no permission)";
    if (t.syscall == -1) return "blocked outside a system call" + (t.wchan.empty() ? std::string() : " (" + t.wchan + ")");
    const std::string on_fd = " on fd " + std::to_string(t.args[0]);
    const auto is = [&](std::initializer_list<const char*> names) {
        for (const char* n : names)
            if (call == n) return true;
        return false;
    };
    if (is({"futex", "futex_waitv"})) return "blocked in futex wait: a lock, condition variable or semaphore";
    if (is({"read", "readv", "pread64", "recvfrom", "recvmsg"})) return "in " + call + on_fd + ": waiting for input";
    if (is({"write", "writev", "pwrite64", "sendto", "sendmsg", "sendfile", "splice"}))
        return "in " + call + on_fd + ": blocked writing (nobody reads the other end: a full pipe or socket)";
    if (is({"poll", "ppoll", "select", "pselect6", "epoll_wait", "epoll_pwait", "epoll_pwait2", "io_uring_enter",
            "io_getevents"}))
        return "in " + call + ": an event loop waiting for I/O or a timer (what it awaits never came)";
    if (is({"nanosleep", "clock_nanosleep"})) return "in " + call + ": sleeping";
    if (is({"wait4", "waitid"})) return "in " + call + ": waiting for a child process to exit";
    if (is({"accept", "accept4"})) return "in " + call + on_fd + ": waiting for a connection";
    if (is({"connect"})) return "in connect" + on_fd + ": waiting for a server to accept";
    if (is({"flock", "fcntl"})) return "in " + call + on_fd + ": waiting for a file lock";
    if (is({"pause", "rt_sigsuspend", "rt_sigtimedwait"})) return "in " + call + ": waiting for a signal";
    if (is({"semop", "semtimedop", "msgrcv"})) return "in " + call + ": waiting on a System V semaphore or message queue";
    if (is({"restart_syscall"})) return "in restart_syscall: resuming an interrupted sleep or wait";
    if (is({"fsync", "fdatasync"})) return "in " + call + on_fd + ": flushing to disk";
    if (is({"open", "openat"})) return "in " + call + ": opening a file (a FIFO nobody opened for writing?)";
    if (is({"sched_yield"})) return "in sched_yield: spinning";
    return "in " + call;
}

MCP_LOADTEST_DECL bool call_takes_fd(const std::string& call) {
    for (const char* n : {"read", "readv", "pread64", "recvfrom", "recvmsg", "write", "writev", "pwrite64", "sendto",
                          "sendmsg", "sendfile", "accept", "accept4", "connect", "flock", "fcntl", "fsync", "fdatasync"})
        if (call == n) return true;
    return false;
}

MCP_LOADTEST_DECL thread_evidence thread_of(pid_t pid, const thread_reading& t) {
    thread_evidence e;
    e.tid = t.tid;
    e.name = t.name;
    e.state = t.state;
    e.wchan = t.wchan;
    e.syscall = t.syscall;
    if (t.syscall >= 0) {
        e.syscall_name = syscall_name(t.syscall);
        e.syscall_args.assign(t.args.begin(), t.args.begin() + 3);
        if (call_takes_fd(e.syscall_name)) e.fd_target = fd_target(pid, t.args[0]);
    }
    e.activity = describe_activity(t, e.syscall_name);
    return e;
}

MCP_LOADTEST_DECL std::string gdb_failure_line(const std::string& output) {
    std::string last;
    std::size_t at = 0;
    while (at < output.size()) {
        auto eol = output.find('\n', at);
        if (eol == std::string::npos) eol = output.size();
        const std::string_view line(output.data() + at, eol - at);
        if (line.find("ptrace") != std::string_view::npos || line.find("rror") != std::string_view::npos ||
            line.find("ould not") != std::string_view::npos || line.find("denied") != std::string_view::npos)
            last.assign(line);
        at = eol + 1;
    }
    return last.empty() ? "no backtrace in its output" : last;
}

MCP_LOADTEST_DECL void take_native_stacks(hang_evidence& ev, const evidence_options& o) {
    if (o.native_stacks == native_stacks_mode::off) {
        ev.native_stacks = "off (evidence_options::native_stacks)";
        return;
    }
    if (const char* why = native_stacks_unavailable()) {
        ev.native_stacks = std::string("not taken: ") + why;
        return;
    }
    const std::string gdb = find_on_path("gdb");
    if (gdb.empty()) {
        ev.native_stacks = "not taken: gdb is not on PATH (install it: the Debian package gdb)";
        return;
    }
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    const auto deadline = t0 + o.native_stacks_timeout;
    std::size_t failed = 0;
    for (auto& p : ev.processes) {
        if (p.state == 'Z' || p.state == 'X' || p.threads.empty()) continue;
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now());
        if (left.count() <= 0) {
            p.native_stacks_note = "not taken: the native_stacks_timeout was spent on other processes";
            ++failed;
            continue;
        }
        const gdb_run run = run_gdb_backtrace(gdb, p.pid, left);
        p.state_after = run.state_after;
        p.resumed = run.left_stopped;
        std::size_t matched = 0;
        for (const auto& stack : parse_gdb_threads(run.output))
            for (auto& t : p.threads)
                if (t.tid == stack.tid) {
                    t.native_stack = stack.text;
                    t.top_frame = own_top_frame(stack);
                    ++matched;
                }
        if (run.timed_out)
            p.native_stacks_note = "gdb timed out after " + format_ms(left) + " and was killed";
        else if (matched == 0)
            p.native_stacks_note = "gdb gave no stacks: " + gdb_failure_line(run.output);
        if (matched == 0) ++failed;
        if (matched > 0) ev.native_stacks_taken = true;
    }
    ev.native_stacks = (ev.native_stacks_taken ? "taken with " : "not taken: ") + gdb + " (" +
                       format_ms(clock::now() - t0) + (failed ? ", " + std::to_string(failed) + " process(es) without" : "") +
                       (ev.native_stacks_taken ? ")" : "; see processes[].native_stacks_note)");
}

}  // namespace mcp_loadtest::detail

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::string hang_evidence::summary() const {
    if (processes.empty()) {
        if (roots.empty()) return "no hang evidence taken.";
        return "no hang evidence: process " + std::to_string(roots.front()) + " is gone.";
    }
    std::string s;
    for (const auto& [activity, n] : detail::count_groups(*this, [](const thread_evidence& t) { return t.activity; }))
        s += (s.empty() ? "" : "; ") + detail::plural_threads(n) + " " + activity;
    if (s.empty()) s = "no thread could be read";
    std::size_t all_threads = 0;
    for (const auto& p : processes) all_threads += p.thread_count;
    const auto& root = processes.front();
    std::string where = processes.size() == 1 ? "process " + std::to_string(root.pid) : std::to_string(processes.size()) + " processes from " + std::to_string(root.pid);
    const std::string command = detail::short_command(root.command, 80);
    s += " (" + where + (command.empty() ? "" : " `" + command + "`") + ", " + detail::plural_threads(all_threads) + ").";
    if (native_stacks_taken) {
        std::string frames;
        for (const auto& [frame, n] : detail::count_groups(*this, [](const thread_evidence& t) { return t.top_frame; }))
            frames += (frames.empty() ? "" : ", ") + detail::plural_threads(n) + " in " + frame;
        if (!frames.empty()) s += " Native stacks (gdb): " + frames + ".";
    }
    for (const auto& p : processes)
        if (p.resumed) s += " gdb left process " + std::to_string(p.pid) + " stopped: it was sent SIGCONT.";
    return s;
}

MCP_LOADTEST_DECL hang_evidence snapshot_hang_evidence(const std::vector<pid_t>& roots, const evidence_options& options) {
    if (options.max_processes == 0 || options.max_threads == 0)
        throw std::invalid_argument("snapshot_hang_evidence: max_processes and max_threads must be at least 1");
    const auto t0 = std::chrono::steady_clock::now();
    hang_evidence ev;
    ev.roots = roots;
    const auto all = detail::snapshot_processes();
    for (pid_t root : roots) {
        for (const auto& member : detail::process_tree_members(root, all)) {
            if (ev.processes.size() >= options.max_processes) break;
            if (std::any_of(ev.processes.begin(), ev.processes.end(), [&](const auto& p) { return p.pid == member.pid; }))
                continue;
            process_evidence p;
            p.pid = member.pid;
            p.parent = member.parent;
            p.state = member.state;
            p.command = detail::command_line(member.pid);
            const auto tids = detail::thread_ids(member.pid);
            p.thread_count = tids.size();
            for (std::size_t i = 0; i < tids.size() && i < options.max_threads; ++i) {
                auto reading = detail::read_thread(member.pid, tids[i]);
                // A thread caught on a CPU may be between two waits (handling a
                // message): "busy" only if it stays running for ~50 ms.
                for (int again = 0; again < 5 && (reading.state == 'R' || reading.syscall == -2); ++again) {
                    std::this_thread::sleep_for(std::chrono::milliseconds(10));
                    reading = detail::read_thread(member.pid, tids[i]);
                }
                if (reading.state != '?') p.threads.push_back(detail::thread_of(member.pid, reading));
            }
            ev.processes.push_back(std::move(p));
        }
    }
    if (!ev.processes.empty()) detail::take_native_stacks(ev, options);
    ev.took = std::chrono::steady_clock::now() - t0;
    return ev;
}

MCP_LOADTEST_DECL hang_evidence snapshot_hang_evidence(pid_t root, const evidence_options& options) {
    return snapshot_hang_evidence(std::vector<pid_t>{root}, options);
}

MCP_LOADTEST_DECL std::string where_threads_wait(int pid) {
    const auto ev = snapshot_hang_evidence(static_cast<pid_t>(pid), evidence_options{.native_stacks = native_stacks_mode::off});
    return ev.taken() ? ev.summary() : std::string("the server process is gone or unreadable.");
}

}  // namespace mcp_loadtest

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL evidence_job::joining_thread::~joining_thread() {
    if (t.joinable()) t.join();
}

MCP_LOADTEST_DECL asio::awaitable<hang_evidence> evidence_job::run() {
    auto state = std::make_shared<shared_state>();
    joining_thread worker{std::thread([state, roots = roots, o = options] {
        try {
            state->result = snapshot_hang_evidence(roots, o);
        } catch (...) {
            state->error = std::current_exception();
        }
        state->done.store(true, std::memory_order_release);
    })};
    asio::steady_timer tick(co_await asio::this_coro::executor);
    while (!state->done.load(std::memory_order_acquire)) {
        tick.expires_after(std::chrono::milliseconds(5));
        co_await tick.async_wait(asio::use_awaitable);
    }
    worker.t.join();
    if (state->error) std::rethrow_exception(state->error);
    co_return std::move(state->result);
}

}  // namespace mcp_loadtest::detail

namespace mcp_loadtest {

MCP_LOADTEST_DECL asio::awaitable<hang_evidence> async_snapshot_hang_evidence(std::vector<pid_t> roots, evidence_options options) {
    if (options.max_processes == 0 || options.max_threads == 0)
        throw std::invalid_argument("async_snapshot_hang_evidence: max_processes and max_threads must be at least 1");
    return detail::start_owned(detail::evidence_job{std::move(roots), options});
}

MCP_LOADTEST_DECL asio::awaitable<hang_evidence> async_snapshot_hang_evidence(pid_t root, evidence_options options) {
    return async_snapshot_hang_evidence(std::vector<pid_t>{root}, options);
}

MCP_LOADTEST_DECL asio::awaitable<hang_evidence> async_snapshot_hang_evidence(pid_t root) {
    return async_snapshot_hang_evidence(std::vector<pid_t>{root}, evidence_options{});
}

}  // namespace mcp_loadtest

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL char state_char(const json& j) {
    const auto s = j.get<std::string>();
    if (s.size() != 1) throw std::invalid_argument("a process or thread state is one letter, got \"" + s + "\"");
    return s[0];
}

}  // namespace mcp_loadtest::detail

namespace mcp_loadtest {

MCP_LOADTEST_DECL void to_json(json& j, const thread_evidence& t) {
    j = json{{"tid", t.tid},
             {"name", t.name},
             {"state", detail::state_text(t.state)},
             {"wchan", t.wchan},
             {"syscall", t.syscall},
             {"syscall_name", t.syscall_name},
             {"syscall_args", t.syscall_args},
             {"fd_target", t.fd_target},
             {"activity", t.activity},
             {"top_frame", t.top_frame},
             {"native_stack", t.native_stack}};
}

MCP_LOADTEST_DECL void from_json(const json& j, thread_evidence& t) {
    t.tid = j.at("tid").get<pid_t>();
    t.name = j.at("name").get<std::string>();
    t.state = detail::state_char(j.at("state"));
    t.wchan = j.at("wchan").get<std::string>();
    t.syscall = j.at("syscall").get<long>();
    t.syscall_name = j.at("syscall_name").get<std::string>();
    t.syscall_args = j.at("syscall_args").get<std::vector<std::uint64_t>>();
    t.fd_target = j.at("fd_target").get<std::string>();
    t.activity = j.at("activity").get<std::string>();
    t.top_frame = j.at("top_frame").get<std::string>();
    t.native_stack = j.at("native_stack").get<std::string>();
}

MCP_LOADTEST_DECL void to_json(json& j, const process_evidence& p) {
    j = json{{"pid", p.pid},
             {"parent", p.parent},
             {"state", detail::state_text(p.state)},
             {"command", p.command},
             {"thread_count", p.thread_count},
             {"threads", p.threads},
             {"native_stacks_note", p.native_stacks_note},
             {"state_after", detail::state_text(p.state_after)},
             {"resumed", p.resumed}};
}

MCP_LOADTEST_DECL void from_json(const json& j, process_evidence& p) {
    p.pid = j.at("pid").get<pid_t>();
    p.parent = j.at("parent").get<pid_t>();
    p.state = detail::state_char(j.at("state"));
    p.command = j.at("command").get<std::string>();
    p.thread_count = j.at("thread_count").get<std::size_t>();
    p.threads = j.at("threads").get<std::vector<thread_evidence>>();
    p.native_stacks_note = j.at("native_stacks_note").get<std::string>();
    p.state_after = detail::state_char(j.at("state_after"));
    p.resumed = j.at("resumed").get<bool>();
}

MCP_LOADTEST_DECL void to_json(json& j, const hang_evidence& e) {
    j = json{{"roots", e.roots},
             {"processes", e.processes},
             {"native_stacks_taken", e.native_stacks_taken},
             {"native_stacks", e.native_stacks},
             {"took_ns", e.took.count()},
             {"summary", e.summary()}};
}

MCP_LOADTEST_DECL void from_json(const json& j, hang_evidence& e) {
    e.roots = j.at("roots").get<std::vector<pid_t>>();
    e.processes = j.at("processes").get<std::vector<process_evidence>>();
    e.native_stacks_taken = j.at("native_stacks_taken").get<bool>();
    e.native_stacks = j.at("native_stacks").get<std::string>();
    e.took = std::chrono::nanoseconds(j.at("took_ns").get<std::int64_t>());
}

}  // namespace mcp_loadtest
