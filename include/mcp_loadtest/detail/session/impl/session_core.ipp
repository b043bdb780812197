// Definitions of detail/session/session_core.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/session/session_core.hpp>

#include <mcp_loadtest/detail/wire/same_text.hpp>

#include <mcp_loadtest/detail/wire/json_scan.hpp>
#include <mcp_loadtest/detail/wire/jsonrpc_writer.hpp>
#include <mcp_loadtest/detail/text/truncate_for_message.hpp>
#include <mcp_loadtest/detail/wire/wire_text.hpp>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <deque>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL session_core::session_core(asio::any_io_executor ex, std::shared_ptr<transport> wire, client_options options)
    : ex_(std::move(ex)),
      wire_(std::move(wire)),
      options_(std::move(options)),
      deadline_timer_(ex_),
      started_at_(clock::now()) {
    if (options_.strict) validator_ = options_.strict.make_validator();
    if (options_.record) recorder_ = std::make_unique<traffic_recorder>(options_.max_recording_bytes, started_at_);
}

MCP_LOADTEST_DECL recorded_session session_core::recorded() const {
    if (!recorder_) return {};
    return recorder_->snapshot(identity.protocol_version,
                               identity.protocol_version.empty() ? std::string_view{}
                               : era_ == protocol_era::modern    ? std::string_view("modern")
                                                                 : std::string_view("legacy"));
}

MCP_LOADTEST_DECL session_core::~session_core() {
    if (registry_) registry_->remove(this);
    abort_now();
    wire_->detach();
}

MCP_LOADTEST_DECL asio::awaitable<void> session_core::open() {
    if (options_.session_deadline.count() > 0) session_deadline_ = started_at_ + options_.session_deadline;
    if (!registry_) {
        registry_ = &loop_registry::of(ex_);
        registry_->add(this, std::weak_ptr<loop_bound>(std::static_pointer_cast<loop_bound>(shared_from_this())));
    }
    auto keep = wire_;
    co_await keep->open(*this, stats_);
}

MCP_LOADTEST_DECL asio::awaitable<shutdown_result> session_core::close() {
    if (closed_) {
        shutdown_result r;
        r.status = wire_->exit();
        co_return r;
    }
    closing_ = true;
    fail_all_pending(outcome::cancelled, "the session was closed while the call was in flight", true);
    auto keep = wire_;
    shutdown_result r = co_await keep->close();
    closed_ = true;
    deadline_timer_.cancel();
    co_return r;
}

MCP_LOADTEST_DECL void session_core::abort_now() noexcept {
    if (closed_) return;
    closing_ = true;
    try {
        fail_all_pending(outcome::cancelled, "the session was destroyed while the call was in flight", true);
    } catch (...) {
    }
    wire_->abort_now();
    closed_ = true;
    deadline_timer_.cancel();
}

MCP_LOADTEST_DECL void session_core::event_loop_ending() noexcept {
    registry_ = nullptr;  // it is going away with the context
    if (!closed_) {
        closing_ = true;
        wire_->abort_now();
        closed_ = true;
    }
    auto orphans = pending_.take_all();
    pending_.clear();
    orphans.clear();  // may destroy frames that own sessions, maybe this core's last owner but one
}

MCP_LOADTEST_DECL session_core::request_box session_core::take_request() {
    if (spare_requests_.empty()) return std::make_unique<request_line>();
    request_box box = std::move(spare_requests_.back());
    spare_requests_.pop_back();
    return box;
}

MCP_LOADTEST_DECL void session_core::recycle_request(request_box box) {
    if (box && spare_requests_.size() < 64 && box->line.capacity() <= 4096) spare_requests_.push_back(std::move(box));
}

MCP_LOADTEST_DECL void session_core::start_request(request_line&& req, call_completion&& completion) {
    if (closed_ || closing_ || dead_ || past_session_deadline()) {
        call_result r = make_result(req.id, std::string(req.method), std::string(req.tool), clock::now());
        if (dead_) {
            r.outcome = dead_outcome_;
            r.message = dead_message_;
        } else if (closed_ || closing_) {
            r.outcome = outcome::cancelled;
            r.message = "the session is closed; open a new one with connect()";
        } else {
            r.outcome = outcome::timeout;
            r.message = session_deadline_message();
        }
        completion.post(std::move(r));
        return;
    }
    const auto now = clock::now();
    const auto timeout = req.options.timeout.count() > 0 ? req.options.timeout : options_.default_timeout;
    const std::uint64_t id = req.id;
    auto slot = completion.slot();
    // An entry of a finished call when there is one (no allocation per request),
    // filled in place: every member is set, as it holds the last call's.
    pending_call& p = pending_.insert(id, pending_.spare()).value;
    p.completion = std::move(completion);
    // Copied only when they differ: a recycled entry mostly holds the same names (the
    // engine's calls). Not moved: req keeps them for refill_tool_call.
    if (!same_text(p.result.method, req.method)) p.result.method.assign(req.method);
    if (!same_text(p.result.tool, req.tool)) p.result.tool.assign(req.tool);
    p.sent_at = now;
    p.timeout = timeout;
    p.grace = req.options.grace;
    p.in_grace = false;
    p.cancel_on_timeout = req.options.cancel_on_timeout;
    p.progress = 0;
    p.progress_violations = 0;
    p.progress_token = req.options.progress ? id : 0;
    p.first_progress_at = {};
    p.last_progress = 0;
    if (p.progress_token) ++progress_in_flight_;
    p.input_rounds = 0;
    p.redirects = 0;
    p.token_wait = std::chrono::nanoseconds(0);
    p.keep_reply = req.keep_reply;
    p.deadline = now + timeout;
    p.deadline_is_session = false;
    if (session_deadline_ && *session_deadline_ < p.deadline) {
        p.deadline = *session_deadline_;
        p.deadline_is_session = true;
    }
    p.retry_tail.clear();
    if (era_ == protocol_era::modern && req.params_members_at > 0 && may_need_input(p.result.method))
        p.retry_tail.assign(std::string_view(req.line).substr(req.params_members_at));
    const auto deadline = p.deadline;
    // Views for the transport: the strings now live in the map node.
    const std::string_view method_view = p.result.method;
    const std::string_view tool_view = p.result.tool;
    if (slot.is_connected()) {
        slot.assign([weak = weak_from_this(), id](asio::cancellation_type) {
            if (auto self = weak.lock()) self->cancel(id, "cancelled by the caller", true);
        });
    }
    schedule_deadline(deadline, id);
    ++stats_.requests_sent;
    outgoing info;
    info.id = id;
    info.method = method_view;
    info.name = tool_view;
    if (!req.param_headers.empty()) info.param_headers = &req.param_headers;
    info.raw = req.raw;
    record_message(message_direction::sent, req.line, now);
    wire_->send(req.line, info);
}

