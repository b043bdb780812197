// Definitions of detail/engine/interval_recorder.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/engine/interval_recorder.hpp>

#include <mcp_loadtest/detail/wire/same_text.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void interval_recorder::record(std::size_t index, std::string_view method, std::string_view tool,
                                                  std::chrono::nanoseconds latency) {
    if (index > current_) close_until(index);
    if (tool.empty() && method.empty()) {
        untagged_.record(latency);
        return;
    }
    if (!last_histogram_ || !same_text(tool, last_tool_) || !same_text(method, last_method_)) {
        auto by_tool = per_tool_.find(tool);
        if (by_tool == per_tool_.end()) by_tool = per_tool_.emplace(std::string(tool), per_method{}).first;
        auto found = by_tool->second.find(method);
        if (found == by_tool->second.end()) found = by_tool->second.emplace(std::string(method), latency_histogram{}).first;
        last_histogram_ = &found->second;  // std::map's nodes stay put
        last_tool_.assign(tool);
        last_method_.assign(method);
    }
    last_histogram_->record(latency);
}

MCP_LOADTEST_DECL void interval_recorder::finish(std::chrono::nanoseconds elapsed, std::vector<latency_interval>& out) {
    const auto covered = static_cast<std::size_t>((elapsed + length_ - std::chrono::nanoseconds(1)) / length_);
    const std::size_t last = std::max<std::size_t>({covered, current_ + 1, 1}) - 1;
    close_until(last);
    close_current(elapsed);
    out = std::move(closed_);
}

MCP_LOADTEST_DECL void interval_recorder::close_until(std::size_t index) {
    while (current_ < index) {
        close_current(std::chrono::nanoseconds::max());
        ++current_;
    }
}

MCP_LOADTEST_DECL void interval_recorder::close_current(std::chrono::nanoseconds elapsed) {
    const std::chrono::nanoseconds start = length_ * static_cast<std::int64_t>(current_);
    const auto length = std::clamp<std::chrono::nanoseconds>(elapsed - start, std::chrono::nanoseconds(1), length_);
    const double at_s = std::chrono::duration<double>(start).count();
    const double length_s = std::chrono::duration<double>(length).count();
    const auto close = [&](const std::string& tag, latency_histogram& h) {
        closed_.push_back({at_s, length_s, tag, h.count(), to_hdr_base64(h)});
        if (!h.empty()) h.reset();  // keeps the counters: no allocation after the first interval
    };
    // "" is every call: the tools' histograms merged (exact), once per interval, not a record per call.
    for (auto& [tool, methods] : per_tool_)
        for (auto& [method, h] : methods)
            if (!h.empty()) all_.merge(h);
    if (!untagged_.empty()) {
        all_.merge(untagged_);
        untagged_.reset();
    }
    close(std::string(), all_);
    for (auto& [tool, methods] : per_tool_)
        for (auto& [method, h] : methods)
            if (!h.empty()) close(per_tool_key(method, tool), h);
}

}  // namespace mcp_loadtest::detail
