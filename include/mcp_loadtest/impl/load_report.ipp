// Definitions of load_report.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/load_report.hpp>

#include <mcp_loadtest/detail/text/format.hpp>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::uint64_t outcome_counts::total() const noexcept {
    std::uint64_t t = 0;
    for (auto n : by_outcome) t += n;
    return t;
}

MCP_LOADTEST_DECL double outcome_counts::error_rate() const noexcept {
    const auto t = total();
    return t ? static_cast<double>(errors()) / static_cast<double>(t) : 0.0;
}

MCP_LOADTEST_DECL void outcome_counts::merge(const outcome_counts& o) noexcept {
    for (std::size_t i = 0; i < by_outcome.size(); ++i) by_outcome[i] += o.by_outcome[i];
}

MCP_LOADTEST_DECL void progress_stats::merge(const progress_stats& o) {
    asked += o.asked;
    answered += o.answered;
    notifications += o.notifications;
    violations += o.violations;
    first.merge(o.first);
    finalize();
}

MCP_LOADTEST_DECL void call_stats::merge(const call_stats& o) {
    outcomes.merge(o.outcomes);
    histogram.merge(o.histogram);
    if (!o.progress.empty()) progress.merge(o.progress);
    finalize();
}

MCP_LOADTEST_DECL void scenario_failures::add_check(std::string_view what, std::string_view detail, std::uint64_t iteration) {
    ++failed_checks;
    add(checks, what, detail, iteration);
}

MCP_LOADTEST_DECL void scenario_failures::add_exception(std::string_view what, std::uint64_t iteration) {
    ++exceptions;
    add(exceptions_thrown, what, {}, iteration);
}

MCP_LOADTEST_DECL void scenario_failures::add(std::vector<failure_group>& groups, std::string_view what, std::string_view detail,
                                              std::uint64_t iteration) {
    for (auto& g : groups)
        if (g.message == what) {
            ++g.count;
            return;
        }
    if (groups.size() >= max_groups) return;
    groups.push_back({std::string(what), 1, iteration, std::string(detail.substr(0, 500))});
}

// ---- JSON -----------------------------------------------------------------------

