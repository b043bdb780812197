// Definitions of report/hlog.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/histogram.hpp>

#include <mcp_loadtest/detail/os/utc_time.hpp>
#include <mcp_loadtest/report/hlog.hpp>

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <string>
#include <string_view>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::string hlog_tag(std::string_view name) {
    std::string tag(name);
    for (char& c : tag)
        if (c == ',' || static_cast<unsigned char>(c) <= ' ' || c == '\x7f') c = '_';
    return tag;
}

MCP_LOADTEST_DECL std::string to_hlog(const load_report& report) {
    std::string out = "#[Histogram log format version 1.3]\n";
    out += "#[mcp-loadtest run " + report.run_id + ": " + report.workload + " load on " + hlog_tag(report.server) +
           "; values in microseconds, Interval_Max in milliseconds]\n";
    char line[160];
    if (report.started_at_unix_ns > 0) {
        const std::int64_t ms = report.started_at_unix_ns / 1'000'000;
        std::snprintf(line, sizeof line, "%lld.%03lld", static_cast<long long>(ms / 1000), static_cast<long long>(ms % 1000));
        const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
        const std::tm tm = detail::utc_calendar(seconds);
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