MCP_LOADTEST_DECL session_core::request_line session_core::prepare_raw(std::string_view bytes, std::chrono::milliseconds timeout,
                                                                        std::chrono::milliseconds quiet) {
    if (raw_active())
        throw std::logic_error("mcp_loadtest::session::send_raw: another raw message is still awaiting its reply "
                               "on this session; await it first (one raw exchange at a time per session)");
    raw_state st;
    std::string method;
    try {
        // Several messages in one write (line transports read each): the first decides.
        const std::string_view first = bytes.substr(0, bytes.find('\n'));
        const json msg = json::parse(first);
        if (msg.is_array()) {
            st.batch = true;
        } else if (msg.is_object()) {
            const auto m = msg.find("method");
            const auto i = msg.find("id");
            if (m != msg.end() && m->is_string()) method = m->get<std::string>();
            if (i != msg.end() && !i->is_null()) st.id_text = i->dump();
            const bool is_response = m == msg.end() && (msg.contains("result") || msg.contains("error"));
            st.expects_reply = !is_response && !(m != msg.end() && i == msg.end());
        }
    } catch (const std::exception&) {
        // Not JSON to nlohmann (a lone surrogate escape, say): a correct server answers
        // -32700 with id null, but one that reads it anyway answers under its id.
        const envelope env = envelope_scanner::scan(bytes.substr(0, bytes.find('\n')));
        if (env.is_object && env.id.present()) {
            try {
                st.id_text = json::parse(env.id.in(bytes)).dump();
            } catch (const std::exception&) {
            }
        }
    }
    request_line req;
    req.id = next_id();
    req.line.assign(bytes);
    if (req.line.empty() || req.line.back() != '\n') req.line.push_back('\n');
    req.method = method.empty() ? std::string("raw") : std::move(method);
    req.options.timeout = st.expects_reply ? timeout : quiet;
    req.options.cancel_on_timeout = false;  // the token id means nothing to the server
    req.raw = true;
    st.token = req.id;
    raw_ = std::move(st);
    return req;
}

MCP_LOADTEST_DECL void session_core::check_arguments(std::string_view tool, std::string_view arguments_json) {
    if (!validator_) return;
    sync_validator();
    std::vector<schema_violation> found;
    try {
        validator_->check_arguments(tool, json::parse(arguments_json), found);
    } catch (const std::exception&) {
        return;  // not JSON: raw_json the test chose on purpose
    }
    if (found.empty()) return;
    std::string what = "the arguments of this call to '" + std::string(tool) +
                       "' break its inputSchema, so it was not sent (strict mode):";
    for (const auto& v : found) what += "\n  - " + v.describe();
    what += "\nFix the test's arguments, or call it without strict mode to send invalid input on purpose.";
    throw invalid_arguments(what, std::move(found));
}

MCP_LOADTEST_DECL void session_core::send_notification(std::string_view method, std::string_view params_json) {
    if (closed_ || closing_ || dead_) return;
    const std::string line = write_notification(method, params_json);
    ++stats_.notifications_sent;
    outgoing info;
    info.what = outgoing::kind::notification;
    info.method = method;
    record_message(message_direction::sent, line);
    wire_->send(line, info);
}

MCP_LOADTEST_DECL bool session_core::cancel(std::uint64_t id, std::string_view reason, bool deferred) {
    pending_entry* entry = pending_.find(id);
    if (!entry) return false;
    const auto taken = pending_.take(*entry);
    pending_call& p = taken->value;
    send_cancelled(id, reason);
    wire_->forget(id);
    remember_expired(id, p);
    call_result& r = result_of(id, p);
    r.outcome = outcome::cancelled;
    r.message.assign(reason);
    if (!is_raw(id)) note_call(r, {});
    if (deferred) p.completion.post(std::move(r));
    else p.completion.complete(std::move(r));
    return true;
}

MCP_LOADTEST_DECL void session_core::use_modern_era(const std::string& version, const json& capabilities) {
    era_ = protocol_era::modern;
    json meta = json::object();
    meta["io.modelcontextprotocol/protocolVersion"] = version;
    meta["io.modelcontextprotocol/clientCapabilities"] = capabilities;
    meta["io.modelcontextprotocol/clientInfo"] = json{{"name", options_.client_name}, {"version", options_.client_version}};
    if (!options_.log_level.empty()) meta["io.modelcontextprotocol/logLevel"] = options_.log_level;
    const std::string text = meta.dump();
    meta_members_ = text.substr(1, text.size() - 2);
    modern_meta_ = std::move(meta);
    wire_->set_era(protocol_era::modern);
    wire_->set_protocol_version(version);
}

MCP_LOADTEST_DECL void session_core::use_legacy_era() {
    era_ = protocol_era::legacy;
    meta_members_.clear();
    modern_meta_ = json::object();
    wire_->set_era(protocol_era::legacy);
    wire_->set_protocol_version({});
}

