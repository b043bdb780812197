// Sampling servers' RSS, CPU, open descriptors and threads from Linux /proc
// while a test drives them: the input of the leak detector (leak_detection.hpp)
// and of the process figures of a report (docs/load-testing.md#process-sampling-and-leak-detection).
//
//     mlt::process_sampler sampler(co_await asio::this_coro::executor, 50ms);
//     sampler.add(session.pid(), "my_server");
//     sampler.start();
//     ... drive the server ...
//     sampler.stop();
//     mlt::process_stats stats = mlt::summarize(sampler.samples_of(session.pid()));
//
// Each tick also finds every added process's descendants (worker processes,
// the real server behind an `npx` or `uv run` wrapper: detail/os/process_tree.hpp)
// and samples them too: descendants_of(pid) lists them, tree_samples_of(pid)
// holds the whole tree's samples (summarize() adds up each tick's).
#pragma once

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/os/platform.hpp>
#include <mcp_loadtest/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mcp_loadtest {

/// One reading of one process.
struct process_sample {
    std::chrono::nanoseconds at{0};  ///< offset from the sampler's start (0 from read_process)
    pid_t pid = 0;
    double rss_mb = 0;               ///< resident set size in MiB (VmRSS)
    double cpu_pct = 0;              ///< user+system CPU since this pid's previous sample, in % of one core (first: 0)
    std::uint32_t open_fds = 0;      ///< entries of /proc/<pid>/fd (0 if another user's process)
    std::uint32_t threads = 0;
};

/// Reads a process now. nullopt if it is gone, a zombie, or unreadable; never
/// throws. `at` and `cpu_pct` are 0: CPU use needs two readings (a sampler).
[[nodiscard]] MCP_LOADTEST_DECL std::optional<process_sample> read_process(pid_t pid) noexcept;

/// A process found below an added one (a worker, a wrapper's server).
struct sampled_descendant {
    pid_t pid = 0;
    pid_t parent = 0;     ///< when last seen
    pid_t root = 0;       ///< the added process it descends from
    std::string command;  ///< its whole command line, arguments quoted like a shell (at most 16 KiB, detail::max_command_chars), when first seen
    bool exited = false;
};

/// Figures over a run, for one process or for several taken together.
struct process_stats {
    double peak_rss_mb = 0;
    double final_rss_mb = 0;
    double avg_cpu_pct = 0;    ///< CPU time used / wall time sampled, in % of one core
    std::uint32_t peak_fds = 0;
    std::uint32_t final_fds = 0;
    std::uint32_t peak_threads = 0;
    std::size_t samples = 0;
};

/// Summarizes samples in time order (as a sampler records them). Samples of
/// several pids taken at the same instant (one sampler tick) are added up, so
/// `summarize(sampler.samples())` describes all the servers together and
/// `summarize(sampler.samples_of(pid))` one of them. The average CPU is
/// weighted by the time each sample covers; each pid's first sample covers none.
[[nodiscard]] MCP_LOADTEST_DECL process_stats summarize(const std::vector<process_sample>& samples);

