// Definitions of call_mix.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/call_mix.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::int64_t uniform(load_rng& rng, std::int64_t lo, std::int64_t hi) {
    if (hi <= lo) return lo;
    const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<std::int64_t>(rng() % span);
}

MCP_LOADTEST_DECL mix::mix(std::vector<weighted_call> calls, std::vector<pattern> patterns)
    : calls_(std::move(calls)), patterns_(std::move(patterns)) {
    validate();
}

MCP_LOADTEST_DECL mix::mix(const mix&) = default;
MCP_LOADTEST_DECL mix::mix(mix&&) noexcept = default;
MCP_LOADTEST_DECL mix& mix::operator=(const mix&) = default;
MCP_LOADTEST_DECL mix& mix::operator=(mix&&) noexcept = default;
MCP_LOADTEST_DECL mix::~mix() = default;

MCP_LOADTEST_DECL mix mix::single(std::string tool, json arguments) {
    return mix(std::vector<weighted_call>{{std::move(tool), std::move(arguments), 1.0, {}}});
}

MCP_LOADTEST_DECL mix& mix::add(weighted_call c) {
    calls_.push_back(std::move(c));
    validate();
    return *this;
}

MCP_LOADTEST_DECL mix& mix::add(pattern p) {
    patterns_.push_back(std::move(p));
    validate();
    return *this;
}

MCP_LOADTEST_DECL std::size_t mix::pick(load_rng& rng) const {
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

MCP_LOADTEST_DECL void mix::validate() {
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

}  // namespace mcp_loadtest
