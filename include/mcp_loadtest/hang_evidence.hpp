// Hang evidence (docs/detectors.md#hang-evidence): where a wedged server's
// threads are stuck. A snapshot of the server's whole process tree: per process
// and per thread its state, the kernel function it sleeps in (wchan) and the
// system call it is blocked in, with the fd it waits on; and, when gdb is
// installed, native stack traces (bounded in time; the process is never left
// stopped). summary() says what the threads are doing, grouped:
//
//     auto evidence = mlt::snapshot_hang_evidence(session.pid());
//     // "2 threads blocked in futex wait: a lock, condition variable or semaphore; 1 thread in read on fd 0: ..."
//
// The deadlock probe takes it by itself when it finds a deadlock.
#pragma once

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/format.hpp>
#include <mcp_loadtest/detail/gdb_backtrace.hpp>
#include <mcp_loadtest/detail/owned_coroutine.hpp>
#include <mcp_loadtest/detail/process_tree.hpp>
#include <mcp_loadtest/detail/syscall_names.hpp>
#include <mcp_loadtest/detail/thread_readings.hpp>
#include <mcp_loadtest/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace mcp_loadtest {

/// Native stack traces through gdb: `automatic` takes them when gdb is on PATH.
enum class native_stacks_mode : std::uint8_t { automatic, on, off };

[[nodiscard]] constexpr std::string_view to_string(native_stacks_mode m) noexcept {
    switch (m) {
        case native_stacks_mode::automatic: return "automatic";
        case native_stacks_mode::on: return "on";
        case native_stacks_mode::off: return "off";
    }
    return "unknown";
}

struct evidence_options {
    native_stacks_mode native_stacks = native_stacks_mode::automatic;
    /// For all gdb runs together; gdb is killed at the deadline.
    std::chrono::milliseconds native_stacks_timeout{10000};
    std::size_t max_processes = 16;  ///< of the process tree, root first
    std::size_t max_threads = 64;    ///< read per process (all are counted)
};
// Written inline inside co_await (and inside probe_options): must stay trivially copyable.
static_assert(std::is_trivially_copyable_v<evidence_options>);

/// One thread: what the kernel says it is doing.
struct thread_evidence {
    pid_t tid = 0;
    std::string name;   ///< its comm (at most 15 bytes)
    char state = '?';   ///< R running, S sleeping, D uninterruptible, T stopped, Z zombie, ...
    std::string wchan;  ///< the kernel function it sleeps in, e.g. "futex_wait_queue"; "" when running
    /// The system call it is blocked in: >= 0 its number; -1 none (blocked
    /// outside one); -2 running; -3 unreadable.
    long syscall = -3;
    std::string syscall_name;                ///< "futex", "read", ...; "" when not in one
    std::vector<std::uint64_t> syscall_args; ///< its first three arguments
    std::string fd_target;  ///< for a call on an fd: what the fd is, e.g. "pipe:[123]"
    std::string activity;   ///< e.g. "in read on fd 0: waiting for input"
    std::string top_frame;  ///< gdb: the innermost function outside the C library
    std::string native_stack;  ///< gdb: its backtrace; "" when not taken
};

/// One process of the tree.
struct process_evidence {
    pid_t pid = 0;
    pid_t parent = 0;
    char state = '?';
    std::string command;  ///< its command line (cut at 200 characters)
    std::size_t thread_count = 0;  ///< all of its threads; `threads` holds at most max_threads
    std::vector<thread_evidence> threads;
    std::string native_stacks_note;  ///< why gdb gave nothing for it, when it did not
    char state_after = '?';  ///< after gdb detached ('?' when gdb did not run); never T
    bool resumed = false;    ///< gdb left it stopped and it was sent SIGCONT
};

struct hang_evidence {
    std::vector<pid_t> roots;  ///< the processes whose trees were read
    std::vector<process_evidence> processes;
    bool native_stacks_taken = false;
    std::string native_stacks;  ///< how stacks were (not) taken: "off", "gdb not found on PATH ...", ...
    std::chrono::nanoseconds took{0};

    /// True when anything was read (the deadlock probe leaves it empty on a healthy server).
    [[nodiscard]] bool taken() const noexcept { return !processes.empty(); }
    [[nodiscard]] std::size_t thread_count() const noexcept {
        std::size_t n = 0;
        for (const auto& p : processes) n += p.threads.size();
        return n;
    }
    /// What the threads are doing, grouped, e.g. "2 threads blocked in futex
    /// wait: a lock, condition variable or semaphore; 1 thread in read on fd 0:
    /// waiting for input (process 4242 `python3 server.py`, 3 threads)."
    [[nodiscard]] std::string summary() const;
};

