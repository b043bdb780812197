// Session churn (docs/detectors.md#session-churn): start, handshake, call,
// close, N times, on any transport; per cycle its time and what it left
// behind: processes of the server's tree (detail/os/process_tree.hpp) that left
// its process group (a client that ends the server the usual way, by closing
// stdin or signalling its group, leaves them running: one more per reconnect)
// or were still alive after close, and the test process's descriptors and
// threads. A variant kills the server (SIGKILL) or closes the session while a
// slow call is in flight, and checks that the next session still works.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/os/platform.hpp>
#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/session.hpp>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace mcp_loadtest {

/// What the churn variant does to each session while a slow call is in flight.
enum class churn_interruption : std::uint8_t {
    none,            ///< start, handshake, call, close
    close_mid_call,  ///< close the session (stdin, or the connection) while `slow_tool` runs
    kill_mid_call,   ///< SIGKILL the server's own pid (not its group) while `slow_tool` runs; stdio only
};

[[nodiscard]] constexpr std::string_view to_string(churn_interruption i) noexcept {
    switch (i) {
        case churn_interruption::none: return "none";
        case churn_interruption::close_mid_call: return "close_mid_call";
        case churn_interruption::kill_mid_call: return "kill_mid_call";
    }
    return "unknown";
}

struct churn_options {
    std::size_t cycles = 10;
    /// The tool called in each cycle, with `arguments` (a JSON object's text);
    /// nullptr: ping. String literals, or strings that outlive the call.
    const char* tool = nullptr;
    const char* arguments = "{}";
    std::chrono::milliseconds call_timeout{5000};
    churn_interruption interrupt = churn_interruption::none;
    /// With an interruption: a tool that takes longer than `interrupt_after`.
    const char* slow_tool = nullptr;
    const char* slow_arguments = "{}";
    std::chrono::milliseconds interrupt_after{200};
    /// Growth of the test process's descriptors / threads over the cycles
    /// that is still clean (0: half the cycle count, at least 2). One-off
    /// growth (a lazily started resolver thread, a pooled connection) stays
    /// below it; a leak of one per cycle exceeds it.
    std::size_t fd_tolerance = 0;
    std::size_t thread_tolerance = 0;
    /// A network server the test launched (server_process::pid()): its tree is
    /// read before and after every cycle, so processes a connection leaves
    /// behind are found. Stdio servers are always watched.
    pid_t server_pid = 0;
};
// Written inline inside co_await: must stay trivially copyable (docs/index.md#compiler-notes).
static_assert(std::is_trivially_copyable_v<churn_options>);

enum class churn_verdict : std::uint8_t {
    clean,             ///< every cycle worked and nothing was left behind
    leaves_processes,  ///< processes left the server's group, or outlived close
    leaks_fds,         ///< the test process holds more descriptors after the cycles
    leaks_threads,     ///< the test process runs more threads after the cycles
    slows_down,        ///< later cycles take several times longer than the first ones
    reconnect_failed,  ///< a session after the first (after an interruption) failed
    could_not_start,   ///< the first session failed: nothing could be measured
};

[[nodiscard]] constexpr std::string_view to_string(churn_verdict v) noexcept {
    switch (v) {
        case churn_verdict::clean: return "clean";
        case churn_verdict::leaves_processes: return "leaves_processes";
        case churn_verdict::leaks_fds: return "leaks_fds";
        case churn_verdict::leaks_threads: return "leaks_threads";
        case churn_verdict::slows_down: return "slows_down";
        case churn_verdict::reconnect_failed: return "reconnect_failed";
        case churn_verdict::could_not_start: return "could_not_start";
    }
    return "unknown";
}

/// A process of the server's tree found in a cycle.
struct churn_process {
    pid_t pid = 0;
    pid_t parent = 0;
    pid_t process_group = 0;
    pid_t session = 0;
    /// Its whole command line, arguments quoted like a shell (at most 16 KiB,
    /// detail::max_command_chars); the verdict sentence shows a short form.
    std::string command;
    /// Still alive once close() returned (and 500 ms more had passed).
    bool alive_after_close = false;
};

