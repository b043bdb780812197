// Workload models: how much load, shaped how, for how long.
//
// - closed_load: N virtual users, each a loop of call → think time. A stalled
//   server slows the senders down, so stalls are under-sampled (coordinated
//   omission); use it to model interactive clients, not to measure tails.
// - open_load: a constant arrival rate, arrivals evenly spaced or Poisson
//   (arrival_process). Each call's latency is measured from its *intended*
//   send time, so a server stall shows in the tail; arrivals that cannot start
//   (max_in_flight reached) are counted as dropped.
// - staged_load: a sequence of stages ramping users or rate linearly to a
//   target; ramp(), spike() and soak() build the usual shapes from it (docs/load-testing.md#workload-models-workloadhpp).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mcp_loadtest {

using namespace std::chrono_literals;

struct closed_load {
    std::size_t users = 1;
    std::chrono::nanoseconds duration = 10s;
    std::chrono::nanoseconds think_time{0};
    std::uint64_t max_iterations = 0;  ///< stop early after this many iterations in all (0: no limit)
};

/// How a rate-driven load spaces its arrivals.
enum class arrival_process : std::uint8_t {
    /// One every 1/rate: the same offered load at every instant, so two runs see the same
    /// queueing and compare well (regression gates, ceilings). The default.
    even,
    /// Independent arrivals: exponential gaps of mean 1/rate, drawn from run_options::seed (the
    /// same seed, the same arrival times). Bursts come by chance, as from many independent
    /// users: the queueing a production server sees, and a tail to match.
    poisson,
};

struct open_load {
    double rate = 100;  ///< iterations started per second
    std::chrono::nanoseconds duration = 10s;
    std::size_t max_in_flight = 10000;  ///< arrivals beyond this many unfinished iterations are dropped
    arrival_process arrivals = arrival_process::even;
};

/// One stage of a staged load: move linearly from the previous target to this one.
struct stage {
    std::chrono::nanoseconds duration{0};
    double target = 0;  ///< users (closed) or iterations per second (open)
    std::string name{};   ///< optional, shown in reports
};

struct staged_load {
    enum class driver : std::uint8_t { users, rate };
    driver by = driver::rate;
    std::vector<stage> stages{};
    double start = 0;                   ///< the target before the first stage
    std::size_t max_in_flight = 10000;  ///< rate stages: as in open_load
    std::chrono::nanoseconds think_time{0};  ///< users stages: as in closed_load
    arrival_process arrivals = arrival_process::even;  ///< rate stages: as in open_load

    [[nodiscard]] MCP_LOADTEST_DECL std::chrono::nanoseconds duration() const noexcept;
    /// The target at offset t (linear within each stage).
    [[nodiscard]] MCP_LOADTEST_DECL double target_at(std::chrono::nanoseconds t) const noexcept;
    /// Index of the stage containing offset t (the last one past the end).
    [[nodiscard]] MCP_LOADTEST_DECL std::size_t stage_at(std::chrono::nanoseconds t) const noexcept;
};

/// Steps of equal length from `from` to `to` (each step holds its level):
/// the ramp shape, whose report names the breaking point.
MCP_LOADTEST_DECL staged_load ramp(staged_load::driver by, double from, double to, std::size_t steps,
                                   std::chrono::nanoseconds step_duration);

/// Baseline, a sudden burst, then baseline again (recovery).
MCP_LOADTEST_DECL staged_load spike(staged_load::driver by, double baseline, double peak, std::chrono::nanoseconds before,
                                    std::chrono::nanoseconds burst, std::chrono::nanoseconds after);

/// A long constant load: pair it with process sampling to find leaks and drift.
MCP_LOADTEST_DECL staged_load soak(staged_load::driver by, double level, std::chrono::nanoseconds duration);

using workload = std::variant<closed_load, open_load, staged_load>;

[[nodiscard]] MCP_LOADTEST_DECL std::string_view workload_name(const workload& w) noexcept;

[[nodiscard]] MCP_LOADTEST_DECL std::chrono::nanoseconds workload_duration(const workload& w) noexcept;

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/workload.ipp>
#endif
