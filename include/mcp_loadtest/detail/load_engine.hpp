// The load engine behind run(): drives a workload over N sessions, records
// every call, samples the servers, and builds the report.
//
// Everything runs on the caller's executor (one thread): each iteration is a
// spawned coroutine; the drivers only decide *when* iterations start.
#pragma once

#include <mcp_loadtest/call_mix.hpp>
#include <mcp_loadtest/detail/evaluate_thresholds.hpp>
#include <mcp_loadtest/load_report.hpp>
#include <mcp_loadtest/process_sampling.hpp>
#include <mcp_loadtest/run_options.hpp>
#include <mcp_loadtest/session.hpp>
#include <mcp_loadtest/thresholds.hpp>
#include <mcp_loadtest/when_all.hpp>
#include <mcp_loadtest/workload.hpp>

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace mcp_loadtest::detail {

inline std::string iso8601_utc(std::chrono::system_clock::time_point t) {
    const std::time_t tt = std::chrono::system_clock::to_time_t(t);
    std::tm tm{};
    ::gmtime_r(&tt, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

inline std::string make_run_id() {
    std::random_device rd;
    char buf[40];
    std::snprintf(buf, sizeof buf, "%08x%08x", rd(), rd());
    return buf;
}

inline std::chrono::nanoseconds process_cpu_time() noexcept {
    rusage u{};
    ::getrusage(RUSAGE_SELF, &u);
    const auto tv = [](const timeval& v) { return std::chrono::seconds(v.tv_sec) + std::chrono::microseconds(v.tv_usec); };
    return tv(u.ru_utime) + tv(u.ru_stime);
}

/// A one-shot wake-up for a coroutine waiting on a condition other handlers change.
class wake_event {
public:
    explicit wake_event(asio::any_io_executor ex) : timer_(ex, clock::time_point::max()) {}
    void notify() { timer_.cancel(); }
    asio::awaitable<void> wait_until(clock::time_point deadline) {
        timer_.expires_at(deadline);
        asio::error_code ec;
        co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }

private:
    asio::steady_timer timer_;
};

class load_engine : public std::enable_shared_from_this<load_engine> {
public:
    load_engine(asio::any_io_executor ex, any_server server, workload load, mix calls, thresholds objectives,
                run_options options)
        : ex_(std::move(ex)),
          server_(std::move(server)),
          load_(std::move(load)),
          mix_(std::move(calls)),
          objectives_(std::move(objectives)),
          options_(std::move(options)),
          rng_(options_.seed),
          idle_(ex_),
          sampler_(ex_, options_.sample_interval.count() > 0 ? options_.sample_interval : std::chrono::milliseconds(1000)) {
        if (mix_.empty())
            throw std::invalid_argument("mcp_loadtest::run: the mix is empty; give at least one tool call, e.g. "
                                        "mlt::mix::single(\"echo\", mlt::args(\"message\", \"hi\"))");
        if (options_.sessions == 0)
            throw std::invalid_argument("mcp_loadtest::run: run_options.sessions must be at least 1");
        for (const auto& c : mix_.calls()) fixed_args_.push_back(raw_json::from(c.arguments));
    }

    asio::awaitable<load_report> execute() {
        auto self = shared_from_this();  // the spawned iterations outlive no one but us
        report_.run_id = make_run_id();
        report_.started_at = iso8601_utc(std::chrono::system_clock::now());
        report_.workload = std::string(workload_name(load_));
        report_.workload_parameters = describe_workload();
        report_.sessions = options_.sessions;
        report_.server = describe(server_);
        report_.transport = transport_name(server_);
        report_.seed = options_.seed;
        if (!options_.trace_path.empty()) open_trace();

        co_await connect_sessions();
        const auto& id = sessions_.front().identity();
        report_.protocol_version = id.protocol_version;
        report_.protocol_era = std::string(to_string(id.era));
        report_.server_name = id.name;
        report_.server_version = id.version;

        if (options_.sample_interval.count() > 0) {
            for (const auto& [session_index, pid] : sampled_processes()) sampler_.add(pid);
            sampler_.start();
        }
        const auto cpu0 = process_cpu_time();
        start_ = clock::now();
        if (auto* o = std::get_if<open_load>(&load_)) {
            interval_hint_ = o->rate > 0 ? std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 / o->rate)) : 1s;
            co_await drive_rate([r = o->rate](std::chrono::nanoseconds) { return r; }, o->duration, o->max_in_flight);
        } else if (auto* c = std::get_if<closed_load>(&load_)) {
            co_await drive_users([u = static_cast<double>(c->users)](std::chrono::nanoseconds) { return u; },
                                 c->duration, c->think_time, c->max_iterations);
        } else {
            const auto& st = std::get<staged_load>(load_);
            if (st.by == staged_load::driver::rate)
                co_await drive_rate([&st](std::chrono::nanoseconds t) { return st.target_at(t); }, st.duration(),
                                    st.max_in_flight);
            else
                co_await drive_users([&st](std::chrono::nanoseconds t) { return st.target_at(t); }, st.duration(),
                                     st.think_time, 0);
        }
        // Every call is bounded by its timeout (+ grace): so is this wait.
        while (in_flight_ > 0) co_await idle_.wait_until(clock::time_point::max());
        const auto elapsed = clock::now() - start_;
        const auto cpu = process_cpu_time() - cpu0;
        sampler_.stop();

        co_await close_sessions();
        finish_report(elapsed, cpu);
        co_return std::move(report_);
    }

private:
    struct iteration_ctx {
        std::uint64_t index = 0;
        clock::time_point intended;  // open models: when it should have started
        bool from_intended = false;
        std::size_t stage = 0;
    };

    // ---- sessions ----------------------------------------------------------

    asio::awaitable<void> connect_sessions() {
        std::vector<asio::awaitable<session>> connects;
        for (std::size_t i = 0; i < options_.sessions; ++i)
            connects.push_back(connect(server_, options_.client));
        const auto t0 = clock::now();
        sessions_ = co_await when_all(std::move(connects));
        // The handshakes, as the initialize method's latency (one per session).
        auto& init = report_.per_method["initialize"];
        for (std::size_t i = 0; i < sessions_.size(); ++i) {
            init.outcomes.add(outcome::ok);
            init.histogram.record(clock::now() - t0);
        }
    }

    asio::awaitable<void> close_sessions() {
        std::vector<asio::awaitable<shutdown_result>> closes;
        for (auto& s : sessions_) closes.push_back(s.close());
        co_await when_all(std::move(closes));
    }

    session* pick_session() {
        for (std::size_t tries = 0; tries < sessions_.size(); ++tries) {
            session& s = sessions_[next_session_++ % sessions_.size()];
            if (s.alive()) return &s;
        }
        return nullptr;
    }

    // ---- drivers -----------------------------------------------------------

    /// Open model: iterations start at the intended times of an arrival process
    /// with rate rate_at(t); overdue ones start at once, late, and are counted.
    template <class RateAt>
    asio::awaitable<void> drive_rate(RateAt rate_at, std::chrono::nanoseconds duration, std::size_t max_in_flight) {
        asio::steady_timer timer(ex_);
        std::chrono::nanoseconds next{0};
        while (next < duration && !stop_) {
            const auto now = clock::now();
            while (next < duration && start_ + next <= now && !stop_) {
                const double rate = rate_at(next);
                if (rate <= 0) {  // nothing to send now: look again a little later
                    next += 10ms;
                    continue;
                }
                const auto interval = std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 / rate));
                interval_hint_ = interval;
                launch_open(start_ + next, max_in_flight, interval);
                next += interval;
            }
            if (next >= duration || stop_) break;
            timer.expires_at(start_ + next);
            asio::error_code ec;
            co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
    }

    void launch_open(clock::time_point intended, std::size_t max_in_flight, std::chrono::nanoseconds interval) {
        const std::size_t stage = stage_of(intended - start_);
        if (in_flight_ >= max_in_flight) {
            ++report_.dropped;
            stage_dropped(stage);
            return;
        }
        const auto lag = clock::now() - intended;
        send_lag_.record(lag);
        if (lag > std::max<std::chrono::nanoseconds>(1ms, interval)) ++report_.generator.late_sends;
        spawn_iteration({iterations_++, intended, true, stage});
    }

    /// Closed model: `users_at(t)` virtual users, each a loop of iteration → think time.
    template <class UsersAt>
    asio::awaitable<void> drive_users(UsersAt users_at, std::chrono::nanoseconds duration,
                                      std::chrono::nanoseconds think, std::uint64_t max_iterations) {
        asio::steady_timer timer(ex_);
        std::size_t running = 0;
        auto users_done = std::make_shared<std::size_t>(0);
        while (!stop_) {
            const auto t = clock::now() - start_;
            if (t >= duration) break;
            const auto wanted = static_cast<std::size_t>(std::llround(users_at(t)));
            for (; running < wanted; ++running) {
                asio::co_spawn(ex_, user_loop(running, users_at, duration, think, max_iterations),
                               [self = shared_from_this(), users_done](std::exception_ptr e) {
                                   ++*users_done;
                                   if (e && !self->failure_) self->failure_ = e;
                                   self->idle_.notify();
                               });
            }
            // Re-read the target often enough to follow a ramp.
            timer.expires_after(std::min<std::chrono::nanoseconds>(50ms, duration - t));
            asio::error_code ec;
            co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
        while (*users_done < running) co_await idle_.wait_until(clock::time_point::max());
        if (failure_) std::rethrow_exception(failure_);
    }

    template <class UsersAt>
    asio::awaitable<void> user_loop(std::size_t user, UsersAt users_at, std::chrono::nanoseconds duration,
                                    std::chrono::nanoseconds think, std::uint64_t max_iterations) {
        asio::steady_timer timer(ex_);
        for (;;) {
            const auto t = clock::now() - start_;
            if (stop_ || t >= duration) break;
            if (max_iterations && iterations_ >= max_iterations) break;
            if (static_cast<double>(user) >= std::llround(users_at(t))) break;  // ramping down
            ++in_flight_;
            iteration_ctx ctx{iterations_++, clock::now(), false, stage_of(t)};
            ++report_.iterations_started;
            co_await run_iteration(ctx);
            ++report_.iterations_completed;
            --in_flight_;
            if (think.count() > 0) {
                timer.expires_after(think);
                asio::error_code ec;
                co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            }
        }
    }

    void spawn_iteration(iteration_ctx ctx) {
        ++in_flight_;
        ++report_.iterations_started;
        asio::co_spawn(ex_, run_iteration(ctx), [self = shared_from_this()](std::exception_ptr e) {
            --self->in_flight_;
            ++self->report_.iterations_completed;
            if (e && !self->failure_) {
                self->failure_ = e;
                self->stop_ = true;
            }
            if (self->in_flight_ == 0) self->idle_.notify();
        });
    }

    // ---- one iteration -----------------------------------------------------

    asio::awaitable<void> run_iteration(iteration_ctx ctx) {
        const std::size_t choice = mix_.pick(rng_);
        if (choice < mix_.calls().size()) {
            const weighted_call& c = mix_.calls()[choice];
            session* s = pick_session();
            if (!s) co_return abort("every server process has exited");
            // Not `cond ? co_await a : co_await b`: GCC 12 destroys the result twice.
            call_result r;
            if (c.generate) {
                const arguments generated = raw_json::from(c.generate(ctx.index, rng_));
                r = co_await s->call_tool(c.tool, generated, options_.call);
            } else {
                r = co_await s->call_tool(c.tool, fixed_args_[choice], options_.call);
            }
            record(r, ctx, true, session_index(s));
            co_return;
        }
        const pattern& p = mix_.patterns()[choice - mix_.calls().size()];
        asio::steady_timer timer(ex_);
        std::optional<call_result> previous;
        bool first = true;
        for (const step& st : p.steps) {
            session* s = pick_session();
            if (!s) co_return abort("every server process has exited");
            const arguments args = raw_json::from(st.from_previous && previous ? st.from_previous(*previous, ctx.index, rng_)
                                                                               : st.arguments);
            call_result r = co_await s->call_tool(st.tool, args, options_.call);
            record(r, ctx, first, session_index(s));
            first = false;
            const bool failed = !r.ok();
            previous = std::move(r);
            if (failed && st.on_error == on_step_error::abort_pattern) break;
            if (st.think_time.count() > 0) {
                timer.expires_after(st.think_time);
                asio::error_code ec;
                co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            }
        }
    }

    std::size_t session_index(const session* s) const noexcept {
        return static_cast<std::size_t>(s - sessions_.data());
    }

    void record(const call_result& r, const iteration_ctx& ctx, bool first_step, std::size_t session) {
        const auto end = clock::now();
        // Open models: the first call's latency runs from its intended start, so
        // a stall shows in the tail instead of silently delaying later sends.
        const std::chrono::nanoseconds latency =
            (ctx.from_intended && first_step) ? std::max<std::chrono::nanoseconds>(end - ctx.intended, r.duration)
                                              : r.duration;
        const auto add = [&](call_stats& s) {
            s.outcomes.add(r.outcome);
            if (r.outcome != outcome::cancelled) s.histogram.record(latency);
        };
        add(report_.overall);
        add(report_.per_tool[r.tool.empty() ? r.method : r.tool]);
        add(report_.per_method[r.method]);
        if (!stages_.empty()) add(stages_[std::min(ctx.stage, stages_.size() - 1)].stats);
        const auto bucket = static_cast<std::size_t>((end - start_) / options_.timeline_bucket);
        if (bucket >= report_.timeline.size()) {
            const std::size_t from = report_.timeline.size();
            report_.timeline.resize(bucket + 1);
            for (std::size_t i = from; i <= bucket; ++i)
                report_.timeline[i].at_s = std::chrono::duration<double>(options_.timeline_bucket * i).count();
        }
        auto& point = report_.timeline[bucket];
        ++point.completed;
        if (!r.ok()) ++point.errors;
        point.in_flight = in_flight_;
        if (trace_) write_trace(r, latency, end, ctx, session);
        if (objectives_.abort_on_critical && (r.outcome == outcome::crash || r.outcome == outcome::deadlock))
            abort(std::string("critical outcome ") + std::string(to_string(r.outcome)) + " on " + r.describe_call() +
                  ": " + r.message);
    }

    void abort(std::string reason) {
        if (!report_.aborted) {
            report_.aborted = true;
            report_.abort_reason = std::move(reason);
        }
        stop_ = true;
    }

    // ---- stages --------------------------------------------------------------

    std::size_t stage_of(std::chrono::nanoseconds t) {
        const auto* st = std::get_if<staged_load>(&load_);
        if (!st || st->stages.empty()) return 0;
        if (stages_.empty()) {
            std::chrono::nanoseconds at{0};
            for (const auto& s : st->stages) {
                stage_report r;
                r.name = s.name;
                r.target = s.target;
                r.start_s = std::chrono::duration<double>(at).count();
                r.duration_s = std::chrono::duration<double>(s.duration).count();
                stages_.push_back(std::move(r));
                at += s.duration;
            }
        }
        return st->stage_at(t);
    }

    void stage_dropped(std::size_t stage) {
        if (!stages_.empty()) ++stages_[std::min(stage, stages_.size() - 1)].dropped;
    }

    // ---- trace -------------------------------------------------------------

    void open_trace() {
        std::error_code ec;
        if (options_.trace_path.has_parent_path()) std::filesystem::create_directories(options_.trace_path.parent_path(), ec);
        trace_ = std::make_unique<std::ofstream>(options_.trace_path, std::ios::out | std::ios::trunc);
        if (!*trace_)
            throw std::runtime_error("mcp_loadtest::run: cannot write the trace to '" + options_.trace_path.string() +
                                     "'. Hint: check the directory exists and is writable, or leave trace_path empty.");
        trace_buffer_.reserve(1 << 16);
    }

    void write_trace(const call_result& r, std::chrono::nanoseconds latency, clock::time_point end,
                     const iteration_ctx& ctx, std::size_t session) {
        char buf[256];
        const double ts = std::chrono::duration<double>(end - start_).count();
        std::snprintf(buf, sizeof buf,
                      R"({"ts":%.6f,"kind":"call","session":%zu,"iteration":%llu,"request_id":%llu,"method":)", ts,
                      session, static_cast<unsigned long long>(ctx.index),
                      static_cast<unsigned long long>(r.request_id));
        trace_buffer_ += buf;
        append_json_string(trace_buffer_, r.method);
        trace_buffer_ += R"(,"tool":)";
        append_json_string(trace_buffer_, r.tool);
        std::snprintf(buf, sizeof buf, R"(,"outcome":"%s","duration_ms":%.3f,"latency_ms":%.3f)",
                      std::string(to_string(r.outcome)).c_str(), ms(r.duration), ms(latency));
        trace_buffer_ += buf;
        if (r.error_code) trace_buffer_ += R"(,"error_code":)" + std::to_string(r.error_code);
        if (!r.ok() && !r.message.empty()) {
            trace_buffer_ += R"(,"message":)";
            append_json_string(trace_buffer_, r.message.substr(0, 300));
        }
        trace_buffer_ += "}\n";
        if (trace_buffer_.size() >= (1 << 16)) flush_trace();
    }

    void flush_trace() {
        if (!trace_) return;
        trace_->write(trace_buffer_.data(), static_cast<std::streamsize>(trace_buffer_.size()));
        trace_buffer_.clear();
    }

    // ---- the report ------------------------------------------------------

    json describe_workload() const {
        if (auto* c = std::get_if<closed_load>(&load_))
            return json{{"users", c->users}, {"duration_s", std::chrono::duration<double>(c->duration).count()},
                        {"think_time_ms", ms(c->think_time)}, {"max_iterations", c->max_iterations},
                        {"sessions", options_.sessions}};
        if (auto* o = std::get_if<open_load>(&load_))
            return json{{"rate", o->rate}, {"duration_s", std::chrono::duration<double>(o->duration).count()},
                        {"max_in_flight", o->max_in_flight}, {"sessions", options_.sessions}};
        const auto& st = std::get<staged_load>(load_);
        json stages = json::array();
        for (const auto& s : st.stages)
            stages.push_back({{"name", s.name}, {"duration_s", std::chrono::duration<double>(s.duration).count()},
                              {"target", s.target}});
        return json{{"by", st.by == staged_load::driver::rate ? "rate" : "users"}, {"start", st.start},
                    {"stages", stages}, {"sessions", options_.sessions}};
    }

    void finish_report(clock::duration elapsed, std::chrono::nanoseconds cpu) {
        auto& r = report_;
        r.duration_s = std::chrono::duration<double>(elapsed).count();
        r.overall.finalize();
        for (auto& [name, s] : r.per_tool) s.finalize();
        for (auto& [name, s] : r.per_method) s.finalize();
        r.throughput_rps = r.duration_s > 0 ? static_cast<double>(r.overall.calls()) / r.duration_s : 0;
        for (auto& st : stages_) {
            st.stats.finalize();
            st.throughput_rps = st.duration_s > 0 ? static_cast<double>(st.stats.calls()) / st.duration_s : 0;
        }
        r.stages = std::move(stages_);
        find_breaking_point();

        for (std::size_t i = 0; i < sessions_.size(); ++i) {
            const auto& s = sessions_[i];
            r.late_replies += s.late_replies().size();
            r.protocol_violations += s.stats().protocol_violations;
            for (const auto& v : s.protocol_violations())
                if (r.protocol_violation_samples.size() < 10)
                    r.protocol_violation_samples.push_back("server[" + std::to_string(i) + "] " + v.describe());
        }
        if (options_.sample_interval.count() > 0) {
            leak_options leak = options_.leak;
            if (leak.warmup.count() == 0)
                leak.warmup = std::min<std::chrono::milliseconds>(
                    std::chrono::duration_cast<std::chrono::milliseconds>(elapsed / 5), std::chrono::seconds(30));
            for (const auto& [session_index, pid] : sampled_processes()) {
                server_process_report p;
                p.session = session_index;
                p.pid = pid;
                p.samples = sampler_.samples_of(p.pid);
                p.stats = summarize(p.samples);
                p.leaks = analyse_leaks(p.samples, leak);
                r.processes.push_back(std::move(p));
            }
        }
        if (trace_) {
            for (const auto& p : r.processes)
                for (const auto& s : p.samples) {
                    char buf[256];
                    std::snprintf(buf, sizeof buf,
                                  R"({"ts":%.6f,"kind":"process_sample","session":%zu,"pid":%d,"rss_mb":%.3f,"cpu_pct":%.1f,"open_fds":%u,"threads":%u})"
                                  "\n",
                                  std::chrono::duration<double>(s.at).count(), p.session, static_cast<int>(s.pid),
                                  s.rss_mb, s.cpu_pct, s.open_fds, s.threads);
                    trace_buffer_ += buf;
                }
            flush_trace();
            trace_->flush();
        }

        auto& g = r.generator;
        g.cpu_pct = r.duration_s > 0 ? 100.0 * std::chrono::duration<double>(cpu).count() / r.duration_s : 0;
        g.send_lag = send_lag_.summary();
        const bool rate_model = send_lag_.count() > 0;
        const auto lag_limit = std::max<std::chrono::nanoseconds>(10ms, 2 * interval_hint_);
        if (g.cpu_pct > 85.0) {
            g.saturated = true;
            g.explanation = "the load generator used " + format_num(g.cpu_pct) +
                            "% of a core: it may be the bottleneck, not the server. Lower the load or spread it "
                            "over several test processes.";
        } else if (rate_model && g.send_lag.p99 > lag_limit) {
            g.saturated = true;
            g.explanation = "99% of sends left within " + format_ms(g.send_lag.p99) +
                            " of their intended time, above " + format_ms(lag_limit) +
                            ": the generator could not keep the arrival rate (machine overloaded?). Latencies "
                            "still count from the intended times.";
        } else {
            g.explanation = "the load generator kept up (" + format_num(g.cpu_pct) + "% CPU" +
                            (rate_model ? ", p99 send lag " + format_ms(g.send_lag.p99) : std::string()) + ")";
        }

        r.violations = evaluate_thresholds(r, objectives_);
        if (r.aborted)
            r.violations.push_back({"run", "completed", "aborted: " + r.abort_reason,
                                    "The run stopped early on a critical failure; see the outcome counts."});
        r.passed = r.violations.empty();
    }

    void find_breaking_point() {
        auto& r = report_;
        const auto p99_limit = options_.breaking_p99 ? options_.breaking_p99 : objectives_.p99;
        const auto err_limit = options_.breaking_error_rate ? options_.breaking_error_rate : objectives_.error_rate;
        if (!p99_limit && !err_limit) return;
        for (std::size_t i = 0; i < r.stages.size(); ++i) {
            const auto& st = r.stages[i];
            if (st.stats.calls() == 0) continue;
            if (p99_limit && st.stats.latency.p99 > *p99_limit) {
                r.breaking_stage = i;
                r.breaking_reason = "stage " + std::to_string(i) + " (" + st.name + ", target " +
                                    format_num(st.target) + ") p99 " + format_ms(st.stats.latency.p99) + " > " +
                                    format_ms(*p99_limit);
                return;
            }
            if (err_limit && st.stats.error_rate() > *err_limit) {
                r.breaking_stage = i;
                r.breaking_reason = "stage " + std::to_string(i) + " (" + st.name + ", target " +
                                    format_num(st.target) + ") error rate " + format_pct(st.stats.error_rate()) +
                                    " > " + format_pct(*err_limit);
                return;
            }
        }
    }

    // Every server process the run spawned, then the ones the caller named
    // (network servers it started itself); session index -1 for the latter.
    std::vector<std::pair<std::size_t, pid_t>> sampled_processes() const {
        std::vector<std::pair<std::size_t, pid_t>> v;
        for (std::size_t i = 0; i < sessions_.size(); ++i)
            if (sessions_[i].pid() > 0) v.emplace_back(i, sessions_[i].pid());
        for (pid_t pid : options_.sample_pids)
            if (pid > 0) v.emplace_back(static_cast<std::size_t>(-1), pid);
        return v;
    }

    asio::any_io_executor ex_;
    any_server server_;
    workload load_;
    mix mix_;
    thresholds objectives_;
    run_options options_;
    load_rng rng_;
    std::vector<raw_json> fixed_args_;

    std::vector<session> sessions_;
    std::size_t next_session_ = 0;
    clock::time_point start_;
    std::uint64_t iterations_ = 0;
    std::size_t in_flight_ = 0;
    bool stop_ = false;
    std::exception_ptr failure_;
    wake_event idle_;
    std::chrono::nanoseconds interval_hint_{0};

    load_report report_;
    std::vector<stage_report> stages_;
    latency_histogram send_lag_;
    process_sampler sampler_;
    std::unique_ptr<std::ofstream> trace_;
    std::string trace_buffer_;
};

struct load_job {
    any_server server;
    workload load;
    mix calls;
    thresholds objectives;
    run_options options;
};

// One shared_ptr parameter: GCC 12 mis-copies some by-value class-type
// coroutine parameters into the frame.
inline asio::awaitable<load_report> run_load(std::shared_ptr<load_job> job) {
    auto engine = std::make_shared<load_engine>(co_await asio::this_coro::executor, std::move(job->server),
                                                std::move(job->load), std::move(job->calls),
                                                std::move(job->objectives), std::move(job->options));
    co_return co_await engine->execute();
}

}  // namespace mcp_loadtest::detail
