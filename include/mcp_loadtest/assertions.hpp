// Failure texts for the assertion macros (MCP_REQUIRE_PASSED and friends,
// detail/testing/assertion_macros.hpp): what was violated, expected vs actual, and one
// sentence on what it means. Empty when the check passes.
//
// Templates over the report types, so this header includes neither
// load_report.hpp nor the detectors: every framework adapter includes it, and
// a test pays only for the reports it actually uses.
#pragma once

#include <mcp_loadtest/detail/text/format.hpp>

#include <string>
#include <type_traits>

namespace mcp_loadtest::detail {

/// For a load_report.
template <class LoadReport>
std::string passed_failure(const LoadReport& r) {
    if (r.passed) return {};
    std::string s = "the load run did not meet its objectives (" + std::to_string(r.violations.size()) +
                    " violation(s)):\n";
    for (const auto& v : r.violations) s += "  - " + v.describe() + "\n";
    s += r.summary();
    return s;
}

/// For a deadlock_report.
template <class DeadlockReport>
std::string no_deadlock_failure(const DeadlockReport& r) {
    if (!r.has_deadlock()) return {};
    if (!r.failed_stage.empty()) return "deadlock probe of '" + r.tool + "' stopped at " + r.failed_stage + ": " + r.explanation;
    return "deadlock probe of '" + r.tool + "': " + std::to_string(r.deadlocked) + " " + r.method +
           " call(s) never answered (request ids " + format_list(r.deadlocked_ids) + "). " + r.explanation;
}

/// For a deadlock_report.
template <class DeadlockReport>
std::string probe_passed_failure(const DeadlockReport& r) {
    if (r.passed()) return {};
    return "deadlock probe of '" + r.tool + "' verdict " + std::string(to_string(r.verdict)) + ": " + r.explanation;
}

/// For the bug-class detectors of docs/detectors.md (cross-talk, head-of-line
/// blocking, cancellation, payload sweep, session churn): each report has
/// passed() and verdict_sentence(), which says what was found, what it means
/// and what to do.
template <class DetectorReport>
std::string detector_failure(const DetectorReport& r) {
    if (r.passed()) return {};
    return r.verdict_sentence();
}

/// For a ceiling_report (ceiling.hpp): the highest sustainable rate found is at least `rate`.
template <class CeilingReport>
std::string ceiling_at_least_failure(const CeilingReport& r, double rate) {
    if (r.ceiling_rate >= rate) return {};
    std::string s = "the highest sustainable rate found is " + format_plain(r.ceiling_rate) + " iterations/s, below the " +
                    format_plain(rate) + "/s required: " + r.verdict_sentence();
    for (const auto& step : r.steps)
        if (!step.passed && step.offered_rate <= rate) {
            s += "\n  - at " + format_plain(step.offered_rate) + "/s: " + step.reason;
        }
    return s;
}

/// For a race_report.
template <class RaceReport>
std::string no_divergence_failure(const RaceReport& r) {
    if (!r.divergent()) return {};
    return r.explanation();
}

/// For a load_report.
template <class LoadReport>
std::string no_leak_failure(const LoadReport& r) {
    std::string s;
    for (const auto& p : r.processes)
        for (const auto& l : p.leaks)
            if (l.verdict == std::remove_cvref_t<decltype(l.verdict)>::leak)
                s += "server[" + std::to_string(p.session) + "] (pid " + std::to_string(p.pid) + ") " + l.resource +
                     ": " + l.explanation + "\n";
    if (s.empty() && r.processes.empty())
        s = "no server process was sampled, so leaks cannot be ruled out: set run_options.sample_interval.\n";
    return s;
}

/// For a session (its schema_violations()) or a load_report (schema_violations, samples).
template <class SessionOrReport>
std::string schema_violations_failure(const SessionOrReport& x) {
    std::string s;
    if constexpr (requires { x.schema_violation_samples; }) {
        if (x.schema_violations == 0) return {};
        s = std::to_string(x.schema_violations) + " message(s) broke a schema (strict mode):\n";
        for (const auto& v : x.schema_violation_samples) s += "  - " + v + "\n";
    } else {
        const auto& found = x.schema_violations();
        if (found.empty()) return {};
        s = std::to_string(x.stats().schema_violations) + " message(s) broke a schema (strict mode):\n";
        std::size_t shown = 0;
        for (const auto& v : found) {
            if (++shown > 20) break;
            s += "  - " + v.describe() + "\n";
        }
    }
    return s + "Clients that validate what they receive (as the MCP SDKs do for structuredContent) reject these "
               "messages: fix the server, or its declared schema.";
}

}  // namespace mcp_loadtest::detail
