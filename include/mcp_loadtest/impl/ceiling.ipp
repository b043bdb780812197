// Definitions of ceiling.hpp (header-only: included by it; separate compilation: compiled once
// by impl/src.hpp).
#pragma once

#include <mcp_loadtest/ceiling.hpp>

#include <mcp_loadtest/detail/clock.hpp>
#include <mcp_loadtest/detail/report/svg_chart.hpp>
#include <mcp_loadtest/detail/text/format.hpp>
#include <mcp_loadtest/detail/text/html_escape.hpp>
#include <mcp_loadtest/report/html.hpp>
#include <mcp_loadtest/report/markdown.hpp>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mcp_loadtest {

namespace detail {

MCP_LOADTEST_DECL std::string format_rate(double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, std::fabs(v) < 1e5 ? "%.5g" : "%.0f", v);
    return buf;
}

MCP_LOADTEST_DECL std::uint64_t ceiling_required_calls(std::size_t tail_calls, double q) noexcept {
    const double tail = 1.0 - std::clamp(q, 0.0, 0.999999);
    return static_cast<std::uint64_t>(std::ceil(static_cast<double>(tail_calls) / tail - 1e-9));
}

MCP_LOADTEST_DECL std::chrono::nanoseconds ceiling_step_length(const ceiling_options& o, std::uint64_t calls,
                                                              double rate) noexcept {
    const double needed_s = rate > 0 ? static_cast<double>(calls) / rate : 0;
    const auto needed = std::chrono::nanoseconds(static_cast<std::int64_t>(std::min(needed_s, 1e6) * 1e9));
    return std::clamp(needed, o.min_step, std::max(o.min_step, o.max_step));
}

MCP_LOADTEST_DECL double strictest_percentile(const thresholds& t) noexcept {
    double q = 0.5;
    const auto from = [&q](const auto& x) {
        if (x.p90) q = std::max(q, 0.90);
        if (x.p95) q = std::max(q, 0.95);
        if (x.p99) q = std::max(q, 0.99);
        if (x.p999) q = std::max(q, 0.999);
    };
    from(t);
    for (const auto& [name, x] : t.per_tool) from(x);
    for (const auto& [name, x] : t.per_step) from(x);
    return q;
}

MCP_LOADTEST_DECL void check_ceiling_arguments(const thresholds& t, const ceiling_options& o) {
    const auto bad = [](const std::string& what) {
        throw std::invalid_argument("mcp_loadtest::find_ceiling: " + what);
    };
    if (!(o.start_rate > 0) || !std::isfinite(o.start_rate))
        bad("ceiling_options::start_rate must be a positive number of iterations per second (it is " +
            format_plain(o.start_rate) + ")");
    if (!(o.max_rate >= o.start_rate) || !std::isfinite(o.max_rate))
        bad("ceiling_options::max_rate (" + format_plain(o.max_rate) + ") must be at least start_rate (" +
            format_plain(o.start_rate) + ")");
    if (!(o.min_rate > 0) || o.min_rate > o.start_rate)
        bad("ceiling_options::min_rate (" + format_plain(o.min_rate) + ") must be above 0 and at most start_rate (" +
            format_plain(o.start_rate) + ")");
    if (!(o.growth > 1) || !std::isfinite(o.growth))
        bad("ceiling_options::growth must be above 1 (it is " + format_plain(o.growth) + "): 2 doubles the rate each step");
    if (!(o.resolution > 0 && o.resolution < 1))
        bad("ceiling_options::resolution must be a fraction between 0 and 1 (it is " + format_plain(o.resolution) +
            "): 0.05 narrows the bracket to 5 %");
    if (o.tail_calls == 0) bad("ceiling_options::tail_calls must be at least 1 (10 is the default)");
    if (o.min_step.count() <= 0) bad("ceiling_options::min_step must be positive");
    if (o.max_step < o.min_step) bad("ceiling_options::max_step must be at least min_step");
    if (o.budget < o.min_step)
        bad("ceiling_options::budget (" + format_seconds(o.budget) + ") is shorter than one step (min_step " +
            format_seconds(o.min_step) + "): raise the budget");
    if (!(o.min_achieved >= 0 && o.min_achieved <= 1))
        bad("ceiling_options::min_achieved must be a fraction between 0 and 1 (it is " + format_plain(o.min_achieved) + ")");
    if (o.max_in_flight == 0) bad("ceiling_options::max_in_flight must be at least 1");
    if (t.rss_growth_mb || t.leak_slope_mb_per_s || t.fd_growth || t.thread_growth)
        bad("resource objectives (rss_growth_mb, leak_slope_mb_per_s, fd_growth, thread_growth) need a whole run, and "
            "each ceiling step is short: drop them from the search's thresholds and judge them in a soak() at the "
            "ceiling found");
    const bool judged = t.p50 || t.p90 || t.p95 || t.p99 || t.p999 || t.max || t.error_rate || !t.per_tool.empty() ||
                        !t.per_step.empty() || t.max_hangs || t.max_deadlocks || !t.max_outcomes.empty();
    if (!judged && o.min_achieved == 0)
        bad("nothing can fail a step: give an objective (e.g. thresholds{.p99 = 100ms}) or keep "
            "ceiling_options::min_achieved above 0");
}

