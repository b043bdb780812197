// The result of a load run: plain aggregates with no hidden state,
// convertible to and from JSON (schema: docs/schema/load_report.schema.json).
#pragma once

#include <mcp_loadtest/coverage.hpp>
#include <mcp_loadtest/detail/format.hpp>
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
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
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

/// The latency of the calls that ended in one interval of the run (run_options::timeline_bucket,
/// 1 s by default), for all calls (empty tag) or one tool (its name), as HdrHistogram V2 base64
/// (to_hdr_base64): a few hundred bytes per interval, so a long soak keeps every second; exact to
/// the histogram's buckets; the text `.hlog` files carry. Comparisons resample these intervals,
/// merges align them by wall clock.
struct latency_interval {
    double at_s = 0;       ///< start, seconds from the start of the run
    double length_s = 0;
    std::string tag;       ///< "": every call; otherwise the tool's name
    std::uint64_t count = 0;
    std::string hdr;       ///< to_hdr_base64() of the interval's histogram

    [[nodiscard]] latency_histogram histogram() const { return from_hdr_base64(hdr); }
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
    std::vector<leak_analysis> leaks;  ///< its own, then any leak found in a descendant (named in the explanation)
    std::vector<process_sample> samples;
    /// Its descendants (workers, the server behind a wrapper), each sampled
    /// and analysed; in JSON only when there are any.
    std::vector<descendant_process_report> descendants;
    /// The whole tree summed per tick (with descendants; else equal to stats).
    process_stats tree_stats;
    /// merge_reports(): the index of the input report (shard) this process came from.
    std::optional<std::size_t> source;
};

/// Failures of a scenario body that are not calls: one group per message.
struct failure_group {
    std::string message;                ///< check(): its `what`; an exception: its what()
    std::uint64_t count = 0;
    std::uint64_t first_iteration = 0;  ///< the index of the iteration where it first happened
    std::string sample;                 ///< check(): the first `detail` given (at most 500 bytes)
};

/// What scenario bodies reported besides their calls: failed check()s and
/// exceptions thrown out of a body (the run caught them and went on).
struct scenario_failures {
    static constexpr std::size_t max_groups = 100;  ///< distinct messages kept; all are counted
    std::uint64_t failed_checks = 0;
    std::uint64_t exceptions = 0;
    std::vector<failure_group> checks;      ///< in order of first occurrence
    std::vector<failure_group> exceptions_thrown;

    [[nodiscard]] bool empty() const noexcept { return failed_checks == 0 && exceptions == 0; }
    void add_check(std::string_view what, std::string_view detail, std::uint64_t iteration) {
        ++failed_checks;
        add(checks, what, detail, iteration);
    }
    void add_exception(std::string_view what, std::uint64_t iteration) {
        ++exceptions;
        add(exceptions_thrown, what, {}, iteration);
    }

private:
    static void add(std::vector<failure_group>& groups, std::string_view what, std::string_view detail,
                    std::uint64_t iteration) {
        for (auto& g : groups)
            if (g.message == what) {
                ++g.count;
                return;
            }
        if (groups.size() >= max_groups) return;
        groups.push_back({std::string(what), 1, iteration, std::string(detail.substr(0, 500))});
    }
};

/// run()'s cancellation injection (run_options::cancel): what became of the
/// cancels it sent. An injected cancel is not a call outcome: it is counted
/// here, and in neither the outcome counts, the error rate nor the latency
/// histograms (docs/detectors.md#cancellation).
struct cancellation_counts {
    std::string moment;                ///< after_send, mid_call or reply_due; empty: no injection
    double fraction = 0;               ///< of the iterations
    std::uint64_t sent = 0;            ///< notifications/cancelled sent while the call was in flight
    std::uint64_t reply_first = 0;     ///< the call had ended before its cancel moment: nothing sent
    std::uint64_t no_estimate = 0;     ///< mid_call, reply_due: no call had completed yet to time it by
    std::uint64_t honoured = 0;        ///< no reply came before the session closed
    std::uint64_t replied_anyway = 0;  ///< a reply the server sent after the cancel (it SHOULD NOT)
    std::uint64_t crossed = 0;         ///< a reply already on its way when the cancel was sent (allowed)
    std::uint64_t servers_exited = 0;  ///< server processes that exited during the run after a cancel
    std::vector<std::string> exit_samples;  ///< per such server: its exit and last stderr line
    latency_summary cancel_after;      ///< from each cancelled request's send to its cancel
};