namespace detail {

MCP_LOADTEST_DECL std::string per_tool_key(std::string_view method, std::string_view tool) {
    if (tool.empty()) return std::string(method);
    if (method == "tools/call") return std::string(tool);
    std::string key;
    key.reserve(method.size() + 1 + tool.size());
    key.append(method).append(1, ' ').append(tool);
    return key;
}

MCP_LOADTEST_DECL void report_reader::fail(std::string_view expected) const {
    std::string shown = value_.dump();
    if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
    throw std::invalid_argument(path_ + ": " + shown + " is not " + std::string(expected));
}

MCP_LOADTEST_DECL report_reader report_reader::operator[](const char* key) const {
    const json& object = as_object();
    const auto it = object.find(key);
    if (it == object.end()) throw std::invalid_argument(path_ + "." + key + " is missing");
    return {*it, path_ + "." + key};
}

MCP_LOADTEST_DECL std::optional<report_reader> report_reader::find(const char* key) const {
    const json& object = as_object();
    const auto it = object.find(key);
    if (it == object.end()) return std::nullopt;
    return report_reader{*it, path_ + "." + key};
}

MCP_LOADTEST_DECL const json& report_reader::as_object() const {
    if (!value_.is_object()) fail("an object");
    return value_;
}

MCP_LOADTEST_DECL std::uint64_t report_reader::non_negative_integer(std::uint64_t max) const {
    if (value_.is_number_unsigned()) {
        if (const auto v = value_.get<std::uint64_t>(); v <= max) return v;
    } else if (value_.is_number_integer()) {
        if (const auto v = value_.get<std::int64_t>(); v >= 0 && static_cast<std::uint64_t>(v) <= max)
            return static_cast<std::uint64_t>(v);
    }
    fail(max == std::numeric_limits<std::uint64_t>::max() ? std::string("a non-negative integer")
                                                           : "an integer from 0 to " + std::to_string(max));
}

MCP_LOADTEST_DECL double report_reader::number() const {
    if (!value_.is_number()) fail("a number");
    return value_.get<double>();
}

MCP_LOADTEST_DECL double report_reader::non_negative() const {
    const double v = number();
    if (!(v >= 0)) fail("a non-negative number");
    return v;
}

MCP_LOADTEST_DECL std::string report_reader::string() const {
    if (!value_.is_string()) fail("a string");
    return value_.get<std::string>();
}

MCP_LOADTEST_DECL bool report_reader::boolean() const {
    if (!value_.is_boolean()) fail("a boolean");
    return value_.get<bool>();
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, outcome_counts& c) {
    c = {};
    (void)r.as_object();
    for (auto o : all_outcomes)
        if (const auto n = r.find(std::string(to_string(o)).c_str()))
            c.by_outcome[static_cast<std::size_t>(o)] = n->non_negative_integer();
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, progress_stats& p) {
    p.asked = r["asked"].non_negative_integer();
    p.answered = r["answered"].non_negative_integer();
    p.notifications = r["notifications"].non_negative_integer();
    p.violations = r["violations"].non_negative_integer();
    p.first = r["histogram"].decode<latency_histogram>();
    p.finalize();  // "time_to_first" is derived
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, call_stats& s) {
    read_report(r["outcomes"], s.outcomes);
    s.histogram = r["histogram"].decode<latency_histogram>();
    if (const auto progress = r.find("progress")) read_report(*progress, s.progress);
    else s.progress = {};
    s.finalize();  // "calls", "error_rate" and "latency" are derived: recomputed, not read
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, progress_findings& f) {
    f.wrong_token = r["wrong_token"].non_negative_integer();
    f.after_result = r["after_result"].non_negative_integer();
    f.not_increasing = r["not_increasing"].non_negative_integer();
    f.samples = read_all<std::string>(r["samples"]);
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, timeline_point& p) {
    p.at_s = r["at_s"].non_negative();
    p.completed = r["completed"].non_negative_integer();
    p.errors = r["errors"].non_negative_integer();
    const auto in_flight = r.find("in_flight");
    p.in_flight = in_flight ? in_flight->non_negative_integer() : 0;
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, latency_interval& i) {
    i.at_s = r["at_s"].non_negative();
    i.length_s = r["length_s"].non_negative();
    const auto tag = r.find("tag");
    i.tag = tag ? tag->string() : std::string();
    i.count = r["count"].non_negative_integer();
    const auto hdr = r["hdr"];
    i.hdr = hdr.string();
    std::uint64_t decoded = 0;
    try {
        decoded = i.histogram().count();
    } catch (const std::invalid_argument& e) {
        hdr.fail(std::string("an HdrHistogram V2 histogram in base64 (") + e.what() + ")");
    }
    if (decoded != i.count)
        hdr.fail("a histogram of \"count\" values (" + std::to_string(i.count) + "; it holds " +
                 std::to_string(decoded) + ")");
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, stage_report& s) {
    s.name = r["name"].string();
    s.target = r["target"].number();
    s.start_s = r["start_s"].non_negative();
    s.duration_s = r["duration_s"].non_negative();
    const auto dropped = r.find("dropped");
    s.dropped = dropped ? dropped->non_negative_integer() : 0;
    read_report(r["stats"], s.stats);
    s.throughput_rps = r["throughput_rps"].non_negative();
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, generator_report& g) {
    g.cpu_pct = r["cpu_pct"].non_negative();
    g.send_lag = r["send_lag"].decode<latency_summary>();
    g.late_sends = r["late_sends"].non_negative_integer();
    g.saturated = r["saturated"].boolean();
    const auto explanation = r.find("explanation");
    g.explanation = explanation ? explanation->string() : "";
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, authorization_report& a) {
    a.authorizations = r["authorizations"].non_negative_integer();
    a.refreshes = r["refreshes"].non_negative_integer();
    a.challenges = r["challenges"].non_negative_integer();
    a.step_ups = r["step_ups"].non_negative_integer();
    a.failures = r["failures"].non_negative_integer();
    a.requests = r["requests"].non_negative_integer();
    a.token_time_s = r["token_time_s"].non_negative();
    a.slowest_token_ms = r["slowest_token_ms"].non_negative();
    a.token_endpoint = r["token_endpoint"].string();
    a.held_calls = r["held_calls"].non_negative_integer();
    a.held_s = r["held_s"].non_negative();
    a.blocked_s = r["blocked_s"].non_negative();
    a.blocked_share = r["blocked_share"].non_negative();
    a.bottleneck = r["bottleneck"].boolean();
    a.explanation = r["explanation"].string();
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, process_sample& s) {
    s.at = std::chrono::nanoseconds(r["at_ns"].integer<std::int64_t>());
    s.pid = r["pid"].integer<pid_t>();
    s.rss_mb = r["rss_mb"].non_negative();
    s.cpu_pct = r["cpu_pct"].non_negative();
    s.open_fds = r["open_fds"].integer<std::uint32_t>();
    s.threads = r["threads"].integer<std::uint32_t>();
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, process_stats& s) {
    s.peak_rss_mb = r["peak_rss_mb"].non_negative();
    s.final_rss_mb = r["final_rss_mb"].non_negative();
    s.avg_cpu_pct = r["avg_cpu_pct"].non_negative();
    s.peak_fds = r["peak_fds"].integer<std::uint32_t>();
    s.final_fds = r["final_fds"].integer<std::uint32_t>();
    s.peak_threads = r["peak_threads"].integer<std::uint32_t>();
    s.samples = r["samples"].integer<std::size_t>();
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, trend_fit& f) {
    f.slope_per_s = r["slope_per_s"].number();
    f.intercept = r["intercept"].number();
    f.r2 = r["r2"].number();
    f.points = r["points"].integer<std::size_t>();
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, leak_analysis& a) {
    a.resource = r["resource"].string();
    const report_reader verdict = r["verdict"];
    const auto parsed = leak_verdict_from_string(verdict.string());
    if (!parsed) verdict.fail("one of no_leak, leak, indeterminate, insufficient_data");
    a.verdict = *parsed;
    read_report(r["fit"], a.fit);
    a.predicted_growth = r["predicted_growth"].number();
    a.threshold = r["threshold"].number();
    a.warmup_discarded = std::chrono::nanoseconds(r["warmup_discarded_ns"].integer<std::int64_t>());
    a.explanation = r["explanation"].string();
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, server_process_report& p) {
    p.session = r["session"].integer<std::size_t>();
    p.pid = r["pid"].integer<pid_t>();
    read_report(r["stats"], p.stats);
    p.leaks = read_all<leak_analysis>(r["leaks"]);
    p.samples = read_all<process_sample>(r["samples"]);
    p.descendants.clear();
    if (const auto ds = r.find("descendants"))
        ds->each([&](const report_reader& d) {
            auto& out = p.descendants.emplace_back();
            out.pid = d["pid"].integer<pid_t>();
            out.parent = d["parent"].integer<pid_t>();
            out.command = d["command"].string();
            read_report(d["stats"], out.stats);
            out.leaks = read_all<leak_analysis>(d["leaks"]);
            out.samples = read_all<process_sample>(d["samples"]);
        });
    if (const auto tree = r.find("tree_stats")) read_report(*tree, p.tree_stats);
    else p.tree_stats = p.stats;
    if (const auto source = r.find("source")) p.source = source->integer<std::size_t>();
    else p.source.reset();
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, threshold_violation& v) {
    v.metric = r["metric"].string();
    v.expected = r["expected"].string();
    v.actual = r["actual"].string();
    const auto meaning = r.find("meaning");
    v.meaning = meaning ? meaning->string() : "";
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, std::string& s) { s = r.string(); }

MCP_LOADTEST_DECL void read_report(const report_reader& r, failure_group& g) {
    g.message = r["message"].string();
    g.count = r["count"].non_negative_integer();
    g.first_iteration = r["first_iteration"].non_negative_integer();
    const auto sample = r.find("sample");
    g.sample = sample ? sample->string() : "";
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, scenario_failures& f) {
    f.failed_checks = r["failed_checks"].non_negative_integer();
    f.exceptions = r["exceptions"].non_negative_integer();
    f.checks = read_all<failure_group>(r["checks"]);
    f.exceptions_thrown = read_all<failure_group>(r["exceptions_thrown"]);
}

MCP_LOADTEST_DECL void read_report(const report_reader& r, cancellation_counts& c) {
    const report_reader moment = r["moment"];
    c.moment = moment.string();
    if (!c.moment.empty() && c.moment != "after_send" && c.moment != "mid_call" && c.moment != "reply_due")
        moment.fail("one of after_send, mid_call, reply_due, or empty");
    c.fraction = r["fraction"].non_negative();
    c.sent = r["sent"].non_negative_integer();
    c.reply_first = r["reply_first"].non_negative_integer();
    c.no_estimate = r["no_estimate"].non_negative_integer();
    c.honoured = r["honoured"].non_negative_integer();
    c.replied_anyway = r["replied_anyway"].non_negative_integer();
    c.crossed = r["crossed"].non_negative_integer();
    c.servers_exited = r["servers_exited"].non_negative_integer();
    c.exit_samples = read_all<std::string>(r["exit_samples"]);
    c.cancel_after = r["cancel_after"].decode<latency_summary>();
}

MCP_LOADTEST_DECL std::string optional_string(const report_reader& r, const char* key) {
    const auto v = r.find(key);
    return v ? v->string() : std::string();
}

MCP_LOADTEST_DECL std::uint64_t optional_integer(const report_reader& r, const char* key) {
    const auto v = r.find(key);
    return v ? v->non_negative_integer() : 0;
}

}  // namespace detail