MCP_LOADTEST_DECL void session_core::learn_param_headers(const std::string& tool, const json& input_schema) {
    if (!input_schema.is_object()) return;
    auto props = input_schema.find("properties");
    if (props == input_schema.end() || !props->is_object()) return;
    std::vector<std::pair<std::string, std::string>> found;
    for (const auto& [arg, schema] : props->items())
        if (schema.is_object())
            if (auto h = schema.find("x-mcp-header"); h != schema.end() && h->is_string())
                found.emplace_back(arg, h->get<std::string>());
    if (found.empty()) param_headers_.erase(tool);
    else param_headers_[tool] = std::move(found);
}

MCP_LOADTEST_DECL void session_core::param_headers_for(std::string_view tool, std::string_view arguments_json,
                                                        std::vector<std::pair<std::string, std::string>>& out) const {
    if (param_headers_.empty()) return;
    auto it = param_headers_.find(std::string(tool));
    if (it == param_headers_.end()) return;
    json args;
    try {
        args = json::parse(arguments_json);
    } catch (const std::exception&) {
        return;
    }
    if (!args.is_object()) return;
    for (const auto& [arg, header] : it->second) {
        auto v = args.find(arg);
        if (v == args.end() || v->is_null()) continue;
        out.emplace_back(header, v->is_string() ? v->get<std::string>() : v->dump());
    }
}

MCP_LOADTEST_DECL std::vector<in_flight_call> session_core::in_flight() const {
    std::vector<in_flight_call> v;
    const auto now = clock::now();
    pending_.for_each([&](const pending_entry& e) {
        v.push_back({e.id, e.value.result.method, e.value.result.tool, now - e.value.sent_at});
    });
    std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.request_id < b.request_id; });
    return v;
}

MCP_LOADTEST_DECL std::string session_core::canonical_id(const envelope& env, std::string_view line) {
    try {
        return json::parse(env.id.in(line)).dump();
    } catch (const std::exception&) {
        return std::string(env.id.in(line));
    }
}

MCP_LOADTEST_DECL bool session_core::answers_raw(const envelope& env, std::string_view line) const {
    if (!raw_active() || !env.id.present()) return false;
    const std::string id = canonical_id(env, line);
    return id == "null" || (raw_->id_text && *raw_->id_text == id);
}

MCP_LOADTEST_DECL call_result session_core::make_result(std::uint64_t id, std::string&& method, std::string&& tool,
                                                         clock::time_point sent_at) {
    call_result r;
    r.request_id = id;
    r.method = std::move(method);
    r.tool = std::move(tool);
    r.duration = clock::now() - sent_at;
    return r;
}

MCP_LOADTEST_DECL call_result& session_core::result_of(std::uint64_t id, pending_call& p) {
    call_result& r = p.result;
    r.outcome = outcome::cancelled;
    r.duration = message_time() - p.sent_at - p.token_wait;
    r.waited_for_token = p.token_wait;
    r.request_id = id;
    r.error_code = 0;
    r.message.clear();
    r.progress_notifications = p.progress;
    r.progress_violations = p.progress_violations;
    r.progress_requested = p.progress_token != 0;
    r.first_progress = p.progress > 0 ? std::chrono::nanoseconds(p.first_progress_at - p.sent_at) : std::chrono::nanoseconds(0);
    if (p.progress_token) {
        --progress_in_flight_;
        if (p.progress_token != id) progress_moved_.erase(p.progress_token);
        progress_ended(p.progress_token, false);
    }
    r.input_rounds = p.input_rounds;
    r.http_status = 0;
    r.redirects = p.redirects;
    r.raw.clear();
    r.payload_begin = 0;
    r.payload_size = 0;
    return r;
}

MCP_LOADTEST_DECL bool session_core::past_session_deadline() const noexcept {
    return session_deadline_ && clock::now() >= *session_deadline_;
}

MCP_LOADTEST_DECL std::string session_core::session_deadline_message() const {
    return "the session deadline (client_options.session_deadline = " +
           std::to_string(options_.session_deadline.count()) +
           " ms) has passed. Hint: raise it, or open a fresh session for the next phase.";
}

MCP_LOADTEST_DECL void session_core::schedule_deadline(clock::time_point at, std::uint64_t id) {
    // Entries of calls that already ended are dropped only when they reach
    // the top; without this they pile up for a whole timeout period (16 B
    // per call: ~0.5 GB at 1M calls/s and the default 30 s), and once they
    // start expiring the timer fires continually to discard them. Rebuild
    // from the calls in flight when stale entries dominate: O(1) amortized.
    if (deadlines_.size() >= 1024 && deadlines_.size() > 2 * pending_.size()) compact_deadlines();
    deadlines_.push({at, id});
    if (at < armed_for_) arm_deadline_timer(at);
}

MCP_LOADTEST_DECL void session_core::compact_deadlines() {
    std::vector<deadline_entry> live;
    live.reserve(pending_.size() + 1);
    pending_.for_each([&](const pending_entry& e) { live.push_back({e.value.deadline, e.id}); });
    deadlines_.assign(std::move(live));
}

MCP_LOADTEST_DECL void session_core::arm_deadline_timer(clock::time_point at) {
    armed_for_ = at;
    const std::uint64_t generation = ++deadline_generation_;
    deadline_timer_.expires_at(at);
    deadline_timer_.async_wait([self = shared_from_this(), generation](const asio::error_code& ec) {
        if (ec == asio::error::operation_aborted || generation != self->deadline_generation_) return;
        self->on_deadline();
    });
}

