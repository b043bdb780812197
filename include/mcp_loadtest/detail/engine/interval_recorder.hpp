// The per-interval latency histograms of a run (load_report::intervals): one dense "current"
// histogram per tag (every call, and each tool), encoded to HdrHistogram V2 base64 when its
// interval closes, so memory stays bounded on a soak of any length (a few hundred bytes per
// closed interval and tag).
#pragma once

#include <mcp_loadtest/detail/config.hpp>
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
    interval_recorder(const interval_recorder&) = delete;  // it points into its own map
    interval_recorder& operator=(const interval_recorder&) = delete;

    /// One call's latency, ended in interval `index` (from the start of the run). A call ending in an
    /// interval already closed (several sessions) goes into the current one. Tagged as report.per_tool
    /// keys it (per_tool_key(method, tool)); both empty: only in "".
    MCP_LOADTEST_DECL void record(std::size_t index, std::string_view method, std::string_view tool,
                                  std::chrono::nanoseconds latency);

    /// Closes every interval up to the end of the run (`elapsed` from its start) into `out`:
    /// every interval has its "" entry (count 0 when empty) so time is continuous; tools appear
    /// only in the intervals where they had calls. The last interval is as long as what remains.
    MCP_LOADTEST_DECL void finish(std::chrono::nanoseconds elapsed, std::vector<latency_interval>& out);

private:
    MCP_LOADTEST_DECL void close_until(std::size_t index);

    /// Closes the current interval; the run's last one ends at `elapsed` (else: a whole interval).
    MCP_LOADTEST_DECL void close_current(std::chrono::nanoseconds elapsed);

    std::chrono::nanoseconds length_;
    std::size_t current_ = 0;
    latency_histogram all_;       // filled when an interval closes, from the others
    latency_histogram untagged_;  // calls without a tool
    // By tool, then method: the tag (per_tool_key) is built when an interval closes, not per call.
    using per_method = std::map<std::string, latency_histogram, std::less<>>;
    std::map<std::string, per_method, std::less<>> per_tool_;
    std::string last_tool_, last_method_;  // the last recorded and its histogram: one lookup per run for a one-tool mix
    latency_histogram* last_histogram_ = nullptr;
    std::vector<latency_interval> closed_;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/engine/impl/interval_recorder.ipp>
#endif