MCP_LOADTEST_DECL void to_json(json& j, const outcome_counts& c) {
    j = json::object();
    for (auto o : all_outcomes) j[std::string(to_string(o))] = c[o];
}

MCP_LOADTEST_DECL void from_json(const json& j, outcome_counts& c) { detail::read_report({j, "outcome_counts"}, c); }

MCP_LOADTEST_DECL void to_json(json& j, const progress_stats& p) {
    j = json{{"asked", p.asked}, {"answered", p.answered}, {"notifications", p.notifications},
             {"violations", p.violations}, {"time_to_first", p.time_to_first}, {"histogram", p.first}};
}

MCP_LOADTEST_DECL void to_json(json& j, const progress_findings& f) {
    j = json{{"wrong_token", f.wrong_token}, {"after_result", f.after_result}, {"not_increasing", f.not_increasing},
             {"samples", f.samples}};
}

MCP_LOADTEST_DECL void to_json(json& j, const call_stats& s) {
    j = json{{"calls", s.calls()}, {"error_rate", s.error_rate()}, {"outcomes", s.outcomes},
             {"latency", s.latency}, {"histogram", s.histogram}};
    if (!s.progress.empty()) j["progress"] = s.progress;
}

MCP_LOADTEST_DECL void from_json(const json& j, call_stats& s) { detail::read_report({j, "call_stats"}, s); }