MCP_LOADTEST_DECL std::vector<std::string> describe_objectives(const thresholds& t) {
    std::vector<std::string> out;
    const auto latency = [&out](const std::string& prefix, const auto& x) {
        const auto one = [&](const char* name, const std::optional<std::chrono::nanoseconds>& v) {
            if (v) out.push_back(prefix + name + " <= " + format_ms(*v));
        };
        one("p50", x.p50);
        one("p90", x.p90);
        one("p95", x.p95);
        one("p99", x.p99);
        one("p999", x.p999);
        one("max", x.max);
        if (x.error_rate) out.push_back(prefix + "error_rate <= " + format_pct(*x.error_rate));
    };
    latency("", t);
    for (const auto& [name, x] : t.per_tool) latency("tool:" + name + ":", x);
    for (const auto& [name, x] : t.per_step) latency("step:" + name + ":", x);
    const auto count = [&out](const char* name, const std::optional<std::uint64_t>& v) {
        if (v) out.push_back(std::string(name) + " <= " + std::to_string(*v));
    };
    count("hangs", t.max_hangs);
    count("deadlocks", t.max_deadlocks);
    count("dropped", t.max_dropped);
    count("protocol_violations", t.max_protocol_violations);
    count("schema_violations", t.max_schema_violations);
    for (const auto& [o, limit] : t.max_outcomes)
        out.push_back("outcomes." + std::string(to_string(o)) + " <= " + std::to_string(limit));
    return out;
}

MCP_LOADTEST_DECL ceiling_step judge_ceiling_step(const load_report& r, const ceiling_options& o, double rate,
                                                  std::chrono::nanoseconds planned, std::uint64_t required_calls,
                                                  std::chrono::nanoseconds bucket) {
    ceiling_step s;
    s.offered_rate = rate;
    s.planned_s = std::chrono::duration<double>(planned).count();
    s.duration_s = r.duration_s;
    s.iterations = r.iterations_completed;
    s.calls = r.overall.calls();
    s.dropped = r.dropped;
    s.required_calls = required_calls;
    s.latency = r.overall.latency;
    s.error_rate = r.overall.error_rate();
    s.ended_early = r.breach.has_value();
    s.generator_saturated = r.generator.saturated;
    // The rate the server kept up with, two ways; the higher counts (each can only fall short):
    // - every completion over [fastest call, end of run]: a queue's drain after the load pulls
    //   it to the server's capacity; with a wide latency spread it falls short while it keeps up;
    // - the completions of the timeline buckets inside the load once the slowest calls (p99)
    //   of its start have had time to end: the steady flow, whatever the spread.
    const double span = std::max(r.duration_s - std::chrono::duration<double>(r.overall.latency.min).count(),
                                 r.duration_s / 2);
    const double per_call = s.calls > 0 ? static_cast<double>(r.iterations_completed) / static_cast<double>(s.calls) : 0;
    s.achieved_rate = span > 0 ? static_cast<double>(r.iterations_completed) / span : 0;
    const double bucket_s = std::chrono::duration<double>(bucket).count();
    if (bucket_s > 0) {
        const double load_end = r.breach ? std::min(r.breach->at_s, s.planned_s) : s.planned_s;
        const auto first = static_cast<std::size_t>(std::chrono::duration<double>(r.overall.latency.p99).count() / bucket_s) + 1;
        const auto end = static_cast<std::size_t>(std::floor(load_end / bucket_s + 1e-9));  // buckets wholly in the load
        if (end >= first + 2 && end <= r.timeline.size()) {
            std::uint64_t completed = 0;
            for (std::size_t i = first; i < end; ++i) completed += r.timeline[i].completed;
            s.achieved_rate = std::max(s.achieved_rate, static_cast<double>(completed) * per_call /
                                                            (static_cast<double>(end - first) * bucket_s));
        }
    }
    if (r.breach) {
        s.reason = r.breach->violation.metric + " " + r.breach->violation.actual + " (expected " +
                   r.breach->violation.expected + "), breached at " + format_plain(r.breach->at_s) + " s";
    } else {
        for (const auto& v : r.violations)
            if (v.metric != "run") {
                s.reason = v.metric + " " + v.actual + " (expected " + v.expected + ")";
                break;
            }
        if (s.reason.empty() && !r.violations.empty()) s.reason = r.violations.front().actual;
    }
    if (s.reason.empty() && r.dropped > 0)
        s.reason = std::to_string(r.dropped) + " arrival(s) dropped: " + std::to_string(o.max_in_flight) +
                   " iterations were unfinished (max_in_flight)";
    if (s.reason.empty() && s.achieved_rate < o.min_achieved * rate)
        s.reason = "achieved " + format_rate(s.achieved_rate) + "/s of " + format_rate(rate) + "/s offered (below " +
                   format_pct(o.min_achieved) + ")";
    s.passed = s.reason.empty();
    if (!s.passed && s.generator_saturated)
        s.reason += "; the load generator was saturated, so it may be the limit (" + r.generator.explanation + ")";
    return s;
}

}  // namespace detail

