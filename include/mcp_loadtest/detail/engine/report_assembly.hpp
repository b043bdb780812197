// The parts of a load report computed once the run has ended: the run's
// identity, the workload's parameters, the breaking point of a staged load,
// and whether the load generator kept up.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/histogram.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/load_report.hpp>
#include <mcp_loadtest/workload.hpp>


#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <optional>
#include <random>
#include <string>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string iso8601_utc(std::chrono::system_clock::time_point t);

MCP_LOADTEST_DECL std::string make_run_id();

MCP_LOADTEST_DECL json describe_workload(const workload& load, std::size_t sessions);

/// The first stage whose p99 or error rate crossed its limit, if any.
MCP_LOADTEST_DECL void find_breaking_point(load_report& r, std::optional<std::chrono::nanoseconds> p99_limit,
                                           std::optional<double> err_limit);

/// Was the generator itself the bottleneck? By its CPU use over the run, and
/// (open models) by how late sends left against their intended times.
MCP_LOADTEST_DECL void judge_generator(generator_report& g, double duration_s, std::chrono::nanoseconds cpu,
                                       const latency_histogram& send_lag, std::chrono::nanoseconds arrival_interval);

/// Did the authorization server hold the load back? From the time calls waited for tokens
/// (a.held_s, a.held_calls) over the sessions' time under load; fills the rest of `a`'s verdict.
MCP_LOADTEST_DECL void judge_authorization(authorization_report& a, std::size_t sessions, double duration_s);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/engine/impl/report_assembly.ipp>
#endif
