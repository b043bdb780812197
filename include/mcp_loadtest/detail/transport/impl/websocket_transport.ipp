// Definitions of detail/transport/websocket_transport.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/websocket_transport.hpp>

#include <mcp_loadtest/detail/clock.hpp>
#include <mcp_loadtest/detail/wire/http1.hpp>
#include <mcp_loadtest/detail/transport/net_connect.hpp>
#include <mcp_loadtest/detail/os/sigpipe.hpp>
#include <mcp_loadtest/detail/transport/socket_transport.hpp>
#include <mcp_loadtest/detail/transport/stdio_transport.hpp>
#include <mcp_loadtest/detail/text/truncate_for_message.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL asio::awaitable<void> websocket_transport::open(transport_events& events, session_stats& stats) {
    events_ = &events;
    stats_ = &stats;
    ignore_sigpipe_once();
    std::string error;
    auto u = parse_url(server_.url, &error);
    if (!u) throw connect_error("invalid WebSocket URL: " + error, call_result{});
    if (u->scheme != "ws" && u->scheme != "wss")
        throw connect_error("the URL " + u->redacted() + " is not ws://. Hint: use http_server for http://.",
                            call_result{});
    if (u->secure() && !tls_available())
        throw connect_error("wss:// needs TLS, and this build of mcp-loadtest has none (OpenSSL was not found, "
                            "or MCP_LOADTEST_TLS is OFF). Hint: install libssl-dev and reconfigure, or test "
                            "against the server's plain ws:// port on 127.0.0.1.",
                            call_result{});
    url_ = *u;
    auto ex = ex_;
    const auto timeout = server_.limits.connect_timeout;
    // Named first: GCC 12 mis-relocates temporaries with strings inside co_await.
    const connect_route route = route_to(url_, choose_proxy(url_, server_.proxy, read_proxy_environment()));
    auto connecting = await_connect([ex, route, timeout](connect_handler h) {
        async_connect_route(ex, route, timeout, std::move(h));
    });
    connect_result connected = co_await std::move(connecting);
    if (!connected.socket) throw connect_error(connected.error, call_result{});
    socket_.assign(std::move(*connected.socket));
#if defined(MCP_LOADTEST_WITH_TLS)
    if (u->secure()) {
        std::shared_ptr<asio::ssl::context> ctx;
        try {
            ctx = make_tls_context(server_.tls);
        } catch (const std::runtime_error& e) {
            release();
            throw connect_error(e.what(), call_result{});
        }
        socket_.use_tls(ctx, url_.host, server_.tls.verify);
        timer_.expires_after(timeout);
        timer_.async_wait([s = self()](const asio::error_code& tec) {
            if (!tec && !s->handshake_done_) {
                asio::error_code ignored;
                s->socket_.close(ignored);
            }
        });
        asio::error_code hec;
        co_await socket_.async_handshake(asio::redirect_error(asio::use_awaitable, hec));
        if (hec) {
            std::string why = describe_tls_failure(hec, url_.host_header(), server_.tls, socket_.tls_verify_error());
            release();
            throw connect_error(why, call_result{});
        }
        timer_.cancel();
    }