MCP_LOADTEST_DECL std::vector<ceiling_step> ceiling_report::curve() const {
    std::vector<ceiling_step> c = steps;
    std::stable_sort(c.begin(), c.end(),
                     [](const ceiling_step& a, const ceiling_step& b) { return a.offered_rate < b.offered_rate; });
    return c;
}

MCP_LOADTEST_DECL std::string ceiling_report::verdict_sentence() const {
    using detail::format_rate;
    const std::string n = std::to_string(steps.size()) + " step(s) in " + detail::format_seconds(took);
    const std::string budget = budget_exhausted ? " The time budget (" + detail::format_seconds(options.budget) +
                                                      ") ended the search: " + stop_reason
                                                : std::string();
    switch (verdict) {
        case ceiling_verdict::found:
            return "The highest sustainable rate is " + format_rate(ceiling_rate) + " iterations/s: it met every objective, " +
                   format_rate(first_bad_rate) + "/s did not (" + n + ", resolution " + detail::format_pct(options.resolution) +
                   "). The most the server completed was " + format_rate(peak_achieved_rate) + "/s.";
        case ceiling_verdict::bracketed:
            return "The ceiling lies between " + format_rate(ceiling_rate) + " iterations/s (passed) and " +
                   format_rate(first_bad_rate) + "/s (failed), not narrowed to the resolution of " +
                   detail::format_pct(options.resolution) + " (" + n + ")." + budget;
        case ceiling_verdict::at_least_max:
            return "Every rate up to max_rate " + format_rate(options.max_rate) +
                   " iterations/s met the objectives: the ceiling is higher (" + n + "). Raise max_rate to find it.";
        case ceiling_verdict::lower_bound:
            return "The ceiling is at least " + format_rate(ceiling_rate) + " iterations/s: every rate tried passed (" + n +
                   ")." + budget + " Raise the budget or start_rate to find it.";
        case ceiling_verdict::not_reached:
            if (first_bad_rate > 0)
                return "No rate met the objectives: the lowest tried, " + format_rate(first_bad_rate) + "/s, failed (" + n +
                       ")." + (budget.empty() ? " " + stop_reason : budget);
            return "No rate was tried (" + n + ")." + (budget.empty() ? " " + stop_reason : budget);
    }
    return stop_reason;
}

