// The histogram's exact, mergeable JSON form and latency_summary's JSON form (what reports
// write), with readers that name the offending field.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/histogram/latency_histogram.hpp>
#include <mcp_loadtest/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {
namespace detail {

[[noreturn]] MCP_LOADTEST_DECL void bad_histogram_field(std::string_view what, std::string_view field, std::string_view expected,
                                                        const json* got);

MCP_LOADTEST_DECL const json& histogram_field(const json& j, std::string_view what, const char* field, std::string_view expected);

MCP_LOADTEST_DECL std::uint64_t histogram_uint(const json& j, std::string_view what, const char* field,
                                               std::string_view expected = "a non-negative integer");

}  // namespace detail

/// Exact, mergeable, sparse JSON form:
/// {"unit":"us","lowest":1,"highest":3600000000,"significant_digits":3,"count":..,"min_ns":..,
///  "max_ns":..,"sum_ns":..,"saturated":..,"buckets":[[index,count],...]} (non-empty buckets only).
MCP_LOADTEST_DECL void to_json(json& j, const latency_histogram& h);

/// Reads the form to_json() writes. Throws std::invalid_argument naming the offending field
/// when the layout differs, an index is out of range or repeated, the bucket counts do not add
/// up to "count", or min/max/sum/saturated contradict the buckets. Unknown keys are ignored.
MCP_LOADTEST_DECL void from_json(const json& j, latency_histogram& out);

/// Summary as reports print it: {"count":n,"min_ms":..,"max_ms":..,"mean_ms":..,"stddev_ms":..,
/// "p50_ms":..,"p90_ms":..,"p95_ms":..,"p99_ms":..,"p999_ms":..}, durations in milliseconds.
MCP_LOADTEST_DECL void to_json(json& j, const latency_summary& s);

/// Reads to_json()'s form back, rounding milliseconds to the nearest nanosecond: exact for
/// durations up to 2^51 ns (26 days), within a few nanoseconds per 2^51 beyond, and any value
/// to_json wrote reads back (up to nanoseconds::max()). Throws std::invalid_argument naming a
/// missing or malformed field.
MCP_LOADTEST_DECL void from_json(const json& j, latency_summary& s);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/histogram/impl/json.ipp>
#endif
