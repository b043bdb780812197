// Definitions of report/compare.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/report/compare.hpp>

namespace mcp_loadtest {

namespace detail {

MCP_LOADTEST_DECL std::string fixed(double v, int digits) {
    if (!std::isfinite(v)) return "n/a";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

MCP_LOADTEST_DECL std::string signed_pct(double v) {
    if (!std::isfinite(v)) return "n/a";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%+.1f %%", 100 * v);
    return buf;
}

MCP_LOADTEST_DECL std::string with_unit(double v, const std::string& unit) {
    if (unit == "%") return fixed(100 * v, 2) + " %";
    return fixed(v, unit == "ms" ? 2 : 3) + " " + unit;
}

MCP_LOADTEST_DECL std::string describe_change(const metric_comparison& m) {
    if (m.change_is_absolute) {
        const double scale = m.unit == "%" ? 100 : 1;
        const std::string u = m.unit == "%" ? " points" : " " + m.unit;
        char buf[160];
        std::snprintf(buf, sizeof buf, "%+.3g%s", scale * m.change, u.c_str());
        std::string s = buf;
        if (std::isfinite(m.ci_low)) {
            std::snprintf(buf, sizeof buf, " (CI %+.3g to %+.3g)", scale * m.ci_low, scale * m.ci_high);
            s += buf;
        }
        return s;
    }
    std::string s = signed_pct(m.change);
    if (std::isfinite(m.ci_low)) s += " (CI " + signed_pct(m.ci_low) + " to " + signed_pct(m.ci_high) + ")";
    return s;
}

MCP_LOADTEST_DECL change_verdict decide(double change, double lo, double hi, double floor, int bad_sign) {
    if (!std::isfinite(change) || !std::isfinite(lo) || !std::isfinite(hi)) return change_verdict::inconclusive;
    const double c = bad_sign * change;
    const double worse_lo = bad_sign > 0 ? lo : -hi;  // the interval, turned so that "worse" is positive
    const double worse_hi = bad_sign > 0 ? hi : -lo;
    if (worse_lo > 0 && c >= floor) return change_verdict::regressed;
    if (worse_hi < 0 && -c >= floor) return change_verdict::improved;
    if (worse_lo > -floor && worse_hi < floor) return change_verdict::unchanged;
    return change_verdict::inconclusive;
}

MCP_LOADTEST_DECL std::string verdict_reason(const metric_comparison& m, double confidence) {
    const std::string pct = fixed(100 * confidence, 0) + " %";
    const std::string floor = m.change_is_absolute ? with_unit(m.effect_floor, m.unit) : fixed(100 * m.effect_floor, 1) + " %";
    switch (m.verdict) {
        case change_verdict::regressed:
            return "worse beyond doubt at " + pct + " confidence, and by more than the minimum effect of " + floor;
        case change_verdict::improved:
            return "better beyond doubt at " + pct + " confidence, by more than " + floor;
        case change_verdict::unchanged:
            return "the whole " + pct + " interval lies within ±" + floor;
        case change_verdict::inconclusive:
            return "the " + pct + " interval is too wide to call (it reaches beyond ±" + floor +
                   " without excluding no change, or the change is significant but smaller than " + floor + ")";
    }
    return {};
}

MCP_LOADTEST_DECL void finish_sentence(metric_comparison& m, double confidence) {
    m.sentence = m.name() + ": " + with_unit(m.baseline, m.unit) + " -> " + with_unit(m.current, m.unit) + ", " +
                 describe_change(m) + ": " + std::string(to_string(m.verdict)) + ", " + verdict_reason(m, confidence) + ".";
}

MCP_LOADTEST_DECL metric_comparison inconclusive_metric(std::string scope, std::string metric, std::string unit, bool higher_better,
                                                        double b, double c, std::string why) {
    metric_comparison m;
    m.scope = std::move(scope);
    m.metric = std::move(metric);
    m.unit = std::move(unit);
    m.higher_is_better = higher_better;
    m.baseline = b;
    m.current = c;
    m.change = b > 0 ? c / b - 1 : std::numeric_limits<double>::quiet_NaN();
    m.ci_low = m.ci_high = std::numeric_limits<double>::quiet_NaN();
    m.verdict = change_verdict::inconclusive;
    m.sentence = m.name() + ": " + with_unit(b, m.unit) + " -> " + with_unit(c, m.unit) + ": inconclusive, " + why;
    return m;
}

MCP_LOADTEST_DECL std::vector<sparse_interval> intervals_of(const load_report& r, std::string_view tag) {
    std::vector<const latency_interval*> chosen;
    for (const auto& i : r.intervals)
        if (i.tag == tag) chosen.push_back(&i);
    std::stable_sort(chosen.begin(), chosen.end(), [](auto* a, auto* b) { return a->at_s < b->at_s; });
    std::vector<sparse_interval> out;
    out.reserve(chosen.size());
    for (const auto* i : chosen) out.push_back(sparse_interval::of(i->histogram(), i->length_s));
    return out;
}

MCP_LOADTEST_DECL std::vector<sparse_interval> timeline_buckets(const load_report& r) {
    std::vector<sparse_interval> out;
    if (r.timeline.empty()) return out;
    double length = 0;
    for (const auto& i : r.intervals)
        if (i.length_s > 0) { length = i.length_s; break; }
    if (length <= 0 && r.timeline.size() >= 2) length = r.timeline[1].at_s - r.timeline[0].at_s;
    if (length <= 0) length = 1;
    for (const auto& p : r.timeline) {
        if (p.at_s + length > r.duration_s + 0.25 * length) continue;  // the last, partial bucket
        sparse_interval s;
        s.count = p.completed;
        s.length_s = length;
        out.push_back(s);
    }
    return out;
}

MCP_LOADTEST_DECL std::string too_few_intervals(std::size_t nb, std::size_t nc, std::size_t needed) {
    return "it needs at least " + std::to_string(needed) + " intervals in each report to resample (the baseline has " +
           std::to_string(nb) + ", the current run " + std::to_string(nc) +
           "): run longer, or shorten run_options::timeline_bucket (e.g. 100ms for a 2 s run).";
}

MCP_LOADTEST_DECL void compare_latency(const load_report& b, const load_report& c, const std::string& scope, std::string_view tag,
                                       const call_stats* b_stats, const call_stats* c_stats, bool with_throughput,
                                       const comparison_rules& rules, std::vector<metric_comparison>& out) {
    static constexpr std::array<double, 4> ps{50.0, 95.0, 99.0, 99.9};
    static constexpr std::array<const char*, 4> names{"p50", "p95", "p99", "p99.9"};
    const auto ib = intervals_of(b, tag), ic = intervals_of(c, tag);  // sorted by start, decoded once
    const auto ms_of = [](const call_stats* s, int k) {
        if (!s) return 0.0;
        const auto& l = s->latency;
        const std::chrono::nanoseconds v[] = {l.p50, l.p95, l.p99, l.p999};
        return static_cast<double>(v[k].count()) / 1e6;
    };
    if (ib.size() < rules.min_intervals || ic.size() < rules.min_intervals) {
        const std::string why = (ib.empty() || ic.empty())
                                    ? "a report carries no per-interval histograms for it (load_report::intervals), "
                                      "so the change cannot be resampled."
                                    : too_few_intervals(ib.size(), ic.size(), rules.min_intervals);
        for (int k = 0; k < 4; ++k) out.push_back(inconclusive_metric(scope, names[k], "ms", false, ms_of(b_stats, k), ms_of(c_stats, k), why));
        if (with_throughput)
            out.push_back(inconclusive_metric(scope, "throughput", "calls/s", true, b.throughput_rps, c.throughput_rps, why));
        return;
    }
    interval_pool pool_b(ib), pool_c(ic);
    const auto seed = stable_hash(scope, rules.seed);
    const auto changes = bootstrap_relative_change<4>(
        ib.size(), ic.size(), [&](std::span<const std::size_t> k) { return pool_b.percentiles(k, ps); },
        [&](std::span<const std::size_t> k) { return pool_c.percentiles(k, ps); }, rules.resamples, rules.block_length,
        rules.confidence, seed);
    std::vector<std::size_t> all_b(ib.size()), all_c(ic.size());
    for (std::size_t i = 0; i < all_b.size(); ++i) all_b[i] = i;
    for (std::size_t i = 0; i < all_c.size(); ++i) all_c[i] = i;
    const auto pb = pool_b.percentiles(std::span<const std::size_t>(all_b), ps);
    const auto pc = pool_c.percentiles(std::span<const std::size_t>(all_c), ps);
    const double abs_floor_ms = static_cast<double>(rules.min_latency_change.count()) / 1e6;
    std::uint64_t calls_b = 0, calls_c = 0;
    for (const auto& i : ib) calls_b += i.count;
    for (const auto& i : ic) calls_c += i.count;
    for (std::size_t k = 0; k < 4; ++k) {
        const double tail = 1 - ps[k] / 100;
        const auto needed = static_cast<std::uint64_t>(std::ceil(static_cast<double>(rules.min_tail_calls) / tail - 1e-9));
        if (std::min(calls_b, calls_c) < needed) {
            out.push_back(inconclusive_metric(
                scope, names[k], "ms", false, pb[k] / 1e6, pc[k] / 1e6,
                "too few calls lie beyond " + std::string(names[k]) + " to resample it: it needs " +
                    std::to_string(needed) + " calls in each report (comparison_rules::min_tail_calls = " +
                    std::to_string(rules.min_tail_calls) + " beyond it), the baseline has " + std::to_string(calls_b) +
                    ", the current run " + std::to_string(calls_c) + "."));
            continue;
        }
        metric_comparison m;
        m.scope = scope;
        m.metric = names[k];
        m.unit = "ms";
        m.baseline = pb[k] / 1e6;
        m.current = pc[k] / 1e6;
        m.change = changes[k].change;
        m.ci_low = changes[k].ci_low;
        m.ci_high = changes[k].ci_high;
        m.effect_floor = std::max(rules.min_effect, m.baseline > 0 ? abs_floor_ms / m.baseline : rules.min_effect);
        m.verdict = decide(m.change, m.ci_low, m.ci_high, m.effect_floor, +1);
        finish_sentence(m, rules.confidence);
        out.push_back(std::move(m));
    }
    if (!with_throughput) return;
    // A tool's throughput: its calls per interval, resampled the same way.
    const auto tp = bootstrap_relative_change<1>(
        ib.size(), ic.size(), [&](std::span<const std::size_t> k) { return std::array<double, 1>{pool_b.rate(k)}; },
        [&](std::span<const std::size_t> k) { return std::array<double, 1>{pool_c.rate(k)}; }, rules.resamples,
        rules.block_length, rules.confidence, stable_hash(scope + " throughput", rules.seed));
    metric_comparison m;
    m.scope = scope;
    m.metric = "throughput";
    m.unit = "calls/s";
    m.higher_is_better = true;
    m.baseline = pool_b.rate(std::span<const std::size_t>(all_b));
    m.current = pool_c.rate(std::span<const std::size_t>(all_c));
    m.change = tp[0].change;
    m.ci_low = tp[0].ci_low;
    m.ci_high = tp[0].ci_high;
    m.effect_floor = rules.min_effect;
    m.verdict = decide(m.change, m.ci_low, m.ci_high, m.effect_floor, -1);
    finish_sentence(m, rules.confidence);
    out.push_back(std::move(m));
}

MCP_LOADTEST_DECL metric_comparison compare_throughput(const load_report& b, const load_report& c, const comparison_rules& rules) {
    const auto tb = timeline_buckets(b), tc = timeline_buckets(c);
    if (tb.size() < rules.min_intervals || tc.size() < rules.min_intervals)
        return inconclusive_metric("overall", "throughput", "calls/s", true, b.throughput_rps, c.throughput_rps,
                                   too_few_intervals(tb.size(), tc.size(), rules.min_intervals));
    interval_pool pb(tb), pc(tc);
    const auto tp = bootstrap_relative_change<1>(
        tb.size(), tc.size(), [&](std::span<const std::size_t> k) { return std::array<double, 1>{pb.rate(k)}; },
        [&](std::span<const std::size_t> k) { return std::array<double, 1>{pc.rate(k)}; }, rules.resamples,
        rules.block_length, rules.confidence, stable_hash("overall throughput", rules.seed));
    std::vector<std::size_t> all_b(tb.size()), all_c(tc.size());
    for (std::size_t i = 0; i < all_b.size(); ++i) all_b[i] = i;
    for (std::size_t i = 0; i < all_c.size(); ++i) all_c[i] = i;
    metric_comparison m;
    m.scope = "overall";
    m.metric = "throughput";
    m.unit = "calls/s";
    m.higher_is_better = true;
    m.baseline = pb.rate(std::span<const std::size_t>(all_b));
    m.current = pc.rate(std::span<const std::size_t>(all_c));
    m.change = tp[0].change;
    m.ci_low = tp[0].ci_low;
    m.ci_high = tp[0].ci_high;
    m.effect_floor = rules.min_effect;
    m.verdict = decide(m.change, m.ci_low, m.ci_high, m.effect_floor, -1);
    finish_sentence(m, rules.confidence);
    return m;
}

MCP_LOADTEST_DECL metric_comparison compare_error_rate(const std::string& scope, const outcome_counts& b, const outcome_counts& c,
                                                       const comparison_rules& rules) {
    const auto nb = b.total(), nc = c.total();
    if (nb == 0 || nc == 0)
        return inconclusive_metric(scope, "error_rate", "%", false, b.error_rate(), c.error_rate(),
                                   "a report has no calls here to count errors among.");
    metric_comparison m;
    m.scope = scope;
    m.metric = "error_rate";
    m.unit = "%";
    m.change_is_absolute = true;
    m.baseline = b.error_rate();
    m.current = c.error_rate();
    m.change = m.current - m.baseline;
    const double z = normal_quantile(1 - (1 - rules.confidence) / 2);
    std::tie(m.ci_low, m.ci_high) = proportion_difference_interval(b.errors(), nb, c.errors(), nc, z);
    m.effect_floor = std::max(rules.min_error_rate_change, rules.min_effect * m.baseline);
    m.verdict = decide(m.change, m.ci_low, m.ci_high, m.effect_floor, +1);
    finish_sentence(m, rules.confidence);
    m.sentence += " (" + std::to_string(b.errors()) + " of " + std::to_string(nb) + " calls vs " +
                  std::to_string(c.errors()) + " of " + std::to_string(nc) + ")";
    return m;
}

MCP_LOADTEST_DECL double slope_standard_error(const trend_fit& f) {
    if (f.points < 3 || f.r2 <= 0) return std::numeric_limits<double>::infinity();
    if (f.r2 >= 1) return 0;
    return std::abs(f.slope_per_s) * std::sqrt((1 - f.r2) / (f.r2 * static_cast<double>(f.points - 2)));
}

MCP_LOADTEST_DECL metric_comparison compare_leak(const std::string& scope, const leak_analysis& b, const leak_analysis& c,
                                                 const comparison_rules& rules) {
    const std::string unit = c.resource == "rss_mb" ? "MB/s" : c.resource == "open_fds" ? "fds/s" : "threads/s";
    const auto usable = [](const leak_analysis& l) {
        return l.verdict == leak_verdict::leak || l.verdict == leak_verdict::no_leak;
    };
    if (!usable(b) || !usable(c))
        return inconclusive_metric(scope, "leak " + c.resource, unit, false, b.fit.slope_per_s, c.fit.slope_per_s,
                                   "a leak analysis could not decide (" + std::string(to_string(b.verdict)) + " vs " +
                                       std::string(to_string(c.verdict)) + "): run longer than the warm-up plus " +
                                       "leak_options::min_points samples.");
    metric_comparison m;
    m.scope = scope;
    m.metric = "leak " + c.resource;
    m.unit = unit;
    m.baseline = b.fit.slope_per_s;
    m.current = c.fit.slope_per_s;
    const double z = normal_quantile(1 - (1 - rules.confidence) / 2);
    const double se = std::hypot(slope_standard_error(b.fit), slope_standard_error(c.fit));
    const bool both_leak = b.verdict == leak_verdict::leak && c.verdict == leak_verdict::leak;
    if (both_leak && m.baseline > 0) {
        m.change = m.current / m.baseline - 1;
        m.ci_low = (m.current - m.baseline - z * se) / m.baseline;
        m.ci_high = (m.current - m.baseline + z * se) / m.baseline;
        m.effect_floor = rules.min_effect;
        m.verdict = decide(m.change, m.ci_low, m.ci_high, m.effect_floor, +1);
    } else {
        m.change_is_absolute = true;
        m.change = m.current - m.baseline;
        m.ci_low = m.change - z * se;
        m.ci_high = m.change + z * se;
        m.effect_floor = 0;
        const bool started = b.verdict == leak_verdict::no_leak && c.verdict == leak_verdict::leak;
        const bool stopped = b.verdict == leak_verdict::leak && c.verdict == leak_verdict::no_leak;
        m.verdict = started && m.ci_low > 0    ? change_verdict::regressed
                    : stopped && m.ci_high < 0 ? change_verdict::improved
                    : !started && !stopped     ? change_verdict::unchanged
                                               : change_verdict::inconclusive;
    }
    m.sentence = m.name() + ": slope " + fixed(m.baseline, 4) + " -> " + fixed(m.current, 4) + " " + unit + " (" +
                 std::string(to_string(b.verdict)) + " -> " + std::string(to_string(c.verdict)) + "), " +
                 describe_change(m) + ": " + std::string(to_string(m.verdict)) + "." +
                 (m.verdict == change_verdict::regressed ? " " + c.explanation : std::string());
    return m;
}

MCP_LOADTEST_DECL json workload_identity(const load_report& r) {
    json j = r.workload_parameters.is_object() ? r.workload_parameters : json::object();
    j.erase("duration_s");  // a longer run of the same workload is the same experiment
    return j;
}

}  // namespace detail

MCP_LOADTEST_DECL comparison compare(const load_report& baseline, const load_report& current,
                                     const comparison_rules& rules) {
    if (!(rules.confidence > 0 && rules.confidence < 1))
        throw std::invalid_argument("comparison_rules::confidence must lie strictly between 0 and 1 (e.g. 0.95)");
    if (!(rules.min_effect >= 0)) throw std::invalid_argument("comparison_rules::min_effect must be >= 0 (e.g. 0.10)");
    if (rules.resamples < 100)
        throw std::invalid_argument("comparison_rules::resamples must be at least 100 (the default 1000 gives stable 95 % intervals)");
    comparison out;
    out.baseline_run_id = baseline.run_id;
    out.current_run_id = current.run_id;
    out.rules = rules;
    bool workload_differs = false;
    if (baseline.workload != current.workload) {
        out.mismatches.push_back("the workload differs: " + baseline.workload + " in the baseline, " + current.workload + " now");
        workload_differs = true;
    } else if (detail::workload_identity(baseline) != detail::workload_identity(current)) {
        out.mismatches.push_back("the workload's parameters differ: " + detail::workload_identity(baseline).dump() +
                                 " in the baseline, " + detail::workload_identity(current).dump() + " now");
        workload_differs = true;
    }
    if (baseline.server != current.server)
        out.mismatches.push_back("the server differs: `" + baseline.server + "` in the baseline, `" + current.server + "` now");

    auto& m = out.metrics;
    detail::compare_latency(baseline, current, "overall", "", &baseline.overall, &current.overall, false, rules, m);
    m.push_back(detail::compare_throughput(baseline, current, rules));
    m.push_back(detail::compare_error_rate("overall", baseline.overall.outcomes, current.overall.outcomes, rules));
    if (rules.per_tool)
        for (const auto& [tool, b] : baseline.per_tool) {
            const auto it = current.per_tool.find(tool);
            if (it == current.per_tool.end()) {
                out.mismatches.push_back("tool '" + tool + "' was called in the baseline but not now");
                continue;
            }
            const std::string scope = "tool " + tool;
            detail::compare_latency(baseline, current, scope, tool, &b, &it->second, true, rules, m);
            m.push_back(detail::compare_error_rate(scope, b.outcomes, it->second.outcomes, rules));
        }
    if (rules.per_step)
        for (const auto& [step, b] : baseline.per_step) {
            const auto it = current.per_step.find(step);
            if (it == current.per_step.end()) {
                out.mismatches.push_back("step '" + step + "' was measured in the baseline but not now");
                continue;
            }
            const std::string scope = "step " + step;
            // Steps carry one histogram for the whole run, no intervals: nothing to resample.
            static constexpr const char* names[] = {"p50", "p95", "p99", "p99.9"};
            const auto& lb = b.latency;
            const auto& lc = it->second.latency;
            const std::chrono::nanoseconds vb[] = {lb.p50, lb.p95, lb.p99, lb.p999};
            const std::chrono::nanoseconds vc[] = {lc.p50, lc.p95, lc.p99, lc.p999};
            for (int k = 0; k < 4; ++k)
                m.push_back(detail::inconclusive_metric(
                    scope, names[k], "ms", false, static_cast<double>(vb[k].count()) / 1e6,
                    static_cast<double>(vc[k].count()) / 1e6,
                    "steps are kept as one histogram per run, without per-interval histograms, so their change "
                    "cannot be resampled; gate on the tools the step calls."));
            m.push_back(detail::compare_error_rate(scope, b.outcomes, it->second.outcomes, rules));
        }
    if (rules.leaks)
        for (const auto& pb : baseline.processes) {
            const auto pc_it = std::find_if(current.processes.begin(), current.processes.end(),
                                            [&](const server_process_report& p) { return p.session == pb.session; });
            if (pc_it == current.processes.end()) continue;
            const auto& pc = *pc_it;
            // Each resource's first analysis is the process's own; later ones are descendants'.
            std::vector<std::string> seen;
            for (const auto& lb : pb.leaks) {
                if (std::find(seen.begin(), seen.end(), lb.resource) != seen.end()) continue;
                seen.push_back(lb.resource);
                const auto lc = std::find_if(pc.leaks.begin(), pc.leaks.end(),
                                             [&](const leak_analysis& l) { return l.resource == lb.resource; });
                if (lc != pc.leaks.end())
                    m.push_back(detail::compare_leak("server[" + std::to_string(pb.session) + "]", lb, *lc, rules));
            }
        }
    if (workload_differs && !rules.allow_workload_mismatch)
        for (auto& x : m)
            if (x.verdict != change_verdict::inconclusive) {
                x.sentence += " Counted as inconclusive: the two runs ran different workloads.";
                x.verdict = change_verdict::inconclusive;
            }
    out.advice = "If the change is intended, refresh the baseline; if not, look at what changed between the two "
                 "builds on the regressed paths.";
    return out;
}

MCP_LOADTEST_DECL std::string comparison::verdict_sentence() const {
    std::string s;
    const auto regressed = with(change_verdict::regressed);
    const auto improved = with(change_verdict::improved);
    const auto unchanged = with(change_verdict::unchanged);
    const auto inconclusive = with(change_verdict::inconclusive);
    const std::string conf = detail::fixed(100 * rules.confidence, 0) + " %";
    if (!regressed.empty()) {
        s = "REGRESSED: " + std::to_string(regressed.size()) + " metric(s) got worse beyond doubt (" + conf +
            " confidence) and by more than the minimum effect:";
        for (const auto* m : regressed) s += "\n  - " + m->sentence;
        s += "\n" + advice;
    } else {
        s = "No regression: " + std::to_string(unchanged.size()) + " metric(s) unchanged, " +
            std::to_string(improved.size()) + " improved, " + std::to_string(inconclusive.size()) + " inconclusive.";
        for (const auto* m : improved) s += "\n  + " + m->sentence;
        // The first inconclusive reason of the overall scope says what would make it conclusive.
        for (const auto* m : inconclusive)
            if (m->scope == "overall") {
                s += "\n  ? " + m->sentence;
                break;
            }
    }
    for (const auto& x : mismatches) s += "\nNote: " + x + ".";
    return s;
}

MCP_LOADTEST_DECL void to_json(json& j, const comparison_rules& r) {
    j = json{{"min_effect", r.min_effect},
             {"min_latency_change_ns", r.min_latency_change.count()},
             {"min_error_rate_change", r.min_error_rate_change},
             {"confidence", r.confidence},
             {"resamples", r.resamples},
             {"block_length", r.block_length},
             {"min_intervals", r.min_intervals},
             {"min_tail_calls", r.min_tail_calls},
             {"seed", r.seed},
             {"per_tool", r.per_tool},
             {"per_step", r.per_step},
             {"leaks", r.leaks},
             {"allow_workload_mismatch", r.allow_workload_mismatch}};
}

MCP_LOADTEST_DECL void from_json(const json& j, comparison_rules& r) {
    r = {};
    r.min_effect = j.value("min_effect", r.min_effect);
    r.min_latency_change = std::chrono::nanoseconds(j.value("min_latency_change_ns", r.min_latency_change.count()));
    r.min_error_rate_change = j.value("min_error_rate_change", r.min_error_rate_change);
    r.confidence = j.value("confidence", r.confidence);
    r.resamples = j.value("resamples", r.resamples);
    r.block_length = j.value("block_length", r.block_length);
    r.min_intervals = j.value("min_intervals", r.min_intervals);
    r.min_tail_calls = j.value("min_tail_calls", r.min_tail_calls);
    r.seed = j.value("seed", r.seed);
    r.per_tool = j.value("per_tool", r.per_tool);
    r.per_step = j.value("per_step", r.per_step);
    r.leaks = j.value("leaks", r.leaks);
    r.allow_workload_mismatch = j.value("allow_workload_mismatch", r.allow_workload_mismatch);
}

namespace detail {

MCP_LOADTEST_DECL json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

MCP_LOADTEST_DECL double number_or_nan(const json& j, const char* key) {
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? std::numeric_limits<double>::quiet_NaN() : it->get<double>();
}

}  // namespace detail

MCP_LOADTEST_DECL void to_json(json& j, const metric_comparison& m) {
    j = json{{"scope", m.scope},
             {"metric", m.metric},
             {"unit", m.unit},
             {"higher_is_better", m.higher_is_better},
             {"baseline", detail::finite_or_null(m.baseline)},
             {"current", detail::finite_or_null(m.current)},
             {"change", detail::finite_or_null(m.change)},
             {"change_is_absolute", m.change_is_absolute},
             {"ci_low", detail::finite_or_null(m.ci_low)},
             {"ci_high", detail::finite_or_null(m.ci_high)},
             {"effect_floor", m.effect_floor},
             {"verdict", to_string(m.verdict)},
             {"sentence", m.sentence}};
}

MCP_LOADTEST_DECL void from_json(const json& j, metric_comparison& m) {
    m.scope = j.at("scope").get<std::string>();
    m.metric = j.at("metric").get<std::string>();
    m.unit = j.value("unit", std::string());
    m.higher_is_better = j.value("higher_is_better", false);
    m.baseline = detail::number_or_nan(j, "baseline");
    m.current = detail::number_or_nan(j, "current");
    m.change = detail::number_or_nan(j, "change");
    m.change_is_absolute = j.value("change_is_absolute", false);
    m.ci_low = detail::number_or_nan(j, "ci_low");
    m.ci_high = detail::number_or_nan(j, "ci_high");
    m.effect_floor = j.value("effect_floor", 0.0);
    const auto v = j.at("verdict").get<std::string>();
    m.verdict = v == "regressed"   ? change_verdict::regressed
                : v == "improved"  ? change_verdict::improved
                : v == "unchanged" ? change_verdict::unchanged
                : v == "inconclusive"
                    ? change_verdict::inconclusive
                    : throw std::invalid_argument("metric_comparison.verdict: '" + v +
                                                  "' is not regressed, improved, unchanged or inconclusive");
    m.sentence = j.value("sentence", std::string());
}

MCP_LOADTEST_DECL void to_json(json& j, const comparison& c) {
    j = json{{"schema", "mcp-loadtest/comparison/v1"},
             {"baseline_run_id", c.baseline_run_id},
             {"current_run_id", c.current_run_id},
             {"passed", c.passed()},
             {"verdict", c.verdict_sentence()},
             {"rules", c.rules},
             {"metrics", c.metrics},
             {"mismatches", c.mismatches},
             {"advice", c.advice}};
}

MCP_LOADTEST_DECL void from_json(const json& j, comparison& c) {
    if (!j.is_object() || j.value("schema", std::string()) != "mcp-loadtest/comparison/v1")
        throw std::invalid_argument("not an mcp-loadtest comparison (missing \"schema\": \"mcp-loadtest/comparison/v1\")");
    c.baseline_run_id = j.value("baseline_run_id", std::string());
    c.current_run_id = j.value("current_run_id", std::string());
    c.rules = j.value("rules", comparison_rules{});
    c.metrics = j.at("metrics").get<std::vector<metric_comparison>>();
    c.mismatches = j.value("mismatches", std::vector<std::string>{});
    c.advice = j.value("advice", std::string());
}


MCP_LOADTEST_DECL bool comparison::passed() const noexcept {
    return std::none_of(metrics.begin(), metrics.end(),
                        [](const metric_comparison& m) { return m.verdict == change_verdict::regressed; });
}

MCP_LOADTEST_DECL std::vector<const metric_comparison*> comparison::with(change_verdict v) const {
    std::vector<const metric_comparison*> out;
    for (const auto& m : metrics)
        if (m.verdict == v) out.push_back(&m);
    return out;
}

MCP_LOADTEST_DECL const metric_comparison* comparison::find(std::string_view scope, std::string_view metric) const noexcept {
    for (const auto& m : metrics)
        if (m.scope == scope && m.metric == metric) return &m;
    return nullptr;
}

}  // namespace mcp_loadtest
