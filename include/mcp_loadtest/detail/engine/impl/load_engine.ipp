// Definitions of detail/engine/load_engine.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/engine/load_engine.hpp>

#include <mcp_loadtest/detail/os/process_info.hpp>
#include <mcp_loadtest/detail/wire/same_text.hpp>
#include <mcp_loadtest/detail/session/send_request.hpp>
#include <mcp_loadtest/replay/recording.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace mcp_loadtest::detail {

// The drivers: private member templates, instantiated by execute() only.

template <class RateAt>
asio::awaitable<void> load_engine::drive_rate(RateAt rate_at, std::chrono::nanoseconds duration, std::size_t max_in_flight,
                                              arrival_process arrivals) {
    asio::steady_timer timer(ex_);
    std::chrono::nanoseconds next{0};
    // Poisson gaps from a generator of their own, seeded by the run's seed: the arrival times
    // do not depend on what the iterations draw. Inverse CDF of 53 random bits, the same on
    // every standard library.
    std::mt19937_64 gaps(options_.seed ^ 0x9E3779B97F4A7C15ULL);
    const auto gap = [&](double rate) {
        if (arrivals == arrival_process::even) return 1e9 / rate;
        const double u = static_cast<double>(gaps() >> 11) * 0x1.0p-53;  // [0, 1)
        return -std::log1p(-u) * 1e9 / rate;
    };
    while (next < duration && !stop_) {
        const auto now = clock::now();
        while (next < duration && start_ + next <= now && !stop_) {
            const double rate = rate_at(next);
            if (rate <= 0) {  // nothing to send now: look again a little later
                next += 10ms;
                continue;
            }
            const auto interval = std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 / rate));  // the mean gap
            interval_hint_ = interval;
            launch_open(start_ + next, max_in_flight, interval);
            next += std::chrono::nanoseconds(std::max<std::int64_t>(1, static_cast<std::int64_t>(gap(rate))));
        }
        if (next >= duration || stop_) break;
        timer.expires_at(start_ + next);
        asio::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
}

template <class UsersAt>
asio::awaitable<void> load_engine::drive_users(UsersAt users_at, std::chrono::nanoseconds duration,
                                  std::chrono::nanoseconds think, std::uint64_t max_iterations) {
    asio::steady_timer timer(ex_);
    std::size_t running = 0;
    auto users_done = std::make_shared<std::size_t>(0);
    while (!stop_) {
        const auto t = clock::now() - start_;
        if (t >= duration) break;
        // Every iteration allowed has started: the run ends when they do.
        if (max_iterations && iterations_ >= max_iterations) break;
        const auto wanted = static_cast<std::size_t>(std::llround(users_at(t)));
        for (; running < wanted; ++running) {
            asio::co_spawn(ex_, user_loop(running, users_at, duration, think, max_iterations),
                           [self = shared_from_this(), users_done](std::exception_ptr e) {
                               ++*users_done;
                               if (e && !self->failure_) self->failure_ = e;
                               self->idle_.notify();
                               if (self->driver_timer_) self->driver_timer_->cancel();
                           });
        }
        // Re-read the target often enough to follow a ramp (a user that
        // stops wakes us at once: see user_done below).
        timer.expires_after(std::min<std::chrono::nanoseconds>(50ms, duration - t));
        asio::error_code ec;
        driver_timer_ = &timer;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        driver_timer_ = nullptr;
    }
    while (*users_done < running) co_await idle_.wait_until(clock::time_point::max());
    if (failure_) std::rethrow_exception(failure_);
}

template <class UsersAt>
asio::awaitable<void> load_engine::user_loop(std::size_t user, UsersAt users_at, std::chrono::nanoseconds duration,
                                std::chrono::nanoseconds think, std::uint64_t max_iterations) {
    asio::steady_timer timer(ex_);
    std::optional<iteration> it;  // these two when calls_only_
    direct_call call;  // filled again for each of this user's calls: its buffers stay
    for (;;) {
        const auto now = clock::now();  // read once: the iteration starts now
        const auto t = now - start_;
        if (stop_ || t >= duration) break;
        if (max_iterations && iterations_ >= max_iterations) break;
        // Ramping down: user >= llround(users) for users >= 0, without the libm call per iteration.
        if (users_at(t) < static_cast<double>(user) + 0.5) break;
        ++in_flight_;
        iteration_ctx ctx{iterations_++, now, false, stage_of(t), 0};
        ++report_.iterations_started;
        if (calls_only_) {
            if (begin_direct_call(ctx, it, call)) {
                const call_in_place send{call.core, &call.request, &call.result};
                co_await send;
                record_call(*it, *call.result, {}, it->latency_of(*call.result));
            }
        } else {
            co_await run_iteration(ctx);
        }
        ++report_.iterations_completed;
        --in_flight_;
        if (think.count() > 0) {
            timer.expires_after(think);
            asio::error_code ec;
            co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        }
    }
}

