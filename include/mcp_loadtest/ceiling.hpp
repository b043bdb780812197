// The ceiling search (docs/load-testing.md#the-ceiling-search): the highest rate a server
// sustains while meeting its objectives, found adaptively. Each step is one run() of an open
// load at one rate on a fresh start of the server; the rate grows until a step fails, then the
// bracket between the last good and the first bad rate is bisected, until it is narrower than
// the resolution or the time budget is spent. Each step is long enough for its percentile to
// mean something (ceiling_options::tail_calls) and ends early once an objective is breached.
//
//     mlt::thresholds slo;
//     slo.p99 = 50ms;
//     const mlt::ceiling_options search{.start_rate = 50, .max_rate = 5000};
//     auto ceiling = co_await mlt::find_ceiling(server, calls, slo, search);
//     MCP_CHECK_CEILING_AT_LEAST(ceiling, 400);  // calls per second
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/run.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mcp_loadtest {

struct ceiling_options {
    double start_rate = 10;     ///< the first step's offered rate (iterations per second)
    double max_rate = 100000;   ///< never offered above this; a pass here ends the search (at_least_max)
    double min_rate = 1;        ///< when the first step fails, rates go down to this, then the search gives up
    double growth = 2;          ///< until a step fails, each step offers this many times the last
    /// Bisect until first_bad − last_good ≤ resolution × last_good: the ceiling found is then
    /// within this fraction below the lowest rate that failed.
    double resolution = 0.05;
    /// The step-length rule: at least tail_calls / (1 − q) calls per step, q the strictest
    /// percentile among the objectives (p99: 1,000 calls), so that tail_calls calls lie above
    /// it and the percentile is not the slowest call or two. Without a percentile objective q
    /// is the median's 0.5.
    std::size_t tail_calls = 10;
    std::chrono::nanoseconds min_step{std::chrono::seconds(1)};   ///< no step shorter
    std::chrono::nanoseconds max_step{std::chrono::seconds(10)};  ///< no step longer (a shorter step is flagged)
    /// The whole search: no step starts that could not end within it (planned length); the
    /// search then ends with the best bracket so far, and the report says so.
    std::chrono::nanoseconds budget{std::chrono::seconds(60)};
    /// A step fails when the server completed fewer than this fraction of the iterations
    /// offered per second (0: no such check). The backstop for objectives without latency.
    double min_achieved = 0.9;
    /// End a failing step once an objective is breached (thresholds::abort_on_breach_after),
    /// judged once half the step's calls are in (tail_calls / 2 calls above the percentile), and
    /// not before a fifth of the step; the objectives' own abort_on_breach_after wins.
    bool end_failing_steps_early = true;
    arrival_process arrivals = arrival_process::even;  ///< as in open_load
    std::size_t max_in_flight = 10000;                 ///< as in open_load; a dropped arrival fails the step
};
// Written inline inside co_await: must stay trivially copyable (docs/index.md#compiler-notes).
static_assert(std::is_trivially_copyable_v<ceiling_options>);

enum class ceiling_verdict : std::uint8_t {
    found,         ///< bracketed and narrowed to the resolution
    bracketed,     ///< bracketed, but the budget ended the search before the resolution
    at_least_max,  ///< max_rate itself was sustained: the ceiling is higher
    lower_bound,   ///< the budget ended the search before any step failed: the ceiling is at least ceiling_rate
    not_reached,   ///< no rate passed (down to min_rate, or before the budget ran out)
};

[[nodiscard]] constexpr std::string_view to_string(ceiling_verdict v) noexcept {
    switch (v) {
        case ceiling_verdict::found: return "found";
        case ceiling_verdict::bracketed: return "bracketed";
        case ceiling_verdict::at_least_max: return "at_least_max";
        case ceiling_verdict::lower_bound: return "lower_bound";
        case ceiling_verdict::not_reached: return "not_reached";
    }
    return "unknown";
}

/// Which part of the search a step belongs to.
enum class ceiling_phase : std::uint8_t {
    grow,     ///< rising by `growth` until a step fails
    descend,  ///< the first step failed: falling by `growth` until one passes
    bisect,   ///< halving the bracket between the last good and the first bad rate
};

[[nodiscard]] constexpr std::string_view to_string(ceiling_phase p) noexcept {
    switch (p) {
        case ceiling_phase::grow: return "grow";
        case ceiling_phase::descend: return "descend";
        case ceiling_phase::bisect: return "bisect";
    }
    return "unknown";
}

/// One rate tried: one run() of an open load.
struct ceiling_step {
    ceiling_phase phase = ceiling_phase::grow;
    double offered_rate = 0;   ///< iterations per second offered
    /// Iterations the server completed per second: the higher of all completions over the time
    /// from the fastest call to the end of the run (past capacity: the capacity, as the queue
    /// drains), and the completions per second of the timeline once the first calls' p99 has
    /// passed, up to the end of the load. Near the offered rate while the server keeps up.
    double achieved_rate = 0;
    double planned_s = 0;      ///< the step's length by the rule (the load may end earlier on a breach)
    double duration_s = 0;     ///< the run's duration: load plus the calls in flight at its end
    std::uint64_t iterations = 0;  ///< completed
    std::uint64_t calls = 0;
    std::uint64_t dropped = 0;
    std::uint64_t required_calls = 0;  ///< by the step-length rule
    latency_summary latency;   ///< every call of the step (from intended start: open model)
    double error_rate = 0;
    bool ended_early = false;  ///< an objective's breach ended the load before planned_s
    bool generator_saturated = false;  ///< the load generator, not the server, may have been the limit
    bool passed = false;
    std::string reason;        ///< why it failed (empty when it passed)

    /// The step completed at least required_calls calls.
    [[nodiscard]] bool enough_calls() const noexcept { return calls >= required_calls; }
};

struct ceiling_report {
    ceiling_verdict verdict = ceiling_verdict::not_reached;
    /// The highest rate that passed (0: none); the ceiling lies in [ceiling_rate, first_bad_rate).
    double ceiling_rate = 0;
    double first_bad_rate = 0;  ///< the lowest rate that failed (0: none did)
    /// The highest achieved rate of any step: past the ceiling, what the server completes per
    /// second while its queue grows (its throughput capacity, whatever the latency).
    double peak_achieved_rate = 0;
    std::string server;         ///< as load_report::server (no credentials)
    std::vector<std::string> objectives;  ///< what each step was judged by, e.g. "p99 <= 30 ms"
    double strictest_percentile = 0.5;    ///< q of the step-length rule
    ceiling_options options{};
    std::vector<ceiling_step> steps;      ///< in the order run
    bool budget_exhausted = false;        ///< the budget ended the search (bracket as found so far)
    std::string stop_reason;              ///< why the search ended, one sentence
    std::chrono::nanoseconds took{0};     ///< the whole search, server starts included

    /// The steps sorted by offered rate: the rate → latency, errors curve.
    [[nodiscard]] MCP_LOADTEST_DECL std::vector<ceiling_step> curve() const;
    /// What was found, in one sentence with the figures.
    [[nodiscard]] MCP_LOADTEST_DECL std::string verdict_sentence() const;
    /// A ceiling was bracketed (found or bracketed): both a passing and a failing rate.
    [[nodiscard]] bool bracketed() const noexcept {
        return verdict == ceiling_verdict::found || verdict == ceiling_verdict::bracketed;
    }
};

namespace detail {

/// A rate as reports show it: 412.5, 1234.6, 150000.
[[nodiscard]] MCP_LOADTEST_DECL std::string format_rate(double v);
/// The step-length rule: calls needed at percentile q, and a step's planned length at `rate`.
[[nodiscard]] MCP_LOADTEST_DECL std::uint64_t ceiling_required_calls(std::size_t tail_calls, double q) noexcept;
[[nodiscard]] MCP_LOADTEST_DECL std::chrono::nanoseconds ceiling_step_length(const ceiling_options& o, std::uint64_t calls,
                                                                            double rate) noexcept;
/// The strictest percentile (0.5 .. 0.999) among the objectives' latency percentiles.
[[nodiscard]] MCP_LOADTEST_DECL double strictest_percentile(const thresholds& t) noexcept;
/// Throws std::invalid_argument naming what is wrong and what to do.
MCP_LOADTEST_DECL void check_ceiling_arguments(const thresholds& t, const ceiling_options& o);
/// One step's verdict from its run's report (passed, reason, achieved rate, ...); `bucket` is
/// the run's timeline bucket.
[[nodiscard]] MCP_LOADTEST_DECL ceiling_step judge_ceiling_step(const load_report& r, const ceiling_options& o,
                                                                double rate, std::chrono::nanoseconds planned,
                                                                std::uint64_t required_calls, std::chrono::nanoseconds bucket);
/// The objectives as text, e.g. "p99 <= 30 ms", "error_rate <= 1%".
[[nodiscard]] MCP_LOADTEST_DECL std::vector<std::string> describe_objectives(const thresholds& t);
/// The Markdown and HTML forms' table: its columns, and one row per step sorted by offered rate.
[[nodiscard]] MCP_LOADTEST_DECL std::vector<std::string> ceiling_columns();
[[nodiscard]] MCP_LOADTEST_DECL std::vector<std::vector<std::string>> ceiling_rows(const ceiling_report& r);
/// The objectives, the step-length rule and the search's settings, in one paragraph.
[[nodiscard]] MCP_LOADTEST_DECL std::string ceiling_figures_sentence(const ceiling_report& r);

}  // namespace detail

// Overloads, not defaulted arguments: a defaulted run_options{} would be a temporary inside the
// caller's co_await (docs/index.md#compiler-notes).
/// Searches for the highest rate (iterations per second of an open load running `body`) that
/// `server` sustains while meeting `objectives`, as described at the top of this header. Each
/// step is one run() with `options` (its sample_interval set to 0 and its run directory off:
/// steps are short and many), on a fresh start of a stdio server. A step fails when an objective
/// is missed, an arrival is dropped, or the achieved rate falls below min_achieved × offered.
/// Throws std::invalid_argument for bad options, or objectives a short step cannot judge.
MCP_LOADTEST_DECL asio::awaitable<ceiling_report> find_ceiling(any_server server, iteration_body body, thresholds objectives,
                                                               ceiling_options search, run_options options);
MCP_LOADTEST_DECL asio::awaitable<ceiling_report> find_ceiling(any_server server, iteration_body body, thresholds objectives,
                                                               ceiling_options search);

// ---- JSON (durations as integer nanoseconds, rates in iterations per second) ----------------

MCP_LOADTEST_DECL void to_json(json& j, const ceiling_options& o);
MCP_LOADTEST_DECL void from_json(const json& j, ceiling_options& o);
MCP_LOADTEST_DECL void to_json(json& j, const ceiling_step& s);
MCP_LOADTEST_DECL void from_json(const json& j, ceiling_step& s);
MCP_LOADTEST_DECL void to_json(json& j, const ceiling_report& r);
MCP_LOADTEST_DECL void from_json(const json& j, ceiling_report& r);

// ---- Markdown and HTML --------------------------------------------------------------------

/// The search as Markdown: the verdict and its sentence, the figures, then the curve (one row
/// per rate tried, sorted by rate).
[[nodiscard]] MCP_LOADTEST_DECL std::string to_markdown(const ceiling_report& r);

/// The search as one self-contained HTML page: the verdict, the rate → p50 / p99 curve and the
/// offered → achieved rate chart (inline SVG, their numbers under them), and the steps.
[[nodiscard]] MCP_LOADTEST_DECL std::string to_html(const ceiling_report& r);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/ceiling.ipp>
#endif