struct load_report {
    std::string run_id;
    std::string started_at;  ///< ISO 8601 UTC
    std::int64_t started_at_unix_ns = 0;  ///< the same instant, exactly (0: unknown, e.g. an older report)
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
    /// run_options::shard: this run was shard `shard_index` of `shard_count` (unset: not sharded).
    std::optional<std::size_t> shard_index;
    std::optional<std::size_t> shard_count;
    /// merge_reports(): how many reports were merged into this one (0: not a merge), and what the
    /// merge had to assume (e.g. reports without a wall-clock start aligned at their starts).
    std::size_t merged_from = 0;
    std::vector<std::string> merge_notes;

    std::uint64_t iterations_started = 0;
    std::uint64_t iterations_completed = 0;
    std::uint64_t dropped = 0;  ///< arrivals that could not start (never silently skipped)

    call_stats overall;
    std::map<std::string, call_stats> per_tool;
    std::map<std::string, call_stats> per_method;
    /// Scenario bodies: each step named in iteration::measure(name, ...).
    std::map<std::string, call_stats, std::less<>> per_step;
    scenario_failures failures;  ///< failed checks and exceptions of scenario bodies
    double throughput_rps = 0;  ///< calls ended per second of run time
    std::vector<timeline_point> timeline;
    /// Per interval of the timeline: the latency histogram of every call, then one per tool.
    std::vector<latency_interval> intervals;

    std::vector<stage_report> stages;
    std::optional<std::size_t> breaking_stage;  ///< first stage whose p99 or error rate crossed the limit
    std::string breaking_reason;

    std::uint64_t late_replies = 0;
    std::uint64_t protocol_violations = 0;
    std::vector<std::string> protocol_violation_samples;  ///< the first few, with their text
    /// Strict mode (client_options::strict): messages that broke a schema.
    std::uint64_t schema_violations = 0;
    std::vector<std::string> schema_violation_samples;  ///< the first few, with pointer and rule
    /// Listed (run_options::list_before_run) versus called tools, resources and prompts.
    coverage_report coverage;
    /// run_options::cancel: the cancels injected and what the server did with them.
    cancellation_counts cancellation;

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

template <class T>
void put_optional(json& j, const char* key, const std::optional<T>& v) {
    if (v) j[key] = *v;
}
template <class T>
void get_optional(const json& j, const char* key, std::optional<T>& v) {
    if (auto it = j.find(key); it != j.end() && !it->is_null()) v = it->get<T>();
    else v.reset();
}

/// Reads a report one value at a time, knowing where the value is, so bad input is refused with
/// its path: `report.per_tool["echo"].outcomes.ok: -1 is not a non-negative integer`. Every
/// number is range-checked for the field it fills (nlohmann's get<> converts unchecked: -1 would
/// wrap and 1e300 is undefined behaviour). Every failure is std::invalid_argument.
class report_reader {
public:
    report_reader(const json& value, std::string path) : value_(value), path_(std::move(path)) {}

    [[noreturn]] void fail(std::string_view expected) const {
        std::string shown = value_.dump();
        if (shown.size() > 60) shown = shown.substr(0, 57) + "...";
        throw std::invalid_argument(path_ + ": " + shown + " is not " + std::string(expected));
    }

    /// A required member.
    [[nodiscard]] report_reader operator[](const char* key) const {
        const json& object = as_object();
        const auto it = object.find(key);
        if (it == object.end()) throw std::invalid_argument(path_ + "." + key + " is missing");
        return {*it, path_ + "." + key};
    }
    /// A member older reports may lack.
    [[nodiscard]] std::optional<report_reader> find(const char* key) const {
        const json& object = as_object();
        const auto it = object.find(key);
        if (it == object.end()) return std::nullopt;
        return report_reader{*it, path_ + "." + key};
    }

    [[nodiscard]] const json& as_object() const {
        if (!value_.is_object()) fail("an object");
        return value_;
    }
    [[nodiscard]] bool is_null() const noexcept { return value_.is_null(); }

