// Numbers in messages and reports: one home, so every text prints a duration,
// a percentage or a size the same way (and never as std::to_string(double)'s
// "1500.118000").
#pragma once

#include <mcp_loadtest/detail/config.hpp>

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
MCP_LOADTEST_DECL std::string format_ms(std::chrono::nanoseconds d);

/// A fraction as a percentage, 3 significant digits: 0.0123 -> "1.23%".
MCP_LOADTEST_DECL std::string format_pct(double f);

/// 4 significant digits: "93.5", "1.25e+04".
MCP_LOADTEST_DECL std::string format_num(double v);

/// 3 significant digits without exponents for everyday magnitudes: "0.31", "18.6", "60", "1234".
MCP_LOADTEST_DECL std::string format_plain(double v);

/// Seconds: "0.5 s", "120 s".
MCP_LOADTEST_DECL std::string format_seconds(std::chrono::nanoseconds d);

/// How long something took, to the tenth of a millisecond once it is long
/// enough for that to be the precision that matters: "0.054 ms", "12.3 ms",
/// "1500.1 ms", "5000 ms".
MCP_LOADTEST_DECL std::string format_duration(std::chrono::nanoseconds d);

/// "512 bytes", "3.2 KiB", "64.0 MiB": for messages.
MCP_LOADTEST_DECL std::string format_bytes(std::size_t n);

/// "3, 4, 5", at most `max` of them: "1, 2, ... (40 in all)".
MCP_LOADTEST_DECL std::string format_list(const std::vector<std::uint64_t>& values, std::size_t max = 20);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/text/impl/format.ipp>
#endif
