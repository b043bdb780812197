// Definitions of detail/transport/http_pool.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/http_pool.hpp>

#include <mcp_loadtest/detail/clock.hpp>
#include <mcp_loadtest/detail/wire/jsonrpc_writer.hpp>
#include <mcp_loadtest/detail/transport/net_connect.hpp>
#include <mcp_loadtest/detail/wire/same_text.hpp>
#include <mcp_loadtest/detail/wire/wire_text.hpp>
#include <mcp_loadtest/detail/wire/www_authenticate.hpp>
#include <mcp_loadtest/detail/wire/http_date.hpp>
#include <mcp_loadtest/detail/os/sigpipe.hpp>
#include <mcp_loadtest/detail/text/truncate_for_message.hpp>
#include <mcp_loadtest/json.hpp>

#include <charconv>
#include <cstring>

#include <limits>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL asio::awaitable<void> http_pool_transport::open(transport_events& events, session_stats& stats) {
    events_ = &events;
    stats_ = &stats;
    ignore_sigpipe_once();
    std::string error;
    auto u = parse_url(url_text_, &error);
    if (!u) throw connect_error("invalid server URL: " + error, call_result{});
    if (u->scheme != "http" && u->scheme != "https")
        throw connect_error("the URL " + u->redacted() + " is not http:// or https://. Hint: use "
                            "websocket_server for ws://, socket_server for tcp:// and unix://.",
                            call_result{});
    if (u->secure()) {
        if (!tls_available())
            throw connect_error("https:// needs TLS, and this build of mcp-loadtest has none (OpenSSL was not "
                                "found, or MCP_LOADTEST_TLS is OFF). Hint: install libssl-dev and reconfigure, "
                                "or test against the server's plain-HTTP port on 127.0.0.1.",
                                call_result{});
#if defined(MCP_LOADTEST_WITH_TLS)
        try {
            tls_context_ = make_tls_context(tls_);
        } catch (const std::runtime_error& e) {
            throw connect_error(e.what(), call_result{});
        }
#endif
    }
    url_ = *u;
    proxy_env_ = read_proxy_environment();
    stream_route_ = route_for(url_);
    if (!stream_route_.via.error.empty())
        throw connect_error(stream_route_.via.error + ". Hint: fix the proxy URL, or connect directly with "
                                                      "proxy.from_environment = false.",
                            call_result{});
    for (const auto& h : headers_)
        if (h.name.find_first_of("\r\n:") != std::string::npos || h.value.find_first_of("\r\n") != std::string::npos)
            throw connect_error("header \"" + h.name + "\" contains a line break or colon; refusing to send it.",
                                call_result{});
    if (oauth_set_) {
        if (!authorizer_)
            throw connect_error("http_server::oauth is set, but OAuth was not compiled in: include "
                                "<mcp_loadtest/auth.hpp> where the server description is made.",
                                call_result{});
        if (!bearer_.empty())
            throw connect_error("both bearer_token and oauth are set: the OAuth client gets its own tokens. Hint: "
                                "drop bearer_token.",
                                call_result{});
        // A token another session of the same client already has: no 401 needed.
        if (const auto cached = authorizer_->cached(url_); !cached.token.empty()) {
            bearer_ = cached.token;
            ++token_version_;
            arm_renewal(cached.refresh_at);
        }
    }
    build_static_headers();
    set_post_url(url_);
    co_await after_open();
}

MCP_LOADTEST_DECL void http_pool_transport::send(std::string_view line, const outgoing& info) {
    if (closing_ || down_) return;
    if (era_ == protocol_era::modern && info.what == outgoing::kind::notification &&
        info.method == "notifications/cancelled")
        return;  // modern HTTP: closing the response stream is the cancellation (forget())
    auto ex = std::make_shared<exchange>();
    ex->what = exchange::kind::post;
    ex->message = info.what;
    ex->id = info.what == outgoing::kind::request ? info.id : 0;
    ex->is_initialize = info.what == outgoing::kind::request && same_text(info.method, "initialize");
    ex->raw = info.raw;
    if (ex->unowned())
        ex->label = info.what == outgoing::kind::notification ? std::string(info.method)
                                                              : std::string("a reply to a request of the server");
    if (info.what == outgoing::kind::notification && info.method == "notifications/initialized") {
        // The next request must not overtake it on another pooled connection
        // (some SDKs reject requests before `initialized`): after_handshake() waits.
        ex->is_initialized_notification = true;
        initialized_in_flight_ = true;
    }
    std::string_view body = line;
    while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.remove_suffix(1);
    keep_for_replay(*ex, body);
    ex->token_version = token_version_;
    write_post(ex->request, body, info);
    if (ex->id) file_by_id(ex);
    dispatch(std::move(ex));
}

MCP_LOADTEST_DECL void http_pool_transport::forget(std::uint64_t id) {
    auto* filed = by_id_.find(id);
    if (!filed) return;
    auto ex = filed->value.lock();
    unfile_id(id);
    if (!ex) return;
    ex->abandoned = true;
    // Closing the exchange's connection frees the pool slot and, for a
    // modern server, is the cancellation signal.
    if (auto c = ex->conn.lock()) drop_connection(c);
    else remove_waiting(ex);
}

MCP_LOADTEST_DECL asio::awaitable<shutdown_result> http_pool_transport::close() {
    shutdown_result r;
    r.ended = shutdown_result::how::disconnected;
    if (closing_) co_return r;
    closing_ = true;
    const auto t0 = clock::now();
    co_await before_release();
    release_all();
    r.took = clock::now() - t0;
    co_return r;
}

MCP_LOADTEST_DECL void http_pool_transport::abort_now() noexcept {
    closing_ = true;
    release_all();
}

MCP_LOADTEST_DECL asio::awaitable<void> http_pool_transport::after_handshake() {
    co_await wait_until([this] { return streams_settled() && !initialized_in_flight_; }, limits_.connect_timeout);
}

MCP_LOADTEST_DECL std::shared_ptr<http_pool_transport> http_pool_transport::self() {
    return std::static_pointer_cast<http_pool_transport>(shared_from_this());
}

MCP_LOADTEST_DECL void http_pool_transport::build_static_headers(bool credentials) {
    static_headers_.clear();
    for (const auto& h : headers_)
        if (credentials || !h.is_secret()) static_headers_ += h.name + ": " + h.value + "\r\n";
    if (!bearer_.empty() && credentials) static_headers_ += "Authorization: Bearer " + bearer_ + "\r\n";
}