MCP_LOADTEST_DECL asio::awaitable<ceiling_report> find_ceiling(any_server server, iteration_body body, thresholds objectives,
                                                               ceiling_options search, run_options options) {
    detail::check_ceiling_arguments(objectives, search);
    ceiling_report report;
    report.options = search;
    report.objectives = detail::describe_objectives(objectives);
    report.strictest_percentile = detail::strictest_percentile(objectives);
    const std::uint64_t required = detail::ceiling_required_calls(search.tail_calls, report.strictest_percentile);
    options.sample_interval = std::chrono::milliseconds(0);  // steps are short: resources are not judged
    options.run_directory.enabled = false;                   // one per step would be noise

    const auto t0 = detail::clock::now();
    std::optional<double> good, bad;
    double rate = search.start_rate;
    ceiling_phase phase = ceiling_phase::grow;
    for (;;) {
        const auto planned = detail::ceiling_step_length(search, required, rate);
        const auto elapsed = detail::clock::now() - t0;
        if (elapsed + planned > search.budget) {
            report.budget_exhausted = true;
            report.stop_reason = "the next step (" + detail::format_rate(rate) + "/s for " + detail::format_seconds(planned) +
                                 ") would have ended past it, after " +
                                 detail::format_seconds(std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed)) + ".";
            break;
        }
        thresholds step_objectives = objectives;
        // Judged once half the step's calls are in (tail_calls / 2 above the percentile: a breach
        // is then no single slow call), and not before a fifth of the step.
        const auto delay = std::max<std::chrono::nanoseconds>(
            planned / 5, std::chrono::nanoseconds(static_cast<std::int64_t>(static_cast<double>(required) / 2 / rate * 1e9)));
        if (search.end_failing_steps_early && !step_objectives.abort_on_breach_after && delay < planned)
            step_objectives.abort_on_breach_after = delay;
        run_options step_options = options;
        // The breach is judged every timeline bucket: ten looks per step at least.
        step_options.timeline_bucket = std::min(
            options.timeline_bucket,
            std::max(std::chrono::milliseconds(10), std::chrono::duration_cast<std::chrono::milliseconds>(planned / 10)));
        const workload load = open_load{.rate = rate, .duration = planned, .max_in_flight = search.max_in_flight,
                                        .arrivals = search.arrivals};
        iteration_body step_body = body;
        load_report r = co_await run(server, load, std::move(step_body), step_objectives, step_options);
        if (report.server.empty()) report.server = r.server;
        ceiling_step step = detail::judge_ceiling_step(r, search, rate, planned, required, step_options.timeline_bucket);
        step.phase = phase;
        const bool passed = step.passed;
        report.steps.push_back(std::move(step));

        if (passed) {
            good = rate;
        } else {
            bad = rate;
        }
        if (good && bad) {
            if (*bad - *good <= search.resolution * *good) {
                report.stop_reason = "the bracket is within the resolution.";
                break;
            }
            phase = ceiling_phase::bisect;
            rate = (*good + *bad) / 2;
        } else if (good) {
            if (rate >= search.max_rate) {
                report.stop_reason = "max_rate was sustained.";
                break;
            }
            rate = std::min(rate * search.growth, search.max_rate);
        } else {
            if (rate <= search.min_rate) {
                report.stop_reason = "min_rate " + detail::format_rate(search.min_rate) + "/s failed too.";
                break;
            }
            phase = ceiling_phase::descend;
            rate = std::max(rate / search.growth, search.min_rate);
        }
    }
    report.ceiling_rate = good.value_or(0);
    report.first_bad_rate = bad.value_or(0);
    if (good && bad)
        report.verdict = *bad - *good <= search.resolution * *good ? ceiling_verdict::found : ceiling_verdict::bracketed;
    else if (good)  // no step failed: max_rate sustained, or the budget ended the growth
        report.verdict = *good >= search.max_rate ? ceiling_verdict::at_least_max : ceiling_verdict::lower_bound;
    else
        report.verdict = ceiling_verdict::not_reached;
    for (const auto& step : report.steps) report.peak_achieved_rate = std::max(report.peak_achieved_rate, step.achieved_rate);
    report.took = std::chrono::duration_cast<std::chrono::nanoseconds>(detail::clock::now() - t0);
    co_return report;
}

MCP_LOADTEST_DECL asio::awaitable<ceiling_report> find_ceiling(any_server server, iteration_body body, thresholds objectives,
                                                               ceiling_options search) {
    return find_ceiling(std::move(server), std::move(body), std::move(objectives), search, run_options{});
}

// ---- JSON -------------------------------------------------------------------------

