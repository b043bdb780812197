// Service-level objectives a load report is judged against.
//
//     mlt::thresholds{.p99 = 500ms, .error_rate = 0.01}
//
// Every set field is checked; a field whose evidence is missing (no calls
// completed, no process samples) is a violation, never a silent pass.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/outcome.hpp>

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <type_traits>

namespace mcp_loadtest {

/// Latency and error objectives for one tool (or for the whole run).
struct latency_thresholds {
    std::optional<std::chrono::nanoseconds> p50{}, p90{}, p95{}, p99{}, p999{}, max{};
    std::optional<double> error_rate{};  ///< fraction of calls not ok (tool errors count), 0..1
};
// Written inline (per_step["x"] = {.p99 = 250ms}): must stay trivially copyable.
static_assert(std::is_trivially_copyable_v<latency_thresholds>);

struct thresholds {
    std::optional<std::chrono::nanoseconds> p50{}, p90{}, p95{}, p99{}, p999{}, max{};
    std::optional<double> error_rate{};            ///< fraction of calls whose outcome is not ok
    std::optional<std::uint64_t> max_hangs{};      ///< calls ending as hang
    std::optional<std::uint64_t> max_deadlocks{};  ///< calls ending as deadlock
    std::optional<std::uint64_t> max_dropped{};    ///< open model: arrivals that could not start
    std::optional<std::uint64_t> max_protocol_violations{};
    std::optional<std::uint64_t> max_schema_violations{};  ///< strict mode (client_options::strict)
    std::map<outcome, std::uint64_t> max_outcomes{};  ///< e.g. {{outcome::crash, 0}}
    std::optional<double> rss_growth_mb{};         ///< predicted RSS growth over the run, per server
    std::optional<double> leak_slope_mb_per_s{};   ///< RSS slope after warm-up, per server
    std::optional<double> fd_growth{};             ///< predicted open-fd growth over the run, per server
    std::optional<double> thread_growth{};         ///< predicted thread-count growth over the run, per server
    std::map<std::string, latency_thresholds> per_tool{};
    /// Scenario bodies: objectives of the steps named in iteration::measure(name, ...).
    std::map<std::string, latency_thresholds> per_step{};
    /// Scenario bodies: failed check()s and exceptions allowed. A failed check
    /// fails the run unless allowed here.
    std::uint64_t max_failed_checks = 0;
    std::uint64_t max_exceptions = 0;
    /// Stop the run at the first crash or deadlock instead of hammering a dead server.
    bool abort_on_critical = false;
    /// Set: end the run as soon as an objective is breached, judged every
    /// run_options::timeline_bucket on everything measured so far, from this long after the
    /// start (the delay lets a percentile settle). Latency, error-rate and count objectives only:
    /// resource objectives need the whole run. The report says which, when, and the figures then
    /// (load_report::breach).
    std::optional<std::chrono::nanoseconds> abort_on_breach_after{};
};

/// One objective the run missed: what, expected vs actual, and what it means.
struct threshold_violation {
    std::string metric{};    ///< e.g. "p99", "tool:get_market_data:error_rate", "server[0]:rss_growth_mb"
    std::string expected{};  ///< e.g. "<= 500 ms"
    std::string actual{};    ///< e.g. "812.4 ms"
    std::string meaning{};   ///< one sentence for a human (or an agent) to act on

    [[nodiscard]] MCP_LOADTEST_DECL std::string describe() const;
};

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/thresholds.ipp>
#endif
