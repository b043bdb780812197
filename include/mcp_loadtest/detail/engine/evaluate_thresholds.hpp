// The threshold evaluator (docs/load-testing.md#thresholds-thresholdshpp): every set objective is
// compared with the report; missing evidence is a violation.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/load_report.hpp>
#include <mcp_loadtest/thresholds.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void check_latency(std::vector<threshold_violation>& out, const std::string& prefix, const call_stats& s,
                                     const latency_thresholds& t, const std::string& scope);

MCP_LOADTEST_DECL void check_count(std::vector<threshold_violation>& out, const char* metric,
                                   const std::optional<std::uint64_t>& limit, std::uint64_t actual, const char* what);

MCP_LOADTEST_DECL std::vector<threshold_violation> evaluate_thresholds(const load_report& r, const thresholds& t);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/engine/impl/evaluate_thresholds.ipp>
#endif