MCP_LOADTEST_DECL void http_pool_transport::set_post_url(const url& u) {
    post_url_ = u;
    route_ = post_url_.origin() == url_.origin() ? stream_route_ : route_for(post_url_);
    post_prefix_ = request_start("POST", post_url_, route_) +
                   "Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n" +
                   static_headers_ + proxy_header(route_);
}

MCP_LOADTEST_DECL void http_pool_transport::write_post(std::string& out, std::string_view body, const outgoing& info) {
    out.reserve(160 + post_prefix_.size() + body.size());
    out += post_prefix_;
    append_message_headers(out, info);
    // "Content-Length: N", the blank line and the body in one step, not four appends.
    char length[40] = "Content-Length: ";
    char* const digits_end = std::to_chars(length + 16, length + 36, body.size()).ptr;
    std::memcpy(digits_end, "\r\n\r\n", 4);
    const auto length_size = static_cast<std::size_t>(digits_end + 4 - length);
    const std::size_t at = out.size();
    out.resize(at + length_size + body.size());
    std::memcpy(out.data() + at, length, length_size);
    std::memcpy(out.data() + at + length_size, body.data(), body.size());
}

MCP_LOADTEST_DECL std::string http_pool_transport::stream_request() const {
    std::string req = request_start("GET", url_, stream_route_) + "Accept: text/event-stream\r\n";
    req += static_headers_;
    req += proxy_header(stream_route_);
    return req;
}

MCP_LOADTEST_DECL std::string http_pool_transport::proxy_header(const connect_route& route) {
    if (!route.forwards() || route.proxy_authorization.empty()) return {};
    return "Proxy-Authorization: " + route.proxy_authorization + "\r\n";
}

MCP_LOADTEST_DECL std::string http_pool_transport::request_start(std::string_view method, const url& u,
                                                                 const connect_route& route) {
    std::string out(method);
    out += ' ';
    out += target_for(u, route);
    out += " HTTP/1.1\r\nHost: ";
    out += u.host_header();
    out += "\r\n";
    return out;
}

MCP_LOADTEST_DECL const url& http_pool_transport::destination(const exchange& ex) const noexcept {
    if (ex.redirected) return ex.redirected->current;
    return ex.is_stream() ? url_ : post_url_;
}

MCP_LOADTEST_DECL const connect_route& http_pool_transport::route_of(const exchange& ex) const noexcept {
    if (ex.redirected) return ex.redirected->route;
    return ex.is_stream() ? stream_route_ : route_;
}

MCP_LOADTEST_DECL std::string http_pool_transport::describe_exchange(const exchange& ex) {
    switch (ex.what) {
        case exchange::kind::post:
            if (ex.message == outgoing::kind::request)
                return ex.id ? "the POST of request " + std::to_string(ex.id) : std::string("the POST of initialize");
            return "the POST carrying " + (ex.label.empty() ? std::string("a message") : ex.label);
        case exchange::kind::del: return "the DELETE ending the session";
        case exchange::kind::resume: return "the GET resuming the reply stream of request " + std::to_string(ex.id);
        case exchange::kind::get_stream:
        case exchange::kind::legacy_stream:
        default: return "the GET of the SSE stream";
    }
}

MCP_LOADTEST_DECL void http_pool_transport::follow_redirect(const std::shared_ptr<exchange>& ex) {
    const int status = ex->status;
    const std::string location = std::move(ex->location);
    ex->location.clear();
    if (ex->abandoned || (closing_ && ex->what != exchange::kind::del)) return;
    const url from = destination(*ex);  // a copy: the state below changes
    if (!ex->redirected) {
        ex->redirected = std::make_unique<http_redirect_state>();
        ex->redirected->current = from;
        ex->redirected->route = route_of(*ex);
        ex->redirected->first_origin = from.origin();
        ex->redirected->chain.push_back(from.origin() + from.target);
    }
    http_redirect_state& rs = *ex->redirected;
    const std::string what = describe_exchange(*ex);
    const auto give_up = [&](outcome o, const std::string& why) {
        fail_exchange(*ex, o, "HTTP " + std::to_string(status) + " from " + redact_url(from.redacted()) + " redirected " + what + why, status);
    };
    std::string error;
    auto to = resolve_relative(from, location, &error);
    if (!to)
        return give_up(outcome::protocol_error, " to \"" + truncate_for_message(redact_url(location), 200) +
                                                    "\", which is not a URL: " + error);
    const std::string shown = redact_url(to->redacted());
    if (to->scheme != "http" && to->scheme != "https")
        return give_up(outcome::protocol_error, " to " + shown + ", which is not an http:// or https:// URL.");
    if (to->secure() && !tls_available())
        return give_up(outcome::disconnected, " to " + shown + ", which needs TLS, and this build of mcp-loadtest "
                                                               "has none. Hint: install libssl-dev and reconfigure.");
    if (status != 307 && status != 308 && !ex->is_stream()) {
        if (ex->what == exchange::kind::post)
            return give_up(outcome::protocol_error,
                           " to " + shown + ": after a " + std::to_string(status) +
                               " a browser fetches the new URL with GET and drops the body, the JSON-RPC message, "
                               "so no MCP exchange can follow it (only 307 and 308 keep the method and body). "
                               "Hint: point the server description at " + shown +
                               ", or have the server answer 307 or 308.");
        return give_up(outcome::protocol_error, " to " + shown + "; only 307 and 308 are followed for it.");
    }
    const std::string next = to->origin() + to->target;
    std::string chain;
    for (const auto& hop : rs.chain) chain += redact_url(hop) + " -> ";
    chain += shown;
    if (std::find(rs.chain.begin(), rs.chain.end(), next) != rs.chain.end())
        return give_up(outcome::protocol_error, " in a loop: " + chain +
                                                    ". Hint: fix the server's redirects, or point the server "
                                                    "description at the final URL.");
    if (rs.chain.size() > max_redirects_)
        return give_up(outcome::protocol_error,
                       " once more after " + std::to_string(max_redirects_) + " redirects (max_redirects): " + chain +
                           ". Hint: point the server description at the final URL, or raise max_redirects.");
#if defined(MCP_LOADTEST_WITH_TLS)
    if (to->secure() && !tls_context_) {
        try {
            tls_context_ = make_tls_context(tls_);
        } catch (const std::runtime_error& e) {
            return give_up(outcome::disconnected, " to " + shown + ", and TLS cannot be set up: " + e.what());
        }
    }
#endif
    if (to->origin() != rs.first_origin) rs.credentials_dropped = true;  // like browsers and curl: never back
    const bool pooled = !ex->is_stream() && to->origin() == post_url_.origin();
    rs.route = pooled ? route_ : to->origin() == url_.origin() ? stream_route_ : route_for(*to);
    if (!rs.route.via.error.empty()) return give_up(outcome::disconnected, " to " + shown + ": " + rs.route.via.error);
    std::vector<std::string_view> drop{"proxy-authorization"};
    if (rs.credentials_dropped) {
        drop.push_back("authorization");
        drop.push_back("cookie");
        for (const auto& h : headers_)
            if (h.is_secret()) drop.push_back(h.name);
    }
    if (!http1::retarget_request(ex->request, target_for(*to, rs.route), to->host_header(), drop,
                                 proxy_header(rs.route)))
        return give_up(outcome::protocol_error, " to " + shown + ", and its request could not be rewritten");
    rs.chain.push_back(next);
    rs.current = std::move(*to);
    if (events_) events_->on_redirect(ex->carries_message() && !ex->internal ? ex->id : 0);
    ex->status = 0;
    ex->reply.clear();
    ex->is_sse = false;
    ex->unexpected_type = false;
    ex->content_type.clear();
    ex->sse_events.reset();
    ex->received = 0;
    ex->retried = false;
    ex->conn.reset();
    if (pooled)
        dispatch(ex, true);
    else
        connect_for(ex, false);
}

