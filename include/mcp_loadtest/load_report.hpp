// The result of a load run: plain aggregates with no hidden state,
// convertible to and from JSON (schema: docs/schema/load_report.schema.json).
#pragma once

#include <mcp_loadtest/histogram.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/leak_detection.hpp>
#include <mcp_loadtest/outcome.hpp>
#include <mcp_loadtest/process_sampling.hpp>
#include <mcp_loadtest/thresholds.hpp>

#include <array>
#include <cstdio>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mcp_loadtest {

/// How many calls ended in each outcome.
struct outcome_counts {
    std::array<std::uint64_t, all_outcomes.size()> by_outcome{};

    void add(outcome o, std::uint64_t n = 1) noexcept { by_outcome[static_cast<std::size_t>(o)] += n; }
    [[nodiscard]] std::uint64_t operator[](outcome o) const noexcept { return by_outcome[static_cast<std::size_t>(o)]; }
    [[nodiscard]] std::uint64_t total() const noexcept {
        std::uint64_t t = 0;
        for (auto n : by_outcome) t += n;
        return t;
    }
    /// Calls that did not end `ok` (tool errors count as errors).
    [[nodiscard]] std::uint64_t errors() const noexcept { return total() - (*this)[outcome::ok]; }
    [[nodiscard]] double error_rate() const noexcept {
        const auto t = total();
        return t ? static_cast<double>(errors()) / static_cast<double>(t) : 0.0;
    }
    void merge(const outcome_counts& o) noexcept {
        for (std::size_t i = 0; i < by_outcome.size(); ++i) by_outcome[i] += o.by_outcome[i];
    }
};

/// Calls and latency for one slice of the run (all calls, one tool, one method, one stage).
/// Latency is recorded for every call except `cancelled` ones; in open models it
/// is measured from the intended send time.
struct call_stats {
    outcome_counts outcomes;
    latency_histogram histogram;
    latency_summary latency;  ///< filled from histogram by finalize()

    [[nodiscard]] std::uint64_t calls() const noexcept { return outcomes.total(); }
    [[nodiscard]] double error_rate() const noexcept { return outcomes.error_rate(); }
    void finalize() { latency = histogram.summary(); }
    void merge(const call_stats& o) {
        outcomes.merge(o.outcomes);
        histogram.merge(o.histogram);
        finalize();
    }
};

/// One second (by default) of the run.
struct timeline_point {
    double at_s = 0;               ///< start of the bucket, from the start of the run
    std::uint64_t completed = 0;   ///< calls that ended in the bucket
    std::uint64_t errors = 0;
    std::uint64_t in_flight = 0;   ///< calls in flight at the end of the bucket
};

/// One stage of a staged workload.
struct stage_report {
    std::string name;
    double target = 0;
    double start_s = 0;
    double duration_s = 0;
    std::uint64_t dropped = 0;
    call_stats stats;
    double throughput_rps = 0;
};

/// Was the load generator itself the bottleneck?
struct generator_report {
    double cpu_pct = 0;             ///< this process's CPU over the run, % of one core
    latency_summary send_lag;       ///< open/rate models: actual send − intended send
    std::uint64_t late_sends = 0;   ///< sends more than max(1 ms, one arrival interval) late
    bool saturated = false;
    std::string explanation;
};

/// One spawned server process: its sampled resources and leak verdicts.
struct server_process_report {
    std::size_t session = 0;
    pid_t pid = 0;
    process_stats stats;
    std::vector<leak_analysis> leaks;
    std::vector<process_sample> samples;
};

struct load_report {
    std::string run_id;
    std::string started_at;  ///< ISO 8601 UTC
    double duration_s = 0;
    std::string workload;    ///< closed, open, staged_rate, staged_users; or a detector's name
    json workload_parameters = json::object();
    std::size_t sessions = 1;
    std::string server;      ///< the command line, or the URL without credentials
    std::string transport;   ///< stdio, streamable-http, http+sse, websocket, tcp, unix
    std::string protocol_era;  ///< "legacy" (initialize handshake) or "modern" (2026-07-28, stateless)
    std::string protocol_version;
    std::string server_name;
    std::string server_version;
    std::uint64_t seed = 0;

    std::uint64_t iterations_started = 0;
    std::uint64_t iterations_completed = 0;
    std::uint64_t dropped = 0;  ///< arrivals that could not start (never silently skipped)

    call_stats overall;
    std::map<std::string, call_stats> per_tool;
    std::map<std::string, call_stats> per_method;
    double throughput_rps = 0;  ///< calls ended per second of run time
    std::vector<timeline_point> timeline;

    std::vector<stage_report> stages;
    std::optional<std::size_t> breaking_stage;  ///< first stage whose p99 or error rate crossed the limit
    std::string breaking_reason;

