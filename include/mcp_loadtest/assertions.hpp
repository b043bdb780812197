// Failure texts for the assertion macros (MCP_REQUIRE_PASSED and friends in
// doctest.hpp / catch2.hpp): what was violated, expected vs actual, and one
// sentence on what it means. Empty when the check passes.
#pragma once

#include <mcp_loadtest/detectors.hpp>
#include <mcp_loadtest/load_report.hpp>

#include <string>

namespace mcp_loadtest::detail {

inline std::string passed_failure(const load_report& r) {
    if (r.passed) return {};
    std::string s = "the load run did not meet its objectives (" + std::to_string(r.violations.size()) +
                    " violation(s)):\n";
    for (const auto& v : r.violations) s += "  - " + v.describe() + "\n";
    s += r.summary();
    return s;
}

inline std::string no_deadlock_failure(const deadlock_report& r) {
    if (!r.has_deadlock()) return {};
    if (!r.failed_stage.empty()) return "deadlock probe of '" + r.tool + "' stopped at " + r.failed_stage + ": " + r.explanation;
    return "deadlock probe of '" + r.tool + "': " + std::to_string(r.deadlocked) + " " + r.method +
           " call(s) never answered (request ids " + join_ids(r.deadlocked_ids) + "). " + r.explanation;
}

inline std::string probe_passed_failure(const deadlock_report& r) {
    if (r.passed()) return {};
    return "deadlock probe of '" + r.tool + "' verdict " + std::string(to_string(r.verdict)) + ": " + r.explanation;
}

inline std::string no_divergence_failure(const race_report& r) {
    if (!r.divergent()) return {};
    return r.explanation();
}

inline std::string no_leak_failure(const load_report& r) {
    std::string s;
    for (const auto& p : r.processes)
        for (const auto& l : p.leaks)
            if (l.verdict == leak_verdict::leak)
                s += "server[" + std::to_string(p.session) + "] (pid " + std::to_string(p.pid) + ") " + l.resource +
                     ": " + l.explanation + "\n";
    if (s.empty() && r.processes.empty())
        s = "no server process was sampled, so leaks cannot be ruled out: set run_options.sample_interval.\n";
    return s;
}

}  // namespace mcp_loadtest::detail
