// A load report's per-interval latency histograms as an HdrHistogram interval log (.hlog): the
// text HdrHistogram's HistogramLogWriter writes and HistogramLogReader / HistogramLogProcessor
// (Java), hdr_log_read (C) and the log plotters read.
//
//     #[Histogram log format version 1.3]
//     #[StartTime: 1764009600.123 (seconds since epoch), 2025-11-24T18:40:00Z]
//     #[BaseTime: 1764009600.123 (seconds since epoch)]
//     "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
//     0.000,1.000,2.127,HISTFAAAAC...            <- every call (load_report::intervals tag "")
//     Tag=echo,0.000,1.000,2.127,HISTFAAAAC...   <- one tool
//
// Units: the histograms hold microseconds (latency_histogram's unit), so HistogramLogProcessor
// prints milliseconds with -outputValueUnitRatio 1000; the Interval_Max column is written in
// milliseconds too (max / 1000, the writer's maxValueUnitRatio). Timestamps are seconds from the
// run's start, with BaseTime = StartTime = the run's wall-clock start (started_at_unix_ns).
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/load_report.hpp>

#include <string>
#include <string_view>

namespace mcp_loadtest {

/// A tool name as an hlog tag: the format splits on commas and whitespace, so each comma, space,
/// tab, line break or other control character becomes '_' ("my tool,v2" -> "my_tool_v2").
/// Two names differing only there share a tag. The empty name is the untagged (overall) line.
[[nodiscard]] MCP_LOADTEST_DECL std::string hlog_tag(std::string_view name);

/// The report's intervals (load_report::intervals) as HdrHistogram interval log text: untagged
/// lines for every call, `Tag=<tool>` lines per tool (hlog_tag()), in the report's order.
[[nodiscard]] MCP_LOADTEST_DECL std::string to_hlog(const load_report& report);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/report/impl/hlog.ipp>
#endif