    /// An integer in [0, max]; a float (2.5, 1e300) is not one, whatever its value.
    [[nodiscard]] std::uint64_t non_negative_integer(
        std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const {
        if (value_.is_number_unsigned()) {
            if (const auto v = value_.get<std::uint64_t>(); v <= max) return v;
        } else if (value_.is_number_integer()) {
            if (const auto v = value_.get<std::int64_t>(); v >= 0 && static_cast<std::uint64_t>(v) <= max)
                return static_cast<std::uint64_t>(v);
        }
        fail(max == std::numeric_limits<std::uint64_t>::max() ? std::string("a non-negative integer")
                                                               : "an integer from 0 to " + std::to_string(max));
    }
    template <class Int>
    [[nodiscard]] Int integer() const {
        static_assert(std::is_integral_v<Int>);
        return static_cast<Int>(non_negative_integer(static_cast<std::uint64_t>(std::numeric_limits<Int>::max())));
    }
    [[nodiscard]] double number() const {
        if (!value_.is_number()) fail("a number");
        return value_.get<double>();
    }
    [[nodiscard]] double non_negative() const {
        const double v = number();
        if (!(v >= 0)) fail("a non-negative number");
        return v;
    }
    [[nodiscard]] std::string string() const {
        if (!value_.is_string()) fail("a string");
        return value_.get<std::string>();
    }
    [[nodiscard]] bool boolean() const {
        if (!value_.is_boolean()) fail("a boolean");
        return value_.get<bool>();
    }
    /// Calls f(report_reader) for each element, its index in the path.
    template <class F>
    void each(F&& f) const {
        if (!value_.is_array()) fail("an array");
        for (std::size_t i = 0; i < value_.size(); ++i)
            f(report_reader{value_[i], path_ + "[" + std::to_string(i) + "]"});
    }
    /// Calls f(name, report_reader) for each member, its name (as a JSON string) in the path.
    template <class F>
    void each_member(F&& f) const {
        for (const auto& [name, v] : as_object().items())
            f(name, report_reader{v, path_ + "[" + json(name).dump() + "]"});
    }
    /// A value whose own from_json checks it (histograms, summaries): its error gets the path.
    template <class T>
    [[nodiscard]] T decode() const {
        try {
            return value_.get<T>();
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(path_ + ": " + e.what());
        }
    }

private:
    const json& value_;
    std::string path_;
};

template <class T>
std::vector<T> read_all(const report_reader& r) {
    std::vector<T> out;
    r.each([&](const report_reader& item) { read_report(item, out.emplace_back()); });
    return out;
}

inline void read_report(const report_reader& r, outcome_counts& c) {
    c = {};
    (void)r.as_object();
    for (auto o : all_outcomes)
        if (const auto n = r.find(std::string(to_string(o)).c_str()))
            c.by_outcome[static_cast<std::size_t>(o)] = n->non_negative_integer();
}

inline void read_report(const report_reader& r, call_stats& s) {
    read_report(r["outcomes"], s.outcomes);
    s.histogram = r["histogram"].decode<latency_histogram>();
    s.finalize();  // "calls", "error_rate" and "latency" are derived: recomputed, not read
}

inline void read_report(const report_reader& r, timeline_point& p) {
    p.at_s = r["at_s"].non_negative();
    p.completed = r["completed"].non_negative_integer();
    p.errors = r["errors"].non_negative_integer();
    const auto in_flight = r.find("in_flight");
    p.in_flight = in_flight ? in_flight->non_negative_integer() : 0;
}

inline void read_report(const report_reader& r, latency_interval& i) {
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

inline void read_report(const report_reader& r, stage_report& s) {
    s.name = r["name"].string();
    s.target = r["target"].number();
    s.start_s = r["start_s"].non_negative();
    s.duration_s = r["duration_s"].non_negative();
    const auto dropped = r.find("dropped");
    s.dropped = dropped ? dropped->non_negative_integer() : 0;
    read_report(r["stats"], s.stats);
    s.throughput_rps = r["throughput_rps"].non_negative();
}

inline void read_report(const report_reader& r, generator_report& g) {
    g.cpu_pct = r["cpu_pct"].non_negative();
    g.send_lag = r["send_lag"].decode<latency_summary>();
    g.late_sends = r["late_sends"].non_negative_integer();
    g.saturated = r["saturated"].boolean();
    const auto explanation = r.find("explanation");
    g.explanation = explanation ? explanation->string() : "";
}

// process_sample, process_stats and leak_analysis have their own from_json; a report reads them
// here so that their numbers are range-checked and named by path like the rest.
inline void read_report(const report_reader& r, process_sample& s) {
    s.at = std::chrono::nanoseconds(r["at_ns"].integer<std::int64_t>());
    s.pid = r["pid"].integer<pid_t>();
    s.rss_mb = r["rss_mb"].non_negative();
    s.cpu_pct = r["cpu_pct"].non_negative();
    s.open_fds = r["open_fds"].integer<std::uint32_t>();
    s.threads = r["threads"].integer<std::uint32_t>();
}

inline void read_report(const report_reader& r, process_stats& s) {
    s.peak_rss_mb = r["peak_rss_mb"].non_negative();
    s.final_rss_mb = r["final_rss_mb"].non_negative();
    s.avg_cpu_pct = r["avg_cpu_pct"].non_negative();
    s.peak_fds = r["peak_fds"].integer<std::uint32_t>();
    s.final_fds = r["final_fds"].integer<std::uint32_t>();
    s.peak_threads = r["peak_threads"].integer<std::uint32_t>();
    s.samples = r["samples"].integer<std::size_t>();
}

inline void read_report(const report_reader& r, trend_fit& f) {
    f.slope_per_s = r["slope_per_s"].number();
    f.intercept = r["intercept"].number();
    f.r2 = r["r2"].number();
    f.points = r["points"].integer<std::size_t>();
}

inline void read_report(const report_reader& r, leak_analysis& a) {
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

inline void read_report(const report_reader& r, server_process_report& p) {
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

inline void read_report(const report_reader& r, threshold_violation& v) {
    v.metric = r["metric"].string();
    v.expected = r["expected"].string();
    v.actual = r["actual"].string();
    const auto meaning = r.find("meaning");
    v.meaning = meaning ? meaning->string() : "";
}

inline void read_report(const report_reader& r, std::string& s) { s = r.string(); }

inline void read_report(const report_reader& r, failure_group& g) {
    g.message = r["message"].string();
    g.count = r["count"].non_negative_integer();
    g.first_iteration = r["first_iteration"].non_negative_integer();
    const auto sample = r.find("sample");
    g.sample = sample ? sample->string() : "";
}

inline void read_report(const report_reader& r, scenario_failures& f) {
    f.failed_checks = r["failed_checks"].non_negative_integer();
    f.exceptions = r["exceptions"].non_negative_integer();
    f.checks = read_all<failure_group>(r["checks"]);
    f.exceptions_thrown = read_all<failure_group>(r["exceptions_thrown"]);
}

inline void read_report(const report_reader& r, cancellation_counts& c) {
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

inline std::string optional_string(const report_reader& r, const char* key) {
    const auto v = r.find(key);
    return v ? v->string() : std::string();
}

inline std::uint64_t optional_integer(const report_reader& r, const char* key) {
    const auto v = r.find(key);
    return v ? v->non_negative_integer() : 0;
}

}  // namespace detail

inline void to_json(json& j, const outcome_counts& c) {
    j = json::object();
    for (auto o : all_outcomes) j[std::string(to_string(o))] = c[o];
}
inline void from_json(const json& j, outcome_counts& c) { detail::read_report({j, "outcome_counts"}, c); }

inline void to_json(json& j, const call_stats& s) {
    j = json{{"calls", s.calls()}, {"error_rate", s.error_rate()}, {"outcomes", s.outcomes},
             {"latency", s.latency}, {"histogram", s.histogram}};
}
inline void from_json(const json& j, call_stats& s) { detail::read_report({j, "call_stats"}, s); }

inline void to_json(json& j, const timeline_point& p) {
    j = json{{"at_s", p.at_s}, {"completed", p.completed}, {"errors", p.errors}, {"in_flight", p.in_flight}};
}
inline void from_json(const json& j, timeline_point& p) { detail::read_report({j, "timeline_point"}, p); }

inline void to_json(json& j, const latency_interval& i) {
    j = json{{"at_s", i.at_s}, {"length_s", i.length_s}, {"tag", i.tag}, {"count", i.count}, {"hdr", i.hdr}};
}
inline void from_json(const json& j, latency_interval& i) { detail::read_report({j, "latency_interval"}, i); }

inline void to_json(json& j, const stage_report& s) {
    j = json{{"name", s.name}, {"target", s.target}, {"start_s", s.start_s}, {"duration_s", s.duration_s},
             {"dropped", s.dropped}, {"stats", s.stats}, {"throughput_rps", s.throughput_rps}};
}
inline void from_json(const json& j, stage_report& s) { detail::read_report({j, "stage_report"}, s); }

inline void to_json(json& j, const generator_report& g) {
    j = json{{"cpu_pct", g.cpu_pct}, {"send_lag", g.send_lag}, {"late_sends", g.late_sends},
             {"saturated", g.saturated}, {"explanation", g.explanation}};
}
inline void from_json(const json& j, generator_report& g) { detail::read_report({j, "generator_report"}, g); }

inline void to_json(json& j, const server_process_report& p) {
    j = json{{"session", p.session}, {"pid", p.pid}, {"stats", p.stats}, {"leaks", p.leaks}, {"samples", p.samples}};
    if (!p.descendants.empty()) {  // older readers and reports of servers without children keep their shape
        j["descendants"] = p.descendants;
        j["tree_stats"] = p.tree_stats;
    }
    if (p.source) j["source"] = *p.source;
}
inline void from_json(const json& j, server_process_report& p) {
    detail::read_report({j, "server_process_report"}, p);
}

inline void to_json(json& j, const threshold_violation& v) {
    j = json{{"metric", v.metric}, {"expected", v.expected}, {"actual", v.actual}, {"meaning", v.meaning}};
}
inline void from_json(const json& j, threshold_violation& v) { detail::read_report({j, "threshold_violation"}, v); }

inline void to_json(json& j, const failure_group& g) {
    j = json{{"message", g.message}, {"count", g.count}, {"first_iteration", g.first_iteration}, {"sample", g.sample}};
}
inline void from_json(const json& j, failure_group& g) { detail::read_report({j, "failure_group"}, g); }

inline void to_json(json& j, const scenario_failures& f) {
    j = json{{"failed_checks", f.failed_checks}, {"exceptions", f.exceptions}, {"checks", f.checks},
             {"exceptions_thrown", f.exceptions_thrown}};
}
inline void from_json(const json& j, scenario_failures& f) { detail::read_report({j, "scenario_failures"}, f); }

inline void to_json(json& j, const cancellation_counts& c) {
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
inline void from_json(const json& j, cancellation_counts& c) { detail::read_report({j, "cancellation_counts"}, c); }

inline void to_json(json& j, const load_report& r) {
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
}

/// Reads what to_json() writes. Any bad value throws std::invalid_argument naming its path and
/// what was expected, e.g. `report.per_tool["echo"].outcomes.ok: -1 is not a non-negative integer`;
/// numbers are range-checked for the fields they fill. Members with a default (transport, seed,
/// late_replies, the explanations, ...) may be missing; unknown members are ignored.
inline void from_json(const json& j, load_report& r) {
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
    if (const auto coverage = in.find("coverage")) r.coverage = coverage->decode<coverage_report>();
    if (const auto cancellation = in.find("cancellation")) detail::read_report(*cancellation, r.cancellation);
    else r.cancellation = {};
    r.processes = detail::read_all<server_process_report>(in["processes"]);
    detail::read_report(in["generator"], r.generator);
    r.violations = detail::read_all<threshold_violation>(in["violations"]);
    const auto aborted = in.find("aborted");
    r.aborted = aborted && aborted->boolean();
    r.abort_reason = optional_string(in, "abort_reason");
    r.passed = in["passed"].boolean();
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
    if (protocol_violations) s += std::to_string(protocol_violations) + " protocol violation(s)\n";
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
    if (breaking_stage) s += "breaking point: " + breaking_reason + "\n";
    if (aborted) s += "aborted: " + abort_reason + "\n";
    for (const auto& v : violations) s += "violation: " + v.describe() + "\n";
    return s;
}

}  // namespace mcp_loadtest