    std::uint64_t late_replies = 0;
    std::uint64_t protocol_violations = 0;
    std::vector<std::string> protocol_violation_samples;  ///< the first few, with their text

    std::vector<server_process_report> processes;
    generator_report generator;

    std::vector<threshold_violation> violations;
    bool aborted = false;
    std::string abort_reason;
    bool passed = false;

    [[nodiscard]] std::uint64_t hangs() const noexcept { return overall.outcomes[outcome::hang]; }
    [[nodiscard]] std::uint64_t deadlocks() const noexcept { return overall.outcomes[outcome::deadlock]; }
    [[nodiscard]] std::uint64_t crashes() const noexcept { return overall.outcomes[outcome::crash]; }
    [[nodiscard]] double error_rate() const noexcept { return overall.error_rate(); }

    /// A few lines for a human: what ran, what it measured, what failed and what it means.
    [[nodiscard]] std::string summary() const;
};

// ---- JSON -----------------------------------------------------------------------

namespace detail {
inline double ms(std::chrono::nanoseconds d) noexcept { return static_cast<double>(d.count()) / 1e6; }

template <class T>
void put_optional(json& j, const char* key, const std::optional<T>& v) {
    if (v) j[key] = *v;
}
template <class T>
void get_optional(const json& j, const char* key, std::optional<T>& v) {
    if (auto it = j.find(key); it != j.end() && !it->is_null()) v = it->get<T>();
    else v.reset();
}
}  // namespace detail

inline void to_json(json& j, const outcome_counts& c) {
    j = json::object();
    for (auto o : all_outcomes) j[std::string(to_string(o))] = c[o];
}
inline void from_json(const json& j, outcome_counts& c) {
    c = {};
    for (auto o : all_outcomes) c.by_outcome[static_cast<std::size_t>(o)] = j.value(std::string(to_string(o)), 0ULL);
}

inline void to_json(json& j, const call_stats& s) {
    j = json{{"calls", s.calls()}, {"error_rate", s.error_rate()}, {"outcomes", s.outcomes},
             {"latency", s.latency}, {"histogram", s.histogram}};
}
inline void from_json(const json& j, call_stats& s) {
    s.outcomes = j.at("outcomes").get<outcome_counts>();
    s.histogram = j.at("histogram").get<latency_histogram>();
    s.finalize();
}

inline void to_json(json& j, const timeline_point& p) {
    j = json{{"at_s", p.at_s}, {"completed", p.completed}, {"errors", p.errors}, {"in_flight", p.in_flight}};
}
inline void from_json(const json& j, timeline_point& p) {
    p.at_s = j.at("at_s").get<double>();
    p.completed = j.at("completed").get<std::uint64_t>();
    p.errors = j.at("errors").get<std::uint64_t>();
    p.in_flight = j.value("in_flight", 0ULL);
}

inline void to_json(json& j, const stage_report& s) {
    j = json{{"name", s.name}, {"target", s.target}, {"start_s", s.start_s}, {"duration_s", s.duration_s},
             {"dropped", s.dropped}, {"stats", s.stats}, {"throughput_rps", s.throughput_rps}};
}
inline void from_json(const json& j, stage_report& s) {
    s.name = j.at("name").get<std::string>();
    s.target = j.at("target").get<double>();
    s.start_s = j.at("start_s").get<double>();
    s.duration_s = j.at("duration_s").get<double>();
    s.dropped = j.value("dropped", 0ULL);
    s.stats = j.at("stats").get<call_stats>();
    s.throughput_rps = j.at("throughput_rps").get<double>();
}

inline void to_json(json& j, const generator_report& g) {
    j = json{{"cpu_pct", g.cpu_pct}, {"send_lag", g.send_lag}, {"late_sends", g.late_sends},
             {"saturated", g.saturated}, {"explanation", g.explanation}};
}
inline void from_json(const json& j, generator_report& g) {
    g.cpu_pct = j.at("cpu_pct").get<double>();
    g.send_lag = j.at("send_lag").get<latency_summary>();
    g.late_sends = j.at("late_sends").get<std::uint64_t>();
    g.saturated = j.at("saturated").get<bool>();
    g.explanation = j.value("explanation", "");
}

inline void to_json(json& j, const server_process_report& p) {
    j = json{{"session", p.session}, {"pid", p.pid}, {"stats", p.stats}, {"leaks", p.leaks}, {"samples", p.samples}};
}
inline void from_json(const json& j, server_process_report& p) {
    p.session = j.at("session").get<std::size_t>();
    p.pid = j.at("pid").get<pid_t>();
    p.stats = j.at("stats").get<process_stats>();
    p.leaks = j.at("leaks").get<std::vector<leak_analysis>>();
    p.samples = j.at("samples").get<std::vector<process_sample>>();
}

