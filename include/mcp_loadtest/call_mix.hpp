// What a load test calls: a weighted mix of tool calls and multi-step
// patterns, with fixed or generated arguments. Selection and generated
// arguments draw from one seeded generator, so a run is reproducible.
#pragma once

#include <mcp_loadtest/call_result.hpp>
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
[[nodiscard]] inline std::int64_t uniform(load_rng& rng, std::int64_t lo, std::int64_t hi) {
    if (hi <= lo) return lo;
    const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<std::int64_t>(rng() % span);
}

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
    explicit mix(std::vector<weighted_call> calls, std::vector<pattern> patterns = {})
        : calls_(std::move(calls)), patterns_(std::move(patterns)) {
        validate();
    }
    /// A single tool with fixed arguments.
    static mix single(std::string tool, json arguments = json::object()) {
        return mix(std::vector<weighted_call>{{std::move(tool), std::move(arguments), 1.0, {}}});
    }

    mix& add(weighted_call c) {
        calls_.push_back(std::move(c));
        validate();
        return *this;
    }
    mix& add(pattern p) {
        patterns_.push_back(std::move(p));
        validate();
        return *this;
    }

    [[nodiscard]] const std::vector<weighted_call>& calls() const noexcept { return calls_; }
    [[nodiscard]] const std::vector<pattern>& patterns() const noexcept { return patterns_; }
    [[nodiscard]] bool empty() const noexcept { return calls_.empty() && patterns_.empty(); }

    /// Index into calls() (< calls().size()) or, past it, into patterns().
    [[nodiscard]] std::size_t pick(load_rng& rng) const {
        if (total_weight_ <= 0) throw std::logic_error("mcp_loadtest::mix is empty: add at least one call or pattern");
        // 53 random bits → [0, 1): portable, unlike std::uniform_real_distribution.
        const double u = static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0) * total_weight_;
        double acc = 0;
        for (std::size_t i = 0; i < calls_.size(); ++i)
            if (u < (acc += calls_[i].weight)) return i;
        for (std::size_t i = 0; i < patterns_.size(); ++i)
            if (u < (acc += patterns_[i].weight)) return calls_.size() + i;
        return calls_.size() + patterns_.size() - 1;
    }

private:
    void validate() {
        total_weight_ = 0;
        for (const auto& c : calls_) {
            if (c.tool.empty()) throw std::invalid_argument("mcp_loadtest::mix: a call has an empty tool name");
            if (!(c.weight >= 0))
                throw std::invalid_argument("mcp_loadtest::mix: tool '" + c.tool + "' has a negative weight");
            if (!c.generate && !c.arguments.is_object())
                throw std::invalid_argument("mcp_loadtest::mix: the arguments of tool '" + c.tool +
                                            "' must be a JSON object, got " + c.arguments.dump());
            total_weight_ += c.weight;
        }
        for (const auto& p : patterns_) {
            if (p.steps.empty())
                throw std::invalid_argument("mcp_loadtest::mix: pattern '" + p.name + "' has no steps");
            if (!(p.weight >= 0))
                throw std::invalid_argument("mcp_loadtest::mix: pattern '" + p.name + "' has a negative weight");
            total_weight_ += p.weight;
        }
    }

    std::vector<weighted_call> calls_;
    std::vector<pattern> patterns_;
    double total_weight_ = 0;
};

}  // namespace mcp_loadtest
