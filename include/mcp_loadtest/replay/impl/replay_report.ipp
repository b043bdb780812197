// Definitions of replay/replay_report.hpp.
#pragma once

#include <mcp_loadtest/replay/replay_report.hpp>

#include <cstdio>
#include <string>

namespace mcp_loadtest {

namespace detail::replay_report_impl {

inline std::string ms(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, v < 10 ? "%.2f" : "%.1f", v);
    return buf;
}

inline std::string what_request(const replay_finding& f) {
    std::string s = "session " + std::to_string(f.session) + ", request " + std::to_string(f.request) + " (" + f.method;
    if (!f.tool.empty()) s += " " + f.tool;
    return s + ")";
}

}  // namespace detail::replay_report_impl

MCP_LOADTEST_DECL std::string_view to_string(replay_finding_kind kind) noexcept {
    switch (kind) {
        case replay_finding_kind::reply_changed: return "reply_changed";
        case replay_finding_kind::outcome_changed: return "outcome_changed";
        case replay_finding_kind::new_error: return "new_error";
        case replay_finding_kind::vanished_error: return "vanished_error";
    }
    return "reply_changed";
}

MCP_LOADTEST_DECL std::string replay_finding::describe() const {
    using detail::replay_report_impl::what_request;
    std::string s = what_request(*this) + ": ";
    switch (kind) {
        case replay_finding_kind::reply_changed:
            s += "the reply changed (" + std::to_string(diff.total()) + " difference" + (diff.total() == 1 ? "" : "s") + ")";
            break;
        case replay_finding_kind::outcome_changed: s += "the outcome changed: " + before + " -> " + after; break;
        case replay_finding_kind::new_error: s += "a new error: " + before + " -> " + after; break;
        case replay_finding_kind::vanished_error: s += "the error vanished: " + before + " -> " + after; break;
    }
    const std::string lines = to_string(diff);
    if (!lines.empty()) {
        std::size_t at = 0;
        while (at < lines.size()) {
            const std::size_t end = lines.find('\n', at);
            s += "\n    " + lines.substr(at, end == std::string::npos ? std::string::npos : end - at);
            if (end == std::string::npos) break;
            at = end + 1;
        }
    }
    s += "\n    request: " + request_text;
    return s;
}

MCP_LOADTEST_DECL bool replay_report::passed() const noexcept {
    return findings.empty() && findings_not_shown == 0 && errors.empty();
}

MCP_LOADTEST_DECL std::size_t replay_report::count(replay_finding_kind kind) const noexcept {
    std::size_t n = 0;
    for (const auto& f : findings) n += f.kind == kind ? 1 : 0;
    return n;
}

MCP_LOADTEST_DECL std::string replay_report::verdict_sentence() const {
    std::string s;
    if (passed()) {
        s = "replay matches: " + std::to_string(identical) + " of " + std::to_string(compared) +
            " recorded replies answered alike by " + server + " (" + std::to_string(requests) + " requests in " +
            std::to_string(sessions) + " session" + (sessions == 1 ? "" : "s") + ")";
        if (golden_written) s += "; the golden recording " + golden_path + " was written by this run";
        return s;
    }
    const std::size_t total = findings.size() + findings_not_shown;
    s = "replay differs: " + std::to_string(total) + " of " + std::to_string(compared) + " recorded replies changed on " +
        server + " (";
    s += std::to_string(count(replay_finding_kind::reply_changed)) + " changed replies, " +
         std::to_string(count(replay_finding_kind::outcome_changed)) + " changed outcomes, " +
         std::to_string(count(replay_finding_kind::new_error)) + " new errors, " +
         std::to_string(count(replay_finding_kind::vanished_error)) + " vanished errors)";
    for (const auto& e : errors) s += "\n  - " + e;
    for (const auto& f : findings) s += "\n  - " + f.describe();
    if (findings_not_shown > 0) s += "\n  ... and " + std::to_string(findings_not_shown) + " more";
    s += "\nIf these changes are intended, re-record the golden recording (MCP_LOADTEST_UPDATE_BASELINES=1, "
         "docs/replay.md#golden-traffic-tests), or ignore a field that is expected to differ with diff_rules.";
    return s;
}

