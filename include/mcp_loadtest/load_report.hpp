// The result of a load run: plain aggregates with no hidden state,
// convertible to and from JSON (schema: docs/schema/load_report.schema.json).
#pragma once

#include <mcp_loadtest/coverage.hpp>
#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/text/format.hpp>
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
    [[nodiscard]] MCP_LOADTEST_DECL std::uint64_t total() const noexcept;
    /// Calls that did not end `ok` (tool errors count as errors; `throttled` calls do not: the
    /// server asked for less load, which is counted on its own).
    [[nodiscard]] std::uint64_t errors() const noexcept {
        return total() - (*this)[outcome::ok] - (*this)[outcome::throttled];
    }
    [[nodiscard]] MCP_LOADTEST_DECL double error_rate() const noexcept;
    MCP_LOADTEST_DECL void merge(const outcome_counts& o) noexcept;
};

/// The progress notifications of the calls that asked for them (call_options::progress,
/// weighted_call::progress) in one slice of the run. In JSON only when a call asked or got any.
struct progress_stats {
    std::uint64_t asked = 0;          ///< calls that asked for progress (_meta.progressToken)
    std::uint64_t answered = 0;       ///< of those, calls that received at least one notification
    std::uint64_t notifications = 0;  ///< notifications/progress they received while in flight
    /// Progress rules broken while they were in flight (a value not above the one before, their
    /// token sent back as another type); those after a result are in load_report::progress.
    std::uint64_t violations = 0;
    latency_histogram first;          ///< from each call's send to its first notification
    latency_summary time_to_first;    ///< from `first`, by finalize()

    [[nodiscard]] bool empty() const noexcept { return asked == 0 && notifications == 0; }
    /// One call that asked: what it got.
    void add(std::uint32_t received, std::chrono::nanoseconds first_after, std::uint32_t broken) {
        ++asked;
        violations += broken;
        if (received == 0) return;
        ++answered;
        notifications += received;
        first.record(first_after);
    }
    void finalize() { time_to_first = first.summary(); }
    MCP_LOADTEST_DECL void merge(const progress_stats& o);
};

/// Calls and latency for one slice of the run (all calls, one tool, one method, one stage).
/// Latency is recorded for every call except `cancelled` ones; in open models it
/// is measured from the intended send time.
struct call_stats {
    outcome_counts outcomes;
    latency_histogram histogram;
    latency_summary latency;  ///< filled from histogram by finalize()
    progress_stats progress;  ///< calls that asked for progress notifications

    [[nodiscard]] std::uint64_t calls() const noexcept { return outcomes.total(); }
    [[nodiscard]] double error_rate() const noexcept { return outcomes.error_rate(); }
    void finalize() {
        latency = histogram.summary();
        if (!progress.empty()) progress.finalize();
    }
    MCP_LOADTEST_DECL void merge(const call_stats& o);
};

/// The progress rules the server broke (MCP, basic/utilities/progress), over every session of
/// the run. Each is a protocol violation too (load_report::protocol_violations counts it).
struct progress_findings {
    std::uint64_t wrong_token = 0;     ///< a token no request in flight was given, or its token as another JSON type
    std::uint64_t after_result = 0;    ///< a notification for a request already answered
    std::uint64_t not_increasing = 0;  ///< a progress value not above the request's previous one
    std::vector<std::string> samples;  ///< the first 10, each naming its request id (0: none could be named)

    [[nodiscard]] std::uint64_t total() const noexcept { return wrong_token + after_result + not_increasing; }
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

/// Why thresholds::abort_on_breach_after ended a run: the objective first found breached, when,
/// and the run's figures at that moment.
struct breach_report {
    threshold_violation violation;
    double at_s = 0;             ///< seconds from the start of the load
    std::uint64_t calls = 0;     ///< calls completed by then
    double error_rate = 0;       ///< of those calls
    latency_summary latency;     ///< of those calls
};

/// Was the load generator itself the bottleneck?
struct generator_report {
    double cpu_pct = 0;             ///< this process's CPU over the run, % of one core
    latency_summary send_lag;       ///< open/rate models: actual send − intended send
    std::uint64_t late_sends = 0;   ///< sends more than max(1 ms, one arrival interval) late
    bool saturated = false;
    std::string explanation;
};

/// OAuth over the run (http_server::oauth, sse_server::oauth, run_options::oauth_for_session).
/// Getting tokens is its own step: the time a call was held back for a token is kept out of
/// its latency and counted here. Set only when a session used OAuth.
struct authorization_report {
    // What the oauth_clients did over the whole run (handshakes included).
    std::uint64_t authorizations = 0;  ///< full flows: discovery, identity, grant
    std::uint64_t refreshes = 0;       ///< renewals: refresh_token grants, client-credentials grants again
    std::uint64_t challenges = 0;      ///< 401s answered (the request sent again with a token)
    std::uint64_t step_ups = 0;        ///< 403 insufficient_scope answered with more scopes
    std::uint64_t failures = 0;        ///< flows that ended without a token
    std::uint64_t requests = 0;        ///< HTTP requests to the authorization server and metadata
    double token_time_s = 0;           ///< spent getting tokens, summed over flows and renewals
    double slowest_token_ms = 0;       ///< the slowest single flow or renewal
    std::string token_endpoint;        ///< where the tokens came from (no credentials)
    // What waiting for tokens cost the load (after the handshakes).
    std::uint64_t held_calls = 0;  ///< requests held back after a refusal until a token came
    double held_s = 0;             ///< the time they waited, summed over the calls
    double blocked_s = 0;          ///< the time sessions had a call held, summed over the sessions
    double blocked_share = 0;      ///< blocked_s over the sessions' time under load (sessions × duration_s)
    /// The authorization server was the bottleneck: sessions had calls held for a token at
    /// least `bottleneck_share` of their time under load.
    bool bottleneck = false;
    std::string explanation;