MCP_LOADTEST_DECL void to_json(json& j, const timeline_point& p) {
    j = json{{"at_s", p.at_s}, {"completed", p.completed}, {"errors", p.errors}, {"in_flight", p.in_flight}};
}

MCP_LOADTEST_DECL void from_json(const json& j, timeline_point& p) { detail::read_report({j, "timeline_point"}, p); }

MCP_LOADTEST_DECL void to_json(json& j, const latency_interval& i) {
    j = json{{"at_s", i.at_s}, {"length_s", i.length_s}, {"tag", i.tag}, {"count", i.count}, {"hdr", i.hdr}};
}

MCP_LOADTEST_DECL void from_json(const json& j, latency_interval& i) { detail::read_report({j, "latency_interval"}, i); }

MCP_LOADTEST_DECL void to_json(json& j, const stage_report& s) {
    j = json{{"name", s.name}, {"target", s.target}, {"start_s", s.start_s}, {"duration_s", s.duration_s},
             {"dropped", s.dropped}, {"stats", s.stats}, {"throughput_rps", s.throughput_rps}};
}

MCP_LOADTEST_DECL void from_json(const json& j, stage_report& s) { detail::read_report({j, "stage_report"}, s); }

MCP_LOADTEST_DECL void to_json(json& j, const generator_report& g) {
    j = json{{"cpu_pct", g.cpu_pct}, {"send_lag", g.send_lag}, {"late_sends", g.late_sends},
             {"saturated", g.saturated}, {"explanation", g.explanation}};
}