MCP_LOADTEST_DECL void to_json(json& j, const replay_report& r) {
    json findings = json::array();
    for (const auto& f : r.findings) {
        json diffs = json::array();
        for (const auto& d : f.diff.differences)
            diffs.push_back({{"pointer", d.pointer}, {"kind", to_string(d.kind)}, {"before", d.before}, {"after", d.after}});
        findings.push_back({{"kind", to_string(f.kind)},
                            {"session", f.session},
                            {"request", f.request},
                            {"method", f.method},
                            {"tool", f.tool},
                            {"request_text", f.request_text},
                            {"before", f.before},
                            {"after", f.after},
                            {"differences", std::move(diffs)},
                            {"differences_not_shown", f.diff.not_shown}});
    }
    json latency = json::array();
    for (const auto& l : r.latency)
        latency.push_back({{"tool", l.tool},
                           {"requests", l.requests},
                           {"before_p50_ms", l.before_p50_ms},
                           {"after_p50_ms", l.after_p50_ms},
                           {"before_p95_ms", l.before_p95_ms},
                           {"after_p95_ms", l.after_p95_ms}});
    j = json{{"passed", r.passed()},
             {"verdict", r.verdict_sentence()},
             {"server", r.server},
             {"recorded_server", r.recorded_server},
             {"sessions", r.sessions},
             {"requests", r.requests},
             {"notifications", r.notifications},
             {"compared", r.compared},
             {"identical", r.identical},
             {"server_requests_answered", r.server_requests_answered},
             {"server_requests_unanswered", r.server_requests_unanswered},
             {"progress_requests", r.progress_requests},
             {"progress_notifications", r.progress_notifications},
             {"findings", std::move(findings)},
             {"findings_not_shown", r.findings_not_shown},
             {"latency", std::move(latency)},
             {"latency_changes", r.latency_changes},
             {"timing",
              {{"pace", r.timing.pace},
               {"speed", r.timing.speed},
               {"paced_requests", r.timing.paced_requests},
               {"held_requests", r.timing.held_requests},
               {"mean_error_ms", r.timing.mean_error_ms},
               {"p50_error_ms", r.timing.p50_error_ms},
               {"p99_error_ms", r.timing.p99_error_ms},
               {"max_error_ms", r.timing.max_error_ms}}},
             {"errors", r.errors},
             {"duration_s", r.duration_s},
             {"golden_written", r.golden_written},
             {"golden_path", r.golden_path}};
}

MCP_LOADTEST_DECL std::string to_markdown(const replay_report& r) {
    using detail::replay_report_impl::ms;
    std::string s = "# Replay against " + r.server + "\n\n";
    s += (r.passed() ? "**Matches.** " : "**Differs.** ") + r.verdict_sentence().substr(0, r.verdict_sentence().find('\n')) + ".\n\n";
    s += "| | |\n|---|---:|\n";
    s += "| recorded against | " + r.recorded_server + " |\n";
    s += "| sessions | " + std::to_string(r.sessions) + " |\n";
    s += "| requests sent | " + std::to_string(r.requests) + " |\n";
    s += "| replies compared | " + std::to_string(r.compared) + " |\n";
    s += "| identical | " + std::to_string(r.identical) + " |\n";
    s += "| server requests answered from the recording | " + std::to_string(r.server_requests_answered) + " |\n";
    if (r.progress_requests > 0)
        s += "| requests asking for progress / notifications they received | " + std::to_string(r.progress_requests) +
             " / " + std::to_string(r.progress_notifications) + " |\n";
    s += "| pace | " + r.timing.pace + (r.timing.pace == "scaled" ? " ×" + ms(r.timing.speed) : std::string()) + " |\n";
    if (r.timing.paced_requests > 0)
        s += "| send time error p50 / p99 / max | " + ms(r.timing.p50_error_ms) + " / " + ms(r.timing.p99_error_ms) +
             " / " + ms(r.timing.max_error_ms) + " ms |\n";
    s += "| duration | " + ms(r.duration_s) + " s |\n\n";
    for (const auto& e : r.errors) s += "- **Could not replay:** " + e + "\n";
    if (!r.findings.empty()) {
        s += "## Findings\n\n";
        for (const auto& f : r.findings) {
            s += "### " + std::string(to_string(f.kind)) + ": session " + std::to_string(f.session) + ", request " +
                 std::to_string(f.request) + " (" + f.method + (f.tool.empty() ? "" : " " + f.tool) + ")\n\n";
            s += "- outcome: `" + f.before + "` → `" + f.after + "`\n";
            s += "- request: `" + f.request_text + "`\n";
            if (!f.diff.equal()) {
                s += "\n| pointer | change | before | after |\n|---|---|---|---|\n";
                for (const auto& d : f.diff.differences)
                    s += "| `" + d.pointer + "` | " + std::string(to_string(d.kind)) + " | `" + d.before.dump() + "` | `" +
                         d.after.dump() + "` |\n";
                if (f.diff.not_shown > 0) s += "\n… and " + std::to_string(f.diff.not_shown) + " more\n";
            }
            s += "\n";
        }
        if (r.findings_not_shown > 0) s += "… and " + std::to_string(r.findings_not_shown) + " more findings\n\n";
    }
    if (!r.latency.empty()) {
        s += "## Latency per tool, recorded → replayed\n\n| tool | requests | p50 ms | p95 ms |\n|---|---:|---:|---:|\n";
        for (const auto& l : r.latency)
            s += "| " + l.tool + " | " + std::to_string(l.requests) + " | " + ms(l.before_p50_ms) + " → " +
                 ms(l.after_p50_ms) + " | " + ms(l.before_p95_ms) + " → " + ms(l.after_p95_ms) + " |\n";
    }
    if (!r.latency_changes.empty()) {
        s += "\n## Latency through compare()\n\n";
        for (const auto& m : r.latency_changes)
            if (m.verdict != change_verdict::inconclusive || m.metric == "p50") s += "- " + m.sentence + "\n";
    }
    return s;
}

}  // namespace mcp_loadtest