MCP_LOADTEST_DECL asio::awaitable<void> wake_event::wait_until(clock::time_point deadline) {
    timer_.expires_at(deadline);
    asio::error_code ec;
    co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

MCP_LOADTEST_DECL load_engine::load_engine(asio::any_io_executor ex, any_server server, workload load, scenario body, thresholds objectives,
                                           run_options options)
    : ex_(std::move(ex)),
      server_(std::move(server)),
      load_(std::move(load)),
      body_(std::move(body)),
      objectives_(std::move(objectives)),
      options_(std::move(options)),
      rng_(options_.seed),
      idle_(ex_),
      sampler_(ex_, options_.sample_interval.count() > 0 ? options_.sample_interval : std::chrono::milliseconds(1000)) {
    if (!body_) throw std::invalid_argument("mcp_loadtest::run: the scenario body is empty (a null std::function)");
    if (const auto* mixed = body_.target<mix_body>();
        mixed && mixed->state->calls.patterns().empty() && !mixed->state->calls.calls().empty())
        calls_only_ = mixed;
    apply_shard();
    if (options_.sessions == 0)
        throw std::invalid_argument("mcp_loadtest::run: run_options.sessions must be at least 1");
    if (!(options_.cancel.fraction >= 0 && options_.cancel.fraction <= 1))
        throw std::invalid_argument("mcp_loadtest::run: run_options.cancel.fraction must be from 0 (off) to 1 "
                                    "(every iteration), e.g. 0.2 to cancel one iteration in five");
    if (options_.cancel.fraction > 0) {
        report_.cancellation.moment = std::string(to_string(options_.cancel.moment));
        report_.cancellation.fraction = options_.cancel.fraction;
        // A server that dies of a cancel is reported with its last stderr line.
        if (auto* stdio = std::get_if<stdio_server>(&server_); stdio && stdio->stderr_to == stderr_mode::inherit)
            stdio->stderr_to = stderr_mode::tee;
    }
}

MCP_LOADTEST_DECL asio::awaitable<load_report> load_engine::execute() {
    auto self = shared_from_this();  // the spawned iterations outlive no one but us
    report_.run_id = make_run_id();
    report_.started_at = iso8601_utc(std::chrono::system_clock::now());
    report_.workload = std::string(workload_name(load_));
    report_.workload_parameters =
        options_.shard.sharded() ? whole_parameters_ : describe_workload(load_, options_.sessions);
    report_.sessions = options_.sessions;
    report_.server = describe(server_);
    report_.transport = transport_name(server_);
    report_.seed = options_.seed;
    if (options_.shard.sharded()) {
        report_.shard_index = options_.shard.index;
        report_.shard_count = options_.shard.count;
    }
    if (!options_.trace_path.empty()) trace_ = std::make_unique<trace_writer>(options_.trace_path);

    co_await connect_sessions();
    if (options_.list_before_run) co_await list_what_the_server_offers();
    const auto& id = sessions_.front().identity();
    report_.protocol_version = id.protocol_version;
    report_.protocol_era = std::string(to_string(id.era));
    report_.server_name = id.name;
    report_.server_version = id.version;

    co_await wait_for_shard_start();  // before sampling: an idle wait is not part of the run
    if (options_.sample_interval.count() > 0) {
        for (const auto& [session_index, pid] : sampled_processes()) sampler_.add(pid);
        sampler_.start();
    }
    const auto cpu0 = this_process_cpu_time();
    start_ = clock::now();
    const auto wall_start = std::chrono::system_clock::now();  // what merges align by
    report_.started_at = iso8601_utc(wall_start);
    report_.started_at_unix_ns =
        std::chrono::duration_cast<std::chrono::nanoseconds>(wall_start.time_since_epoch()).count();
    // Stops with the load below, or with this frame if the run throws (off: no timer at all).
    auto progress = live_progress::start(ex_, options_.progress, report_, start_, workload_duration(load_));
    if (objectives_.abort_on_breach_after)
        asio::co_spawn(ex_, watch_for_breach(*objectives_.abort_on_breach_after), asio::detached);
    if (auto* o = std::get_if<open_load>(&load_)) {
        interval_hint_ = o->rate > 0 ? std::chrono::nanoseconds(static_cast<std::int64_t>(1e9 / o->rate)) : 1s;
        co_await drive_rate([r = o->rate](std::chrono::nanoseconds) { return r; }, o->duration, o->max_in_flight,
                            o->arrivals);
    } else if (auto* c = std::get_if<closed_load>(&load_)) {
        co_await drive_users([u = static_cast<double>(c->users)](std::chrono::nanoseconds) { return u; },
                             c->duration, c->think_time, c->max_iterations);
    } else {
        const auto& st = std::get<staged_load>(load_);
        if (st.by == staged_load::driver::rate)
            co_await drive_rate([&st](std::chrono::nanoseconds t) { return st.target_at(t); }, st.duration(),
                                st.max_in_flight, st.arrivals);
        else
            co_await drive_users([&st](std::chrono::nanoseconds t) { return st.target_at(t); }, st.duration(),
                                 st.think_time, 0);
    }
    load_over_ = true;
    if (breach_timer_) breach_timer_->cancel();
    // Every call is bounded by its timeout (+ grace), each injected cancel by its delay: so is this wait.
    while (in_flight_ > 0 || cancels_armed_ > 0) co_await idle_.wait_until(clock::time_point::max());
    progress.stop();
    const auto elapsed = clock::now() - start_;
    const auto cpu = this_process_cpu_time() - cpu0;
    sampler_.stop();
    if (!injected_.empty()) {
        // Replies to cancelled calls, if the server sends them, come about when the call was due.
        co_await idle_.wait_until(std::min(settle_until_, clock::now() + std::chrono::seconds(2)));
        judge_injected_cancels();
    }

    co_await close_sessions();
    keep_recording();
    finish_report(elapsed, cpu);
    co_return std::move(report_);
}

MCP_LOADTEST_DECL asio::awaitable<void> load_engine::connect_sessions() {
    std::vector<asio::awaitable<session>> connects;
    for (std::size_t i = 0; i < options_.sessions; ++i) {
        any_server server = server_for_session(server_, i);  // stderr-{session}.log
        if (options_.oauth_for_session) {
            // This session's own credentials (HTTP transports; the others have no OAuth).
            auto credentials = options_.oauth_for_session(i);
            if (auto* h = std::get_if<http_server>(&server)) h->oauth = std::move(credentials);
            else if (auto* sse = std::get_if<sse_server>(&server)) sse->oauth = std::move(credentials);
        }
        if (const auto* h = std::get_if<http_server>(&server)) note_oauth_client(h->oauth);
        else if (const auto* sse = std::get_if<sse_server>(&server)) note_oauth_client(sse->oauth);
        connects.push_back(connect(std::move(server), options_.client));
    }
    const auto t0 = clock::now();
    sessions_ = co_await when_all(std::move(connects));
    // The handshakes, as the initialize method's latency (one per session), less the time a
    // session's handshake waited for a token (getting tokens is its own step).
    const auto took = clock::now() - t0;
    auto& init = report_.per_method["initialize"];
    for (const auto& s : sessions_) {
        init.outcomes.add(outcome::ok);
        init.histogram.record(std::max<std::chrono::nanoseconds>(took - s.stats().time_waiting_for_token, std::chrono::nanoseconds(0)));
        token_waits_at_start_ += s.stats().token_waits;
        token_wait_at_start_ += s.stats().time_waiting_for_token;
        token_blocked_at_start_ += s.stats().time_blocked_on_token;
    }
}

MCP_LOADTEST_DECL void load_engine::note_oauth_client(const std::shared_ptr<oauth_client>& client) {
    const auto read = get_oauth_stats_reader();
    if (!client || !read) return;
    for (const auto& [known, before] : oauth_clients_)
        if (known == client) return;
    oauth_clients_.emplace_back(client, read(*client));
}

MCP_LOADTEST_DECL void load_engine::finish_authorization_report() {
    const auto read = get_oauth_stats_reader();
    if (oauth_clients_.empty() || !read) return;
    authorization_report a;
    std::chrono::nanoseconds token_time{0}, slowest{0};
    for (const auto& [client, before] : oauth_clients_) {
        const oauth_stats now = read(*client);
        a.authorizations += now.authorizations - before.authorizations;
        a.refreshes += now.refreshes - before.refreshes;
        a.challenges += now.challenges - before.challenges;
        a.step_ups += now.step_ups - before.step_ups;
        a.failures += now.failures - before.failures;
        a.requests += now.requests - before.requests;
        token_time += now.time_getting_tokens - before.time_getting_tokens;
        // A client reused across runs: its slowest flow may predate this run; the larger of the
        // two is still an upper bound, and exact for a client made for the run.
        slowest = std::max(slowest, now.slowest);
        if (!now.token_endpoint.empty()) a.token_endpoint = now.token_endpoint;
    }
    a.token_time_s = std::chrono::duration<double>(token_time).count();
    a.slowest_token_ms = std::chrono::duration<double, std::milli>(slowest).count();
    std::uint64_t waits = 0;
    std::chrono::nanoseconds waited{0}, blocked{0};
    for (const auto& s : sessions_) {
        waits += s.stats().token_waits;
        waited += s.stats().time_waiting_for_token;
        blocked += s.stats().time_blocked_on_token;
    }
    a.blocked_s = std::chrono::duration<double>(blocked - std::min(blocked, token_blocked_at_start_)).count();
    a.held_calls = waits - std::min(waits, token_waits_at_start_);
    a.held_s = std::chrono::duration<double>(waited - std::min(waited, token_wait_at_start_)).count();
    judge_authorization(a, sessions_.size(), report_.duration_s);
    report_.authorization = std::move(a);
}

MCP_LOADTEST_DECL asio::awaitable<void> load_engine::list_what_the_server_offers() {
    auto& s = sessions_.front();
    const call_options o{.timeout = std::min<std::chrono::milliseconds>(options_.call.timeout.count() > 0
                                                                            ? options_.call.timeout
                                                                            : std::chrono::milliseconds(5000),
                                                                        std::chrono::milliseconds(5000))};
    const json& caps = s.identity().capabilities;
    co_await s.list_tools(o);
    if (caps.is_object() && caps.contains("resources")) co_await s.list_resources(o);
    if (caps.is_object() && caps.contains("prompts")) co_await s.list_prompts(o);
}

MCP_LOADTEST_DECL void load_engine::keep_recording() {
    if (!options_.client.record || (options_.recording_path.empty() && !options_.record_into)) return;
    recording all;
    for (std::size_t i = 0; i < sessions_.size(); ++i) {
        if (!sessions_[i].valid()) continue;
        all.sessions.push_back(sessions_[i].recorded());
        all.sessions.back().index = static_cast<std::uint32_t>(i + 1);
    }
    if (!options_.recording_path.empty()) {
        // A write error loses the recording, never the measurement: say so and go on.
        try {
            write_recording(all, options_.recording_path);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "mcp_loadtest::run: the recording was not written: %s The report is complete.\n",
                         e.what());
        }
    }
    if (options_.record_into) *options_.record_into = std::move(all);
}

