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

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/os/platform.hpp>

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/detail/os/gdb_backtrace.hpp>
#include <mcp_loadtest/detail/owned_coroutine.hpp>
#include <mcp_loadtest/detail/os/process_tree.hpp>
#include <mcp_loadtest/detail/os/syscall_names.hpp>
#include <mcp_loadtest/detail/os/thread_readings.hpp>
#include <mcp_loadtest/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
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
    std::string command;  ///< its whole command line, arguments quoted like a shell (at most 16 KiB, detail::max_command_chars)
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
    [[nodiscard]] MCP_LOADTEST_DECL std::size_t thread_count() const noexcept;
    /// What the threads are doing, grouped, e.g. "2 threads blocked in futex
    /// wait: a lock, condition variable or semaphore; 1 thread in read on fd 0:
    /// waiting for input (process 4242 `python3 server.py`, 3 threads)."
    [[nodiscard]] MCP_LOADTEST_DECL std::string summary() const;
};

namespace detail {

/// One phrase for what a thread is doing: the grouping key of the summary.
MCP_LOADTEST_DECL std::string describe_activity(const thread_reading& t, const std::string& call);

MCP_LOADTEST_DECL bool call_takes_fd(const std::string& call);

MCP_LOADTEST_DECL thread_evidence thread_of(pid_t pid, const thread_reading& t);

/// The last line of gdb's output that says why it failed ("ptrace: Operation not permitted.").
MCP_LOADTEST_DECL std::string gdb_failure_line(const std::string& output);

MCP_LOADTEST_DECL void take_native_stacks(hang_evidence& ev, const evidence_options& o);

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

/// Reads the process trees of `roots` now (state, wchan, system call per
/// thread; native stacks per options.native_stacks). Blocks for the gdb runs,
/// at most options.native_stacks_timeout in all. A root that is gone gives no
/// processes.
[[nodiscard]] MCP_LOADTEST_DECL hang_evidence snapshot_hang_evidence(const std::vector<pid_t>& roots, const evidence_options& options);
[[nodiscard]] MCP_LOADTEST_DECL hang_evidence snapshot_hang_evidence(pid_t root, const evidence_options& options);
[[nodiscard]] inline hang_evidence snapshot_hang_evidence(pid_t root) { return snapshot_hang_evidence(root, evidence_options{}); }

/// The summary of a /proc-only snapshot of `pid`'s tree (no gdb), e.g. "4 threads
/// blocked in futex wait: a lock, ...". Its signature fits
/// client_options::describe_deadlocked_server, so every call a session declares
/// `deadlock` says where the server's threads wait.
[[nodiscard]] MCP_LOADTEST_DECL std::string where_threads_wait(int pid);

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
        MCP_LOADTEST_DECL ~joining_thread();
    };

    MCP_LOADTEST_DECL asio::awaitable<hang_evidence> run();
};

}  // namespace detail

/// snapshot_hang_evidence() on a thread of its own: the caller's event loop
/// (other sessions, timers) keeps running while gdb works.
MCP_LOADTEST_DECL asio::awaitable<hang_evidence> async_snapshot_hang_evidence(std::vector<pid_t> roots, evidence_options options);
MCP_LOADTEST_DECL asio::awaitable<hang_evidence> async_snapshot_hang_evidence(pid_t root, evidence_options options);
MCP_LOADTEST_DECL asio::awaitable<hang_evidence> async_snapshot_hang_evidence(pid_t root);

// ---- JSON (durations as integer nanoseconds, states as one-letter strings) ----------

namespace detail {
inline std::string state_text(char c) { return std::string(1, c); }
MCP_LOADTEST_DECL char state_char(const json& j);
}  // namespace detail

MCP_LOADTEST_DECL void to_json(json& j, const thread_evidence& t);
MCP_LOADTEST_DECL void from_json(const json& j, thread_evidence& t);

MCP_LOADTEST_DECL void to_json(json& j, const process_evidence& p);
MCP_LOADTEST_DECL void from_json(const json& j, process_evidence& p);

MCP_LOADTEST_DECL void to_json(json& j, const hang_evidence& e);
MCP_LOADTEST_DECL void from_json(const json& j, hang_evidence& e);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/hang_evidence.ipp>
#endif