MCP_LOADTEST_DECL void session_core::on_deadline() {
    armed_for_ = clock::time_point::max();
    const auto now = clock::now();
    while (!deadlines_.empty() && deadlines_.top().at <= now) {
        const deadline_entry e = deadlines_.top();
        deadlines_.pop();
        pending_entry* entry = pending_.find(e.id);
        if (!entry || entry->value.deadline != e.at) continue;  // done or rescheduled
        pending_call& p = entry->value;
        if (!p.deadline_is_session && !p.in_grace && p.grace.count() > 0) {
            p.in_grace = true;
            p.deadline = p.sent_at + p.timeout + p.grace;
            if (session_deadline_ && *session_deadline_ < p.deadline) {
                p.deadline = *session_deadline_;
                p.deadline_is_session = true;
            }
            deadlines_.push({p.deadline, e.id});
            continue;
        }
        expire(*entry);
        if (closed_) return;
    }
    if (!deadlines_.empty() && !closed_) arm_deadline_timer(deadlines_.top().at);
}

MCP_LOADTEST_DECL void session_core::expire(pending_entry& entry) {
    const std::uint64_t id = entry.id;
    const auto taken = pending_.take(entry);
    pending_call& p = taken->value;
    call_result& r = result_of(id, p);
    const auto ms = [](auto d) { return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()); };
    if (p.deadline_is_session) {
        r.outcome = outcome::timeout;
        r.message = session_deadline_message();
    } else if (is_raw(id) && !raw_->expects_reply) {
        r.outcome = outcome::ok;
        r.message = "nothing came back within " + ms(p.timeout) + " ms, as none was expected";
    } else if (is_raw(id)) {
        r.outcome = outcome::hang;
        r.message = "no reply to the raw message within " + ms(p.timeout) +
                    " ms; a JSON-RPC server answers every request, and an unreadable or invalid one with an "
                    "error carrying id null (JSON-RPC 2.0 §5).";
    } else if (p.in_grace) {
        r.outcome = outcome::deadlock;
        r.message = "no reply to " + r.describe_call() + " within its timeout (" + ms(p.timeout) +
                    " ms) plus grace period (" + ms(p.grace) +
                    " ms); the server looks deadlocked.";
        r.message += deadlock_evidence();
    } else {
        r.outcome = outcome::hang;
        r.message = "no reply to " + r.describe_call() + " within " + ms(p.timeout) + " ms.";
        std::string stalled = wire_->send_stall_hint();
        if (!stalled.empty()) r.message += stalled;
        else
            r.message += " Hint: raise call_options.timeout if the tool is legitimately slow; "
                         "set call_options.grace to tell a slow server from a deadlocked one.";
    }
    if (p.cancel_on_timeout) send_cancelled(id, "timed out after " + ms(clock::now() - p.sent_at) + " ms");
    wire_->forget(id);
    remember_expired(id, p);
    if (!is_raw(id)) note_call(r, {});
    p.completion.complete(std::move(r));
}

MCP_LOADTEST_DECL std::string session_core::deadlock_evidence() {
    const auto hook = options_.describe_deadlocked_server;
    if (!hook || pid() <= 0)
        return " Hint: set client_options::describe_deadlocked_server = mcp_loadtest::where_threads_wait "
               "(hang_evidence.hpp) to see where its threads wait; lazy initialisation on the first call is "
               "a common cause.";
    const auto now = clock::now();
    if (deadlock_evidence_.empty() || now - deadlock_evidence_at_ > std::chrono::seconds(1)) {
        deadlock_evidence_ = " Where it waits: " + hook(static_cast<int>(pid()));
        deadlock_evidence_at_ = now;
    }
    return deadlock_evidence_;
}

MCP_LOADTEST_DECL void session_core::remember_expired(std::uint64_t id, const pending_call& p) {
    // Kept so a reply arriving later is recognised as late, not unknown.
    expired_.emplace(id, expired_call{p.result.method, p.result.tool, p.sent_at});
    expired_order_.push_back(id);
    if (expired_order_.size() > 4096) {
        expired_.erase(expired_order_.front());
        expired_order_.pop_front();
    }
}

MCP_LOADTEST_DECL void session_core::send_cancelled(std::uint64_t id, std::string_view reason) {
    send_notification("notifications/cancelled", cancelled_params(id, reason));
}

MCP_LOADTEST_DECL void session_core::on_oversized(std::string_view prefix, std::size_t size, bool complete, std::string_view tail) {
    if (recorder_) recorder_->count_dropped();
    if (complete) record_violation(protocol_violation::kind::oversized_message, prefix, size);
    const envelope env = envelope_scanner::scan(prefix);
    if (env.method.present()) return;
    std::uint64_t id = env.id_value;
    if (!env.id_is_integer && !(complete && trailing_id(tail, id))) return;
    pending_entry* entry = pending_.find(id);
    if (!entry) return;
    finish_pending(*entry, outcome::malformed,
                   "the reply was " + std::string(complete ? "" : "at least ") + std::to_string(size) +
                       " bytes, over max_message_size; it was discarded and the session continues. "
                       "Hint: raise the server description's max_message_size if replies this large "
                       "are intended.",
                   {}, {}, 0);
}

MCP_LOADTEST_DECL bool session_core::trailing_id(std::string_view tail, std::uint64_t& id) noexcept {
    const auto is_ws = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    std::size_t end = tail.size();
    while (end > 0 && is_ws(tail[end - 1])) --end;
    if (end == 0 || tail[--end] != '}') return false;
    while (end > 0 && is_ws(tail[end - 1])) --end;
    std::size_t digits = end;
    while (digits > 0 && tail[digits - 1] >= '0' && tail[digits - 1] <= '9') --digits;
    if (digits == end || end - digits > 19) return false;
    std::size_t p = digits;
    while (p > 0 && is_ws(tail[p - 1])) --p;
    if (p == 0 || tail[--p] != ':') return false;
    while (p > 0 && is_ws(tail[p - 1])) --p;
    if (p < 4 || tail.substr(p - 4, 4) != "\"id\"") return false;
    if (p >= 5 && tail[p - 5] == '\\') return false;  // "\"id\"" inside a string
    std::uint64_t v = 0;
    for (std::size_t i = digits; i < end; ++i) v = v * 10 + static_cast<std::uint64_t>(tail[i] - '0');
    id = v;
    return true;
}