MCP_LOADTEST_DECL void from_json(const json& j, generator_report& g) { detail::read_report({j, "generator_report"}, g); }

MCP_LOADTEST_DECL void to_json(json& j, const authorization_report& a) {
    j = json{{"authorizations", a.authorizations},
             {"refreshes", a.refreshes},
             {"challenges", a.challenges},
             {"step_ups", a.step_ups},
             {"failures", a.failures},
             {"requests", a.requests},
             {"token_time_s", a.token_time_s},
             {"slowest_token_ms", a.slowest_token_ms},
             {"token_endpoint", a.token_endpoint},
             {"held_calls", a.held_calls},
             {"held_s", a.held_s},
             {"blocked_s", a.blocked_s},
             {"blocked_share", a.blocked_share},
             {"bottleneck", a.bottleneck},
             {"explanation", a.explanation}};
}

MCP_LOADTEST_DECL void from_json(const json& j, authorization_report& a) {
    detail::read_report({j, "authorization_report"}, a);
}

MCP_LOADTEST_DECL void to_json(json& j, const breach_report& b) {
    j = json{{"violation", b.violation}, {"at_s", b.at_s}, {"calls", b.calls}, {"error_rate", b.error_rate},
             {"latency", b.latency}};
}

MCP_LOADTEST_DECL void to_json(json& j, const server_process_report& p) {
    j = json{{"session", p.session}, {"pid", p.pid}, {"stats", p.stats}, {"leaks", p.leaks}, {"samples", p.samples}};
    if (!p.descendants.empty()) {  // older readers and reports of servers without children keep their shape
        j["descendants"] = p.descendants;
        j["tree_stats"] = p.tree_stats;
    }
    if (p.source) j["source"] = *p.source;
}

MCP_LOADTEST_DECL void from_json(const json& j, server_process_report& p) {
    detail::read_report({j, "server_process_report"}, p);
}

MCP_LOADTEST_DECL void to_json(json& j, const threshold_violation& v) {
    j = json{{"metric", v.metric}, {"expected", v.expected}, {"actual", v.actual}, {"meaning", v.meaning}};
}

MCP_LOADTEST_DECL void from_json(const json& j, threshold_violation& v) { detail::read_report({j, "threshold_violation"}, v); }

MCP_LOADTEST_DECL void to_json(json& j, const failure_group& g) {
    j = json{{"message", g.message}, {"count", g.count}, {"first_iteration", g.first_iteration}, {"sample", g.sample}};
}

MCP_LOADTEST_DECL void from_json(const json& j, failure_group& g) { detail::read_report({j, "failure_group"}, g); }

MCP_LOADTEST_DECL void to_json(json& j, const scenario_failures& f) {
    j = json{{"failed_checks", f.failed_checks}, {"exceptions", f.exceptions}, {"checks", f.checks},
             {"exceptions_thrown", f.exceptions_thrown}};
}

MCP_LOADTEST_DECL void from_json(const json& j, scenario_failures& f) { detail::read_report({j, "scenario_failures"}, f); }

MCP_LOADTEST_DECL void to_json(json& j, const cancellation_counts& c) {
    j = json{{"moment", c.moment},
             {"fraction", c.fraction},
             {"sent", c.sent},
             {"reply_first", c.reply_first},
             {"no_estimate", c.no_estimate},
             {"honoured", c.honoured},
             {"replied_anyway", c.replied_anyway},
             {"crossed", c.crossed},
             {"servers_exited", c.servers_exited},
             {"exit_samples", c.exit_samples},
             {"cancel_after", c.cancel_after}};
}

MCP_LOADTEST_DECL void from_json(const json& j, cancellation_counts& c) { detail::read_report({j, "cancellation_counts"}, c); }

