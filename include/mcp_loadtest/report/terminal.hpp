// A load run in the terminal: the live progress line (run_options::progress; the mechanics are
// detail/engine/live_progress.hpp) and the final summary printed after a run.
//
//     auto report = co_await mlt::run(server, load, calls, slo);
//     std::fputs(mlt::terminal_summary(report).c_str(), stderr);
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/detail/engine/live_progress.hpp>
#include <mcp_loadtest/load_report.hpp>
#include <mcp_loadtest/report/grade.hpp>
#include <mcp_loadtest/run_options.hpp>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace mcp_loadtest {

/// Whether a run with this setting shows live progress here and now: on/off as given; automatic
/// follows MCP_LOADTEST_PROGRESS (1 on, 0 off) when set, else shows it only when stderr is a
/// terminal and CI is not set (CI=true, as CI services set it, keeps it quiet).
[[nodiscard]] MCP_LOADTEST_DECL bool progress_wanted(progress_mode mode) noexcept;

/// One progress line, as the live display prints it (for tools that drive their own display).
[[nodiscard]] MCP_LOADTEST_DECL std::string progress_line(double elapsed_s, double total_s, double calls_per_s,
                                                          std::uint64_t calls, std::chrono::nanoseconds p99,
                                                          std::uint64_t errors, std::uint64_t dropped);

/// The final summary for a terminal: load_report::summary() (unchanged, so what parses it keeps
/// working), then the A–F grades with what each means, and the slowest tools when there are several.
[[nodiscard]] MCP_LOADTEST_DECL std::string terminal_summary(const load_report& r);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/report/impl/terminal.ipp>
#endif
