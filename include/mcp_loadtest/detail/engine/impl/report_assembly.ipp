// Definitions of detail/engine/report_assembly.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/engine/report_assembly.hpp>

#include <mcp_loadtest/detail/os/utc_time.hpp>


#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <optional>
#include <random>
#include <string>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string iso8601_utc(std::chrono::system_clock::time_point t) {
    const std::time_t tt = std::chrono::system_clock::to_time_t(t);
    const std::tm tm = detail::utc_calendar(tt);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

MCP_LOADTEST_DECL std::string make_run_id() {
    std::random_device rd;
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08x%08x", rd(), rd());
    return buf;
}

MCP_LOADTEST_DECL json describe_workload(const workload& load, std::size_t sessions) {
    const auto seconds = [](std::chrono::nanoseconds d) { return std::chrono::duration<double>(d).count(); };
    if (auto* c = std::get_if<closed_load>(&load))
        return json{{"users", c->users}, {"duration_s", seconds(c->duration)}, {"think_time_ms", ms(c->think_time)},
                    {"max_iterations", c->max_iterations}, {"sessions", sessions}};
    // "arrivals" only when Poisson: reports (and baselines) of evenly spaced loads keep their form.
    if (auto* o = std::get_if<open_load>(&load)) {
        json j{{"rate", o->rate}, {"duration_s", seconds(o->duration)}, {"max_in_flight", o->max_in_flight},
               {"sessions", sessions}};
        if (o->arrivals == arrival_process::poisson) j["arrivals"] = "poisson";
        return j;
    }
    const auto& st = std::get<staged_load>(load);
    json stages = json::array();
    for (const auto& s : st.stages)
        stages.push_back({{"name", s.name}, {"duration_s", seconds(s.duration)}, {"target", s.target}});
    json j{{"by", st.by == staged_load::driver::rate ? "rate" : "users"}, {"start", st.start},
           {"stages", stages}, {"sessions", sessions}};
    if (st.by == staged_load::driver::rate && st.arrivals == arrival_process::poisson) j["arrivals"] = "poisson";
    return j;
}

MCP_LOADTEST_DECL void find_breaking_point(load_report& r, std::optional<std::chrono::nanoseconds> p99_limit,
                                           std::optional<double> err_limit) {
    if (!p99_limit && !err_limit) return;
    for (std::size_t i = 0; i < r.stages.size(); ++i) {
        const auto& st = r.stages[i];
        if (st.stats.calls() == 0) continue;
        const std::string stage = "stage " + std::to_string(i) + " (" + st.name + ", target " + format_num(st.target) + ")";
        if (p99_limit && st.stats.latency.p99 > *p99_limit) {
            r.breaking_stage = i;
            r.breaking_reason = stage + " p99 " + format_ms(st.stats.latency.p99) + " > " + format_ms(*p99_limit);
            return;
        }
        if (err_limit && st.stats.error_rate() > *err_limit) {
            r.breaking_stage = i;
            r.breaking_reason =
                stage + " error rate " + format_pct(st.stats.error_rate()) + " > " + format_pct(*err_limit);
            return;
        }
    }
}

MCP_LOADTEST_DECL void judge_generator(generator_report& g, double duration_s, std::chrono::nanoseconds cpu,
                                       const latency_histogram& send_lag, std::chrono::nanoseconds arrival_interval) {
    using namespace std::chrono_literals;
    g.cpu_pct = duration_s > 0 ? 100.0 * std::chrono::duration<double>(cpu).count() / duration_s : 0;
    g.send_lag = send_lag.summary();
    const bool rate_model = send_lag.count() > 0;
    const auto lag_limit = std::max<std::chrono::nanoseconds>(10ms, 2 * arrival_interval);
    if (g.cpu_pct > 85.0) {
        g.saturated = true;
        g.explanation = "the load generator used " + format_num(g.cpu_pct) +
                        "% of a core: it may be the bottleneck, not the server. Lower the load or spread it "
                        "over several test processes.";
    } else if (rate_model && g.send_lag.p99 > lag_limit) {
        g.saturated = true;
        g.explanation = "99% of sends left within " + format_ms(g.send_lag.p99) + " of their intended time, above " +
                        format_ms(lag_limit) +
                        ": the generator could not keep the arrival rate (machine overloaded?). Latencies "
                        "still count from the intended times.";
    } else {
        g.explanation = "the load generator kept up (" + format_num(g.cpu_pct) + "% CPU" +
                        (rate_model ? ", p99 send lag " + format_ms(g.send_lag.p99) : std::string()) + ")";
    }
}

MCP_LOADTEST_DECL void judge_authorization(authorization_report& a, std::size_t sessions, double duration_s) {
    const double session_time = static_cast<double>(sessions) * duration_s;
    a.blocked_share = session_time > 0 ? std::min(1.0, a.blocked_s / session_time) : 0;
    a.bottleneck = a.blocked_share >= authorization_report::bottleneck_share;
    const std::string server = a.token_endpoint.empty() ? std::string("the authorization server")
                                                        : "the authorization server (" + a.token_endpoint + ")";
    const std::string tokens = std::to_string(a.authorizations) + " authorization(s), " + std::to_string(a.refreshes) +
                               " renewal(s), " + std::to_string(a.challenges) + " 401(s) answered; " +
                               format_num(a.token_time_s) + " s getting tokens, the slowest " +
                               format_num(a.slowest_token_ms) + " ms";
    if (a.bottleneck) {
        a.explanation = server + " was the bottleneck: sessions had calls held for a token " +
                        format_pct(a.blocked_share) + " of their time under load (" + std::to_string(a.held_calls) +
                        " call(s) waited " + format_num(a.held_s) + " s in all; " + tokens +
                        "). Their latency leaves the wait out. Renew earlier (oauth_options::refresh_before_expiry), "
                        "use longer-lived tokens, or load-test the authorization server itself.";
    } else {
        a.explanation = tokens + "; " + std::to_string(a.held_calls) + " call(s) held for a token, " +
                        format_num(a.held_s) + " s in all (sessions blocked " + format_pct(a.blocked_share) +
                        " of their time under load)";
    }
    if (a.failures > 0)
        a.explanation += "; " + std::to_string(a.failures) + " flow(s) got no token (their calls ended unauthorized)";
}

}  // namespace mcp_loadtest::detail