MCP_LOADTEST_DECL void http_pool_transport::dispatch(std::shared_ptr<exchange> ex, bool front) {
    if (!idle_.empty()) {
        auto c = std::move(idle_.back());
        idle_.pop_back();
        start_exchange(c, std::move(ex));
        return;
    }
    if (open_ < pool_size_ || ex->what != exchange::kind::post) {
        open_connection(std::move(ex));
        return;
    }
    if (ex->unowned() && !admit_unowned(*ex)) return;
    if (front) waiting_.push_front(std::move(ex));
    else waiting_.push_back(std::move(ex));
}

MCP_LOADTEST_DECL bool http_pool_transport::admit_unowned(const exchange& ex) {
    if (backlog_overflowed_) return false;
    if (unowned_waiting_ < max_unowned_waiting &&
        unowned_waiting_bytes_ + ex.request.size() <= limits_.max_send_queue) {
        ++unowned_waiting_;
        unowned_waiting_bytes_ += ex.request.size();
        return true;
    }
    backlog_overflowed_ = true;
    std::string message = "the server stopped taking messages: " + std::to_string(unowned_waiting_) +
                          " notifications and replies to its requests (" + std::to_string(unowned_waiting_bytes_) +
                          " bytes) were already waiting for one of the " + std::to_string(pool_size_) +
                          " connections, each held by a POST it has not answered; the session was ended to "
                          "bound memory (limits.max_send_queue, at most " + std::to_string(max_unowned_waiting) +
                          " messages). Hint: the server is stuck or not reading its connections.";
    // Not from inside the core's send(): end the session from the event loop.
    asio::post(ex_, [me = self(), message = std::move(message)] {
        me->report_down(outcome::hang, message);
        me->release_all();
    });
    return false;
}

MCP_LOADTEST_DECL std::shared_ptr<http_pool_transport::exchange> http_pool_transport::take_waiting() {
    auto ex = std::move(waiting_.front());
    waiting_.pop_front();
    if (ex->unowned()) {
        --unowned_waiting_;
        unowned_waiting_bytes_ -= std::min(unowned_waiting_bytes_, ex->request.size());
    }
    return ex;
}

MCP_LOADTEST_DECL void http_pool_transport::remove_waiting(const std::shared_ptr<exchange>& ex) {  // requests only (forget)
    for (auto it = waiting_.begin(); it != waiting_.end(); ++it)
        if (*it == ex) {
            waiting_.erase(it);
            return;
        }
}

MCP_LOADTEST_DECL void http_pool_transport::track(const std::shared_ptr<connection>& c) {
    if (live_.size() >= prune_live_at_) {
        std::erase_if(live_, [](const std::weak_ptr<connection>& w) {
            const auto l = w.lock();
            return !l || l->closed;
        });
        prune_live_at_ = std::max<std::size_t>(64, 2 * live_.size());
    }
    live_.push_back(c);
}

MCP_LOADTEST_DECL void http_pool_transport::arm_answer_deadline(const std::shared_ptr<connection>& c, const std::shared_ptr<exchange>& ex) {
    c->answer_deadline.expires_after(limits_.connect_timeout);
    c->answer_deadline.async_wait([me = self(), c, weak = std::weak_ptr<exchange>(ex)](const asio::error_code& ec) {
        const auto ex = weak.lock();
        if (ec || !ex || c->closed || c->current != ex) return;
        c->current.reset();
        me->fail_exchange(*ex, outcome::hang,
                          "the server did not answer the POST carrying " + ex->label + " within " +
                              std::to_string(me->limits_.connect_timeout.count()) +
                              " ms (limits.connect_timeout); its connection was closed to free the pool slot",
                          ex->status);
        me->drop_connection(c);
    });
}

MCP_LOADTEST_DECL void http_pool_transport::connect_for(std::shared_ptr<exchange> ex, bool pooled) {
    if (pooled) ++open_;
    auto me = self();
    async_connect_route(ex_, route_of(*ex), limits_.connect_timeout,
                      [me, ex, pooled](connect_result r) {
                          if (me->closing_ && ex->what != exchange::kind::del) return;  // r's socket closes
                          if (!r.socket) {
                              if (pooled) --me->open_;
                              me->fail_exchange(*ex, outcome::disconnected, r.error, 0);
                              if (pooled) me->next_waiting();
                              return;
                          }
                          auto c = std::make_shared<connection>(me->ex_);
                          c->socket.assign(std::move(*r.socket));
                          c->parser = http1::response_parser(
                              http1::limits{max_head_bytes, std::numeric_limits<std::uint64_t>::max()});
                          c->pooled = pooled;
                          me->track(c);
                          me->secure_then_start(c, ex);
                      });
}