namespace detail {

template <class E, std::size_t N>
E ceiling_enum_from_name(const std::string& name, const E (&all)[N]) {
    for (E e : all)
        if (to_string(e) == name) return e;
    throw std::invalid_argument("ceiling report: unknown value '" + name + "'");
}

inline constexpr ceiling_verdict all_ceiling_verdicts[] = {ceiling_verdict::found, ceiling_verdict::bracketed,
                                                           ceiling_verdict::at_least_max, ceiling_verdict::lower_bound,
                                                           ceiling_verdict::not_reached};
inline constexpr ceiling_phase all_ceiling_phases[] = {ceiling_phase::grow, ceiling_phase::descend, ceiling_phase::bisect};

[[nodiscard]] constexpr std::string_view arrivals_name(arrival_process a) noexcept {
    return a == arrival_process::poisson ? "poisson" : "even";
}

}  // namespace detail

MCP_LOADTEST_DECL void to_json(json& j, const ceiling_options& o) {
    j = json{{"start_rate", o.start_rate},
             {"max_rate", o.max_rate},
             {"min_rate", o.min_rate},
             {"growth", o.growth},
             {"resolution", o.resolution},
             {"tail_calls", o.tail_calls},
             {"min_step_ns", o.min_step.count()},
             {"max_step_ns", o.max_step.count()},
             {"budget_ns", o.budget.count()},
             {"min_achieved", o.min_achieved},
             {"end_failing_steps_early", o.end_failing_steps_early},
             {"arrivals", detail::arrivals_name(o.arrivals)},
             {"max_in_flight", o.max_in_flight}};
}

MCP_LOADTEST_DECL void from_json(const json& j, ceiling_options& o) {
    o.start_rate = j.at("start_rate").get<double>();
    o.max_rate = j.at("max_rate").get<double>();
    o.min_rate = j.at("min_rate").get<double>();
    o.growth = j.at("growth").get<double>();
    o.resolution = j.at("resolution").get<double>();
    o.tail_calls = j.at("tail_calls").get<std::size_t>();
    o.min_step = std::chrono::nanoseconds(j.at("min_step_ns").get<std::int64_t>());
    o.max_step = std::chrono::nanoseconds(j.at("max_step_ns").get<std::int64_t>());
    o.budget = std::chrono::nanoseconds(j.at("budget_ns").get<std::int64_t>());
    o.min_achieved = j.at("min_achieved").get<double>();
    o.end_failing_steps_early = j.at("end_failing_steps_early").get<bool>();
    const auto arrivals = j.at("arrivals").get<std::string>();
    if (arrivals != "even" && arrivals != "poisson")
        throw std::invalid_argument("ceiling report: unknown arrivals '" + arrivals + "' (even or poisson)");
    o.arrivals = arrivals == "poisson" ? arrival_process::poisson : arrival_process::even;
    o.max_in_flight = j.at("max_in_flight").get<std::size_t>();
}

MCP_LOADTEST_DECL void to_json(json& j, const ceiling_step& s) {
    j = json{{"phase", to_string(s.phase)},
             {"offered_rate", s.offered_rate},
             {"achieved_rate", s.achieved_rate},
             {"planned_s", s.planned_s},
             {"duration_s", s.duration_s},
             {"iterations", s.iterations},
             {"calls", s.calls},
             {"dropped", s.dropped},
             {"required_calls", s.required_calls},
             {"enough_calls", s.enough_calls()},
             {"latency", s.latency},
             {"error_rate", s.error_rate},
             {"ended_early", s.ended_early},
             {"generator_saturated", s.generator_saturated},
             {"passed", s.passed},
             {"reason", s.reason}};
}

MCP_LOADTEST_DECL void from_json(const json& j, ceiling_step& s) {
    s.phase = detail::ceiling_enum_from_name(j.at("phase").get<std::string>(), detail::all_ceiling_phases);
    s.offered_rate = j.at("offered_rate").get<double>();
    s.achieved_rate = j.at("achieved_rate").get<double>();
    s.planned_s = j.at("planned_s").get<double>();
    s.duration_s = j.at("duration_s").get<double>();
    s.iterations = j.at("iterations").get<std::uint64_t>();
    s.calls = j.at("calls").get<std::uint64_t>();
    s.dropped = j.at("dropped").get<std::uint64_t>();
    s.required_calls = j.at("required_calls").get<std::uint64_t>();
    s.latency = j.at("latency").get<latency_summary>();
    s.error_rate = j.at("error_rate").get<double>();
    s.ended_early = j.at("ended_early").get<bool>();
    s.generator_saturated = j.at("generator_saturated").get<bool>();
    s.passed = j.at("passed").get<bool>();
    s.reason = j.at("reason").get<std::string>();
}