MCP_LOADTEST_DECL void session_core::on_violation(protocol_violation::kind k, std::string_view text, std::size_t size) {
    record_violation(k, text, size);
}

MCP_LOADTEST_DECL void session_core::on_request_failed(std::uint64_t id, outcome o, const std::string& message, int http_status) {
    pending_entry* entry = pending_.find(id);
    if (!entry) return;
    if (is_raw(id) && o == outcome::ok && raw_->expects_reply) o = outcome::hang;  // HTTP 202: no reply will come
    http_status_ = http_status;
    finish_pending(*entry, o, message, {}, {}, 0);
    http_status_ = 0;
}

MCP_LOADTEST_DECL void session_core::on_redirect(std::uint64_t id) {
    ++stats_.http_redirects;
    if (!id) return;
    if (pending_entry* entry = pending_.find(id))
        if (entry->value.redirects < std::numeric_limits<std::uint16_t>::max()) ++entry->value.redirects;
}

MCP_LOADTEST_DECL void session_core::on_token_wait(std::uint64_t id, std::chrono::nanoseconds waited) {
    ++stats_.token_waits;
    stats_.time_waiting_for_token += waited;
    if (pending_entry* entry = pending_.find(id)) entry->value.token_wait += waited;
}

MCP_LOADTEST_DECL void session_core::on_transport_down(outcome o, const std::string& message) {
    if (dead_) return;
    dead_ = true;
    dead_outcome_ = o;
    dead_message_ = message;
    fail_all_pending(o, message, false);
}

MCP_LOADTEST_DECL void session_core::on_message(std::string_view line, int http_status) {
    http_status_ = http_status;
    struct reset_status {
        int& s;
        std::optional<clock::time_point>& at;
        ~reset_status() {
            s = 0;
            at.reset();
        }
    } reset{http_status_, message_at_};
    if (recorder_) {
        message_at_ = clock::now();
        record_message(message_direction::received, line, *message_at_);
    }
    const envelope env = envelope_scanner::scan(line);
    if (!env.valid) {
        if (env.is_object && env.id_is_integer && !env.method.present()) {
            if (pending_entry* entry = pending_.find(env.id_value)) {
                finish_pending(*entry, outcome::malformed, describe_invalid_reply(env, line), {}, {}, 0);
                return;
            }
        }
        record_violation(protocol_violation::kind::non_json_line, line, line.size());
        if (raw_active())
            finish_pending(*pending_.find(raw_->token), outcome::malformed,
                           "the server wrote something that is not JSON in answer to the raw message: " +
                               describe_invalid_reply(env, line),
                           line, {}, 0);
        return;
    }
    if (!env.is_object) {
        if (raw_active() && raw_->batch && line.front() == '[') {
            ++stats_.replies_received;  // a batch answered with a batch
            raw_->answered = true;
            finish_pending(*pending_.find(raw_->token), outcome::ok, {}, line, {}, 0);
            return;
        }
        record_violation(line.front() == '[' ? protocol_violation::kind::batch
                                             : protocol_violation::kind::not_jsonrpc,
                         line, line.size());
        if (raw_active())
            finish_pending(*pending_.find(raw_->token), outcome::malformed,
                           "the answer to the raw message is not a JSON-RPC object: \"" +
                               truncate_for_message(line, 200) + "\"",
                           line, {}, 0);
        return;
    }
    if (env.duplicate) {
        handle_duplicate_member(env, line);
        return;
    }
    if (env.method.present()) {
        if (env.id.present()) handle_server_request(env, line);
        else handle_notification(env, line);
        return;
    }
    pending_entry* entry = env.id_is_integer ? pending_.find(env.id_value) : nullptr;
    if (!entry && raw_) {
        if (answers_raw(env, line)) {
            entry = pending_.find(raw_->token);
            if (!raw_->expects_reply) {
                record_violation(protocol_violation::kind::reply_to_notification, line, line.size());
                ++stats_.replies_received;
                finish_pending(*entry, outcome::protocol_error,
                               "the server answered a message that expects no reply (a notification or a "
                               "response); JSON-RPC 2.0 §4.1: \"The Server MUST NOT reply to a Notification\"",
                               line, {}, 0);
                return;
            }
            raw_->answered = true;
        } else if (raw_->answered && raw_->id_text && env.id.present() && raw_->id_text == canonical_id(env, line)) {
            record_violation(protocol_violation::kind::duplicate_reply, line, line.size());
            return;
        }
    }
    if (!entry) {
        auto late = env.id_is_integer ? expired_.find(env.id_value) : expired_.end();
        if (late != expired_.end()) {
            ++stats_.late_replies;
            if (late_replies_.size() < 10000)
                late_replies_.push_back({env.id_value, late->second.method, late->second.tool,
                                         clock::now() - late->second.sent_at});
            expired_.erase(late);
        } else if (env.id_is_integer && env.id_value > 0 && env.id_value <= last_id_ && is_response(env, line)) {
            // An id we sent whose call already ended with a reply.
            record_violation(protocol_violation::kind::duplicate_reply, line, line.size());
        } else {
            // Classified by what it is, not by its id's type: ours are all non-negative integers.
            record_violation(is_response(env, line) ? protocol_violation::kind::unknown_response
                                                    : protocol_violation::kind::not_jsonrpc,
                             line, line.size());
        }
        return;
    }
    ++stats_.replies_received;
    if (!env.jsonrpc_20) {
        finish_pending(*entry, outcome::malformed,
                       "the reply lacks \"jsonrpc\":\"2.0\": \"" + truncate_for_message(line, 200) + "\"",
                       line, {}, 0);
    } else if (env.error.present()) {
        std::int64_t code = 0;
        std::string msg;
        try {
            const json e = json::parse(env.error.in(line));
            code = e.value("code", std::int64_t{0});
            msg = e.value("message", std::string{});
        } catch (const std::exception&) {
        }
        const outcome o = classify_error_code(code);
        finish_pending(*entry, o,
                       "the server answered with JSON-RPC error " + std::to_string(code) + ": " + msg,
                       line, env.error, code);
    } else if (env.result.present()) {
        if (!env.result_is_object) {
            finish_pending(*entry, outcome::malformed,
                           "the reply's result is not a JSON object: \"" +
                               truncate_for_message(env.result.in(line), 200) + "\"",
                           line, env.result, 0);
        } else if (!entry->value.retry_tail.empty() &&
                   env.result.in(line).find("\"input_required\"") != std::string_view::npos &&
                   answer_input_required(*entry, env.result.in(line))) {
            // Retried with the answers under a new id; the call goes on.
        } else if (env.result_is_error_flagged && entry->value.result.method == "tools/call") {
            finish_pending(*entry, outcome::tool_error, "the tool reported an error (isError: true)", line,
                           env.result, 0);
        } else {
            finish_pending(*entry, outcome::ok, {}, line, env.result, 0);
        }
    } else {
        finish_pending(*entry, outcome::malformed,
                       "the reply has neither \"result\" nor \"error\": \"" +
                           truncate_for_message(line, 200) + "\"",
                       line, {}, 0);
    }
}