MCP_LOADTEST_DECL void http_pool_transport::open_connection(std::shared_ptr<exchange> ex) {
    const bool pooled = ex->what == exchange::kind::post || ex->what == exchange::kind::del;
    connect_for(std::move(ex), pooled);
}

MCP_LOADTEST_DECL void http_pool_transport::secure_then_start(const std::shared_ptr<connection>& c, std::shared_ptr<exchange> ex) {
#if defined(MCP_LOADTEST_WITH_TLS)
    if (const url& dest = destination(*ex); dest.secure() && tls_context_) {
        c->socket.use_tls(tls_context_, dest.host, tls_.verify);
        c->socket.async_handshake([me = self(), c, ex](const asio::error_code& ec) {
            if (me->closing_ && ex->what != exchange::kind::del) {
                me->drop_connection(c);
                return;
            }
            if (ec) {
                c->current.reset();
                me->drop_connection(c);
                me->fail_exchange(*ex, outcome::disconnected,
                                  describe_tls_failure(ec, me->destination(*ex).host_header(), me->tls_,
                                                       c->socket.tls_verify_error()),
                                  0);
                return;
            }
            me->start_exchange(c, ex);
        });
        return;
    }
#endif
    start_exchange(c, std::move(ex));
}

MCP_LOADTEST_DECL void http_pool_transport::start_exchange(const std::shared_ptr<connection>& c, std::shared_ptr<exchange> ex) {
    if (ex->abandoned) {
        release_connection(c);
        return;
    }
    c->current = ex;
    ex->conn = c;
    const bool streaming = ex->what != exchange::kind::post && ex->what != exchange::kind::del;
    c->parser.set_body_limit(streaming ? std::numeric_limits<std::uint64_t>::max()
                                       : static_cast<std::uint64_t>(limits_.max_message_size) + 1);
    if (ex->unowned()) arm_answer_deadline(c, ex);
    // A request nearly always fits the socket's buffer: written here, it needs
    // no operation and no completion. What is left (a full buffer, TLS, an
    // error) goes asynchronously, so a failure is reported from the loop.
    const std::size_t done = c->socket.write_in_place(asio::buffer(ex->request));
    if (stats_) stats_->bytes_written += done;
    if (done < ex->request.size()) {
        auto me = self();
        auto written = [me, c, ex](const asio::error_code& ec, std::size_t n) {
            if (me->stats_) me->stats_->bytes_written += n;
            if (ec && ec != asio::error::operation_aborted && !c->closed && c->current == ex) {
                const bool fresh = !c->reused && ex->status == 0 && c->socket.tls_certificate_requested();
                std::string refused = describe_tls_refusal(ec, me->url_.host_header(), me->tls_, fresh);
                me->connection_failed(c, refused.empty() ? "sending the request: " + ec.message() : std::move(refused));
            }
        };
        c->socket.async_write(asio::buffer(ex->request) + done, using_memory(c->write_memory, std::move(written)));
    }
    if (!c->reading) read_more(c);  // an idle connection already has a read pending
}

MCP_LOADTEST_DECL void http_pool_transport::read_more(const std::shared_ptr<connection>& c) {
    auto me = self();
    c->reading = true;
    auto arrived = [me, c](const asio::error_code& ec, std::size_t n) {
        c->reading = false;
        if (!c->current && !c->closed) {
            // Bytes or EOF on an idle keep-alive connection: it is no longer usable.
            me->drop_connection(c);
            return;
        }
        me->on_read(c, ec, n);
    };
    c->socket.async_read_some(asio::buffer(c->buffer),
                              using_memory(c->read_memory, std::move(arrived)));
}

MCP_LOADTEST_DECL void http_pool_transport::release_connection(const std::shared_ptr<connection>& c) {
    if (closing_ || c->closed) {
        drop_connection(c);
        return;
    }
    c->parser.reset();
    if (!waiting_.empty()) {
        start_exchange(c, take_waiting());
        return;
    }
    idle_.push_back(c);
    // Keep reading while idle: a server closing an idle keep-alive connection is seen at once.
    if (!c->reading) read_more(c);
}

MCP_LOADTEST_DECL void http_pool_transport::drop_connection(const std::shared_ptr<connection>& c) {
    if (c->closed) return;
    c->closed = true;
    asio::error_code ignored;
    c->socket.close(ignored);
    for (auto it = idle_.begin(); it != idle_.end(); ++it)
        if (*it == c) {
            idle_.erase(it);
            break;
        }
    c->answer_deadline.cancel();
    if (c->pooled && open_ > 0) --open_;
    auto ex = c->current;
    c->current.reset();
    if (ex && !ex->abandoned && !closing_) fail_exchange(*ex, outcome::disconnected, "the connection was closed", ex->status);
    next_waiting();
}

MCP_LOADTEST_DECL void http_pool_transport::next_waiting() {
    while (!waiting_.empty() && !closing_ && open_ < pool_size_) {
        auto ex = take_waiting();
        if (ex->abandoned) continue;
        dispatch(std::move(ex), true);
        return;
    }
}

MCP_LOADTEST_DECL void http_pool_transport::release_all() noexcept {
    auth_parked_.clear();
    refresh_timer_.cancel();
    for (auto& w : throttle_waits_)
        if (auto t = w.lock()) t->cancel();
    throttle_waits_.clear();
    auto idle = std::move(idle_);
    idle_.clear();
    waiting_.clear();
    unowned_waiting_ = 0;
    unowned_waiting_bytes_ = 0;
    by_id_.for_each([](const auto& filed) {
        if (auto ex = filed.value.lock())
            if (auto c = ex->conn.lock()) {
                c->closed = true;
                asio::error_code ignored;
                c->socket.close(ignored);
            }
    });
    by_id_.clear();
    for (auto& c : idle) {
        c->closed = true;
        asio::error_code ignored;
        c->socket.close(ignored);
    }
    for (auto& w : live_)
        if (auto c = w.lock()) {
            c->closed = true;
            asio::error_code ignored;
            c->socket.close(ignored);
            try {
                c->answer_deadline.cancel();
            } catch (...) {
            }
        }
    live_.clear();
    try {
        ready_event_.cancel();
    } catch (...) {
    }
}