    static constexpr double bottleneck_share = 0.05;
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
    MCP_LOADTEST_DECL void add_check(std::string_view what, std::string_view detail, std::uint64_t iteration);
    MCP_LOADTEST_DECL void add_exception(std::string_view what, std::uint64_t iteration);

private:
    static MCP_LOADTEST_DECL void add(std::vector<failure_group>& groups, std::string_view what, std::string_view detail,
                                      std::uint64_t iteration);
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
    /// Progress rules broken (calls that asked for progress); per tool, report.per_tool[...].progress.
    progress_findings progress;
    /// Strict mode (client_options::strict): messages that broke a schema.
    std::uint64_t schema_violations = 0;
    std::vector<std::string> schema_violation_samples;  ///< the first few, with pointer and rule
    /// Listed (run_options::list_before_run) versus called tools, resources and prompts.
    coverage_report coverage;
    /// run_options::cancel: the cancels injected and what the server did with them.
    cancellation_counts cancellation;

    std::vector<server_process_report> processes;
    generator_report generator;
    /// OAuth: tokens got and renewed, and the time calls waited for them (unset: no OAuth).
    std::optional<authorization_report> authorization;

    std::vector<threshold_violation> violations;
    bool aborted = false;
    std::string abort_reason;
    std::optional<breach_report> breach;  ///< set when an objective's breach ended the run
    bool passed = false;

    [[nodiscard]] std::uint64_t hangs() const noexcept { return overall.outcomes[outcome::hang]; }
    [[nodiscard]] std::uint64_t deadlocks() const noexcept { return overall.outcomes[outcome::deadlock]; }
    [[nodiscard]] std::uint64_t crashes() const noexcept { return overall.outcomes[outcome::crash]; }
    [[nodiscard]] double error_rate() const noexcept { return overall.error_rate(); }

    /// A few lines for a human: what ran, what it measured, what failed and what it means.
    [[nodiscard]] MCP_LOADTEST_DECL std::string summary() const;

    // Declared here, defaulted in impl/load_report.ipp: with separate compilation a
    // test file that holds a report calls these rather than compiling the
    // destructors and copies of its maps and vectors itself.
    MCP_LOADTEST_DECL load_report();
    MCP_LOADTEST_DECL load_report(const load_report&);
    MCP_LOADTEST_DECL load_report(load_report&&) noexcept;
    MCP_LOADTEST_DECL load_report& operator=(const load_report&);
    MCP_LOADTEST_DECL load_report& operator=(load_report&&) noexcept;
    MCP_LOADTEST_DECL ~load_report();
};

// ---- JSON -----------------------------------------------------------------------

namespace detail {

/// What a call's figures are keyed by in report.per_tool (and the interval tags): a tool call by
/// its tool; another request by its method, then its name when it has one
/// ("resources/read fixture://r/1", "prompts/get greet", "ping").
[[nodiscard]] MCP_LOADTEST_DECL std::string per_tool_key(std::string_view method, std::string_view tool);

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

    [[noreturn]] MCP_LOADTEST_DECL void fail(std::string_view expected) const;

    /// A required member.
    [[nodiscard]] MCP_LOADTEST_DECL report_reader operator[](const char* key) const;
    /// A member older reports may lack.
    [[nodiscard]] MCP_LOADTEST_DECL std::optional<report_reader> find(const char* key) const;

    [[nodiscard]] MCP_LOADTEST_DECL const json& as_object() const;
    [[nodiscard]] bool is_null() const noexcept { return value_.is_null(); }

