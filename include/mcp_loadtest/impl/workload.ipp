// Definitions of workload.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/workload.hpp>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::chrono::nanoseconds staged_load::duration() const noexcept {
    std::chrono::nanoseconds d{0};
    for (const auto& s : stages) d += s.duration;
    return d;
}

MCP_LOADTEST_DECL double staged_load::target_at(std::chrono::nanoseconds t) const noexcept {
    double from = start;
    for (const auto& s : stages) {
        if (t < s.duration) {
            const double f = s.duration.count() > 0 ? static_cast<double>(t.count()) / s.duration.count() : 1.0;
            return from + (s.target - from) * f;
        }
        t -= s.duration;
        from = s.target;
    }
    return from;
}

MCP_LOADTEST_DECL std::size_t staged_load::stage_at(std::chrono::nanoseconds t) const noexcept {
    for (std::size_t i = 0; i < stages.size(); ++i) {
        if (t < stages[i].duration) return i;
        t -= stages[i].duration;
    }
    return stages.empty() ? 0 : stages.size() - 1;
}

MCP_LOADTEST_DECL staged_load ramp(staged_load::driver by, double from, double to, std::size_t steps,
                                   std::chrono::nanoseconds step_duration) {
    staged_load s;
    s.by = by;
    s.start = from;
    for (std::size_t i = 0; i < steps; ++i) {
        const double level = steps == 1 ? to : from + (to - from) * static_cast<double>(i) / (steps - 1);
        s.stages.push_back({std::chrono::nanoseconds(0), level, "step " + std::to_string(i + 1)});
        s.stages.push_back({step_duration, level, "hold " + std::to_string(i + 1)});
    }
    return s;
}

MCP_LOADTEST_DECL staged_load spike(staged_load::driver by, double baseline, double peak, std::chrono::nanoseconds before,
                                    std::chrono::nanoseconds burst, std::chrono::nanoseconds after) {
    staged_load s;
    s.by = by;
    s.start = baseline;
    s.stages = {{before, baseline, "baseline"},
                {std::chrono::nanoseconds(0), peak, "spike"},
                {burst, peak, "burst"},
                {std::chrono::nanoseconds(0), baseline, "drop"},
                {after, baseline, "recovery"}};
    return s;
}

MCP_LOADTEST_DECL staged_load soak(staged_load::driver by, double level, std::chrono::nanoseconds duration) {
    staged_load s;
    s.by = by;
    s.start = level;
    s.stages = {{duration, level, "soak"}};
    return s;
}

MCP_LOADTEST_DECL std::string_view workload_name(const workload& w) noexcept {
    switch (w.index()) {
        case 0: return "closed";
        case 1: return "open";
        default: return std::get<staged_load>(w).by == staged_load::driver::rate ? "staged_rate" : "staged_users";
    }
}

MCP_LOADTEST_DECL std::chrono::nanoseconds workload_duration(const workload& w) noexcept {
    if (auto* c = std::get_if<closed_load>(&w)) return c->duration;
    if (auto* o = std::get_if<open_load>(&w)) return o->duration;
    return std::get<staged_load>(w).duration();
}

}  // namespace mcp_loadtest
