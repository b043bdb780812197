// A load run in the terminal: the live progress line (run_options::progress; the mechanics are
// detail/live_progress.hpp) and the final summary printed after a run.
//
//     auto report = co_await mlt::run(server, load, calls, slo);
//     std::fputs(mlt::terminal_summary(report).c_str(), stderr);
#pragma once

#include <mcp_loadtest/detail/format.hpp>
#include <mcp_loadtest/detail/live_progress.hpp>
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
[[nodiscard]] inline bool progress_wanted(progress_mode mode) noexcept { return detail::progress_enabled(mode); }

/// One progress line, as the live display prints it (for tools that drive their own display).
[[nodiscard]] inline std::string progress_line(double elapsed_s, double total_s, double calls_per_s,
                                               std::uint64_t calls, std::chrono::nanoseconds p99,
                                               std::uint64_t errors, std::uint64_t dropped) {
    return detail::progress_text({elapsed_s, total_s, calls_per_s, calls, p99, errors, dropped});
}

/// The final summary for a terminal: load_report::summary() (unchanged, so what parses it keeps
/// working), then the A–F grades with what each means, and the slowest tools when there are several.
[[nodiscard]] inline std::string terminal_summary(const load_report& r) {
    std::string s = r.summary();
    const report_grades g = grade_report(r);
    s += "grades: latency " + g.latency.letter_text() + ", errors " + g.errors.letter_text() + ", resources " +
         g.resources.letter_text() + "\n";
    for (const grade* x : {&g.latency, &g.errors, &g.resources})
        if (x->letter != '-' && x->letter != 'A') s += "  " + x->dimension + " " + x->letter_text() + ": " + x->meaning + "\n";
    if (r.per_tool.size() > 1) {
        std::vector<std::pair<std::string, const call_stats*>> tools;
        for (const auto& [name, st] : r.per_tool) tools.emplace_back(name, &st);
        std::sort(tools.begin(), tools.end(), [](const auto& a, const auto& b) {
            return a.second->latency.p99 > b.second->latency.p99 ||
                   (a.second->latency.p99 == b.second->latency.p99 && a.first < b.first);
        });
        s += "slowest tools by p99:";
        const std::size_t shown = std::min<std::size_t>(tools.size(), 3);
        for (std::size_t i = 0; i < shown; ++i)
            s += (i ? ", " : " ") + tools[i].first.substr(0, 60) + " " + detail::format_ms(tools[i].second->latency.p99) +
                 " (" + std::to_string(tools[i].second->calls()) + " calls)";
        s += "\n";
    }
    return s;
}

}  // namespace mcp_loadtest