#endif

    // The opening handshake, bounded by the connect timeout.
    std::vector<std::string> header_lines;
    std::vector<http1::field> fields;
    std::string auth;
    for (const auto& h : server_.headers) fields.push_back({h.name, h.value});
    if (!server_.bearer_token.empty()) {
        auth = "Bearer " + server_.bearer_token;
        fields.push_back({"Authorization", auth});
    }
    const std::string key = ws::make_key();
    std::string request;
    ws::write_handshake(request, url_, key, server_.subprotocol, fields);
    timer_.expires_after(timeout);
    timer_.async_wait([s = self()](const asio::error_code& ec) {
        if (!ec && !s->handshake_done_) {
            asio::error_code ignored;
            s->socket_.close(ignored);
        }
    });
    asio::error_code ec;
    co_await socket_.async_write(asio::buffer(request), asio::redirect_error(asio::use_awaitable, ec));
    http1::response_parser head_parser;
    std::string leftover;
    bool upgraded = false;
    while (!ec && !upgraded) {
        const std::size_t n = co_await socket_.async_read_some(asio::buffer(buffer_),
                                                               asio::redirect_error(asio::use_awaitable, ec));
        std::string_view in(buffer_.data(), n);
        while (!in.empty() || n == 0) {
            const http1::step st = head_parser.parse(in);
            in.remove_prefix(st.consumed);
            if (st.kind == http1::event::upgrade) {
                upgraded = true;
                leftover.assign(in);
                break;
            }
            if (st.kind == http1::event::error || st.kind == http1::event::headers) {
                handshake_done_ = true;
                timer_.cancel();
                release();
                std::string detail = st.kind == http1::event::error
                                         ? head_parser.last_error().message
                                         : "HTTP " + std::to_string(head_parser.status()) + " instead of 101";
                if (st.kind == http1::event::headers && head_parser.status() >= 300 && head_parser.status() < 400)
                    if (const auto location = head_parser.head().find("location"))
                        detail += " (a redirect to \"" + redact_url(std::string(*location)) +
                                  "\", which a WebSocket handshake does not follow: use that URL)";
                throw connect_error("WebSocket handshake with " + url_.redacted() + " failed: " + detail +
                                        ". Hint: check the URL path, and that the server speaks WebSocket there.",
                                    call_result{});
            }
            if (st.kind == http1::event::need_more) break;
        }
    }
    handshake_done_ = true;
    timer_.cancel();
    if (!upgraded) {
        // wss: the server may have refused the client certificate (or its absence).
        std::string refused =
            ec ? describe_tls_refusal(ec, url_.host_header(), server_.tls, socket_.tls_certificate_requested())
               : std::string{};
        release();
        if (!refused.empty())
            throw connect_error("WebSocket handshake with " + url_.redacted() + " failed: " + refused, call_result{});
        throw connect_error("WebSocket handshake with " + url_.redacted() + " failed: " +
                                (ec ? ec.message() : std::string("no 101 response")) +
                                " (within limits.connect_timeout). Hint: check the URL and that the server is up.",
                            call_result{});
    }
    std::string invalid;
    if (!ws::validate_handshake(head_parser.head(), key, server_.subprotocol, &invalid)) {
        release();
        throw connect_error(invalid + " (" + url_.redacted() + ")", call_result{});
    }
    open_ = true;
    if (!leftover.empty()) on_bytes(leftover);
    if (open_) start_read();
}

MCP_LOADTEST_DECL void websocket_transport::send(std::string_view line, const outgoing&) {
    if (!open_ || closing_) return;
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
    ws::write_frame(queue_.outbox(), ws::opcode::text, line);
    if (queue_.over_limit()) {
        // Ended from the loop, not inside the caller's send.
        closing_ = true;
        asio::post(ex_, [s = self(), message = queue_.overflow_message(describe(), "limits.max_send_queue")] {
            s->fail(outcome::hang, message);
        });
        queue_.discard();
        return;
    }
    if (!queue_.writing() && !corked_) flush();
}

MCP_LOADTEST_DECL asio::awaitable<shutdown_result> websocket_transport::close() {
    shutdown_result r;
    r.ended = shutdown_result::how::disconnected;
    const auto t0 = clock::now();
    if (open_ && !closing_) {
        closing_ = true;
        ws::write_close(queue_.outbox(), 1000, "client closing");
        if (!queue_.writing()) flush();
        // Wait (bounded) for the server's close frame or EOF.
        timer_.expires_after(std::chrono::milliseconds(1000));
        asio::error_code ec;
        while (open_ && !close_received_) {
            co_await timer_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            if (!ec) break;
        }
    }
    closing_ = true;
    release();
    r.took = clock::now() - t0;
    co_return r;
}

MCP_LOADTEST_DECL void websocket_transport::abort_now() noexcept {
    closing_ = true;
    release();
}

MCP_LOADTEST_DECL std::shared_ptr<websocket_transport> websocket_transport::self() {
    return std::static_pointer_cast<websocket_transport>(shared_from_this());
}

