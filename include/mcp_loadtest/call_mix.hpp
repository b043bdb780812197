// What a load test calls: a weighted mix of tool calls and multi-step
// patterns, with fixed or generated arguments. Selection and generated
// arguments draw from one seeded generator, so a run is reproducible.
#pragma once

#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mcp_loadtest {

/// The run's pseudo-random generator (seeded by run_options::seed).
using load_rng = std::mt19937_64;

/// Generates the arguments of one call: `iteration` counts from 0 across the run.
using argument_generator = std::function<json(std::uint64_t iteration, load_rng& rng)>;

/// A uniform integer in [lo, hi] from the run's generator, identical on every platform
/// (std::uniform_int_distribution is not).
[[nodiscard]] MCP_LOADTEST_DECL std::int64_t uniform(load_rng& rng, std::int64_t lo, std::int64_t hi);

/// One tool call in the mix. `{"get_market_data", {{"ticker", "AAPL"}}, 1.0}`.
struct weighted_call {
    std::string tool{};
    json arguments = json::object();
    double weight = 1.0;
    argument_generator generate = {};  ///< when set, replaces `arguments` for every call
};

/// What a pattern step does when its call fails.
enum class on_step_error : std::uint8_t { continue_pattern, abort_pattern };

/// One step of a multi-step pattern.
struct step {
    std::string tool{};
    json arguments = json::object();
    std::chrono::nanoseconds think_time{0};  ///< pause after this step
    on_step_error on_error = on_step_error::continue_pattern;
    /// Builds this step's arguments from the previous step's result (e.g. an id it returned).
    std::function<json(const call_result& previous, std::uint64_t iteration, load_rng& rng)> from_previous = {};
};

/// A sequence of calls made by one virtual user in one iteration
/// (explore-then-act, read-then-write, ...).
struct pattern {
    std::string name{};
    std::vector<step> steps{};
    double weight = 1.0;
};

/// The weighted choice a load test draws each iteration from.
class mix {
public:
    mix() = default;
    mix(std::initializer_list<weighted_call> calls) : calls_(calls) { validate(); }
    explicit MCP_LOADTEST_DECL mix(std::vector<weighted_call> calls, std::vector<pattern> patterns = {});
    // Defined out of line: a test file that copies or holds a mix calls them
    // instead of compiling the vectors' copies and destructors.
    MCP_LOADTEST_DECL mix(const mix&);
    MCP_LOADTEST_DECL mix(mix&&) noexcept;
    MCP_LOADTEST_DECL mix& operator=(const mix&);
    MCP_LOADTEST_DECL mix& operator=(mix&&) noexcept;
    MCP_LOADTEST_DECL ~mix();
    /// A single tool with fixed arguments.
    static MCP_LOADTEST_DECL mix single(std::string tool, json arguments = json::object());

    MCP_LOADTEST_DECL mix& add(weighted_call c);
    MCP_LOADTEST_DECL mix& add(pattern p);

    [[nodiscard]] const std::vector<weighted_call>& calls() const noexcept { return calls_; }
    [[nodiscard]] const std::vector<pattern>& patterns() const noexcept { return patterns_; }
    [[nodiscard]] bool empty() const noexcept { return calls_.empty() && patterns_.empty(); }

    /// Index into calls() (< calls().size()) or, past it, into patterns().
    [[nodiscard]] MCP_LOADTEST_DECL std::size_t pick(load_rng& rng) const;

private:
    MCP_LOADTEST_DECL void validate();

    std::vector<weighted_call> calls_;
    std::vector<pattern> patterns_;
    double total_weight_ = 0;
};

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/call_mix.ipp>
#endif