MCP_LOADTEST_DECL load_report::load_report() = default;
MCP_LOADTEST_DECL load_report::load_report(const load_report&) = default;
MCP_LOADTEST_DECL load_report::load_report(load_report&&) noexcept = default;
MCP_LOADTEST_DECL load_report& load_report::operator=(const load_report&) = default;
MCP_LOADTEST_DECL load_report& load_report::operator=(load_report&&) noexcept = default;
MCP_LOADTEST_DECL load_report::~load_report() = default;

MCP_LOADTEST_DECL void to_json(json& j, const load_report& r) {
    j = json{{"schema", "mcp-loadtest/load_report/v1"},
             {"run_id", r.run_id},
             {"started_at", r.started_at},
             {"started_at_unix_ns", r.started_at_unix_ns},
             {"duration_s", r.duration_s},
             {"workload", r.workload},
             {"workload_parameters", r.workload_parameters},
             {"sessions", r.sessions},
             {"server", r.server},
             {"transport", r.transport},
             {"protocol_era", r.protocol_era},
             {"protocol_version", r.protocol_version},
             {"server_name", r.server_name},
             {"server_version", r.server_version},
             {"seed", r.seed},
             {"iterations_started", r.iterations_started},
             {"iterations_completed", r.iterations_completed},
             {"dropped", r.dropped},
             {"overall", r.overall},
             {"per_tool", r.per_tool},
             {"per_method", r.per_method},
             {"per_step", r.per_step},
             {"failures", r.failures},
             {"throughput_rps", r.throughput_rps},
             {"timeline", r.timeline},
             {"intervals", r.intervals},
             {"stages", r.stages},
             {"breaking_stage", r.breaking_stage ? json(*r.breaking_stage) : json(nullptr)},
             {"breaking_reason", r.breaking_reason},
             {"hangs", r.hangs()},
             {"deadlocks", r.deadlocks()},
             {"late_replies", r.late_replies},
             {"protocol_violations", r.protocol_violations},
             {"protocol_violation_samples", r.protocol_violation_samples},
             {"schema_violations", r.schema_violations},
             {"schema_violation_samples", r.schema_violation_samples},
             {"coverage", r.coverage},
             {"cancellation", r.cancellation},
             {"processes", r.processes},
             {"generator", r.generator},
             {"violations", r.violations},
             {"aborted", r.aborted},
             {"abort_reason", r.abort_reason},
             {"passed", r.passed}};
    // Optional members, only when they say something (older readers keep their shape).
    if (r.shard_index) j["shard_index"] = *r.shard_index;
    if (r.shard_count) j["shard_count"] = *r.shard_count;
    if (r.merged_from) j["merged_from"] = r.merged_from;
    if (!r.merge_notes.empty()) j["merge_notes"] = r.merge_notes;
    if (r.breach) j["breach"] = *r.breach;
    if (r.authorization) j["authorization"] = *r.authorization;
    if (r.progress.total() > 0 || !r.overall.progress.empty()) j["progress"] = r.progress;
}

