// Definitions of detail/text/format.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/text/format.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string format_ms(std::chrono::nanoseconds d) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g ms", ms(d));
    return buf;
}

MCP_LOADTEST_DECL std::string format_pct(double f) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g%%", 100.0 * f);
    return buf;
}

MCP_LOADTEST_DECL std::string format_num(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

MCP_LOADTEST_DECL std::string format_plain(double v) {
    char buf[48];
    const double a = std::fabs(v);
    if (a == 0) return "0";
    if (a < 0.001) std::snprintf(buf, sizeof buf, "%.1e", v);
    else if (a < 1) std::snprintf(buf, sizeof buf, "%.2g", v);
    else if (a < 100) std::snprintf(buf, sizeof buf, "%.3g", v);
    else std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
}

MCP_LOADTEST_DECL std::string format_seconds(std::chrono::nanoseconds d) {
    return format_plain(std::chrono::duration<double>(d).count()) + " s";
}

MCP_LOADTEST_DECL std::string format_duration(std::chrono::nanoseconds d) {
    char buf[64];
    const double v = ms(d);
    std::snprintf(buf, sizeof buf, std::fabs(v) < 10 ? "%.3g" : "%.1f", v);
    std::string s = buf;
    if (s.find('.') != std::string::npos && s.find('e') == std::string::npos) {
        while (s.back() == '0') s.pop_back();
        if (s.back() == '.') s.pop_back();
    }
    return s + " ms";
}

MCP_LOADTEST_DECL std::string format_bytes(std::size_t n) {
    if (n < 1024) return std::to_string(n) + " bytes";
    char text[32];
    const double v = static_cast<double>(n);
    if (n < 1024 * 1024) std::snprintf(text, sizeof text, "%.1f KiB", v / 1024);
    else std::snprintf(text, sizeof text, "%.1f MiB", v / (1024.0 * 1024.0));
    return text;
}

MCP_LOADTEST_DECL std::string format_list(const std::vector<std::uint64_t>& values, std::size_t max) {
    std::string s;
    for (std::size_t i = 0; i < values.size() && i < max; ++i) s += (i ? ", " : "") + std::to_string(values[i]);
    if (values.size() > max) s += ", ... (" + std::to_string(values.size()) + " in all)";
    return s;
}

}  // namespace mcp_loadtest::detail
