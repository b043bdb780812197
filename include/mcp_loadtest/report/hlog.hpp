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

#include <mcp_loadtest/histogram.hpp>
#include <mcp_loadtest/load_report.hpp>

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>
#include <string_view>

namespace mcp_loadtest {

/// A tool name as an hlog tag: the format splits on commas and whitespace, so each comma, space,
/// tab, line break or other control character becomes '_' ("my tool,v2" -> "my_tool_v2").
/// Two names differing only there share a tag. The empty name is the untagged (overall) line.
[[nodiscard]] inline std::string hlog_tag(std::string_view name) {
    std::string tag(name);
    for (char& c : tag)
        if (c == ',' || static_cast<unsigned char>(c) <= ' ' || c == '\x7f') c = '_';
    return tag;
}

/// The report's intervals (load_report::intervals) as HdrHistogram interval log text: untagged
/// lines for every call, `Tag=<tool>` lines per tool (hlog_tag()), in the report's order.
[[nodiscard]] inline std::string to_hlog(const load_report& report) {
    std::string out = "#[Histogram log format version 1.3]\n";
    out += "#[mcp-loadtest run " + report.run_id + ": " + report.workload + " load on " + hlog_tag(report.server) +
           "; values in microseconds, Interval_Max in milliseconds]\n";
    char line[160];
    if (report.started_at_unix_ns > 0) {
        const std::int64_t ms = report.started_at_unix_ns / 1'000'000;
        std::snprintf(line, sizeof line, "%lld.%03lld", static_cast<long long>(ms / 1000), static_cast<long long>(ms % 1000));
        const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
        std::tm tm{};
        ::gmtime_r(&seconds, &tm);
        char date[32];
        std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
        out += std::string("#[StartTime: ") + line + " (seconds since epoch), " + date + "]\n";
        out += std::string("#[BaseTime: ") + line + " (seconds since epoch)]\n";
    }
    out += "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n";
    for (const auto& i : report.intervals) {
        if (!i.tag.empty()) out += "Tag=" + hlog_tag(i.tag) + ",";
        const double max_ms = i.count ? static_cast<double>(i.histogram().max().count()) / 1e6 : 0.0;
        std::snprintf(line, sizeof line, "%.3f,%.3f,%.3f,", i.at_s, i.length_s, max_ms);
        out += line;
        out += i.hdr;
        out += '\n';
    }
    return out;
}

}  // namespace mcp_loadtest