MCP_LOADTEST_DECL void to_json(json& j, const ceiling_report& r) {
    j = json{{"schema", "mcp-loadtest/ceiling/v1"},
             {"verdict", to_string(r.verdict)},
             {"verdict_sentence", r.verdict_sentence()},
             {"ceiling_rate", r.ceiling_rate},
             {"first_bad_rate", r.first_bad_rate},
             {"peak_achieved_rate", r.peak_achieved_rate},
             {"server", r.server},
             {"objectives", r.objectives},
             {"strictest_percentile", r.strictest_percentile},
             {"options", r.options},
             {"steps", r.steps},
             {"budget_exhausted", r.budget_exhausted},
             {"stop_reason", r.stop_reason},
             {"took_ns", r.took.count()}};
}

MCP_LOADTEST_DECL void from_json(const json& j, ceiling_report& r) {
    r.verdict = detail::ceiling_enum_from_name(j.at("verdict").get<std::string>(), detail::all_ceiling_verdicts);
    r.ceiling_rate = j.at("ceiling_rate").get<double>();
    r.first_bad_rate = j.at("first_bad_rate").get<double>();
    r.peak_achieved_rate = j.at("peak_achieved_rate").get<double>();
    r.server = j.at("server").get<std::string>();
    r.objectives = j.at("objectives").get<std::vector<std::string>>();
    r.strictest_percentile = j.at("strictest_percentile").get<double>();
    r.options = j.at("options").get<ceiling_options>();
    r.steps = j.at("steps").get<std::vector<ceiling_step>>();
    r.budget_exhausted = j.at("budget_exhausted").get<bool>();
    r.stop_reason = j.at("stop_reason").get<std::string>();
    r.took = std::chrono::nanoseconds(j.at("took_ns").get<std::int64_t>());
}

// ---- Markdown and HTML ------------------------------------------------------------

namespace detail {

/// One row per step, sorted by offered rate; the first cell is the step's number in the search.
MCP_LOADTEST_DECL std::vector<std::vector<std::string>> ceiling_rows(const ceiling_report& r) {
    std::vector<std::size_t> order(r.steps.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return r.steps[a].offered_rate < r.steps[b].offered_rate; });
    std::vector<std::vector<std::string>> rows;
    for (std::size_t i : order) {
        const auto& s = r.steps[i];
        std::string calls = std::to_string(s.calls);
        if (!s.enough_calls()) calls += " (rule: " + std::to_string(s.required_calls) + ")";
        rows.push_back({format_rate(s.offered_rate), format_rate(s.achieved_rate), std::to_string(i + 1),
                        std::string(to_string(s.phase)), format_plain(s.duration_s), calls, format_ms(s.latency.p50),
                        format_ms(s.latency.p99), format_pct(s.error_rate), s.passed ? "pass" : "fail", s.reason});
    }
    return rows;
}

MCP_LOADTEST_DECL std::vector<std::string> ceiling_columns() {
    return {"offered/s", "achieved/s", "step", "phase", "seconds", "calls", "p50", "p99", "errors", "result", "why"};
}

MCP_LOADTEST_DECL std::string ceiling_figures_sentence(const ceiling_report& r) {
    std::string objectives;
    for (const auto& o : r.objectives) objectives += (objectives.empty() ? "" : ", ") + o;
    if (objectives.empty()) objectives = "none";
    return "Objectives per step: " + objectives + "; achieved ≥ " + format_pct(r.options.min_achieved) +
           " of offered; no arrival dropped. Step length: max(" + format_seconds(r.options.min_step) + ", " +
           std::to_string(ceiling_required_calls(r.options.tail_calls, r.strictest_percentile)) + " calls / rate), at most " +
           format_seconds(r.options.max_step) + " (" + std::to_string(r.options.tail_calls) + " calls above p" +
           format_plain(100 * r.strictest_percentile) + "). Search: from " + format_rate(r.options.start_rate) + "/s, ×" +
           format_plain(r.options.growth) + " until a step fails, then bisection to " + format_pct(r.options.resolution) +
           "; budget " + format_seconds(r.options.budget) + ", used " + format_seconds(r.took) +
           (r.budget_exhausted ? " (exhausted)" : "") + ".";
}

}  // namespace detail