MCP_LOADTEST_DECL void from_json(const json& j, load_report& r) {
    const auto schema = j.is_object() ? j.find("schema") : j.end();
    if (schema == j.end() || *schema != "mcp-loadtest/load_report/v1")
        throw std::invalid_argument(
            "not an mcp-loadtest load report (missing \"schema\": \"mcp-loadtest/load_report/v1\")");
    using detail::optional_string;
    using detail::optional_integer;
    const detail::report_reader in(j, "report");
    r.run_id = in["run_id"].string();
    r.started_at = in["started_at"].string();
    if (const auto ns = in.find("started_at_unix_ns")) r.started_at_unix_ns = ns->integer<std::int64_t>();
    else r.started_at_unix_ns = 0;
    r.duration_s = in["duration_s"].non_negative();
    r.workload = in["workload"].string();
    const auto parameters = in.find("workload_parameters");
    r.workload_parameters = parameters ? j.at("workload_parameters") : json::object();
    r.sessions = in["sessions"].integer<std::size_t>();
    r.server = in["server"].string();
    r.transport = optional_string(in, "transport");
    r.protocol_era = optional_string(in, "protocol_era");
    r.protocol_version = optional_string(in, "protocol_version");
    r.server_name = optional_string(in, "server_name");
    r.server_version = optional_string(in, "server_version");
    r.seed = optional_integer(in, "seed");
    if (const auto v = in.find("shard_index")) r.shard_index = v->integer<std::size_t>();
    else r.shard_index.reset();
    if (const auto v = in.find("shard_count")) r.shard_count = v->integer<std::size_t>();
    else r.shard_count.reset();
    r.merged_from = static_cast<std::size_t>(optional_integer(in, "merged_from"));
    const auto notes = in.find("merge_notes");
    r.merge_notes = notes ? detail::read_all<std::string>(*notes) : std::vector<std::string>{};
    r.iterations_started = in["iterations_started"].non_negative_integer();
    r.iterations_completed = in["iterations_completed"].non_negative_integer();
    r.dropped = in["dropped"].non_negative_integer();
    detail::read_report(in["overall"], r.overall);
    const auto read_map = [](const detail::report_reader& from, auto& to) {
        to.clear();
        from.each_member([&](const std::string& name, const detail::report_reader& v) { read_report(v, to[name]); });
    };
    read_map(in["per_tool"], r.per_tool);
    read_map(in["per_method"], r.per_method);
    if (const auto steps = in.find("per_step")) read_map(*steps, r.per_step);
    else r.per_step.clear();
    if (const auto failures = in.find("failures")) detail::read_report(*failures, r.failures);
    else r.failures = {};
    r.throughput_rps = in["throughput_rps"].non_negative();
    r.timeline = detail::read_all<timeline_point>(in["timeline"]);
    if (const auto intervals = in.find("intervals")) r.intervals = detail::read_all<latency_interval>(*intervals);
    else r.intervals.clear();
    r.stages = detail::read_all<stage_report>(in["stages"]);
    if (const auto b = in["breaking_stage"]; b.is_null()) {
        r.breaking_stage.reset();
    } else {
        r.breaking_stage = b.integer<std::size_t>();
        if (*r.breaking_stage >= r.stages.size())
            b.fail(r.stages.empty() ? std::string("the index of a stage (the report has none)")
                                    : "the index of a stage (0 to " + std::to_string(r.stages.size() - 1) + ")");
    }
    r.breaking_reason = optional_string(in, "breaking_reason");
    r.late_replies = optional_integer(in, "late_replies");
    r.protocol_violations = optional_integer(in, "protocol_violations");
    const auto samples = in.find("protocol_violation_samples");
    r.protocol_violation_samples = samples ? detail::read_all<std::string>(*samples) : std::vector<std::string>{};
    r.schema_violations = optional_integer(in, "schema_violations");
    const auto schema_samples = in.find("schema_violation_samples");
    r.schema_violation_samples =
        schema_samples ? detail::read_all<std::string>(*schema_samples) : std::vector<std::string>{};
    if (const auto progress = in.find("progress")) detail::read_report(*progress, r.progress);
    else r.progress = {};
    if (const auto coverage = in.find("coverage")) r.coverage = coverage->decode<coverage_report>();
    if (const auto cancellation = in.find("cancellation")) detail::read_report(*cancellation, r.cancellation);
    else r.cancellation = {};
    r.processes = detail::read_all<server_process_report>(in["processes"]);
    detail::read_report(in["generator"], r.generator);
    r.authorization.reset();
    if (const auto a = in.find("authorization")) detail::read_report(*a, r.authorization.emplace());
    r.violations = detail::read_all<threshold_violation>(in["violations"]);
    const auto aborted = in.find("aborted");
    r.aborted = aborted && aborted->boolean();
    r.abort_reason = optional_string(in, "abort_reason");
    r.breach.reset();
    if (const auto b = in.find("breach")) {
        breach_report x;
        detail::read_report((*b)["violation"], x.violation);
        x.at_s = (*b)["at_s"].non_negative();
        x.calls = (*b)["calls"].integer<std::uint64_t>();
        x.error_rate = (*b)["error_rate"].non_negative();
        x.latency = (*b)["latency"].decode<latency_summary>();
        r.breach = std::move(x);
    }
    r.passed = in["passed"].boolean();
}