MCP_LOADTEST_DECL void http_pool_transport::file_by_id(const std::shared_ptr<exchange>& ex) {
    if (auto* filed = by_id_.find(ex->id)) {
        filed->value = ex;
        return;
    }
    auto h = by_id_.spare();
    h->value = ex;
    by_id_.insert(ex->id, std::move(h));
}

MCP_LOADTEST_DECL void http_pool_transport::unfile_id(std::uint64_t id) noexcept {
    auto* filed = by_id_.find(id);
    if (!filed) return;
    auto h = by_id_.take(*filed);
    h->value.reset();  // a spare must not keep the exchange's control block
    by_id_.recycle(std::move(h));
}

MCP_LOADTEST_DECL void http_pool_transport::on_read(const std::shared_ptr<connection>& c, const asio::error_code& ec, std::size_t n) {
    if (c->closed) return;
    if (stats_) stats_->bytes_read += n;
    std::string_view in(c->buffer.data(), n);
    // Until need_more, even with no bytes left: the end of a message is
    // reported by the call after its last body piece.
    while (!c->closed) {
        const http1::step st = c->parser.parse(in);
        in.remove_prefix(st.consumed);
        if (!handle_step(c, st)) return;
        if (st.kind == http1::event::need_more) break;
    }
    if (c->closed) return;
    if (ec) {
        if (ec == asio::error::operation_aborted) return;
        const http1::step st = c->parser.eof();
        if (st.kind == http1::event::done || st.kind == http1::event::body) {
            handle_step(c, st);
            if (st.kind == http1::event::body) handle_step(c, c->parser.eof());
        }
        if (c->current) {
            // A fresh connection's first exchange, unanswered: perhaps the server refused the client certificate.
            const bool fresh = !c->reused && c->current->status == 0 && c->socket.tls_certificate_requested();
            std::string refused =
                c->parser.failed() ? std::string{} : describe_tls_refusal(ec, url_.host_header(), tls_, fresh);
            connection_failed(c, c->parser.failed()   ? c->parser.last_error().message
                                 : !refused.empty() ? std::move(refused)
                                                    : "the server closed the connection (" + ec.message() + ")");
        } else {
            drop_connection(c);
        }
        return;
    }
    read_more(c);
}

MCP_LOADTEST_DECL bool http_pool_transport::handle_step(const std::shared_ptr<connection>& c, const http1::step& st) {
    auto ex = c->current;
    switch (st.kind) {
        case http1::event::need_more: return true;
        case http1::event::headers:
            if (ex) on_headers(*c, *ex);
            return !c->closed;
        case http1::event::body:
            if (ex) on_body(c, *ex, st.body);
            return !c->closed;
        case http1::event::done: {
            if (ex) on_done(c, ex);
            return false;
        }
        case http1::event::upgrade:
        case http1::event::closed:
        case http1::event::error:
        default: {
            const std::string why = c->parser.failed() ? c->parser.last_error().message : "unexpected response";
            const auto code = c->parser.failed() ? c->parser.last_error().code : http1::errc::none;
            if (ex && code == http1::errc::body_too_large) {
                fail_oversized(c, *ex, "HTTP body over max_message_size", c->parser.body_bytes(),
                               "the reply body exceeded max_message_size (" +
                                   std::to_string(limits_.max_message_size) + " bytes): " + why +
                                   ". Hint: raise limits.max_message_size if replies this large are intended.");
                return false;
            }
            if (ex && code == http1::errc::header_too_large) {
                fail_oversized(c, *ex, "HTTP response head over " + std::to_string(max_head_bytes) + " bytes",
                               max_head_bytes,
                               "the HTTP response head exceeded " + std::to_string(max_head_bytes) +
                                   " bytes, the most this client reads: " + why +
                                   ". Hint: check which headers the server, or a proxy in front of it, sends.");
                return false;
            }
            connection_failed(c, why);
            return false;
        }
    }
}

MCP_LOADTEST_DECL void http_pool_transport::fail_oversized(const std::shared_ptr<connection>& c, exchange& ex, std::string_view violation,
                                                           std::size_t size, const std::string& message) {
    if (events_) events_->on_violation(protocol_violation::kind::oversized_message, violation, size);
    c->current.reset();
    fail_exchange(ex, outcome::malformed, message, ex.status);
    drop_connection(c);
}

MCP_LOADTEST_DECL void http_pool_transport::on_headers(connection& c, exchange& ex) {
    const auto& head = c.parser.head();
    ex.status = head.status;
    if (max_redirects_ > 0 && (ex.status == 301 || ex.status == 302 || ex.status == 303 || ex.status == 307 ||
                               ex.status == 308))
        if (const auto location = head.find("location"); location && !location->empty()) {
            // Followed when the response ends (its body, if any, is read and dropped).
            ex.location.assign(*location);
            c.parser.set_body_limit(static_cast<std::uint64_t>(limits_.max_message_size) + 1);
            return;
        }
    if (ex.status == 429)
        if (const auto wait = head.find("retry-after")) ex.retry_after.assign(*wait);
    if (ex.status == 401 || ex.status == 403) {
        // Every challenge, joined as one header value would be.
        for (const auto& f : head.fields)
            if (f.name.size() == 16 && ascii_iequals_lower(f.name, "www-authenticate"))
                ex.www_authenticate += (ex.www_authenticate.empty() ? "" : ", ") + std::string(f.value);
    }
    const auto ct = head.content_type;
    ex.is_sse = ct && ct->find("text/event-stream") != std::string_view::npos;
    if (ex.is_sse) {
        // A stream carries any number of messages: bound each event (room
        // for its event and id fields), not the whole body.
        ex.max_event_bytes = limits_.max_message_size + 1024;
        if (ex.status >= 200 && ex.status < 300) c.parser.set_body_limit(std::numeric_limits<std::uint64_t>::max());
    }
    on_head(ex, head, ct);
}

MCP_LOADTEST_DECL void http_pool_transport::fail_unexpected_type(exchange& ex, std::string_view body_start) {
    fail_exchange(ex, outcome::malformed,
                  "HTTP " + std::to_string(ex.status) + " from " + redact_url(url_text_) +
                      " came with Content-Type: " + ex.content_type +
                      ", which is neither application/json nor text/event-stream, so it cannot carry the "
                      "reply; the body starts: " +
                      (body_start.empty() ? std::string("(empty)")
                                          : "\"" + truncate_for_message(body_start, 200) + "\"") +
                      ". Hint: check that the URL is the server's MCP endpoint and that no proxy answers "
                      "in its place.",
                  ex.status);
}