namespace detail {

/// One phrase for what a thread is doing: the grouping key of the summary.
inline std::string describe_activity(const thread_reading& t, const std::string& call) {
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

inline bool call_takes_fd(const std::string& call) {
    for (const char* n : {"read", "readv", "pread64", "recvfrom", "recvmsg", "write", "writev", "pwrite64", "sendto",
                          "sendmsg", "sendfile", "accept", "accept4", "connect", "flock", "fcntl", "fsync", "fdatasync"})
        if (call == n) return true;
    return false;
}

inline thread_evidence thread_of(pid_t pid, const thread_reading& t) {
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

/// The last line of gdb's output that says why it failed ("ptrace: Operation not permitted.").
inline std::string gdb_failure_line(const std::string& output) {
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

inline void take_native_stacks(hang_evidence& ev, const evidence_options& o) {
    if (o.native_stacks == native_stacks_mode::off) {
        ev.native_stacks = "off (evidence_options::native_stacks)";
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

inline std::string plural_threads(std::size_t n) { return std::to_string(n) + (n == 1 ? " thread" : " threads"); }

/// "a (2), b (1)" groups in order of size, then of first appearance.
template <class Key>
std::vector<std::pair<std::string, std::size_t>> count_groups(const hang_evidence& ev, Key key) {
    std::vector<std::pair<std::string, std::size_t>> groups;
    for (const auto& p : ev.processes)
        for (const auto& t : p.threads) {
            const std::string k = key(t);
            if (k.empty()) continue;
            auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == k; });
            if (it == groups.end()) groups.emplace_back(k, 1);
            else ++it->second;
        }
    std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    return groups;
}

}  // namespace detail

inline std::string hang_evidence::summary() const {
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
    std::string command = root.command.size() > 80 ? root.command.substr(0, 77) + "..." : root.command;
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

/// Reads the process trees of `roots` now (state, wchan, system call per
/// thread; native stacks per options.native_stacks). Blocks for the gdb runs,
/// at most options.native_stacks_timeout in all. A root that is gone gives no
/// processes.
[[nodiscard]] inline hang_evidence snapshot_hang_evidence(const std::vector<pid_t>& roots, const evidence_options& options) {
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
[[nodiscard]] inline hang_evidence snapshot_hang_evidence(pid_t root, const evidence_options& options) {
    return snapshot_hang_evidence(std::vector<pid_t>{root}, options);
}
[[nodiscard]] inline hang_evidence snapshot_hang_evidence(pid_t root) { return snapshot_hang_evidence(root, evidence_options{}); }

/// The summary of a /proc-only snapshot of `pid`'s tree (no gdb), e.g. "4 threads
/// blocked in futex wait: a lock, ...". Its signature fits
/// client_options::describe_deadlocked_server, so every call a session declares
/// `deadlock` says where the server's threads wait.
[[nodiscard]] inline std::string where_threads_wait(int pid) {
    const auto ev = snapshot_hang_evidence(static_cast<pid_t>(pid), evidence_options{.native_stacks = native_stacks_mode::off});
    return ev.taken() ? ev.summary() : std::string("the server process is gone or unreadable.");
}

namespace detail {

/// Runs the snapshot on its own thread (gdb takes up to its timeout) while the
/// caller's event loop goes on; polled every few milliseconds.
struct evidence_job {
    std::vector<pid_t> roots;
    evidence_options options;

    struct shared_state {
        std::atomic<bool> done{false};
        hang_evidence result;
        std::exception_ptr error;
    };
    /// Joins the worker on every path out (bounded by the gdb timeout).
    struct joining_thread {
        std::thread t;
        ~joining_thread() {
            if (t.joinable()) t.join();
        }
    };

    asio::awaitable<hang_evidence> run() {
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
};

}  // namespace detail

/// snapshot_hang_evidence() on a thread of its own: the caller's event loop
/// (other sessions, timers) keeps running while gdb works.
inline asio::awaitable<hang_evidence> async_snapshot_hang_evidence(std::vector<pid_t> roots, evidence_options options) {
    if (options.max_processes == 0 || options.max_threads == 0)
        throw std::invalid_argument("async_snapshot_hang_evidence: max_processes and max_threads must be at least 1");
    return detail::start_owned(detail::evidence_job{std::move(roots), options});
}
inline asio::awaitable<hang_evidence> async_snapshot_hang_evidence(pid_t root, evidence_options options) {
    return async_snapshot_hang_evidence(std::vector<pid_t>{root}, options);
}
inline asio::awaitable<hang_evidence> async_snapshot_hang_evidence(pid_t root) {
    return async_snapshot_hang_evidence(std::vector<pid_t>{root}, evidence_options{});
}

// ---- JSON (durations as integer nanoseconds, states as one-letter strings) ----------

namespace detail {
inline std::string state_text(char c) { return std::string(1, c); }
inline char state_char(const json& j) {
    const auto s = j.get<std::string>();
    if (s.size() != 1) throw std::invalid_argument("a process or thread state is one letter, got \"" + s + "\"");
    return s[0];
}
}  // namespace detail

inline void to_json(json& j, const thread_evidence& t) {
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
inline void from_json(const json& j, thread_evidence& t) {
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

inline void to_json(json& j, const process_evidence& p) {
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
inline void from_json(const json& j, process_evidence& p) {
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

inline void to_json(json& j, const hang_evidence& e) {
    j = json{{"roots", e.roots},
             {"processes", e.processes},
             {"native_stacks_taken", e.native_stacks_taken},
             {"native_stacks", e.native_stacks},
             {"took_ns", e.took.count()},
             {"summary", e.summary()}};
}
inline void from_json(const json& j, hang_evidence& e) {
    e.roots = j.at("roots").get<std::vector<pid_t>>();
    e.processes = j.at("processes").get<std::vector<process_evidence>>();
    e.native_stacks_taken = j.at("native_stacks_taken").get<bool>();
    e.native_stacks = j.at("native_stacks").get<std::string>();
    e.took = std::chrono::nanoseconds(j.at("took_ns").get<std::int64_t>());
}

}  // namespace mcp_loadtest
