// Definitions of run.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/run.hpp>

#include <mcp_loadtest/detail/engine/load_engine.hpp>

#include <utility>

namespace mcp_loadtest {

MCP_LOADTEST_DECL iteration_body::iteration_body(const iteration_body&) = default;
MCP_LOADTEST_DECL iteration_body::iteration_body(iteration_body&&) noexcept = default;
MCP_LOADTEST_DECL iteration_body& iteration_body::operator=(const iteration_body&) = default;
MCP_LOADTEST_DECL iteration_body& iteration_body::operator=(iteration_body&&) noexcept = default;
MCP_LOADTEST_DECL iteration_body::~iteration_body() = default;

MCP_LOADTEST_DECL scenario iteration_body::to_scenario(const call_options& call) && {
    if (body_) return std::move(body_);
    return detail::make_mix_scenario(std::move(calls_), call);
}

MCP_LOADTEST_DECL asio::awaitable<load_report> run(any_server server, workload load, iteration_body body, thresholds objectives,
                                                   run_options options) {
    scenario each = std::move(body).to_scenario(options.call);
    // Inside an MCP_LOADTEST_CASE (or with run_directory.root set) the run writes its
    // run directory (report/run_directory.hpp); the trace and stderr logs go there too.
    auto recorder = detail::run_directory_recorder::open(options, server);
    detail::load_job job{std::move(server), std::move(load), std::move(each), std::move(objectives),
                         std::move(options)};
    if (!recorder) return detail::start_owned(std::move(job));
    return detail::start_owned(detail::recorded_job<detail::load_job>{std::move(job), std::move(*recorder)});
}

MCP_LOADTEST_DECL asio::awaitable<load_report> run(any_server server, workload load, iteration_body body, thresholds objectives) {
    return run(std::move(server), std::move(load), std::move(body), std::move(objectives), run_options{});
}

MCP_LOADTEST_DECL asio::awaitable<load_report> run(any_server server, workload load, iteration_body body) {
    return run(std::move(server), std::move(load), std::move(body), thresholds{}, run_options{});
}

}  // namespace mcp_loadtest