MCP_LOADTEST_DECL void http_pool_transport::on_body(const std::shared_ptr<connection>& c, exchange& ex, std::string_view piece) {
    ex.received += piece.size();
    if (!ex.location.empty()) return;  // a redirect's body
    if (ex.unexpected_type) {  // what arrived with the head is enough to show; drop the rest
        c->current.reset();
        fail_unexpected_type(ex, piece);
        drop_connection(c);
        return;
    }
    if (ex.status >= 200 && ex.status < 300 && ex.is_sse) {
        const int status = ex.status;
        const bool ok = ex.events().feed(piece, [this, &ex, status](const sse::event& e) {
            if (!events_) return;
            if (on_control_event(ex, e)) return;
            if (!e.has_data || e.data.empty()) return;  // priming events, keep-alives
            if (e.type != "message") return;
            events_->on_message(e.data, status);
        });
        if (!ok)  // the parser's only error: an event over its bound
            fail_oversized(c, ex, ex.events().last_error().message, ex.events().max_event_bytes(),
                           "an SSE event from the server exceeded max_message_size (" +
                               std::to_string(limits_.max_message_size) +
                               " bytes). Hint: raise limits.max_message_size if messages this large are intended.");
        return;
    }
    if (ex.reply.size() + piece.size() > limits_.max_message_size) {
        fail_oversized(c, ex, std::string_view(ex.reply).substr(0, 512), ex.reply.size() + piece.size(),
                       "the reply body exceeded max_message_size (" + std::to_string(limits_.max_message_size) +
                           " bytes). Hint: raise limits.max_message_size if replies this large are intended.");
        return;
    }
    ex.reply.append(piece);
}

MCP_LOADTEST_DECL void http_pool_transport::on_done(const std::shared_ptr<connection>& c, const std::shared_ptr<exchange>& ex) {
    c->current.reset();
    c->answer_deadline.cancel();
    // Hand the connection back before delivering the reply: the caller it
    // resumes usually sends its next request at once and can take it.
    if (c->parser.keep_alive() && !closing_ && c->pooled) {
        c->reused = true;
        release_connection(c);
    } else {
        drop_connection(c);
    }
    if (!ex->location.empty()) {
        follow_redirect(ex);
        return;
    }
    finish_exchange(*ex);
}

MCP_LOADTEST_DECL void http_pool_transport::initialized_settled(const exchange& ex) {
    if (!ex.is_initialized_notification) return;
    initialized_in_flight_ = false;
    try {
        ready_event_.cancel();
    } catch (...) {
    }
}

MCP_LOADTEST_DECL void http_pool_transport::finish_exchange(exchange& ex) {
    initialized_settled(ex);
    if (ex.internal) {
        own_exchange_done(ex);
        return;
    }
    if (ex.id) unfile_id(ex.id);
    if (!events_) return;
    if (!ex.carries_message()) {
        own_exchange_done(ex);
        return;
    }
    const int status = ex.status;
    if (status >= 200 && status < 300) {
        // 202 (or any 2xx) to a notification or a reply: its body, if any, means nothing.
        if (ex.raw && status == 202 && kind() != "http+sse") {
            // Raw bytes the server took for a notification: nothing will answer them
            // (HTTP+SSE answers every POST with 202 and replies on its event stream).
            if (events_->is_pending(ex.id))
                events_->on_request_failed(ex.id, outcome::ok, "HTTP 202 Accepted: the server sent no reply", status);
            return;
        }
        if (status == 202 || ex.message != outgoing::kind::request) return;
        if (ex.unexpected_type) {
            fail_unexpected_type(ex, {});
            return;
        }
        if (ex.is_sse) {
            if (ex.id && events_->is_pending(ex.id) && !try_resume(ex))
                fail_exchange(ex, outcome::disconnected,
                              "the server ended the SSE stream of the reply without sending the response" +
                                  std::string(ex.events().last_event_id().empty()
                                                  ? " (and gave no event id to resume from)"
                                                  : " (resuming with Last-Event-ID did not bring it either)"),
                              status);
            return;
        }
        std::string_view body = ex.reply;
        while (!body.empty() && (body.back() == '\n' || body.back() == '\r' || body.back() == ' ')) body.remove_suffix(1);
        if (!body.empty()) events_->on_message(body, status);
        if (ex.id && events_ && events_->is_pending(ex.id)) answer_left_call_pending(ex, body);
        return;
    }
    // A refusal OAuth can answer: the request goes again with a token.
    if (authorizer_ && (status == 401 || status == 403) && authorize_and_resend(ex)) return;
    // An error status. A JSON-RPC error body that names the request is its reply, except
    // for refused credentials and throttling, whose outcomes the status decides.
    std::string_view body = ex.reply;
    const envelope env = envelope_scanner::scan(body);
    const bool status_decides = status == 401 || status == 403 || status == 429;
    if (ex.id && !status_decides && env.valid && env.is_object && env.error.present() && env.id_is_integer &&
        env.id_value == ex.id) {
        events_->on_message(body, status);
        return;
    }
    if (ex.raw && env.valid) {
        // A raw message's error body (e.g. -32700 with id null) is its answer.
        events_->on_message(body, status);
        if (!events_->is_pending(ex.id)) return;
    }
    describe_status_failure(ex, body, env);
}