MCP_LOADTEST_DECL asio::awaitable<void> load_engine::close_sessions() {
    std::vector<asio::awaitable<shutdown_result>> closes;
    for (auto& s : sessions_) closes.push_back(s.close());
    co_await when_all(std::move(closes));
}

MCP_LOADTEST_DECL session* load_engine::pick_session() {
    for (std::size_t tries = 0; tries < sessions_.size(); ++tries) {
        session& s = sessions_[next_session_++ % sessions_.size()];
        if (s.alive()) return &s;
    }
    return nullptr;
}

MCP_LOADTEST_DECL void load_engine::launch_open(clock::time_point intended, std::size_t max_in_flight, std::chrono::nanoseconds interval) {
    const std::size_t stage = stage_of(intended - start_);
    if (in_flight_ >= max_in_flight) {
        ++report_.dropped;
        stage_dropped(stage);
        return;
    }
    const auto lag = clock::now() - intended;
    send_lag_.record(lag);
    if (lag > std::max<std::chrono::nanoseconds>(1ms, interval)) ++report_.generator.late_sends;
    spawn_iteration({iterations_++, intended, true, stage, 0});
}

MCP_LOADTEST_DECL void load_engine::spawn_iteration(iteration_ctx ctx) {
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

MCP_LOADTEST_DECL asio::awaitable<void> load_engine::run_iteration(iteration_ctx ctx) {
    session* s = pick_session();
    if (!s) co_return abort("every server process has exited");
    ctx.session = session_index(s);
    iteration it(ctx, rng_, *this);
    if (cancel_this_iteration(ctx.index)) arm_cancel(ctx.session, s->last_request_id() + 1);
    try {
        const auto* mixed = body_.target<mix_body>();
        const mix* m = mixed ? &mixed->state->calls : nullptr;
        const std::size_t choice = m ? m->pick(it.rng()) : 0;
        if (m && choice < m->calls().size()) {
            // run()'s usual body, a mix, drew a call: it is awaited in this frame
            // (call_in_place.hpp) and recorded right here, as measure() would, without
            // the coroutine frames and allocations a scenario body takes per iteration.
            direct_call call;
            prepare_mix_call(*mixed, choice, it, *s, call);
            const call_in_place send{call.core, &call.request, &call.result};
            co_await send;
            record_call(it, *call.result, {}, it.latency_of(*call.result));
        } else if (m) {
            // A pattern (several steps). Named before the co_await: GCC 12 mishandles a braced temporary inside one.
            auto steps = start_owned(mix_iteration_job{mixed->state, s, &it, mixed->options, choice});
            co_await std::move(steps);
        } else {
            co_await body_(*s, it);
        }
    } catch (const std::exception& e) {
        report_.failures.add_exception(e.what(), ctx.index);
    } catch (...) {
        report_.failures.add_exception("an exception not derived from std::exception", ctx.index);
    }
}

MCP_LOADTEST_DECL void load_engine::prepare_mix_call(const mix_body& body, std::size_t choice, iteration& it, session& s,
                                                     direct_call& call) {
    const weighted_call& c = body.state->calls.calls()[choice];
    session_core* const core = &session_core_access::of(s);
    call.result = nullptr;
    call_options options = body.options;
    options.progress = options.progress || c.progress;
    const bool tool_call = c.is_tool_call();
    if (!c.generate) {
        // Fixed arguments: referred to, not copied, and a call like this user's last
        // one is only given its new id.
        const arguments args(body.state->fixed_args[choice]);
        if (call.written_choice == choice && call.core == core &&
            (tool_call ? refill_tool_call(*core, call.request, c.tool, args) : refill_request(*core, call.request)))
            return;
        call.written_choice = static_cast<std::size_t>(-1);  // until the line is whole again
        call.core = core;
        if (tool_call) fill_tool_call(*core, call.request, c.tool, args, options);
        else fill_request(*core, call.request, c.method, body.state->names[choice], args, options);
        call.written_choice = choice;
    } else {
        call.written_choice = static_cast<std::size_t>(-1);
        call.core = core;
        const json generated = c.generate(it.index(), it.rng());
        if (tool_call) {
            fill_tool_call(*core, call.request, c.tool, arguments(raw_json::from(generated)), options);
        } else {
            const std::string name = request_name(c.method, c.tool, generated);
            fill_request(*core, call.request, c.method, name, arguments(raw_json::from(generated)), options);
        }
    }
    call.request.keep_reply = false;  // record_call reads the outcome and the names only
}

MCP_LOADTEST_DECL bool load_engine::begin_direct_call(iteration_ctx ctx, std::optional<iteration>& it, direct_call& call) {
    session* s = pick_session();
    if (!s) {
        abort("every server process has exited");
        return false;
    }
    ctx.session = session_index(s);
    it.emplace(iteration(ctx, rng_, *this));  // its constructor is the engine's (friend)
    if (cancel_this_iteration(ctx.index)) arm_cancel(ctx.session, s->last_request_id() + 1);
    try {
        prepare_mix_call(*calls_only_, calls_only_->state->calls.pick(it->rng()), *it, *s, call);
        return true;
    } catch (const std::exception& e) {
        report_.failures.add_exception(e.what(), ctx.index);
    } catch (...) {
        report_.failures.add_exception("an exception not derived from std::exception", ctx.index);
    }
    return false;
}

MCP_LOADTEST_DECL void load_engine::record_call(const iteration& it, const call_result& r, std::string_view step,
                                                std::chrono::nanoseconds latency) {
    const auto end = clock::now();
    const iteration_ctx& ctx = it.origin();
    if (r.outcome == outcome::cancelled && !injected_.empty()) {
        // An injected cancel is not an outcome of the load: report_.cancellation counts it.
        if (auto found = injected_.find({ctx.session, r.request_id}); found != injected_.end()) {
            found->second.cancel_after = r.duration;
            if (trace_) trace_->write_call(end - start_, ctx.session, ctx.index, r, step, latency);
            return;
        }
    }
    const auto add = [&](call_stats& s) {
        s.outcomes.add(r.outcome);
        if (r.outcome != outcome::cancelled) s.histogram.record(latency);
        if (r.progress_requested) s.progress.add(r.progress_notifications, r.first_progress, r.progress_violations);
    };
    add(report_.overall);
    add(cell_of(r.tool, r.method));
    if (!step.empty()) add(step_stats(step));
    if (!stages_.empty()) add(stages_[std::min(ctx.stage, stages_.size() - 1)].stats);
    if (r.outcome != outcome::cancelled)
        intervals_.record(static_cast<std::size_t>((end - start_) / options_.timeline_bucket), r.method, r.tool, latency);
    auto& point = timeline_at(end);
    ++point.completed;
    if (!r.ok()) ++point.errors;
    point.in_flight = in_flight_;
    if (trace_) trace_->write_call(end - start_, ctx.session, ctx.index, r, step, latency);
    if (objectives_.abort_on_critical && (r.outcome == outcome::crash || r.outcome == outcome::deadlock))
        abort(std::string("critical outcome ") + std::string(to_string(r.outcome)) + " on " + r.describe_call() +
              ": " + r.message);
}

MCP_LOADTEST_DECL void load_engine::record_step(const iteration&, std::string_view step, std::chrono::nanoseconds latency) {
    auto& s = step_stats(step);
    s.outcomes.add(outcome::ok);
    s.histogram.record(latency);
}

MCP_LOADTEST_DECL void load_engine::record_check(const iteration& it, std::string_view what, std::string_view detail) {
    report_.failures.add_check(what, detail, it.index());
}

MCP_LOADTEST_DECL call_stats& load_engine::step_stats(std::string_view step) {
    // Heterogeneous lookup first: no string is built for a step already seen.
    const auto found = report_.per_step.find(step);
    return found != report_.per_step.end() ? found->second : report_.per_step[std::string(step)];
}

MCP_LOADTEST_DECL call_stats& load_engine::cell_of(std::string_view tool_key, std::string_view method) {
    if (last_cell_.stats && same_text(tool_key, last_cell_.tool_key) && same_text(method, last_cell_.method))
        return *last_cell_.stats;
    auto tool = cells_.find(tool_key);
    if (tool == cells_.end()) tool = cells_.emplace(std::string(tool_key), method_cells{}).first;
    auto cell = tool->second.find(method);
    if (cell == tool->second.end()) cell = tool->second.emplace(std::string(method), call_stats{}).first;
    last_cell_.tool_key.assign(tool_key);
    last_cell_.method.assign(method);
    last_cell_.stats = &cell->second;  // std::map's nodes stay put: the pointer holds while the map lives
    return cell->second;
}

MCP_LOADTEST_DECL void load_engine::merge_cells() {
    for (const auto& [tool, methods] : cells_)
        for (const auto& [method, stats] : methods) {
            report_.per_tool[per_tool_key(method, tool)].merge(stats);
            report_.per_method[method].merge(stats);
        }
    cells_.clear();
    last_cell_ = {};
}

MCP_LOADTEST_DECL timeline_point& load_engine::timeline_at(clock::time_point t) {
    const auto bucket = static_cast<std::size_t>((t - start_) / options_.timeline_bucket);
    if (bucket >= report_.timeline.size()) {
        const std::size_t from = report_.timeline.size();
        report_.timeline.resize(bucket + 1);
        for (std::size_t i = from; i <= bucket; ++i)
            report_.timeline[i].at_s = std::chrono::duration<double>(options_.timeline_bucket * i).count();
    }
    return report_.timeline[bucket];
}

MCP_LOADTEST_DECL void load_engine::abort(std::string reason) {
    if (!report_.aborted) {
        report_.aborted = true;
        report_.abort_reason = std::move(reason);
    }
    stop_ = true;
}

MCP_LOADTEST_DECL asio::awaitable<void> load_engine::watch_for_breach(std::chrono::nanoseconds delay) {
    auto self = shared_from_this();  // the run ends only after this wait is cancelled
    asio::steady_timer timer(ex_);
    auto next = start_ + std::max<std::chrono::nanoseconds>(delay, std::chrono::nanoseconds(0));
    while (!stop_ && !load_over_) {
        timer.expires_at(next);
        asio::error_code ec;
        breach_timer_ = &timer;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        breach_timer_ = nullptr;
        if (stop_ || load_over_) break;
        judge_breach(clock::now(), delay);
        next += options_.timeline_bucket;
    }
}

MCP_LOADTEST_DECL void load_engine::judge_breach(clock::time_point now, std::chrono::nanoseconds delay) {
    load_report so_far;
    so_far.overall = report_.overall;
    so_far.overall.finalize();
    for (const auto& [tool, methods] : cells_)
        for (const auto& [method, stats] : methods) so_far.per_tool[per_tool_key(method, tool)].merge(stats);
    for (auto& [name, s] : so_far.per_tool) s.finalize();
    so_far.per_step = report_.per_step;
    for (auto& [name, s] : so_far.per_step) s.finalize();
    so_far.dropped = report_.dropped;
    so_far.failures = report_.failures;
    for (const auto& s : sessions_) {
        so_far.protocol_violations += s.stats().protocol_violations;
        so_far.schema_violations += s.stats().schema_violations;
    }
    // What can be judged now: resources need the whole run; an objective without evidence yet
    // (no call of its tool or step completed) is unproven, not breached.
    thresholds live = objectives_;
    live.rss_growth_mb.reset();
    live.leak_slope_mb_per_s.reset();
    live.fd_growth.reset();
    live.thread_growth.reset();
    if (so_far.overall.histogram.count() == 0) live.p50 = live.p90 = live.p95 = live.p99 = live.p999 = live.max = {};
    if (so_far.overall.calls() == 0) live.error_rate.reset();
    const auto unmeasured = [](const auto& measured) {
        return [m = &measured](const auto& entry) {
            const auto it = m->find(entry.first);
            return it == m->end() || it->second.histogram.count() == 0;
        };
    };
    std::erase_if(live.per_tool, unmeasured(so_far.per_tool));
    std::erase_if(live.per_step, unmeasured(so_far.per_step));
    const auto broken = evaluate_thresholds(so_far, live);
    if (broken.empty()) return;
    breach_report b;
    b.violation = broken.front();
    b.at_s = std::chrono::duration<double>(now - start_).count();
    b.calls = so_far.overall.calls();
    b.error_rate = so_far.overall.error_rate();
    b.latency = so_far.overall.latency;
    abort("objective " + b.violation.metric + " breached at " + format_num(b.at_s) + " s (expected " +
          b.violation.expected + ", got " + b.violation.actual + " over " + std::to_string(b.calls) +
          " calls; judged every " + format_ms(options_.timeline_bucket) + " from " + format_ms(delay) + ")");
    report_.breach = std::move(b);
}

MCP_LOADTEST_DECL std::size_t load_engine::stage_of(std::chrono::nanoseconds t) {
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

MCP_LOADTEST_DECL bool load_engine::cancel_this_iteration(std::uint64_t i) const noexcept {
    const double f = options_.cancel.fraction;
    return f > 0 && std::floor(static_cast<double>(i + 1) * f) > std::floor(static_cast<double>(i) * f);
}

MCP_LOADTEST_DECL std::chrono::nanoseconds load_engine::latency_estimate() {
    const auto now = clock::now();
    if (report_.overall.histogram.count() > 0 && (estimate_.count() == 0 || now - estimate_at_ > 20ms)) {
        estimate_ = report_.overall.histogram.percentile(50);
        estimate_at_ = now;
    }
    return estimate_;
}

MCP_LOADTEST_DECL void load_engine::arm_cancel(std::size_t si, std::uint64_t first_id) {
    const auto moment = options_.cancel.moment;
    // Also after_send: a reply is judged against when it was due (reply_crossed_cancel).
    const std::chrono::nanoseconds expected = latency_estimate();
    std::chrono::nanoseconds delay{0};
    if (moment != cancel_moment::after_send) {
        if (expected.count() == 0) {
            ++report_.cancellation.no_estimate;
            return;
        }
        delay = cancel_delay(moment, expected, cancels_timed_++, 5);
    }
    ++cancels_armed_;
    asio::co_spawn(ex_, inject_cancel(si, first_id, delay, expected), [self = shared_from_this()](std::exception_ptr) {
        --self->cancels_armed_;
        self->idle_.notify();
    });
}

MCP_LOADTEST_DECL asio::awaitable<void> load_engine::inject_cancel(std::size_t si, std::uint64_t id, std::chrono::nanoseconds delay,
                                                                   std::chrono::nanoseconds expected) {
    if (delay.count() > 0) {
        asio::steady_timer timer(ex_, delay);
        asio::error_code ec;
        co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    } else {
        co_await asio::post(ex_, asio::use_awaitable);  // co_spawn ran us inline: let the body send first
    }
    session& s = sessions_[si];
    auto& counts = report_.cancellation;
    // Noted first: the call's cancelled result is recorded (record_call) after this returns.
    auto [entry, fresh] = injected_.try_emplace({si, id}, injected_cancel{expected, delay});
    if (!fresh || s.last_request_id() < id || !s.cancel(id, "cancelled by run_options::cancel")) {
        if (fresh) injected_.erase(entry);
        ++counts.reply_first;
        co_return;
    }
    ++counts.sent;
    const auto allowance = std::chrono::nanoseconds(options_.cancel.crossing_allowance);
    settle_until_ = std::max(settle_until_, clock::now() + std::max(expected, delay) + 2 * allowance);
}

MCP_LOADTEST_DECL void load_engine::judge_injected_cancels() {
    auto& c = report_.cancellation;
    std::vector<std::uint64_t> cancels_per_session(sessions_.size(), 0);
    for (const auto& [key, injected] : injected_) {
        ++cancels_per_session[key.first];
        cancel_after_.record(injected.cancel_after);
    }
    for (std::size_t i = 0; i < sessions_.size(); ++i) {
        for (const auto& late : sessions_[i].late_replies()) {
            const auto found = injected_.find({i, late.request_id});
            if (found == injected_.end()) continue;
            const auto& injected = found->second;
            if (reply_crossed_cancel(injected.cancel_after, late.after, injected.expected,
                                     options_.cancel.crossing_allowance))
                ++c.crossed;
            else
                ++c.replied_anyway;
        }
        if (cancels_per_session[i] > 0 && !sessions_[i].alive()) {
            ++c.servers_exited;
            const std::string words = last_line_of(sessions_[i].stderr_tail(2000));
            if (c.exit_samples.size() < 10)
                c.exit_samples.push_back("server[" + std::to_string(i) + "] " +
                                         (sessions_[i].exit().exited ? sessions_[i].exit().describe()
                                                                     : std::string("lost its connection")) +
                                         " after " + std::to_string(cancels_per_session[i]) + " cancel(s)" +
                                         (words.empty() ? "" : "; its last stderr line: \"" + words + "\""));
        }
    }
    c.honoured = c.sent - std::min(c.sent, c.crossed + c.replied_anyway);
    c.cancel_after = cancel_after_.summary();
}

MCP_LOADTEST_DECL void load_engine::add_cancellation_violations(load_report& r) const {
    const auto& c = r.cancellation;
    if (c.servers_exited > 0)
        r.violations.push_back(
            {"cancellation:servers_exited", "0", std::to_string(c.servers_exited) + " (" + c.exit_samples.front() + ")",
             "A server exited after receiving notifications/cancelled: a cancel landing between a handler returning "
             "and its reply being sent can crash it (python-sdk#2416); mlt::cancellation_check shows which moment."});
    if (const auto& most = options_.cancel.max_replied_anyway; most && c.replied_anyway > *most)
        r.violations.push_back({"cancellation:replied_anyway", "<= " + std::to_string(*most),
                                std::to_string(c.replied_anyway) + " of " + std::to_string(c.sent) + " cancelled calls",
                                "The server answered calls after their notifications/cancelled; the spec says "
                                "the receiver SHOULD NOT respond to a cancelled request."});
}

MCP_LOADTEST_DECL void load_engine::apply_shard() {
    const auto& shard = options_.shard;
    check_shard(shard);
    if (shard.start != std::chrono::system_clock::time_point{} &&
        shard.start - std::chrono::system_clock::now() > shard.max_start_wait)
        throw std::invalid_argument("mcp_loadtest::run: the shard start time is more than " +
                                    std::to_string(shard.max_start_wait.count()) +
                                    " s ahead (run_options::shard.max_start_wait): check the clock and "
                                    "MCP_LOADTEST_SHARD_START (Unix seconds)");
    if (!shard.sharded()) return;
    whole_parameters_ = describe_workload(load_, options_.sessions);
    load_ = shard_workload(load_, shard);
    whole_parameters_["this_shard"] = describe_workload(load_, options_.sessions);
    options_.seed = shard_seed(options_.seed, shard);
    rng_.seed(options_.seed);
}

MCP_LOADTEST_DECL asio::awaitable<void> load_engine::wait_for_shard_start() {
    const auto& shard = options_.shard;
    if (shard.start == std::chrono::system_clock::time_point{}) co_return;
    const auto ahead = std::min<std::chrono::nanoseconds>(shard.start - std::chrono::system_clock::now(),
                                                          shard.max_start_wait);
    if (ahead.count() <= 0) co_return;
    asio::steady_timer timer(ex_, ahead);
    asio::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

MCP_LOADTEST_DECL void load_engine::finish_report(clock::duration elapsed, std::chrono::nanoseconds cpu) {
    auto& r = report_;
    r.duration_s = std::chrono::duration<double>(elapsed).count();
    merge_cells();
    r.overall.finalize();
    for (auto& [name, s] : r.per_tool) s.finalize();
    for (auto& [name, s] : r.per_method) s.finalize();
    for (auto& [name, s] : r.per_step) s.finalize();
    r.throughput_rps = r.duration_s > 0 ? static_cast<double>(r.overall.calls()) / r.duration_s : 0;
    for (auto& st : stages_) {
        st.stats.finalize();
        st.throughput_rps = st.duration_s > 0 ? static_cast<double>(st.stats.calls()) / st.duration_s : 0;
    }
    r.stages = std::move(stages_);
    intervals_.finish(elapsed, r.intervals);
    find_breaking_point(r, options_.breaking_p99 ? options_.breaking_p99 : objectives_.p99,
                        options_.breaking_error_rate ? options_.breaking_error_rate : objectives_.error_rate);

    for (std::size_t i = 0; i < sessions_.size(); ++i) {
        const auto& s = sessions_[i];
        r.late_replies += s.late_replies().size();
        r.protocol_violations += s.stats().protocol_violations;
        for (const auto& v : s.protocol_violations()) {
            using kind = protocol_violation::kind;
            const bool progress = v.what == kind::progress_wrong_token || v.what == kind::progress_after_result ||
                                  v.what == kind::progress_not_increasing;
            auto& samples = progress ? r.progress.samples : r.protocol_violation_samples;
            if (samples.size() < 10) samples.push_back("server[" + std::to_string(i) + "] " + v.describe());
        }
        r.progress.wrong_token += s.stats().progress_wrong_token;
        r.progress.after_result += s.stats().progress_after_result;
        r.progress.not_increasing += s.stats().progress_not_increasing;
        r.coverage.merge(s.coverage());
        r.schema_violations += s.stats().schema_violations;
        for (const auto& v : s.schema_violations())
            if (r.schema_violation_samples.size() < 10)
                r.schema_violation_samples.push_back("server[" + std::to_string(i) + "] " + v.describe());
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
            // Workers and a wrapper's real server: sampled each tick with the server.
            p.descendants = analyse_descendants(sampler_, pid, leak);
            for (auto& l : descendant_leaks(p.descendants)) p.leaks.push_back(std::move(l));
            p.tree_stats = p.descendants.empty() ? p.stats : summarize(sampler_.tree_samples_of(pid));
            r.processes.push_back(std::move(p));
        }
    }
    if (trace_) {
        for (const auto& p : r.processes)
            for (const auto& sample : p.samples) trace_->write_sample(p.session, sample);
        trace_->close();
        // A write error stops the trace, never the run: say so, the measurement stands.
        if (trace_->failed())
            std::fprintf(stderr,
                         "mcp_loadtest::run: the trace '%s' is incomplete: writing it failed (disk full or the file "
                         "removed?). The report is complete. Hint: free space, or set a writable trace_path.\n",
                         options_.trace_path.string().c_str());
    }

    judge_generator(r.generator, r.duration_s, cpu, send_lag_, interval_hint_);
    finish_authorization_report();

    r.violations = evaluate_thresholds(r, objectives_);
    add_cancellation_violations(r);
    if (r.aborted)
        r.violations.push_back({"run", "completed", "aborted: " + r.abort_reason,
                                r.breach ? "The run stopped early: an objective was already breached "
                                           "(thresholds::abort_on_breach_after), so loading on would only have "
                                           "confirmed it; see report.breach for the figures then."
                                         : "The run stopped early on a critical failure; see the outcome counts."});
    r.passed = r.violations.empty();
}

MCP_LOADTEST_DECL std::vector<std::pair<std::size_t, pid_t>> load_engine::sampled_processes() const {
    std::vector<std::pair<std::size_t, pid_t>> v;
    for (std::size_t i = 0; i < sessions_.size(); ++i)
        if (sessions_[i].pid() > 0) v.emplace_back(i, sessions_[i].pid());
    for (pid_t pid : options_.sample_pids)
        if (pid > 0) v.emplace_back(static_cast<std::size_t>(-1), pid);
    return v;
}

MCP_LOADTEST_DECL asio::awaitable<load_report> load_job::run() {
    auto engine = std::make_shared<load_engine>(co_await asio::this_coro::executor, std::move(server),
                                                std::move(load), std::move(body), std::move(objectives),
                                                std::move(options));
    co_return co_await engine->execute();
}

}  // namespace mcp_loadtest::detail
