// Numbers in messages and reports: one home, so every text prints a duration,
// a percentage or a size the same way (and never as std::to_string(double)'s
// "1500.118000").
#pragma once

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace mcp_loadtest::detail {

/// Milliseconds as a double, for JSON and printf.
inline double ms(std::chrono::nanoseconds d) noexcept { return static_cast<double>(d.count()) / 1e6; }

/// Objectives and their measurements: 3 significant digits ("500 ms", "0.498 ms").
inline std::string format_ms(std::chrono::nanoseconds d) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g ms", ms(d));
    return buf;
}

/// A fraction as a percentage, 3 significant digits: 0.0123 -> "1.23%".
inline std::string format_pct(double f) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g%%", 100.0 * f);
    return buf;
}

/// 4 significant digits: "93.5", "1.25e+04".
inline std::string format_num(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

/// 3 significant digits without exponents for everyday magnitudes: "0.31", "18.6", "60", "1234".
inline std::string format_plain(double v) {
    char buf[48];
    const double a = std::fabs(v);
    if (a == 0) return "0";
    if (a < 0.001) std::snprintf(buf, sizeof buf, "%.1e", v);
    else if (a < 1) std::snprintf(buf, sizeof buf, "%.2g", v);
    else if (a < 100) std::snprintf(buf, sizeof buf, "%.3g", v);
    else std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
}

/// Seconds: "0.5 s", "120 s".
inline std::string format_seconds(std::chrono::nanoseconds d) {
    return format_plain(std::chrono::duration<double>(d).count()) + " s";
}

/// How long something took, to the tenth of a millisecond once it is long
/// enough for that to be the precision that matters: "0.054 ms", "12.3 ms",
/// "1500.1 ms", "5000 ms".
inline std::string format_duration(std::chrono::nanoseconds d) {
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

/// "512 bytes", "3.2 KiB", "64.0 MiB": for messages.
inline std::string format_bytes(std::size_t n) {
    if (n < 1024) return std::to_string(n) + " bytes";
    char text[32];
    const double v = static_cast<double>(n);
    if (n < 1024 * 1024) std::snprintf(text, sizeof text, "%.1f KiB", v / 1024);
    else std::snprintf(text, sizeof text, "%.1f MiB", v / (1024.0 * 1024.0));
    return text;
}

/// "3, 4, 5", at most `max` of them: "1, 2, ... (40 in all)".
inline std::string format_list(const std::vector<std::uint64_t>& values, std::size_t max = 20) {
    std::string s;
    for (std::size_t i = 0; i < values.size() && i < max; ++i) s += (i ? ", " : "") + std::to_string(values[i]);
    if (values.size() > max) s += ", ... (" + std::to_string(values.size()) + " in all)";
    return s;
}

}  // namespace mcp_loadtest::detail