MCP_LOADTEST_DECL void http_pool_transport::describe_status_failure(exchange& ex, std::string_view body, const envelope& env) {
    const int status = ex.status;
    std::string detail;
    if (env.valid && env.error.present()) {
        try {
            const json e = json::parse(env.error.in(body));
            detail = " (JSON-RPC error " + std::to_string(e.value("code", 0)) + ": " + e.value("message", "") + ")";
        } catch (const std::exception&) {
        }
    } else if (!body.empty()) {
        detail = ": \"" + truncate_for_message(body, 200) + "\"";
    }
    if (status == 429 && resend_after_throttling(ex)) return;
    std::string message = "HTTP " + std::to_string(status) + " from " + redact_url(url_text_) + detail;
    outcome o = status >= 500 ? outcome::server_error : outcome::protocol_error;
    if (status == 401 || status == 403) o = outcome::unauthorized;
    if (status == 429) {
        o = outcome::throttled;
        message += ex.retry_after.empty() ? std::string(" (no Retry-After)") : " (Retry-After: " + truncate_for_message(ex.retry_after, 60) + ")";
        message += !honour_retry_after_ ? ". The server asks for less load. Hint: honour_retry_after = true waits and "
                                          "sends the request again."
                   : ex.throttle_resends >= 3 ? ". Still throttled after " + std::to_string(ex.throttle_resends) +
                                                    " waits (the most a request is sent again)."
                                              : ". The wait was unreadable or longer than max_retry_after.";
    }
    if (session_gone(ex, status)) {
        if (resend_on_new_session(ex)) return;
        o = outcome::disconnected;
        message += ". The server no longer knows this session (expired or terminated; some servers answer 400). "
                   "Hint: open a new session (connect() again).";
    } else if (status == 401 || status == 403) {
        if (!ex.www_authenticate.empty())
            message += " (WWW-Authenticate: " + truncate_for_message(ex.www_authenticate, 300) + ")";
        if (!authorizer_)
            message += ". Hint: the server wants credentials; set oauth (docs/authentication.md), bearer_token or "
                       "headers (read secrets from the environment; they are never printed).";
        else if (status == 403 && ex.step_ups > 0)
            message += ". It still refuses after " + std::to_string(ex.step_ups) +
                       " new authorization(s) with the scopes it asked for (oauth_options::max_step_ups is " +
                       std::to_string(authorizer_->max_step_ups()) + ").";
        else if (ex.auth_resends > 0)
            message += ". It refused the request again with a new token.";
        else
            message += ". The OAuth client had no way to answer it (a 403 that asks for no scope is a plain refusal).";
    } else if (status == 406 || status == 415) {
        message += ". The server rejected the request's Accept or Content-Type header.";
    } else if (status >= 300 && status < 400) {
        message += max_redirects_ == 0 ? ". Redirects are not followed (max_redirects is 0); point the server "
                                         "description at the final URL."
                                       : ". It names no Location to follow.";
    }
    if (ex.message == outgoing::kind::request) {
        fail_exchange(ex, o, message, status);
    } else if (events_) {
        // A notification or a reply to the server was refused: the protocol broke here.
        events_->on_violation(protocol_violation::kind::not_jsonrpc, message, 0);
    }
}

MCP_LOADTEST_DECL void http_pool_transport::fail_exchange(exchange& ex, outcome o, const std::string& message, int status) {
    initialized_settled(ex);
    if (ex.internal) {
        own_exchange_failed(ex, o, message);
        return;
    }
    if (ex.id) unfile_id(ex.id);
    if (!events_) return;
    if (!ex.carries_message()) {
        own_exchange_failed(ex, o, message);
        return;
    }
    if (ex.id && !ex.abandoned) events_->on_request_failed(ex.id, o, message, status);
    else if (!ex.id && ex.message != outgoing::kind::request)
        events_->on_violation(protocol_violation::kind::not_jsonrpc, message, 0);
}

MCP_LOADTEST_DECL bool http_pool_transport::authorize_and_resend(exchange& ex) {
    if (ex.what != exchange::kind::post || ex.redirected || ex.abandoned || ex.internal || closing_ || down_) return false;
    const bool step_up = ex.status == 403;
    if (step_up) {
        // Only a 403 asking for scopes is OAuth's: insufficient_scope, with the scopes it wants.
        const auto challenge = find_challenge(ex.www_authenticate, "Bearer");
        if (!challenge || challenge->param("error").value_or("") != "insufficient_scope") return false;
        if (ex.step_ups >= authorizer_->max_step_ups()) return false;
    } else if (ex.auth_resends >= 1) {
        return false;  // refused again with a fresh token: the server does not take it
    }
    if (ex.message == outgoing::kind::request && ex.id && events_ && !events_->is_pending(ex.id)) return false;
    auto next = again(ex);
    next->auth_resends = static_cast<std::uint8_t>(ex.auth_resends + (step_up ? 0 : 1));
    next->step_ups = static_cast<std::uint8_t>(ex.step_ups + (step_up ? 1 : 0));
    if (!step_up && ex.token_version != token_version_) {
        // Sent before the token it needed arrived: send it again with that token now.
        reauthorize_request(*next);
        authorizer_->count_resend(false);
        dispatch(std::move(next), true);
        return true;
    }
    const auto now = std::chrono::steady_clock::now();
    if (auth_parked_.empty()) parked_since_ = now;
    auth_parked_.push_back({std::move(next), ex.status, ex.www_authenticate, now});
    if (!authorizing_) {
        authorizing_ = true;
        auth_refusal refusal;
        refusal.status = ex.status;
        refusal.www_authenticate = ex.www_authenticate;
        std::weak_ptr<http_pool_transport> weak = self();
        authorizer_->obtain(auth_target_now(), std::move(refusal), bearer_, [weak](auth_answer answer) {
            if (auto s = weak.lock()) s->authorized(std::move(answer));
        });
    }
    return true;
}

MCP_LOADTEST_DECL std::shared_ptr<http_exchange> http_pool_transport::again(exchange& ex) {
    auto next = std::make_shared<exchange>();
    next->what = ex.what;
    next->message = ex.message;
    next->id = ex.id;
    next->is_initialize = ex.is_initialize;
    next->is_initialized_notification = ex.is_initialized_notification;
    next->raw = ex.raw;
    next->label = ex.label;
    next->body = std::move(ex.body);
    next->request = std::move(ex.request);
    next->auth_resends = ex.auth_resends;
    next->step_ups = ex.step_ups;
    next->throttle_resends = ex.throttle_resends;
    next->token_version = ex.token_version;
    if (next->id) file_by_id(next);
    return next;
}