MCP_LOADTEST_DECL std::string session_core::describe_invalid_reply(const envelope& env, std::string_view line) {
    std::string m = "the reply is not valid JSON (" + std::string(envelope_scanner::describe(env.failure)) +
                    " at byte " + std::to_string(env.error_offset) + " of " + std::to_string(line.size()) + ")";
    if (env.failure == scan_failure::syntax) return m + ": \"" + truncate_for_message(line, 200) + "\"";
    // The bytes around it, escaped: as they are they would garble a report.
    const std::size_t from = env.error_offset > 24 ? env.error_offset - 24 : 0;
    m += " near " + excerpt(line.substr(from, 48), 48);
    if (env.failure == scan_failure::invalid_utf8)
        return m + ". JSON text must be UTF-8 (RFC 8259 §8.1): the server put bytes into a string without "
                   "decoding them (a file, a process's output); it should decode them, replacing what is not UTF-8.";
    return m + ". A \\uD800..\\uDBFF escape must be followed by a \\uDC00..\\uDFFF one: the server split a "
               "character between its halves, or escaped a lone surrogate (e.g. Python's surrogateescape).";
}

MCP_LOADTEST_DECL bool session_core::is_response(const envelope& env, std::string_view line) noexcept {
    if (!env.jsonrpc_20 || !env.id.present() || env.result.present() == env.error.present()) return false;
    const char c = line[env.id.begin];
    return c == '"' || c == '-' || (c >= '0' && c <= '9') || c == 'n';
}

MCP_LOADTEST_DECL void session_core::handle_duplicate_member(const envelope& env, std::string_view line) {
    record_violation(protocol_violation::kind::duplicate_member, line, line.size());
    if (env.method.present() || !env.id_is_integer) return;  // a request's id is the server's, not ours
    pending_entry* entry = pending_.find(env.id_value);
    if (!entry) return;
    finish_pending(*entry, outcome::malformed,
                   "the reply has \"" + std::string(env.duplicate) + "\" twice (again at byte " +
                       std::to_string(env.duplicate_offset) +
                       "); JSON parsers disagree on which one counts, so it cannot complete the call: \"" +
                       truncate_for_message(line, 200) +
                       "\". The server builds or merges its JSON by hand; each member must appear once.",
                   line, {}, 0);
}

MCP_LOADTEST_DECL void session_core::finish_pending(pending_entry& entry, outcome o, std::string message,
                                                     std::string_view line, span payload, std::int64_t code) {
    const std::uint64_t id = entry.id;
    auto taken = pending_.take(entry);  // out of the table: completing may start the next call
    pending_call& p = taken->value;
    call_result& r = result_of(id, p);
    r.http_status = static_cast<std::uint16_t>(http_status_);
    r.error_code = code;
    const std::string_view payload_text = line.substr(std::min<std::size_t>(payload.begin, line.size()), payload.size);
    if (p.keep_reply && !line.empty()) {
        r.raw.assign(line);
        r.payload_begin = payload.begin;
        r.payload_size = payload.size;
    }
    if (p.in_grace && o == outcome::ok) {
        // Answered, but only during the grace period: slow enough to be a hang.
        r.outcome = outcome::hang;
        r.message = "the reply came after the timeout (" + std::to_string(p.timeout.count()) +
                    " ms), during the grace period";
    } else {
        r.outcome = o;
        if (!message.empty()) r.message = std::move(message);
    }
    if (p.progress_token && !line.empty()) progress_ended_[p.progress_token] = true;  // answered: no more progress
    if (validator_ && !line.empty() && !is_raw(id)) validate_reply(r, line, payload_text);
    if (!is_raw(id)) note_call(r, payload_text);
    p.completion.complete(std::move(r));
    pending_.recycle(std::move(taken));
}

MCP_LOADTEST_DECL void session_core::handle_notification(const envelope& env, std::string_view line) {
    ++stats_.notifications_received;
    if (validator_) validate_incoming(line);
    notification n;
    n.method.assign(env.method.in(line));
    n.received_at = clock::now();
    if (env.params.present()) {
        try {
            n.params = json::parse(env.params.in(line));
        } catch (const std::exception&) {
        }
    }
    if (n.method == "notifications/progress" && n.params.is_object()) handle_progress(n.params, line);
    if (options_.on_notification) options_.on_notification(n);
    if (options_.notification_history > 0) {
        if (notifications_.size() >= options_.notification_history) notifications_.pop_front();
        notifications_.push_back(std::move(n));
    }
}