MCP_LOADTEST_DECL void websocket_transport::flush() {
    if (pong_due_) {
        pong_due_ = false;
        ws::write_frame(queue_.outbox(), ws::opcode::pong, latest_ping_);
    }
    if (!queue_.has_queued() || !socket_.is_open()) return;
    socket_.async_write(asio::buffer(queue_.begin_write()), [s = self()](const asio::error_code& ec, std::size_t n) {
        s->queue_.end_write();
        if (s->stats_) s->stats_->bytes_written += n;
        if (ec) {
            if (ec != asio::error::operation_aborted && s->open_)
                s->fail(outcome::disconnected, "the WebSocket connection broke while sending (" + ec.message() + ")");
            return;
        }
        if (s->queue_.has_queued() || s->pong_due_) s->flush();
    });
}

MCP_LOADTEST_DECL void websocket_transport::start_read() {
    socket_.async_read_some(asio::buffer(buffer_), [s = self()](const asio::error_code& ec, std::size_t n) {
        if (!s->open_) return;
        if (n > 0) s->on_bytes(std::string_view(s->buffer_.data(), n));
        if (!s->open_) return;
        if (ec) {
            if (ec == asio::error::operation_aborted) return;
            s->fail(outcome::disconnected,
                    "the server at " + redact_url(s->server_.url) + " dropped the WebSocket connection" +
                        (ec == asio::error::eof ? std::string() : " (" + ec.message() + ")") +
                        (s->decoder_.mid_message() ? " in the middle of a message" : "") + "; no reply can arrive.");
            return;
        }
        s->start_read();
    });
}

MCP_LOADTEST_DECL void websocket_transport::on_bytes(std::string_view bytes) {
    if (stats_) stats_->bytes_read += bytes.size();
    corked_ = true;
    const bool ok = decoder_.feed(bytes, [this](const ws::message& m) {
        if (!events_) return;
        switch (m.kind) {
            case ws::opcode::text: events_->on_message(m.payload, 0); break;
            case ws::opcode::binary:
                events_->on_violation(protocol_violation::kind::not_jsonrpc,
                                      "a binary WebSocket message (MCP sends text frames)", m.payload.size());
                break;
            case ws::opcode::ping:
                // Answered when the socket next takes a write: only the latest ping.
                if (!closing_) {
                    latest_ping_.assign(m.payload);
                    pong_due_ = true;
                }
                break;
            case ws::opcode::close:
                close_received_ = true;
                if (!closing_) {
                    closing_ = true;
                    ws::write_close(queue_.outbox(), m.close_code == 1005 ? 1000 : m.close_code);
                    peer_closed_ = "the server closed the WebSocket (code " + std::to_string(m.close_code) +
                                   (m.payload.empty() ? "" : ", \"" + truncate_for_message(m.payload, 200) + "\"") +
                                   ")";
                }
                timer_.cancel();
                break;
            default: break;
        }
    });
    corked_ = false;
    if ((queue_.has_queued() || pong_due_) && !queue_.writing()) flush();
    if (!ok) {
        const auto& e = decoder_.last_error();
        if (e.code == ws::errc::message_too_big && events_)
            events_->on_violation(protocol_violation::kind::oversized_message, e.message, 0);
        if (!socket_.secure()) {
            std::string close_frame;
            ws::write_close(close_frame, ws::close_code_for(e.code));
            asio::error_code ignored;
            asio::write(socket_.lowest_layer(), asio::buffer(close_frame), ignored);  // best effort
        }
        fail(outcome::malformed, "the server broke the WebSocket protocol: " + e.message);
        return;
    }
    if (!peer_closed_.empty() && events_) fail(outcome::disconnected, peer_closed_ + "; no reply can arrive.");
}

MCP_LOADTEST_DECL void websocket_transport::fail(outcome o, const std::string& message) {
    open_ = false;
    report_down(o, message);
    release();
}

MCP_LOADTEST_DECL void websocket_transport::release() noexcept {
    open_ = false;
    asio::error_code ignored;
    socket_.close(ignored);
    try {
        timer_.cancel();
    } catch (...) {
    }
}

}  // namespace mcp_loadtest::detail