MCP_LOADTEST_DECL std::string detail::workload_label(const load_report& r) {
    const bool poisson = r.workload_parameters.is_object() && r.workload_parameters.value("arrivals", "") == "poisson";
    return r.workload + (poisson ? " (Poisson arrivals)" : "");
}

MCP_LOADTEST_DECL std::string load_report::summary() const {
    char buf[512];
    std::string s;
    std::snprintf(buf, sizeof buf, "%s: %s load, %zu session(s), %.1f s: %llu calls, %.1f calls/s, error rate %.2f%%\n",
                  passed ? "PASSED" : "FAILED", detail::workload_label(*this).c_str(), sessions, duration_s,
                  static_cast<unsigned long long>(overall.calls()), throughput_rps, 100.0 * overall.error_rate());
    s += buf;
    const auto& l = overall.latency;
    std::snprintf(buf, sizeof buf, "latency: p50 %.2f ms, p95 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, max %.2f ms\n",
                  detail::ms(l.p50), detail::ms(l.p95), detail::ms(l.p99), detail::ms(l.p999), detail::ms(l.max));
    s += buf;
    std::string outcomes;
    for (auto o : all_outcomes)
        if (o != outcome::ok && overall.outcomes[o])
            outcomes += (outcomes.empty() ? "" : ", ") + std::to_string(overall.outcomes[o]) + " " + std::string(to_string(o));
    if (!outcomes.empty()) s += "failures: " + outcomes + "\n";
    if (dropped) s += std::to_string(dropped) + " arrivals dropped (the in-flight cap was reached)\n";
    if (protocol_violations) s += std::to_string(protocol_violations) + " protocol violation(s)\n";
    if (!overall.progress.empty()) {
        const auto& p = overall.progress;
        std::snprintf(buf, sizeof buf,
                      "progress: %llu of %llu calls that asked got notifications (%llu in all), first after p50 %.2f ms, "
                      "p99 %.2f ms\n",
                      static_cast<unsigned long long>(p.answered), static_cast<unsigned long long>(p.asked),
                      static_cast<unsigned long long>(p.notifications), detail::ms(p.time_to_first.p50),
                      detail::ms(p.time_to_first.p99));
        s += buf;
    }
    if (progress.total() > 0) {
        s += "progress rules broken: " + std::to_string(progress.wrong_token) + " wrong token, " +
             std::to_string(progress.after_result) + " after the result, " + std::to_string(progress.not_increasing) +
             " not increasing";
        if (!progress.samples.empty()) s += "; first: " + progress.samples.front().substr(0, 200);
        s += "\n";
    }
    if (schema_violations) {
        s += std::to_string(schema_violations) + " schema violation(s) (strict mode)";
        if (!schema_violation_samples.empty()) s += ", first: " + schema_violation_samples.front().substr(0, 200);
        s += "\n";
    }
    for (const auto& g : failures.checks)
        s += "failed check: " + g.message + " (" + std::to_string(g.count) + "x, first in iteration " +
             std::to_string(g.first_iteration) + (g.sample.empty() ? ")" : "; " + g.sample.substr(0, 120) + ")") + "\n";
    for (const auto& g : failures.exceptions_thrown)
        s += "exception in scenario: " + g.message + " (" + std::to_string(g.count) + "x)\n";
    if (!cancellation.moment.empty()) {
        const auto& c = cancellation;
        s += "cancellation (" + c.moment + "): " + std::to_string(c.sent) + " sent, " + std::to_string(c.honoured) +
             " honoured, " + std::to_string(c.replied_anyway) + " replied anyway, " + std::to_string(c.crossed) +
             " crossed by a reply, " + std::to_string(c.reply_first) + " ended first";
        if (c.servers_exited) s += ", " + std::to_string(c.servers_exited) + " server(s) exited after a cancel";
        s += "\n";
    }
    if (generator.saturated) s += "load generator: " + generator.explanation + "\n";
    if (authorization) s += "authorization: " + authorization->explanation + "\n";
    if (breaking_stage) s += "breaking point: " + breaking_reason + "\n";
    if (aborted) s += "aborted: " + abort_reason + "\n";
    for (const auto& v : violations) s += "violation: " + v.describe() + "\n";
    return s;
}

}  // namespace mcp_loadtest