MCP_LOADTEST_DECL session_core::pending_call* session_core::progress_call(std::uint64_t token, std::uint64_t& id) {
    if (pending_entry* entry = pending_.find(token); entry && entry->value.progress_token == token) {
        id = token;
        return &entry->value;
    }
    if (const auto moved = progress_moved_.find(token); moved != progress_moved_.end())
        if (pending_entry* entry = pending_.find(moved->second); entry && entry->value.progress_token == token) {
            id = moved->second;
            return &entry->value;
        }
    return nullptr;
}

MCP_LOADTEST_DECL void session_core::handle_progress(const json& params, std::string_view line) {
    using kind = protocol_violation::kind;
    const auto token = params.find("progressToken");
    std::uint64_t id = 0;
    if (token != params.end() && token->is_number_unsigned()) {
        const auto t = token->get<std::uint64_t>();
        if (pending_call* p = progress_call(t, id)) {
            const auto value = params.find("progress");
            const bool numeric = value != params.end() && value->is_number();
            const double v = numeric ? value->get<double>() : 0;
            if (p->progress++ == 0) {
                p->first_progress_at = clock::now();
            } else if (numeric && !(v > p->last_progress)) {
                ++p->progress_violations;
                progress_violation(kind::progress_not_increasing, id, line);
            }
            if (numeric) p->last_progress = std::max(p->last_progress, v);
            return;
        }
        if (const auto ended = progress_ended_.find(t); ended != progress_ended_.end()) {
            // A call that ended without a reply (hang, cancel): the server may still be at it.
            if (ended->second) progress_violation(kind::progress_after_result, t, line);
            return;
        }
    }
    // A token no call in flight asked under. Named when it is a request's own token sent back as
    // another JSON type ("7", 7.0), else when only one call in flight asked for progress.
    std::uint64_t as_number = 0;
    bool candidate = false;
    if (token != params.end() && token->is_string()) {
        const std::string& text = token->get_ref<const std::string&>();
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), as_number);
        candidate = ec == std::errc() && end == text.data() + text.size() && !text.empty();
    } else if (token != params.end() && token->is_number_float()) {
        const double d = token->get<double>();
        candidate = d >= 1 && d < 1e18 && d == static_cast<double>(static_cast<std::uint64_t>(d));
        as_number = candidate ? static_cast<std::uint64_t>(d) : 0;
    }
    pending_call* p = candidate ? progress_call(as_number, id) : nullptr;
    if (!p && progress_in_flight_ == 1) {
        pending_.for_each([&](const pending_entry& e) {
            if (e.value.progress_token) id = e.id;
        });
        if (pending_entry* entry = pending_.find(id)) p = &entry->value;
    }
    if (p) ++p->progress_violations;
    else id = 0;
    progress_violation(kind::progress_wrong_token, id, line);
}

MCP_LOADTEST_DECL void session_core::progress_violation(protocol_violation::kind k, std::uint64_t id, std::string_view line) {
    using kind = protocol_violation::kind;
    if (k == kind::progress_wrong_token) ++stats_.progress_wrong_token;
    else if (k == kind::progress_after_result) ++stats_.progress_after_result;
    else ++stats_.progress_not_increasing;
    record_violation(k, line, line.size(), id);
}

MCP_LOADTEST_DECL void session_core::progress_ended(std::uint64_t token, bool answered) {
    if (progress_ended_.insert_or_assign(token, answered).second) {
        progress_ended_order_.push_back(token);
        if (progress_ended_order_.size() > 4096) {
            progress_ended_.erase(progress_ended_order_.front());
            progress_ended_order_.pop_front();
        }
    }
}

MCP_LOADTEST_DECL bool session_core::may_need_input(std::string_view method) noexcept {
    return method == "tools/call" || method == "resources/read" || method == "prompts/get";
}

MCP_LOADTEST_DECL json session_core::answer_for_server(const std::string& method, const json& params) {
    if (auto h = options_.request_handlers.find(method); h != options_.request_handlers.end() && h->second)
        return h->second(params);
    if (method == "ping") return json::object();
    if (method == "roots/list" && (options_.declare_roots || !options_.roots.empty())) {
        json roots = json::array();
        for (const auto& r : options_.roots) {
            json item{{"uri", r.uri}};
            if (!r.name.empty()) item["name"] = r.name;
            roots.push_back(std::move(item));
        }
        return json{{"roots", roots}};
    }
    throw rpc_error(-32601, "Method not found: this client has no handler for " + method +
                                " (mcp-loadtest: install one in client_options.request_handlers)");
}

MCP_LOADTEST_DECL bool session_core::answer_input_required(pending_entry& entry, std::string_view result_text) {
    json result;
    try {
        result = json::parse(result_text);
    } catch (const std::exception&) {
        return false;
    }
    if (!result.is_object() || result.value("resultType", "") != "input_required") return false;
    const std::uint64_t asked_id = entry.id;
    if (++entry.value.input_rounds > options_.max_input_rounds) {
        finish_pending(entry, outcome::protocol_error,
                       "the server asked for input " + std::to_string(entry.value.input_rounds) +
                           " times (InputRequiredResult) without completing; client_options.max_input_rounds is " +
                           std::to_string(options_.max_input_rounds) + ".",
                       {}, {}, 0);
        return true;
    }
    json responses = json::object();
    std::string cannot_answer;
    if (auto reqs = result.find("inputRequests"); reqs != result.end() && reqs->is_object()) {
        for (const auto& [key, input] : reqs->items()) {
            const std::string method = input.is_object() ? input.value("method", "") : std::string();
            const json params = input.is_object() && input.contains("params") ? input["params"] : json::object();
            try {
                responses[key] = answer_for_server(method, params);
                ++stats_.server_requests_answered;
            } catch (const std::exception& e) {
                cannot_answer = "the server asked for input \"" + key + "\" (" + method +
                                ") and the client cannot provide it: " + e.what() +
                                ". Hint: install a handler for " + method +
                                " in client_options.request_handlers (it also declares the capability).";
                break;
            }
        }
    }
    // The handlers are user code: one may have cancelled this very call or closed the session, and then
    // the entry is gone (its block recycled). Only the id is trusted across them.
    pending_entry* const still = pending_.find(asked_id);
    if (!still) return true;
    if (!cannot_answer.empty()) {
        finish_pending(*still, outcome::protocol_error, std::move(cannot_answer), {}, {}, 0);
        return true;
    }
    pending_call& p = still->value;
    std::string line;
    const std::uint64_t id = next_id();
    const std::string* request_state = nullptr;
    if (auto state = result.find("requestState"); state != result.end() && state->is_string())
        request_state = &state->get_ref<const std::string&>();
    write_input_retry(line, id, p.result.method, responses, request_state, p.retry_tail);
    // The same call continues under the new id: same deadline, same caller (and progress token).
    pending_call& moved = pending_.insert(id, pending_.take(*still)).value;
    if (moved.progress_token) progress_moved_[moved.progress_token] = id;
    schedule_deadline(moved.deadline, id);
    if (auto slot = moved.completion.slot(); slot.is_connected()) {
        slot.assign([weak = weak_from_this(), id](asio::cancellation_type) {
            if (auto self = weak.lock()) self->cancel(id, "cancelled by the caller", true);
        });
    }
    ++stats_.requests_sent;
    outgoing info;
    info.id = id;
    info.method = moved.result.method;
    info.name = moved.result.tool;
    record_message(message_direction::sent, line);
    wire_->send(line, info);
    return true;
}

