// Definitions of report/merge.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/report/merge.hpp>

namespace mcp_loadtest {

namespace detail {

MCP_LOADTEST_DECL json whole_workload(const load_report& r) {
    json w = r.workload_parameters;
    if (w.is_object()) w.erase("this_shard");
    return w;
}

MCP_LOADTEST_DECL double interval_length_of(const load_report& r) {
    double length = 0;
    for (const auto& i : r.intervals) length = std::max(length, i.length_s);
    if (length == 0 && r.timeline.size() >= 2) length = r.timeline[1].at_s - r.timeline[0].at_s;
    return length;
}

MCP_LOADTEST_DECL void check_mergeable(std::span<const load_report> reports) {
    if (reports.empty())
        throw std::invalid_argument("mcp_loadtest::merge_reports: no reports to merge (pass the reports of every "
                                    "shard or machine, at least one)");
    const auto& first = reports.front();
    const json first_workload = whole_workload(first);
    for (std::size_t k = 1; k < reports.size(); ++k) {
        const auto& r = reports[k];
        if (r.workload != first.workload || whole_workload(r) != first_workload)
            throw std::invalid_argument("mcp_loadtest::merge_reports: report " + std::to_string(k) + " ran another workload (" +
                                        r.workload + " " + whole_workload(r).dump() + ") than report 0 (" +
                                        first.workload + " " + first_workload.dump() +
                                        "): merge only the reports of one workload (the shards of one run)");
        const bool same_server = r.server == first.server;
        const bool same_implementation = !r.server_name.empty() && r.server_name == first.server_name &&
                                         r.server_version == first.server_version;
        if (!same_server && !same_implementation)
            throw std::invalid_argument(
                "mcp_loadtest::merge_reports: report " + std::to_string(k) + " measured another server (\"" + r.server +
                "\", " + (r.server_name.empty() ? std::string("unnamed") : r.server_name + " " + r.server_version) +
                ") than report 0 (\"" + first.server + "\", " +
                (first.server_name.empty() ? std::string("unnamed") : first.server_name + " " + first.server_version) +
                "): merge reports of one server; replicas at different addresses must report the same "
                "serverInfo name and version. To set servers side by side, compare them instead");
    }
}

MCP_LOADTEST_DECL void merge_failures(scenario_failures& into, const scenario_failures& from) {
    into.failed_checks += from.failed_checks;
    into.exceptions += from.exceptions;
    const auto add = [](std::vector<failure_group>& groups, const failure_group& g) {
        for (auto& have : groups)
            if (have.message == g.message) {
                have.count += g.count;
                return;
            }
        if (groups.size() < scenario_failures::max_groups) groups.push_back(g);
    };
    for (const auto& g : from.checks) add(into.checks, g);
    for (const auto& g : from.exceptions_thrown) add(into.exceptions_thrown, g);
}

MCP_LOADTEST_DECL void add_samples(std::vector<std::string>& into, const std::vector<std::string>& from, std::size_t k) {
    for (const auto& s : from)
        if (into.size() < 10) into.push_back("report[" + std::to_string(k) + "] " + s);
}

MCP_LOADTEST_DECL std::size_t merged_bucket(double offset_s, double at_s, double length_s, double bucket_s) {
    const double mid = offset_s + at_s + length_s / 2;
    return mid <= 0 ? 0 : static_cast<std::size_t>(std::floor(mid / bucket_s));
}

MCP_LOADTEST_DECL void merge_timelines(load_report& out, std::span<const load_report> reports, const std::vector<double>& offsets,
                                       double bucket_s) {
    for (std::size_t k = 0; k < reports.size(); ++k)
        for (const auto& p : reports[k].timeline) {
            const std::size_t b = merged_bucket(offsets[k], p.at_s, bucket_s, bucket_s);
            if (b >= out.timeline.size()) {
                const std::size_t from = out.timeline.size();
                out.timeline.resize(b + 1);
                for (std::size_t i = from; i <= b; ++i) out.timeline[i].at_s = bucket_s * static_cast<double>(i);
            }
            auto& q = out.timeline[b];
            q.completed += p.completed;
            q.errors += p.errors;
            q.in_flight += p.in_flight;
        }
}

MCP_LOADTEST_DECL void merge_intervals(load_report& out, std::span<const load_report> reports, const std::vector<double>& offsets,
                                       double bucket_s) {
    struct piece {
        std::size_t bucket;
        const latency_interval* interval;
    };
    std::vector<piece> pieces;
    for (std::size_t k = 0; k < reports.size(); ++k)
        for (const auto& i : reports[k].intervals)
            pieces.push_back({merged_bucket(offsets[k], i.at_s, i.length_s, bucket_s), &i});
    std::stable_sort(pieces.begin(), pieces.end(), [](const piece& a, const piece& b) { return a.bucket < b.bucket; });
    const std::size_t buckets =
        std::max<std::size_t>(pieces.empty() ? 0 : pieces.back().bucket + 1,
                              static_cast<std::size_t>(std::ceil(out.duration_s / bucket_s - 1e-9)));
    std::map<std::string, latency_histogram> current;
    std::size_t next = 0;
    for (std::size_t b = 0; b < buckets; ++b) {
        for (auto& [tag, h] : current) h.reset();
        current[""];  // every interval has its overall line: time stays continuous
        for (; next < pieces.size() && pieces[next].bucket == b; ++next)
            current[pieces[next].interval->tag].merge(pieces[next].interval->histogram());
        const double at = bucket_s * static_cast<double>(b);
        const double length = std::clamp(out.duration_s - at, 1e-9, bucket_s);
        for (const auto& [tag, h] : current)
            if (tag.empty() || !h.empty()) out.intervals.push_back({at, length, tag, h.count(), to_hdr_base64(h)});
    }
}

MCP_LOADTEST_DECL void merge_stages(load_report& out, const load_report& r) {
    for (const auto& st : r.stages) {
        auto same = std::find_if(out.stages.begin(), out.stages.end(),
                                 [&](const stage_report& have) { return have.name == st.name && have.start_s == st.start_s; });
        if (same == out.stages.end()) {
            out.stages.push_back(st);
            continue;
        }
        same->target += st.target;  // each shard ran its part of the target
        same->dropped += st.dropped;
        same->stats.merge(st.stats);
        same->duration_s = std::max(same->duration_s, st.duration_s);
    }
}

MCP_LOADTEST_DECL void merge_generator(generator_report& into, const generator_report& from, std::size_t k) {
    // Each shard is its own load generator: the busiest one says whether the load was generated.
    into.cpu_pct = std::max(into.cpu_pct, from.cpu_pct);
    into.late_sends += from.late_sends;
    if (from.send_lag.p99 > into.send_lag.p99) into.send_lag = from.send_lag;
    if (from.saturated) {
        into.saturated = true;
        into.explanation += (into.explanation.empty() ? "" : " ") + std::string("report[") + std::to_string(k) +
                            "]: " + from.explanation;
    }
}

MCP_LOADTEST_DECL void merge_authorization(std::optional<authorization_report>& into,
                                           const std::optional<authorization_report>& from) {
    if (!from) return;
    if (!into) {
        into = from;
        return;
    }
    // Each shard has its own clients: counts and times add up; judged again once merged.
    into->authorizations += from->authorizations;
    into->refreshes += from->refreshes;
    into->challenges += from->challenges;
    into->step_ups += from->step_ups;
    into->failures += from->failures;
    into->requests += from->requests;
    into->token_time_s += from->token_time_s;
    into->slowest_token_ms = std::max(into->slowest_token_ms, from->slowest_token_ms);
    if (into->token_endpoint.empty()) into->token_endpoint = from->token_endpoint;
    into->held_calls += from->held_calls;
    into->held_s += from->held_s;
    into->blocked_s += from->blocked_s;
}

MCP_LOADTEST_DECL void merge_cancellation(cancellation_counts& into, const cancellation_counts& from, std::size_t k) {
    if (into.moment.empty()) {
        into.moment = from.moment;
        into.fraction = from.fraction;
    }
    into.sent += from.sent;
    into.reply_first += from.reply_first;
    into.no_estimate += from.no_estimate;
    into.honoured += from.honoured;
    into.replied_anyway += from.replied_anyway;
    into.crossed += from.crossed;
    into.servers_exited += from.servers_exited;
    add_samples(into.exit_samples, from.exit_samples, k);
    if (from.cancel_after.count > into.cancel_after.count) into.cancel_after = from.cancel_after;  // a summary: not mergeable
}

}  // namespace detail

MCP_LOADTEST_DECL load_report merge_reports(std::span<const load_report> reports) {
    detail::check_mergeable(reports);
    const auto& first = reports.front();
    load_report out;

    // Wall-clock alignment.
    std::int64_t t0 = 0;
    for (const auto& r : reports)
        if (r.started_at_unix_ns > 0 && (t0 == 0 || r.started_at_unix_ns < t0)) t0 = r.started_at_unix_ns;
    std::vector<double> offsets;
    for (std::size_t k = 0; k < reports.size(); ++k) {
        const auto& r = reports[k];
        if (r.started_at_unix_ns > 0) {
            offsets.push_back(static_cast<double>(r.started_at_unix_ns - t0) / 1e9);
        } else {
            offsets.push_back(0);
            if (reports.size() > 1)
                out.merge_notes.push_back("report[" + std::to_string(k) +
                                          "] has no wall-clock start (started_at_unix_ns): its timeline is aligned at "
                                          "the merged start");
        }
    }
    double bucket_s = 0;
    for (std::size_t k = 0; k < reports.size(); ++k) {
        const double length = detail::interval_length_of(reports[k]);
        if (length <= 0) continue;
        if (bucket_s == 0) bucket_s = length;
        else if (std::abs(length - bucket_s) > 1e-6 * bucket_s)
            throw std::invalid_argument("mcp_loadtest::merge_reports: report " + std::to_string(k) +
                                        " has timeline intervals of " + std::to_string(length) + " s, another " +
                                        std::to_string(bucket_s) +
                                        " s: run every shard with the same run_options::timeline_bucket");
    }
    if (bucket_s == 0) bucket_s = 1;

    out.run_id = "merge-of-" + std::to_string(reports.size()) + "-" + first.run_id;
    out.started_at_unix_ns = t0;
    out.started_at = t0 > 0 ? detail::iso8601_utc(std::chrono::system_clock::time_point(
                                  std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::nanoseconds(t0))))
                            : first.started_at;
    out.workload = first.workload;
    out.workload_parameters = detail::whole_workload(first);
    out.transport = first.transport;
    out.protocol_era = first.protocol_era;
    out.protocol_version = first.protocol_version;
    out.server_name = first.server_name;
    out.server_version = first.server_version;
    out.seed = first.seed;
    out.merged_from = reports.size();
    out.passed = true;