MCP_LOADTEST_DECL bool http_pool_transport::resend_after_throttling(exchange& ex) {
    if (!honour_retry_after_ || ex.what != exchange::kind::post || ex.redirected || ex.abandoned || ex.internal ||
        closing_ || down_ || ex.throttle_resends >= 3)
        return false;
    if (ex.message == outgoing::kind::request && ex.id && events_ && !events_->is_pending(ex.id)) return false;
    // delay-seconds or an HTTP date (RFC 9110 §10.2.3), by this machine's clock.
    const auto now_unix = std::chrono::duration_cast<std::chrono::seconds>(
                              std::chrono::system_clock::now().time_since_epoch()).count();
    const auto parsed = parse_retry_after(ex.retry_after, now_unix);
    if (!parsed || *parsed > max_retry_after_) return false;
    const std::chrono::seconds wait = *parsed;
    auto next = again(ex);
    ++next->throttle_resends;
    auto timer = std::make_shared<asio::steady_timer>(ex_, wait);
    std::erase_if(throttle_waits_, [](const auto& w) { return w.expired(); });
    throttle_waits_.push_back(timer);
    std::weak_ptr<http_pool_transport> weak = self();
    timer->async_wait([weak, next, timer](const asio::error_code& ec) {
        auto s = weak.lock();
        if (ec || !s || s->closing_ || s->down_ || next->abandoned) return;
        if (next->token_version != s->token_version_ && s->authorizer_) s->reauthorize_request(*next);
        s->dispatch(next, true);
    });
    return true;
}

MCP_LOADTEST_DECL void http_pool_transport::authorized(auth_answer answer) {
    authorizing_ = false;
    auto parked = std::move(auth_parked_);
    auth_parked_.clear();
    if (closing_ || down_) return;
    if (!parked.empty()) {
        const auto now = std::chrono::steady_clock::now();
        if (stats_) stats_->time_blocked_on_token += now - parked_since_;
        for (auto& p : parked)
            if (events_ && p.ex->id && p.ex->message == outgoing::kind::request && !p.ex->abandoned)
                events_->on_token_wait(p.ex->id, now - p.since);
    }
    if (answer.token.empty()) {
        for (auto& p : parked) {
            if (p.ex->abandoned) continue;
            const std::string message =
                "HTTP " + std::to_string(p.status) + " from " + redact_url(url_text_) +
                (p.www_authenticate.empty() ? std::string() : " (WWW-Authenticate: " + truncate_for_message(p.www_authenticate, 300) + ")") +
                ", and getting a token failed: " + answer.error;
            fail_exchange(*p.ex, outcome::unauthorized, message, p.status);
        }
        return;
    }
    if (answer.token != bearer_) use_token(answer.token, answer.refresh_at);
    for (auto& p : parked) {
        if (p.ex->abandoned) continue;
        reauthorize_request(*p.ex);
        authorizer_->count_resend(p.status == 403);
        dispatch(std::move(p.ex), true);
    }
}

MCP_LOADTEST_DECL void http_pool_transport::use_token(const std::string& token,
                                                      std::chrono::steady_clock::time_point refresh_at) {
    bearer_ = token;
    ++token_version_;
    build_static_headers();
    set_post_url(post_url_);
    arm_renewal(refresh_at);
}

MCP_LOADTEST_DECL void http_pool_transport::arm_renewal(std::chrono::steady_clock::time_point refresh_at) {
    refresh_timer_.cancel();
    if (refresh_at == std::chrono::steady_clock::time_point::max()) return;
    refresh_timer_.expires_at(refresh_at);
    std::weak_ptr<http_pool_transport> weak = self();
    refresh_timer_.async_wait([weak](const asio::error_code& ec) {
        if (ec) return;
        if (auto s = weak.lock()) s->renew_token();
    });
}

MCP_LOADTEST_DECL void http_pool_transport::renew_token() {
    if (closing_ || down_ || authorizing_ || !authorizer_) return;
    authorizing_ = true;
    auth_refusal due;
    due.status = 0;
    std::weak_ptr<http_pool_transport> weak = self();
    authorizer_->obtain(auth_target_now(), std::move(due), bearer_, [weak](auth_answer answer) {
        auto s = weak.lock();
        if (!s) return;
        // A failed renewal keeps the token: it is still valid a while, and a 401 will try again.
        if (answer.token.empty() && s->auth_parked_.empty()) {
            s->authorizing_ = false;
            return;
        }
        s->authorized(std::move(answer));
    });
}

MCP_LOADTEST_DECL auth_target http_pool_transport::auth_target_now() const {
    auth_target t;
    t.server = url_;
    t.executor = ex_;
    t.proxy = proxy_;
    t.tls = tls_;
    return t;
}

MCP_LOADTEST_DECL void http_pool_transport::reauthorize_request(exchange& ex) const {
    ex.token_version = token_version_;
    std::string& r = ex.request;
    const std::size_t head_end = r.find("\r\n\r\n");
    if (head_end == std::string::npos) return;
    const std::string line = "Authorization: Bearer " + bearer_ + "\r\n";
    static constexpr std::string_view name = "\r\nAuthorization: ";
    const std::size_t at = r.find(name);
    if (at != std::string::npos && at < head_end) {
        const std::size_t start = at + 2;
        const std::size_t end = r.find("\r\n", start) + 2;
        r.replace(start, end - start, line);
    } else {
        r.insert(head_end + 2, line);
    }
}

MCP_LOADTEST_DECL void http_pool_transport::connection_failed(const std::shared_ptr<connection>& c, const std::string& why) {
    auto ex = c->current;
    c->current.reset();
    const bool reused_untouched = c->reused && ex && ex->received == 0 && ex->status == 0 && !ex->retried;
    drop_connection(c);
    if (!ex || ex->abandoned) return;
    if (!ex->location.empty()) {  // the redirect's head arrived: its body does not matter
        follow_redirect(ex);
        return;
    }
    if (ex->is_sse && ex->status >= 200 && ex->status < 300 && try_resume(*ex)) return;
    if (reused_untouched && ex->what == exchange::kind::post) {
        // A keep-alive connection the server had already closed: send once more on a fresh one,
        // not on another idle one (the server may have closed those too). A full pool gives up
        // its oldest idle connection for it; with none idle, the first to come free takes it.
        ex->retried = true;
        if (open_ >= pool_size_ && !idle_.empty()) {
            const auto oldest = idle_.front();
            drop_connection(oldest);
        }
        if (open_ < pool_size_) open_connection(std::move(ex));
        else dispatch(std::move(ex), true);
        return;
    }
    std::string message = ex->status == 0
                              ? "the connection to " + redact_url(url_text_) + " failed before a response: " + why
                              : "the connection broke in the middle of the HTTP " + std::to_string(ex->status) +
                                    " response (" + std::to_string(ex->received) + " body bytes received): " + why;
    fail_exchange(*ex, outcome::disconnected, message, ex->status);
}

}  // namespace mcp_loadtest::detail