struct churn_cycle {
    std::size_t index = 0;            ///< 0..cycles-1; `cycles` for the recovery cycle after interruptions
    bool interrupted = false;
    bool ok = false;                  ///< connected and the call was answered
    std::string failed_stage;         ///< "connect" or "call" when !ok
    std::string failure;
    std::chrono::nanoseconds connect_time{0}, call_time{0}, close_time{0}, total{0};
    mcp_loadtest::outcome call_outcome = outcome::cancelled;
    /// The slow call's outcome when interrupted (crash, cancelled, disconnected;
    /// ok means the interruption came too late to land mid-call).
    std::optional<mcp_loadtest::outcome> interrupted_outcome;
    std::string shutdown;             ///< shutdown_result::name of close()
    std::size_t tree_processes = 0;   ///< the server's tree before close (0: not watched)
    /// Processes of the tree outside the server's process group (setsid(),
    /// setpgid()): a client that ends the server by closing stdin or signalling
    /// its group leaves them running. The library's process audit found and
    /// killed them at close (alive_after_close false).
    std::vector<churn_process> escaped;
    /// Processes of the tree still alive after close (a network server: new
    /// since the cycle began).
    std::vector<churn_process> survived;
    std::uint32_t test_fds = 0, test_threads = 0;  ///< this process after the cycle
};

struct churn_report {
    churn_verdict verdict = churn_verdict::clean;
    std::string transport;
    std::string server;
    std::string call;  ///< "ping" or the tool's name
    churn_interruption interruption = churn_interruption::none;
    bool processes_watched = false;  ///< stdio, or options.server_pid given
    std::vector<churn_cycle> cycles;  ///< the measured cycles (and the recovery cycle after interruptions)
    std::size_t failed_cycles = 0;
    std::size_t cycles_with_escaped = 0, escaped_processes = 0, surviving_processes = 0;
    std::size_t interruptions_landed = 0;  ///< slow calls that were still in flight when interrupted
    /// Time per cycle (start to closed), over the measured cycles.
    std::chrono::nanoseconds cycle_median{0}, cycle_p90{0}, cycle_max{0};
    /// The median of the first and of the last third of the cycles: the trend.
    std::chrono::nanoseconds first_third_median{0}, last_third_median{0};
    /// This process's descriptors and threads after a warm-up cycle and after
    /// the last one, and the growth tolerated.
    std::uint32_t fds_before = 0, fds_after = 0, threads_before = 0, threads_after = 0;
    std::size_t fd_tolerance = 0, thread_tolerance = 0;
    std::chrono::nanoseconds took{0};

    [[nodiscard]] bool passed() const noexcept { return verdict == churn_verdict::clean; }

    [[nodiscard]] MCP_LOADTEST_DECL std::string verdict_sentence() const;
};

// The client options take an overload, not a default (docs/index.md#compiler-notes).
/// Start, handshake, call (options.tool or ping), close, options.cycles times
/// after one warm-up cycle; reports time per cycle and what was left behind.
MCP_LOADTEST_DECL asio::awaitable<churn_report> session_churn(any_server server, churn_options options, client_options client);
MCP_LOADTEST_DECL asio::awaitable<churn_report> session_churn(any_server server, churn_options options);
MCP_LOADTEST_DECL asio::awaitable<churn_report> session_churn(any_server server);

// ---- JSON (durations as integer nanoseconds, enums as their names) -----------

MCP_LOADTEST_DECL void to_json(json& j, const churn_process& p);
MCP_LOADTEST_DECL void from_json(const json& j, churn_process& p);

MCP_LOADTEST_DECL void to_json(json& j, const churn_cycle& c);
MCP_LOADTEST_DECL void from_json(const json& j, churn_cycle& c);

MCP_LOADTEST_DECL void to_json(json& j, const churn_report& r);
MCP_LOADTEST_DECL void from_json(const json& j, churn_report& r);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detectors/impl/session_churn.ipp>
#endif
