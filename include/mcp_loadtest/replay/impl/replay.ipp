// Definitions of replay/replay.hpp.
#pragma once

#include <mcp_loadtest/replay/replay.hpp>

#include <mcp_loadtest/detail/clock.hpp>
#include <mcp_loadtest/detail/owned_coroutine.hpp>
#include <mcp_loadtest/histogram/hdr_v2.hpp>
#include <mcp_loadtest/report/baseline.hpp>
#include <mcp_loadtest/report/compare.hpp>
#include <mcp_loadtest/session.hpp>
#include <mcp_loadtest/when_all.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mcp_loadtest {

namespace detail::replay_impl {

/// A recorded request, and what became of it in the replay.
struct planned_request {
    const recorded_message* message = nullptr;
    const recorded_message* reply = nullptr;  // the recorded answer, if one came
    std::string method, tool;
    json params = json::object();
    bool progress = false;  // it asked for progress: the replay asks too, with its own token
    clock::duration at{};  // recorded send time
    // It followed the replies of the first `follows` requests in recorded reply order.
    std::size_t follows = 0;
    // Replay state.
    bool started = false, done = false;
    clock::time_point sent_at{};
    call_result result{};
    std::shared_ptr<asio::cancellation_signal> cancel = std::make_shared<asio::cancellation_signal>();
};

struct planned_notification {
    clock::duration at{};
    std::string method;
    json params = json::object();
    std::optional<std::size_t> cancels;  // notifications/cancelled: the request it names
};

/// The recording's answers to server-to-client requests, handed out in order per method.
struct recorded_answers {
    std::map<std::string, std::deque<json>> by_method;  // each: the whole answer message
    std::size_t answered = 0, unanswered = 0;
};

inline bool same_id(const std::optional<json>& a, const std::optional<json>& b) { return a && b && *a == *b; }

/// "ok", "tool_error" or "error <code>" for a reply message; "" when it is not one.
inline std::string outcome_of_reply(const json& reply) {
    if (!reply.is_object()) return {};
    if (auto e = reply.find("error"); e != reply.end()) {
        const auto c = e->is_object() ? e->find("code") : e->end();
        return "error " + (e->is_object() && c != e->end() ? c->dump() : std::string("?"));
    }
    if (auto r = reply.find("result"); r != reply.end()) {
        const auto ie = r->is_object() ? r->find("isError") : r->end();
        return r->is_object() && ie != r->end() && *ie == true ? "tool_error" : "ok";
    }
    return {};
}

inline bool is_error(const std::string& outcome) { return outcome.rfind("error ", 0) == 0; }

/// The reply without its envelope: {"result": ...} or {"error": ...}.
inline json body_of(const json& reply) {
    json body = json::object();
    if (auto e = reply.find("error"); e != reply.end()) body["error"] = *e;
    if (auto r = reply.find("result"); r != reply.end()) body["result"] = *r;
    return body;
}

inline double percentile_ms(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
}

inline double to_ms(clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

inline std::string cut(const std::string& s, std::size_t n) { return s.size() <= n ? s : s.substr(0, n) + "..."; }

struct session_plan {
    std::vector<planned_request> requests;
    std::vector<planned_notification> notifications;
    std::shared_ptr<recorded_answers> answers = std::make_shared<recorded_answers>();
};

inline bool handshake_method(const std::string& m) {
    return m == "initialize" || m == "server/discover" || m == "notifications/initialized";
}

inline session_plan plan_of(const recorded_session& rs) {
    session_plan plan;
    std::vector<std::pair<std::optional<json>, std::string>> server_requests;  // id, method
    for (const auto& m : rs.messages) {
        const auto parsed = m.parsed();
        if (!parsed || !parsed->is_object()) continue;
        const json& msg = *parsed;
        const auto method_it = msg.find("method");
        const bool has_method = method_it != msg.end() && method_it->is_string();
        const std::string method = has_method ? method_it->get<std::string>() : std::string();
        const std::optional<json> id = msg.contains("id") ? std::optional<json>(msg["id"]) : std::nullopt;
        if (m.direction == message_direction::sent) {
            if (has_method && handshake_method(method)) continue;
            json params = msg.contains("params") && msg["params"].is_object() ? msg["params"] : json::object();
            const auto meta = params.find("_meta");
            const bool progress = meta != params.end() && meta->is_object() && meta->contains("progressToken");
            params.erase("_meta");  // the replaying session writes its own
            if (has_method && id) {
                planned_request p;
                p.message = &m;
                p.method = method;
                p.tool = m.tool();
                p.params = std::move(params);
                p.progress = progress;
                p.at = m.at;
                plan.requests.push_back(std::move(p));
            } else if (has_method) {
                planned_notification n;
                n.at = m.at;
                n.method = method;
                if (method == "notifications/cancelled" && params.contains("requestId")) {
                    for (std::size_t i = 0; i < plan.requests.size(); ++i)
                        if (plan.requests[i].message->id() == params["requestId"]) n.cancels = i;
                }
                n.params = std::move(params);
                plan.notifications.push_back(std::move(n));
            } else if (id) {
                // Our answer to a server request: replayed as the answer to the same method.
                for (auto it = server_requests.begin(); it != server_requests.end(); ++it) {
                    if (same_id(it->first, id)) {
                        plan.answers->by_method[it->second].push_back(msg);
                        server_requests.erase(it);
                        break;
                    }
                }
            }
        } else {
            if (has_method && id) {
                server_requests.emplace_back(id, method);
            } else if (!has_method && id) {
                for (auto& p : plan.requests) {
                    if (!p.reply && p.at <= m.at && same_id(p.message->id(), id)) {
                        p.reply = &m;
                        break;
                    }
                }
            }
        }
    }
    // What each request followed: the requests answered before it was sent, counted in reply order.
    std::vector<clock::duration> reply_times;
    for (const auto& p : plan.requests)
        if (p.reply) reply_times.push_back(p.reply->at);
    std::sort(reply_times.begin(), reply_times.end());
    for (auto& p : plan.requests)
        p.follows = static_cast<std::size_t>(std::upper_bound(reply_times.begin(), reply_times.end(), p.at) -
                                             reply_times.begin());
    return plan;
}

/// Replays one recorded session; fills `plan` with what happened.
struct session_replay {
    const recorded_session* recorded = nullptr;
    const any_server* server = nullptr;
    const replay_options* options = nullptr;
    clock::duration start_delay{};
    session_plan plan;
    std::string error;  // could not open
    std::vector<double> send_errors_ms;
    std::size_t held = 0, notifications_sent = 0;

    // Replies arrive in any order: requests whose recorded reply came before a request was
    // sent must be done here before it goes; they are counted in recorded reply order.
    std::vector<std::size_t> by_reply_order;  // request indices with a recorded reply, by reply time
    std::size_t done_prefix = 0;              // the first done_prefix of them are done
    std::size_t in_flight = 0;
    std::unique_ptr<asio::steady_timer> wake;

    void finished(std::size_t k) {
        plan.requests[k].done = true;
        --in_flight;
        while (done_prefix < by_reply_order.size() && plan.requests[by_reply_order[done_prefix]].done) ++done_prefix;
        wake->cancel();
    }

    asio::awaitable<void> wait_for_wake() {
        wake->expires_at(clock::time_point::max());
        asio::error_code ec;
        co_await wake->async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }

    asio::awaitable<void> send_one(session* s, std::size_t k) {
        planned_request& p = plan.requests[k];
        call_options o;
        o.timeout = options->timeout;
        o.cancel_on_timeout = true;
        o.progress = p.progress;
        p.sent_at = clock::now();
        p.result = co_await s->request(p.method, p.params, o);
        finished(k);
    }

    asio::awaitable<void> run() {
        auto ex = co_await asio::this_coro::executor;
        wake = std::make_unique<asio::steady_timer>(ex);
        for (std::size_t i = 0; i < plan.requests.size(); ++i)
            if (plan.requests[i].reply) by_reply_order.push_back(i);
        std::stable_sort(by_reply_order.begin(), by_reply_order.end(), [this](std::size_t a, std::size_t b) {
            return plan.requests[a].reply->at < plan.requests[b].reply->at;
        });
        if (start_delay.count() > 0) {
            asio::steady_timer t(ex);
            t.expires_after(start_delay);
            co_await t.async_wait(asio::use_awaitable);
        }
        client_options client = options->client;
        if (client.protocol_version.empty()) client.protocol_version = recorded->protocol_version;
        client.default_timeout = options->timeout;
        auto answers = plan.answers;
        for (const auto& [method, queue] : answers->by_method) {
            (void)queue;
            client.request_handlers[method] = [answers, m = method](const json&) -> json {
                auto& q = answers->by_method[m];
                if (q.empty()) {
                    ++answers->unanswered;
                    throw rpc_error(-32601, "the recording has no further answer to " + m);
                }
                json answer = std::move(q.front());
                q.pop_front();
                ++answers->answered;
                if (auto e = answer.find("error"); e != answer.end() && e->is_object())
                    throw rpc_error(e->value("code", -32603), e->value("message", std::string("error")));
                return answer.value("result", json::object());
            };
        }
        std::optional<session> opened;
        try {
            opened.emplace(co_await connect(*server, client));
        } catch (const std::exception& e) {
            error = "recorded session " + std::to_string(recorded->index) + " could not be opened: " + e.what();
        }
        if (!opened) co_return;
        session& s = *opened;
        const bool paced = options->pace != replay_pace::fastest;
        const double speed = options->pace == replay_pace::scaled && options->speed > 0 ? options->speed : 1.0;
        const auto t0 = clock::now();
        clock::duration first{};
        if (!plan.requests.empty()) first = plan.requests.front().at;
        if (!plan.notifications.empty() && (plan.requests.empty() || plan.notifications.front().at < first))
            first = plan.notifications.front().at;
        const auto due_of = [&](clock::duration at) {
            return t0 + std::chrono::duration_cast<clock::duration>((at - first) / speed);
        };
        asio::steady_timer pace_timer(ex);
        std::size_t ri = 0, ni = 0;
        while (ri < plan.requests.size() || ni < plan.notifications.size()) {
            const bool request_next = ni >= plan.notifications.size() ||
                                      (ri < plan.requests.size() && plan.requests[ri].at <= plan.notifications[ni].at);
            const auto at = request_next ? plan.requests[ri].at : plan.notifications[ni].at;
            const auto due = due_of(at);
            if (paced && clock::now() < due) {
                pace_timer.expires_at(due);
                asio::error_code ec;
                co_await pace_timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            }
            if (request_next) {
                planned_request& p = plan.requests[ri];
                bool waited = false;
                while (done_prefix < p.follows) {
                    waited = true;
                    co_await wait_for_wake();
                }
                if (paced) {
                    if (waited && clock::now() > due) ++held;
                    else send_errors_ms.push_back(std::abs(to_ms(clock::now() - due)));
                }
                p.started = true;
                ++in_flight;
                asio::co_spawn(ex, send_one(&s, ri), asio::bind_cancellation_slot(p.cancel->slot(), asio::detached));
                ++ri;
            } else {
                planned_notification& n = plan.notifications[ni];
                if (n.cancels) {
                    planned_request& target = plan.requests[*n.cancels];
                    if (target.started && !target.done) target.cancel->emit(asio::cancellation_type::terminal);
                } else {
                    s.notify(n.method, n.params);
                }
                ++notifications_sent;
                ++ni;
            }
        }
        // Every request is bounded by options->timeout: so is this wait.
        while (in_flight > 0) co_await wait_for_wake();
        try {
            co_await s.close();
        } catch (const std::exception&) {
        }
    }
};

inline std::string outcome_after(const call_result& r, std::optional<json>& reply) {
    if (!r.raw.empty()) {
        try {
            json j = json::parse(r.raw);
            std::string o = outcome_of_reply(j);
            if (!o.empty()) {
                reply = std::move(j);
                return o;
            }
        } catch (const std::exception&) {
        }
    }
    return std::string(to_string(r.outcome));
}

/// Each request of one replayed session against its recorded reply: counts and findings.
inline void judge(replay_report& report, const session_replay& sr, const replay_options& options) {
    std::size_t position = 0;
    for (const auto& p : sr.plan.requests) {
        ++position;
        if (!p.started) continue;
        ++report.requests;
        if (p.progress) {
            ++report.progress_requests;
            report.progress_notifications += p.result.progress_notifications;
        }
        if (!p.reply) continue;  // nothing recorded to compare with
        const auto before_reply = p.reply->parsed();
        const std::string before = before_reply ? outcome_of_reply(*before_reply) : std::string();
        if (before.empty()) continue;
        ++report.compared;
        std::optional<json> after_reply;
        const std::string after = outcome_after(p.result, after_reply);
        const std::string key = p.method == "tools/call" ? p.tool : p.method;
        replay_finding f;
        f.session = sr.recorded->index;
        f.request = position;
        f.method = p.method;
        f.tool = p.tool;
        f.request_text = cut(p.message->raw, 1000);
        f.before = before;
        f.after = after;
        if (after_reply) f.diff = diff_json(body_of(*before_reply), body_of(*after_reply), options.rules, key);
        bool finding = true;
        if (before == after) {
            finding = !f.diff.equal();
            f.kind = replay_finding_kind::reply_changed;
        } else if (is_error(before) && !is_error(after) && after_reply) {
            f.kind = replay_finding_kind::vanished_error;
        } else if (!is_error(before) && is_error(after)) {
            f.kind = replay_finding_kind::new_error;
        } else {
            f.kind = replay_finding_kind::outcome_changed;
        }
        if (!finding) {
            ++report.identical;
        } else if (report.findings.size() < options.max_findings) {
            report.findings.push_back(std::move(f));
        } else {
            ++report.findings_not_shown;
        }
    }
}

/// One request answered in the recording and in the replay.
struct latency_sample {
    std::string key;  // tool, or method
    std::chrono::nanoseconds before{0}, after{0};
};

/// Recorded (or replayed) latencies as a load_report compare() can read: per tool and overall,
/// with blocks of consecutive requests as its intervals.
inline load_report latency_report_of(const std::vector<latency_sample>& samples, bool after) {
    load_report r;
    for (const auto& s : samples) {
        const auto d = after ? s.after : s.before;
        r.overall.outcomes.add(outcome::ok);
        r.overall.histogram.record(d);
        auto& t = r.per_tool[s.key];
        t.outcomes.add(outcome::ok);
        t.histogram.record(d);
    }
    r.overall.finalize();
    for (auto& [key, t] : r.per_tool) t.finalize();
    const std::size_t n = samples.size(), blocks = std::min<std::size_t>(n, 20);
    for (std::size_t b = 0; b < blocks; ++b) {
        std::map<std::string, latency_histogram> tags;
        for (std::size_t i = b * n / blocks; i < (b + 1) * n / blocks; ++i) {
            const auto d = after ? samples[i].after : samples[i].before;
            tags[""].record(d);
            tags[samples[i].key].record(d);
        }
        for (const auto& [tag, h] : tags)
            r.intervals.push_back(latency_interval{static_cast<double>(b), 1.0, tag, h.count(), to_hdr_base64(h)});
    }
    return r;
}

inline std::vector<metric_comparison> compare_latencies(const std::vector<latency_sample>& samples,
                                                        const comparison_rules& rules) {
    std::vector<metric_comparison> out;
    if (samples.empty()) return out;
    const load_report before = latency_report_of(samples, false), after = latency_report_of(samples, true);
    detail::compare_latency(before, after, "overall", "", &before.overall, &after.overall, false, rules, out);
    for (const auto& [key, stats] : before.per_tool)
        detail::compare_latency(before, after, "tool " + key, key, &stats, &after.per_tool.at(key), false, rules, out);
    return out;
}

struct replay_job {
    recording rec;
    any_server server;
    replay_options options;

    // The coroutine keeps nothing of its own across a suspension: GCC 12 mis-handles some
    // frame locals (seen as a corrupted vector), so the state lives in the job.
    replay_report report;
    clock::time_point started{};
    std::vector<std::unique_ptr<session_replay>> replays;

    asio::awaitable<replay_report> run() {
        prepare();
        co_await when_all(session_runs());
        summarize();
        co_return std::move(report);
    }

    void prepare() {
        report.server = describe(server);
        report.recorded_server = rec.sessions.empty() ? std::string() : rec.sessions.front().server;
        report.timing.pace = options.pace == replay_pace::fastest    ? "fastest"
                             : options.pace == replay_pace::recorded ? "recorded"
                                                                     : "scaled";
        report.timing.speed = options.pace == replay_pace::scaled ? options.speed : 1.0;
        if (options.pace == replay_pace::scaled && !(options.speed > 0))
            throw std::invalid_argument("replay_options::speed must be above 0 for scaled pace (it is " +
                                        std::to_string(options.speed) + "): 2 replays twice as fast, 0.5 at half speed");
        started = clock::now();
        auto first_start = std::chrono::system_clock::time_point::max();
        for (const auto& s : rec.sessions) first_start = std::min(first_start, s.started);
        for (const auto& s : rec.sessions) {
            auto r = std::make_unique<session_replay>();
            r->recorded = &s;
            r->server = &server;
            r->options = &options;
            r->plan = plan_of(s);
            if (options.keep_session_offsets && options.pace != replay_pace::fastest && s.started > first_start) {
                const double speed = options.pace == replay_pace::scaled ? options.speed : 1.0;
                r->start_delay = std::chrono::duration_cast<clock::duration>((s.started - first_start) / speed);
            }
            replays.push_back(std::move(r));
        }
    }

    std::vector<asio::awaitable<void>> session_runs() {
        std::vector<asio::awaitable<void>> all;
        for (auto& r : replays) all.push_back(r->run());
        return all;
    }

    void summarize() {
        report.duration_s = std::chrono::duration<double>(clock::now() - started).count();

        std::vector<double> send_errors;
        std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> latency;
        std::vector<latency_sample> samples;
        for (const auto& r : replays) {
            ++report.sessions;
            if (!r->error.empty()) report.errors.push_back(r->error);
            judge(report, *r, options);
            report.notifications += r->notifications_sent;
            report.server_requests_answered += r->plan.answers->answered;
            report.server_requests_unanswered += r->plan.answers->unanswered;
            report.timing.held_requests += r->held;
            send_errors.insert(send_errors.end(), r->send_errors_ms.begin(), r->send_errors_ms.end());
            for (const auto& p : r->plan.requests) {
                if (!p.done || !p.reply || p.result.raw.empty()) continue;
                const std::string key = p.method == "tools/call" ? p.tool : p.method;
                latency[key].first.push_back(to_ms(p.reply->at - p.message->at));
                latency[key].second.push_back(std::chrono::duration<double, std::milli>(p.result.duration).count());
                samples.push_back({key, std::chrono::duration_cast<std::chrono::nanoseconds>(p.reply->at - p.message->at),
                                   std::chrono::duration_cast<std::chrono::nanoseconds>(p.result.duration)});
            }
        }
        report.latency.clear();
        for (auto& [tool, lists] : latency) {
            replay_latency l;
            l.tool = tool;
            l.requests = lists.first.size();
            l.before_p50_ms = percentile_ms(lists.first, 0.50);
            l.after_p50_ms = percentile_ms(lists.second, 0.50);
            l.before_p95_ms = percentile_ms(lists.first, 0.95);
            l.after_p95_ms = percentile_ms(lists.second, 0.95);
            report.latency.push_back(std::move(l));
        }
        report.latency_changes = compare_latencies(samples, options.latency_rules);
        report.timing.paced_requests = send_errors.size();
        if (!send_errors.empty()) {
            double sum = 0;
            for (double e : send_errors) sum += e;
            report.timing.mean_error_ms = sum / static_cast<double>(send_errors.size());
            report.timing.p50_error_ms = percentile_ms(send_errors, 0.50);
            report.timing.p99_error_ms = percentile_ms(send_errors, 0.99);
            report.timing.max_error_ms = *std::max_element(send_errors.begin(), send_errors.end());
        }
    }
};struct golden_job {
    std::filesystem::path path;
    any_server server;
    golden_traffic traffic;
    replay_options options;

    asio::awaitable<replay_report> run() {
        const auto file = resolve_baseline_path(path);
        bool written = false;
        if (update_baselines_requested()) {
            client_options c = options.client;
            c.record = true;
            session s = co_await connect(server, c);
            co_await traffic(s);
            recording r;
            r.sessions.push_back(s.recorded());
            co_await s.close();
            write_recording(r, file);
            written = true;
        } else if (!std::filesystem::exists(file)) {
            replay_report missing;
            missing.server = describe(server);
            missing.errors.push_back("no golden recording at " + file.string() +
                                     ": record it against the server whose answers are right with " +
                                     update_command({}) + ", and commit it");
            co_return missing;
        }
        replay_report report = co_await replay(read_recording_file(file), server, options);
        report.golden_written = written;
        report.golden_path = file.string();
        co_return report;
    }
};

}  // namespace detail::replay_impl

MCP_LOADTEST_DECL asio::awaitable<replay_report> replay(recording r, any_server server, replay_options options) {
    return detail::start_owned(detail::replay_impl::replay_job{std::move(r), std::move(server), std::move(options)});
}

MCP_LOADTEST_DECL asio::awaitable<replay_report> replay(recording r, any_server server) {
    return replay(std::move(r), std::move(server), replay_options{});
}

MCP_LOADTEST_DECL asio::awaitable<replay_report> replay_golden(std::filesystem::path path, any_server server,
                                                               golden_traffic traffic, replay_options options) {
    return detail::start_owned(detail::replay_impl::golden_job{std::move(path), std::move(server), std::move(traffic),
                                                                std::move(options)});
}

}  // namespace mcp_loadtest