MCP_LOADTEST_DECL std::string to_markdown(const ceiling_report& r) {
    using detail::markdown_cell;
    std::string s = std::string("## ") + (r.ceiling_rate > 0 ? "📈" : "❔") +
                    " Ceiling: " + (r.ceiling_rate > 0 ? detail::format_rate(r.ceiling_rate) + " iterations/s" : "none") +
                    " (" + std::string(to_string(r.verdict)) + ")\n\n" + markdown_cell(r.verdict_sentence(), 3000) + "\n\n" +
                    "Server: " + markdown_cell(r.server, 300) + ". " + markdown_cell(detail::ceiling_figures_sentence(r), 3000) +
                    "\n\n";
    // Numbers right, phase, result and why left.
    s += detail::md_row(detail::ceiling_columns()) + "| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |\n";
    for (auto row : detail::ceiling_rows(r)) {
        for (auto& c : row) c = markdown_cell(c, 300);
        s += detail::md_row(row);
    }
    return s;
}

MCP_LOADTEST_DECL std::string to_html(const ceiling_report& r) {
    using detail::html_escape;
    const bool found = r.ceiling_rate > 0;
    const std::string title = "Ceiling: " + (r.ceiling_rate > 0 ? detail::format_rate(r.ceiling_rate) + " iterations/s" : "none");
    std::string s = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">"
                    "<title>" + html_escape(title) + " · mcp-loadtest</title><style>" + std::string(detail::html_style) +
                    "</style></head><body>\n";
    s += "<div class=\"verdict " + std::string(found ? "pass" : "fail") + "\"><h1 id=\"verdict\">" + html_escape(title) +
         " (" + std::string(to_string(r.verdict)) + ")</h1><div id=\"verdict-sentence\">" + html_escape(r.verdict_sentence()) +
         "</div></div>\n";
    s += "<p class=\"meta\">server: <code>" + html_escape(r.server) + "</code><br>" +
         html_escape(detail::ceiling_figures_sentence(r)) + "</p>\n";
    const auto curve = r.curve();
    detail::line_chart latency;
    latency.title = "Latency by offered rate";
    latency.x_label = "offered iterations/s";
    latency.y_label = "ms";
    detail::chart_series p50{"p50", detail::chart_colours[0], {}}, p99{"p99", detail::chart_colours[1], {}};
    detail::line_chart rates;
    rates.title = "Achieved by offered rate";
    rates.x_label = "offered iterations/s";
    rates.y_label = "iterations/s";
    detail::chart_series offered{"offered", detail::chart_colours[7], {}}, achieved{"achieved", detail::chart_colours[2], {}};
    detail::line_chart errors;
    errors.title = "Errors by offered rate";
    errors.x_label = "offered iterations/s";
    errors.y_label = "%";
    detail::chart_series error_pct{"errors", detail::chart_colours[3], {}};
    for (const auto& step : curve) {
        p50.points.emplace_back(step.offered_rate, detail::ms(step.latency.p50));
        p99.points.emplace_back(step.offered_rate, detail::ms(step.latency.p99));
        offered.points.emplace_back(step.offered_rate, step.offered_rate);
        achieved.points.emplace_back(step.offered_rate, step.achieved_rate);
        error_pct.points.emplace_back(step.offered_rate, 100 * step.error_rate);
    }
    latency.series = {std::move(p50), std::move(p99)};
    rates.series = {std::move(offered), std::move(achieved)};
    errors.series = {std::move(error_pct)};
    s += "<h2>The curve</h2><div class=\"charts\">" + detail::chart_with_data(latency, "offered/s") +
         detail::chart_with_data(rates, "offered/s") + detail::chart_with_data(errors, "offered/s") + "</div>\n";
    s += "<h2>Steps</h2>" + detail::html_table(detail::ceiling_columns(), detail::ceiling_rows(r), "steps");
    return s + "</body></html>\n";
}

}  // namespace mcp_loadtest