    for (std::size_t k = 0; k < reports.size(); ++k) {
        const auto& r = reports[k];
        out.duration_s = std::max(out.duration_s, offsets[k] + r.duration_s);
        out.sessions += r.sessions;
        if (out.server.find(r.server) == std::string::npos) out.server += (out.server.empty() ? "" : " | ") + r.server;
        if (r.transport != out.transport && out.transport.find(r.transport) == std::string::npos)
            out.transport += ", " + r.transport;
        out.iterations_started += r.iterations_started;
        out.iterations_completed += r.iterations_completed;
        out.dropped += r.dropped;
        out.overall.merge(r.overall);
        for (const auto& [name, s] : r.per_tool) out.per_tool[name].merge(s);
        for (const auto& [name, s] : r.per_method) out.per_method[name].merge(s);
        for (const auto& [name, s] : r.per_step) out.per_step[name].merge(s);
        detail::merge_failures(out.failures, r.failures);
        detail::merge_stages(out, r);
        out.late_replies += r.late_replies;
        out.protocol_violations += r.protocol_violations;
        detail::add_samples(out.protocol_violation_samples, r.protocol_violation_samples, k);
        out.progress.wrong_token += r.progress.wrong_token;
        out.progress.after_result += r.progress.after_result;
        out.progress.not_increasing += r.progress.not_increasing;
        detail::add_samples(out.progress.samples, r.progress.samples, k);
        out.schema_violations += r.schema_violations;
        detail::add_samples(out.schema_violation_samples, r.schema_violation_samples, k);
        out.coverage.merge(r.coverage);
        detail::merge_cancellation(out.cancellation, r.cancellation, k);
        for (auto p : r.processes) {
            p.source = k;
            out.processes.push_back(std::move(p));
        }
        detail::merge_generator(out.generator, r.generator, k);
        detail::merge_authorization(out.authorization, r.authorization);
        for (auto v : r.violations) {
            v.metric = "report[" + std::to_string(k) + "] " + v.metric;
            out.violations.push_back(std::move(v));
        }
        if (r.aborted) {
            out.aborted = true;
            out.abort_reason += (out.abort_reason.empty() ? "" : "; ") + std::string("report[") + std::to_string(k) +
                                "]: " + r.abort_reason;
        }
        out.passed = out.passed && r.passed;
        for (const auto& note : r.merge_notes) out.merge_notes.push_back("report[" + std::to_string(k) + "] " + note);
    }
    out.throughput_rps = out.duration_s > 0 ? static_cast<double>(out.overall.calls()) / out.duration_s : 0;
    if (out.authorization) detail::judge_authorization(*out.authorization, out.sessions, out.duration_s);
    for (auto& st : out.stages)
        st.throughput_rps = st.duration_s > 0 ? static_cast<double>(st.stats.calls()) / st.duration_s : 0;
    detail::merge_timelines(out, reports, offsets, bucket_s);
    detail::merge_intervals(out, reports, offsets, bucket_s);
    return out;
}

MCP_LOADTEST_DECL load_report merge_reports(std::span<const load_report> reports, const thresholds& objectives) {
    load_report out = merge_reports(reports);
    out.breaking_stage.reset();
    out.breaking_reason.clear();
    detail::find_breaking_point(out, objectives.p99, objectives.error_rate);
    out.violations = detail::evaluate_thresholds(out, objectives);
    if (out.cancellation.servers_exited > 0)
        out.violations.push_back({"cancellation:servers_exited", "0", std::to_string(out.cancellation.servers_exited),
                                  "A server exited after receiving notifications/cancelled (see cancellation.exit_samples)."});
    if (out.aborted)
        out.violations.push_back({"run", "completed", "aborted: " + out.abort_reason,
                                  "A shard stopped early on a critical failure; see the outcome counts."});
    out.passed = out.violations.empty();
    return out;
}

}  // namespace mcp_loadtest
