// Definitions of report/terminal.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/report/terminal.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL bool progress_wanted(progress_mode mode) noexcept { return detail::progress_enabled(mode); }

MCP_LOADTEST_DECL std::string progress_line(double elapsed_s, double total_s, double calls_per_s,
                                            std::uint64_t calls, std::chrono::nanoseconds p99,
                                            std::uint64_t errors, std::uint64_t dropped) {
    return detail::progress_text({elapsed_s, total_s, calls_per_s, calls, p99, errors, dropped});
}

MCP_LOADTEST_DECL std::string terminal_summary(const load_report& r) {
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
