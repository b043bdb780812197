// The per-interval latency histograms of a run (load_report::intervals): one dense "current"
// histogram per tag (every call, and each tool), encoded to HdrHistogram V2 base64 when its
// interval closes, so memory stays bounded on a soak of any length (a few hundred bytes per
// closed interval and tag).
#pragma once

#include <mcp_loadtest/histogram.hpp>
#include <mcp_loadtest/load_report.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

class interval_recorder {
public:
    explicit interval_recorder(std::chrono::nanoseconds length) : length_(length.count() > 0 ? length : std::chrono::seconds(1)) {}

    /// One call's latency, ended in interval `index` (from the start of the run). A call ending in an
    /// interval already closed (several sessions) goes into the current one. `tool` empty: only in "".
    void record(std::size_t index, std::string_view tool, std::chrono::nanoseconds latency) {
        if (index > current_) close_until(index);
        all_.record(latency);
        if (tool.empty()) return;
        auto found = per_tool_.find(tool);
        if (found == per_tool_.end()) found = per_tool_.emplace(std::string(tool), latency_histogram{}).first;
        found->second.record(latency);
    }

    /// Closes every interval up to the end of the run (`elapsed` from its start) into `out`:
    /// every interval has its "" entry (count 0 when empty) so time is continuous; tools appear
    /// only in the intervals where they had calls. The last interval is as long as what remains.
    void finish(std::chrono::nanoseconds elapsed, std::vector<latency_interval>& out) {
        const auto covered = static_cast<std::size_t>((elapsed + length_ - std::chrono::nanoseconds(1)) / length_);
        const std::size_t last = std::max<std::size_t>({covered, current_ + 1, 1}) - 1;
        close_until(last);
        close_current(elapsed);
        out = std::move(closed_);
    }

private:
    void close_until(std::size_t index) {
        while (current_ < index) {
            close_current(std::chrono::nanoseconds::max());
            ++current_;
        }
    }

    /// Closes the current interval; the run's last one ends at `elapsed` (else: a whole interval).
    void close_current(std::chrono::nanoseconds elapsed) {
        const std::chrono::nanoseconds start = length_ * static_cast<std::int64_t>(current_);
        const auto length = std::clamp<std::chrono::nanoseconds>(elapsed - start, std::chrono::nanoseconds(1), length_);
        const double at_s = std::chrono::duration<double>(start).count();
        const double length_s = std::chrono::duration<double>(length).count();
        const auto close = [&](const std::string& tag, latency_histogram& h) {
            closed_.push_back({at_s, length_s, tag, h.count(), to_hdr_base64(h)});
            if (!h.empty()) h.reset();  // keeps the counters: no allocation after the first interval
        };
        close(std::string(), all_);
        for (auto& [tool, h] : per_tool_)
            if (!h.empty()) close(tool, h);
    }

    std::chrono::nanoseconds length_;
    std::size_t current_ = 0;
    latency_histogram all_;
    std::map<std::string, latency_histogram, std::less<>> per_tool_;
    std::vector<latency_interval> closed_;
};

}  // namespace mcp_loadtest::detail