/// Samples a changing set of processes every `interval` on an Asio executor
/// until stopped. Reading /proc takes microseconds, so it happens inline in
/// the timer's handler. Like Asio's own objects it is not thread-safe: use it
/// from its executor's thread (an MCP_LOADTEST_CASE body is). Destroying it
/// while its timer is pending is safe.
///
/// Memory is bounded: when `max_samples` is reached, every other sample of
/// each pid is dropped (the CPU of a dropped one is merged into the next) and
/// the interval doubles, so a long run keeps covering the whole run at a
/// coarser grain rather than losing its end.
class process_sampler {
public:
    MCP_LOADTEST_DECL process_sampler(asio::any_io_executor ex, std::chrono::milliseconds interval, std::size_t max_samples = 100'000);
    MCP_LOADTEST_DECL ~process_sampler();
    process_sampler(const process_sampler&) = delete;
    process_sampler& operator=(const process_sampler&) = delete;
    /// A moved-from sampler may only be destroyed or assigned to.
    process_sampler(process_sampler&&) noexcept = default;
    MCP_LOADTEST_DECL process_sampler& operator=(process_sampler&& other) noexcept;

    /// Samples this pid from the next tick (or from start()) until it exits.
    /// Adding a pid again after its process exited follows the new process
    /// that reused the pid; adding a live one again only renames it.
    MCP_LOADTEST_DECL void add(pid_t pid, std::string label = {});

    /// Takes a first sample now, then one every interval. No-op while running.
    /// After stop(), resumes with the same origin for `at`.
    MCP_LOADTEST_DECL void start();

    /// Stops sampling (idempotent); the samples stay.
    MCP_LOADTEST_DECL void stop();

    [[nodiscard]] bool running() const noexcept { return state_->running; }
    /// The current interval (it doubles each time max_samples is reached).
    [[nodiscard]] std::chrono::steady_clock::duration interval() const noexcept { return state_->interval; }

    /// All samples of all pids, in time order.
    [[nodiscard]] const std::vector<process_sample>& samples() const noexcept { return state_->samples; }

    [[nodiscard]] MCP_LOADTEST_DECL std::vector<process_sample> samples_of(pid_t pid) const;

    /// Whether each tick also samples the descendants of every added process
    /// (default on). Finding them reads each added process's children (a few
    /// microseconds) and, while any has children, all of /proc once per tick
    /// (about 1 ms per 100 processes), so a process group or session a worker
    /// left is still followed.
    void follow_descendants(bool on) noexcept { state_->follow_tree = on; }
    [[nodiscard]] bool follows_descendants() const noexcept { return state_->follow_tree; }

    /// The descendants of an added process sampled so far, in the order found.
    [[nodiscard]] MCP_LOADTEST_DECL std::vector<sampled_descendant> descendants_of(pid_t root) const;

    /// The samples of an added process and of all its descendants, in time
    /// order: summarize() of them describes its whole tree.
    [[nodiscard]] MCP_LOADTEST_DECL std::vector<process_sample> tree_samples_of(pid_t root) const;

    /// The label given to add() (for a descendant: its command line), or empty.
    [[nodiscard]] MCP_LOADTEST_DECL std::string label_of(pid_t pid) const;

    /// True once the pid's process was found gone; it is no longer sampled.
    [[nodiscard]] MCP_LOADTEST_DECL bool exited(pid_t pid) const noexcept;

private:
    using clock = std::chrono::steady_clock;

    struct tracked_pid {
        pid_t pid = 0;
        std::string label;
        pid_t root = 0;    // the added process (itself for one added)
        pid_t parent = 0;  // a descendant's, when last seen
        bool gone = false;
        bool seen = false;             // sampled at least once: the fields below are set
        std::uint64_t start_ticks = 0;
        std::chrono::nanoseconds cpu_time{};
        clock::time_point last{};
    };

    struct state {
        MCP_LOADTEST_DECL state(asio::any_io_executor ex, std::chrono::milliseconds every, std::size_t max);
        asio::steady_timer timer;
        clock::duration interval;
        std::size_t max_samples;
        bool running = false;
        bool started = false;
        bool follow_tree = true;
        std::uint64_t generation = 0;
        clock::time_point origin{};
        clock::time_point next{};
        std::vector<tracked_pid> tracked;
        std::vector<process_sample> samples;
    };

    static MCP_LOADTEST_DECL void arm(const std::shared_ptr<state>& st);

    static constexpr std::size_t max_descendants_per_root = 64;

    // Adds the descendants of every added process not yet tracked. The whole
    // of /proc is read only while some added process has children, or has
    // live descendants already tracked (whose links may have changed).
    static MCP_LOADTEST_DECL void find_descendants(state& st);

    static MCP_LOADTEST_DECL void sample(state& st, clock::time_point now);

    // Drops every other sample of each pid (keeping each one's first), folding
    // a dropped sample's CPU into the next kept one, and halves the rate.
    static MCP_LOADTEST_DECL void thin(state& st);

    std::shared_ptr<state> state_;
};

// ---- JSON (durations as integer nanoseconds) --------------------------------

MCP_LOADTEST_DECL void to_json(json& j, const process_sample& s);
MCP_LOADTEST_DECL void from_json(const json& j, process_sample& s);

MCP_LOADTEST_DECL void to_json(json& j, const process_stats& s);
MCP_LOADTEST_DECL void from_json(const json& j, process_stats& s);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/process_sampling.ipp>
#endif