MCP_LOADTEST_DECL void session_core::handle_server_request(const envelope& env, std::string_view line) {
    if (validator_) validate_incoming(line);
    const std::string method(env.method.in(line));
    json params = json::object();
    if (env.params.present()) {
        try {
            params = json::parse(env.params.in(line));
        } catch (const std::exception&) {
        }
    }
    std::string reply;
    begin_response(reply, env.id.in(line));
    try {
        end_result_response(reply, answer_for_server(method, params));
    } catch (const rpc_error& e) {
        end_error_response(reply, e.code(), e.what());
    } catch (const std::exception& e) {
        end_error_response(reply, -32603, std::string("Internal error in the client's handler: ") + e.what());
    }
    ++stats_.server_requests_answered;
    outgoing info;
    info.what = outgoing::kind::response;
    record_message(message_direction::sent, reply);
    wire_->send(reply, info);
}

MCP_LOADTEST_DECL void session_core::note_call(const call_result& r, std::string_view result_text) {
    const std::string_view m = r.method;
    if (same_text(m, "tools/call")) coverage_.called("tool", r.tool, r.outcome);
    else if (m == "resources/read") coverage_.called("resource", r.tool, r.outcome);
    else if (m == "prompts/get") coverage_.called("prompt", r.tool, r.outcome);
    else if (r.outcome == outcome::ok && !result_text.empty() &&
             (m == "tools/list" || m == "resources/list" || m == "prompts/list"))
        learn_listing(m, result_text);
}

MCP_LOADTEST_DECL void session_core::learn_listing(std::string_view method, std::string_view result_text) {
    const bool resources = method == "resources/list";
    const char* member = method == "tools/list" ? "tools" : resources ? "resources" : "prompts";
    const char* kind = method == "tools/list" ? "tool" : resources ? "resource" : "prompt";
    try {
        const json page = json::parse(result_text);
        if (auto items = page.find(member); items != page.end() && items->is_array())
            for (const auto& item : *items)
                if (item.is_object())
                    if (auto key = item.find(resources ? "uri" : "name"); key != item.end() && key->is_string())
                        coverage_.listed(kind, key->get_ref<const std::string&>());
    } catch (const std::exception&) {
    }
}

MCP_LOADTEST_DECL void session_core::sync_validator() {
    if (validator_version_ == identity.protocol_version) return;
    validator_version_ = identity.protocol_version;
    validator_->set_protocol_version(validator_version_);
}

MCP_LOADTEST_DECL void session_core::keep(std::vector<schema_violation>& found) {
    stats_.schema_violations += found.size();
    for (auto& v : found)
        if (schema_violations_.size() < 1000) schema_violations_.push_back(std::move(v));
}

MCP_LOADTEST_DECL void session_core::validate_reply(const call_result& r, std::string_view line, std::string_view payload) {
    sync_validator();
    std::vector<schema_violation> found;
    try {
        if (r.outcome == outcome::ok || r.outcome == outcome::tool_error) {
            const json result = json::parse(payload);
            if (r.method == "tools/list") validator_->learn_tools(result, found);
            validator_->check_result(r.method, r.tool, result, found);
        } else {
            validator_->check_incoming(json::parse(line), found);
        }
    } catch (const std::exception&) {
        return;  // unparseable replies are already classified (malformed)
    }
    keep(found);
}

MCP_LOADTEST_DECL void session_core::validate_incoming(std::string_view line) {
    sync_validator();
    std::vector<schema_violation> found;
    try {
        validator_->check_incoming(json::parse(line), found);
    } catch (const std::exception&) {
        return;
    }
    keep(found);
}

MCP_LOADTEST_DECL void session_core::record_violation(protocol_violation::kind k, std::string_view text, std::size_t size,
                                                       std::uint64_t request_id) {
    ++stats_.protocol_violations;
    if (violations_.size() >= 100) return;
    violations_.push_back({k, truncate_for_message(text), size ? size : text.size(), clock::now() - started_at_, request_id});
}

MCP_LOADTEST_DECL void session_core::fail_all_pending(outcome o, const std::string& message, bool deferred) {
    for (const auto& taken : pending_.take_all()) {  // in id order
        const std::uint64_t id = taken->id;
        pending_call& p = taken->value;
        call_result& r = result_of(id, p);
        r.outcome = o;
        r.message = message;
        if (!is_raw(id)) note_call(r, {});
        if (deferred) p.completion.post(std::move(r));
        else p.completion.complete(std::move(r));
    }
}

}  // namespace mcp_loadtest::detail