    /// An integer in [0, max]; a float (2.5, 1e300) is not one, whatever its value.
    [[nodiscard]] MCP_LOADTEST_DECL std::uint64_t non_negative_integer(
                                                                       std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) const;
    template <class Int>
    [[nodiscard]] Int integer() const {
        static_assert(std::is_integral_v<Int>);
        return static_cast<Int>(non_negative_integer(static_cast<std::uint64_t>(std::numeric_limits<Int>::max())));
    }
    [[nodiscard]] MCP_LOADTEST_DECL double number() const;
    [[nodiscard]] MCP_LOADTEST_DECL double non_negative() const;
    [[nodiscard]] MCP_LOADTEST_DECL std::string string() const;
    [[nodiscard]] MCP_LOADTEST_DECL bool boolean() const;
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

MCP_LOADTEST_DECL void read_report(const report_reader& r, outcome_counts& c);

MCP_LOADTEST_DECL void read_report(const report_reader& r, progress_stats& p);

MCP_LOADTEST_DECL void read_report(const report_reader& r, call_stats& s);

MCP_LOADTEST_DECL void read_report(const report_reader& r, progress_findings& f);

MCP_LOADTEST_DECL void read_report(const report_reader& r, timeline_point& p);

MCP_LOADTEST_DECL void read_report(const report_reader& r, latency_interval& i);

MCP_LOADTEST_DECL void read_report(const report_reader& r, stage_report& s);

MCP_LOADTEST_DECL void read_report(const report_reader& r, generator_report& g);

MCP_LOADTEST_DECL void read_report(const report_reader& r, authorization_report& a);

// process_sample, process_stats and leak_analysis have their own from_json; a report reads them
// here so that their numbers are range-checked and named by path like the rest.
MCP_LOADTEST_DECL void read_report(const report_reader& r, process_sample& s);

MCP_LOADTEST_DECL void read_report(const report_reader& r, process_stats& s);

MCP_LOADTEST_DECL void read_report(const report_reader& r, trend_fit& f);

MCP_LOADTEST_DECL void read_report(const report_reader& r, leak_analysis& a);

MCP_LOADTEST_DECL void read_report(const report_reader& r, server_process_report& p);

MCP_LOADTEST_DECL void read_report(const report_reader& r, threshold_violation& v);

MCP_LOADTEST_DECL void read_report(const report_reader& r, std::string& s);

MCP_LOADTEST_DECL void read_report(const report_reader& r, failure_group& g);

MCP_LOADTEST_DECL void read_report(const report_reader& r, scenario_failures& f);

MCP_LOADTEST_DECL void read_report(const report_reader& r, cancellation_counts& c);

MCP_LOADTEST_DECL std::string optional_string(const report_reader& r, const char* key);

MCP_LOADTEST_DECL std::uint64_t optional_integer(const report_reader& r, const char* key);

/// The workload as reports name it: "open", or "open (Poisson arrivals)".
MCP_LOADTEST_DECL std::string workload_label(const load_report& r);

}  // namespace detail

MCP_LOADTEST_DECL void to_json(json& j, const outcome_counts& c);
MCP_LOADTEST_DECL void from_json(const json& j, outcome_counts& c);

MCP_LOADTEST_DECL void to_json(json& j, const progress_stats& p);
MCP_LOADTEST_DECL void to_json(json& j, const progress_findings& f);

MCP_LOADTEST_DECL void to_json(json& j, const call_stats& s);
MCP_LOADTEST_DECL void from_json(const json& j, call_stats& s);

MCP_LOADTEST_DECL void to_json(json& j, const timeline_point& p);
MCP_LOADTEST_DECL void from_json(const json& j, timeline_point& p);

MCP_LOADTEST_DECL void to_json(json& j, const latency_interval& i);
MCP_LOADTEST_DECL void from_json(const json& j, latency_interval& i);

MCP_LOADTEST_DECL void to_json(json& j, const stage_report& s);
MCP_LOADTEST_DECL void from_json(const json& j, stage_report& s);

MCP_LOADTEST_DECL void to_json(json& j, const generator_report& g);
MCP_LOADTEST_DECL void from_json(const json& j, generator_report& g);
MCP_LOADTEST_DECL void to_json(json& j, const authorization_report& a);
MCP_LOADTEST_DECL void from_json(const json& j, authorization_report& a);

MCP_LOADTEST_DECL void to_json(json& j, const breach_report& b);

MCP_LOADTEST_DECL void to_json(json& j, const server_process_report& p);
MCP_LOADTEST_DECL void from_json(const json& j, server_process_report& p);

MCP_LOADTEST_DECL void to_json(json& j, const threshold_violation& v);
MCP_LOADTEST_DECL void from_json(const json& j, threshold_violation& v);

MCP_LOADTEST_DECL void to_json(json& j, const failure_group& g);
MCP_LOADTEST_DECL void from_json(const json& j, failure_group& g);

MCP_LOADTEST_DECL void to_json(json& j, const scenario_failures& f);
MCP_LOADTEST_DECL void from_json(const json& j, scenario_failures& f);

MCP_LOADTEST_DECL void to_json(json& j, const cancellation_counts& c);
MCP_LOADTEST_DECL void from_json(const json& j, cancellation_counts& c);

MCP_LOADTEST_DECL void to_json(json& j, const load_report& r);

/// Reads what to_json() writes. Any bad value throws std::invalid_argument naming its path and
/// what was expected, e.g. `report.per_tool["echo"].outcomes.ok: -1 is not a non-negative integer`;
/// numbers are range-checked for the fields they fill. Members with a default (transport, seed,
/// late_replies, the explanations, ...) may be missing; unknown members are ignored.
MCP_LOADTEST_DECL void from_json(const json& j, load_report& r);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/load_report.ipp>
#endif