inline void to_json(json& j, const threshold_violation& v) {
    j = json{{"metric", v.metric}, {"expected", v.expected}, {"actual", v.actual}, {"meaning", v.meaning}};
}
inline void from_json(const json& j, threshold_violation& v) {
    v.metric = j.at("metric").get<std::string>();
    v.expected = j.at("expected").get<std::string>();
    v.actual = j.at("actual").get<std::string>();
    v.meaning = j.value("meaning", "");
}

inline void to_json(json& j, const load_report& r) {
    j = json{{"schema", "mcp-loadtest/load_report/v1"},
             {"run_id", r.run_id},
             {"started_at", r.started_at},
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
             {"throughput_rps", r.throughput_rps},
             {"timeline", r.timeline},
             {"stages", r.stages},
             {"breaking_stage", r.breaking_stage ? json(*r.breaking_stage) : json(nullptr)},
             {"breaking_reason", r.breaking_reason},
             {"hangs", r.hangs()},
             {"deadlocks", r.deadlocks()},
             {"late_replies", r.late_replies},
             {"protocol_violations", r.protocol_violations},
             {"protocol_violation_samples", r.protocol_violation_samples},
             {"processes", r.processes},
             {"generator", r.generator},
             {"violations", r.violations},
             {"aborted", r.aborted},
             {"abort_reason", r.abort_reason},
             {"passed", r.passed}};
}

inline void from_json(const json& j, load_report& r) {
    if (j.value("schema", "") != "mcp-loadtest/load_report/v1")
        throw std::invalid_argument("not an mcp-loadtest load report (missing \"schema\": \"mcp-loadtest/load_report/v1\")");
    r.run_id = j.at("run_id").get<std::string>();
    r.started_at = j.at("started_at").get<std::string>();
    r.duration_s = j.at("duration_s").get<double>();
    r.workload = j.at("workload").get<std::string>();
    r.workload_parameters = j.value("workload_parameters", json::object());
    r.sessions = j.at("sessions").get<std::size_t>();
    r.server = j.at("server").get<std::string>();
    r.transport = j.value("transport", "");
    r.protocol_era = j.value("protocol_era", "");
    r.protocol_version = j.value("protocol_version", "");
    r.server_name = j.value("server_name", "");
    r.server_version = j.value("server_version", "");
    r.seed = j.value("seed", 0ULL);
    r.iterations_started = j.at("iterations_started").get<std::uint64_t>();
    r.iterations_completed = j.at("iterations_completed").get<std::uint64_t>();
    r.dropped = j.at("dropped").get<std::uint64_t>();
    r.overall = j.at("overall").get<call_stats>();
    r.per_tool = j.at("per_tool").get<std::map<std::string, call_stats>>();
    r.per_method = j.at("per_method").get<std::map<std::string, call_stats>>();
    r.throughput_rps = j.at("throughput_rps").get<double>();
    r.timeline = j.at("timeline").get<std::vector<timeline_point>>();
    r.stages = j.at("stages").get<std::vector<stage_report>>();
    if (const auto& b = j.at("breaking_stage"); b.is_null()) r.breaking_stage.reset();
    else r.breaking_stage = b.get<std::size_t>();
    r.breaking_reason = j.value("breaking_reason", "");
    r.late_replies = j.value("late_replies", 0ULL);
    r.protocol_violations = j.value("protocol_violations", 0ULL);
    r.protocol_violation_samples = j.value("protocol_violation_samples", std::vector<std::string>{});
    r.processes = j.at("processes").get<std::vector<server_process_report>>();
    r.generator = j.at("generator").get<generator_report>();
    r.violations = j.at("violations").get<std::vector<threshold_violation>>();
    r.aborted = j.value("aborted", false);
    r.abort_reason = j.value("abort_reason", "");
    r.passed = j.at("passed").get<bool>();
}

inline std::string load_report::summary() const {
    char buf[512];
    std::string s;
    std::snprintf(buf, sizeof buf, "%s: %s load, %zu session(s), %.1f s: %llu calls, %.1f calls/s, error rate %.2f%%\n",
                  passed ? "PASSED" : "FAILED", workload.c_str(), sessions, duration_s,
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
    if (generator.saturated) s += "load generator: " + generator.explanation + "\n";
    if (breaking_stage) s += "breaking point: " + breaking_reason + "\n";
    if (aborted) s += "aborted: " + abort_reason + "\n";
    for (const auto& v : violations) s += "violation: " + v.describe() + "\n";
    return s;
}

}  // namespace mcp_loadtest
