// MCP Streamable HTTP (2025-03-26 .. 2025-11-25, and the stateless
// 2026-07-28 form) over the shared HTTP connection pool: the session id and
// protocol version headers, the standalone GET stream, resuming a reply
// stream with Last-Event-ID, re-initialising an expired session, and DELETE
// on close.
#pragma once

#include <mcp_loadtest/detail/http_pool.hpp>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace mcp_loadtest::detail {

class streamable_http_transport final : public http_pool_transport {
public:
    streamable_http_transport(asio::any_io_executor ex, http_server server)
        : http_pool_transport(std::move(ex), server), open_get_stream_(server.open_get_stream), delete_on_close_(server.delete_on_close),
          reinitialize_(server.reinitialize_expired_sessions) {}

    void set_protocol_version(std::string_view version) override {
        protocol_version_.assign(version);
        if (!version.empty() && era_ == protocol_era::legacy && open_get_stream_ && !session_id_.empty() &&
            !get_stream_started_)
            open_get_stream();
    }

    [[nodiscard]] std::string_view kind() const noexcept override { return "streamable-http"; }

private:
    void append_session_headers(std::string& out) const {
        if (!session_id_.empty()) {
            out += "Mcp-Session-Id: ";
            out += session_id_;
            out += "\r\n";
        }
        if (!protocol_version_.empty()) {
            out += "MCP-Protocol-Version: ";
            out += protocol_version_;
            out += "\r\n";
        }
    }

    // Modern requests also name their method (and tool, prompt or resource) in
    // headers, so a gateway can route without parsing the body.
    void append_message_headers(std::string& out, const outgoing& info) const override {
        append_session_headers(out);
        if (era_ != protocol_era::modern || info.what != outgoing::kind::request) return;
        out += "Mcp-Method: ";
        append_http_header_value(out, info.method);
        out += "\r\n";
        if (!info.name.empty() &&
            (info.method == "tools/call" || info.method == "prompts/get" || info.method == "resources/read")) {
            out += "Mcp-Name: ";
            append_http_header_value(out, info.name);
            out += "\r\n";
        }
        if (info.param_headers)
            for (const auto& [name, value] : *info.param_headers) {
                out += "Mcp-Param-";
                out += name;
                out += ": ";
                append_http_header_value(out, value);
                out += "\r\n";
            }
    }

    void on_head(exchange& ex, const http1::response_head& head) override {
        const auto ct = head.find("content-type");
        const bool success = ex.status >= 200 && ex.status < 300;
        if (!ex.is_sse && ct && success && ex.status != 202 && ex.id && !ex.internal &&
            ex.message == outgoing::kind::request && !is_json_media_type(*ct)) {
            // Streamable HTTP answers a request with JSON or SSE only: nothing
            // else can carry its reply, so the call ends when the body starts.
            ex.unexpected_type = true;
            ex.content_type = truncate_for_message(*ct, 100);
        }
        if (ex.is_initialize || (ex.what == exchange::kind::post && session_id_.empty()))
            if (auto sid = head.find("mcp-session-id"); sid && !sid->empty()) session_id_.assign(*sid);
        if (ex.what == exchange::kind::get_stream) {
            get_stream_settled_ = true;
            ready_event_.cancel();
        }
    }

    // The JSON answer to a POSTed request is its reply: if it did not settle the call, nothing will.
    void answer_left_call_pending(exchange& ex, std::string_view body) override {
        const int status = ex.status;
        if (!body.empty())
            fail_exchange(ex, outcome::malformed,
                          "HTTP " + std::to_string(status) + " answered request " + std::to_string(ex.id) +
                              " with a JSON body that is not its reply: \"" + truncate_for_message(body, 200) + "\"",
                          status);
        else if (status != 202)
            fail_exchange(ex, outcome::malformed, "HTTP " + std::to_string(status) + " with an empty body", status);
    }

    // ---- streams --------------------------------------------------------------

    // The reply's SSE stream ended before the response, after events with ids:
    // reconnect with GET and Last-Event-ID after the server's `retry` delay
    // (2025-11-25 resumability). At most 5 times per call.
    bool try_resume(exchange& ex) override {
        if (!ex.id || ex.abandoned || closing_ || !events_ || !events_->is_pending(ex.id)) return false;
        const std::string last(ex.events().last_event_id());
        if (last.empty() || ex.resumptions >= 5) return false;
        auto r = std::make_shared<exchange>();
        r->what = exchange::kind::resume;
        r->id = ex.id;
        r->resumptions = ex.resumptions + 1;
        std::string req = stream_request();
        append_session_headers(req);
        req += "Last-Event-ID: " + last + "\r\n\r\n";
        r->request = std::move(req);
        by_id_[r->id] = r;
        const auto delay = std::chrono::milliseconds(std::min<std::uint64_t>(ex.events().retry_ms().value_or(1000), 30000));
        auto timer = std::make_shared<asio::steady_timer>(ex_, delay);
        auto me = std::static_pointer_cast<streamable_http_transport>(shared_from_this());
        timer->async_wait([me, r, timer](const asio::error_code& ec) {
            if (ec || me->closing_ || r->abandoned) return;
            me->open_stream(r);
        });
        return true;
    }

    // The standalone GET stream: where a legacy-era server sends its own
    // requests and notifications outside any call.
    void open_get_stream() {
        get_stream_started_ = true;
        get_stream_settled_ = false;
        auto ex = std::make_shared<exchange>();
        ex->what = exchange::kind::get_stream;
        std::string req = stream_request();
        append_session_headers(req);
        req += "\r\n";
        ex->request = std::move(req);
        open_stream(std::move(ex));
    }

    [[nodiscard]] bool streams_settled() const override { return !get_stream_started_ || get_stream_settled_; }

    // ---- an expired session -----------------------------------------------------

    void keep_for_replay(exchange& ex, std::string_view body) override {
        if (!reinitialize_ || era_ != protocol_era::legacy) return;
        if (ex.is_initialize) initialize_body_.assign(body);
        else if (ex.is_initialized_notification) initialized_body_.assign(body);
        else if (ex.message == outgoing::kind::request) ex.body.assign(body);
    }

    [[nodiscard]] bool session_gone(const exchange& ex, int status) const override {
        return !session_id_.empty() && (status == 404 || status == 400) && !ex.is_initialize;
    }

    bool resend_on_new_session(exchange& ex) override {
        return reinitialize_ && ex.message == outgoing::kind::request && !ex.replayed && !ex.body.empty() &&
               !initialize_body_.empty() && replay_after_reinitialize(ex);
    }

    // The session expired: initialize again (our own exchange, its reply kept
    // from the core), then send the waiting requests again on the new session.
    bool replay_after_reinitialize(exchange& failed) {
        if (!failed.id || failed.abandoned || !events_ || !events_->is_pending(failed.id)) return false;
        auto copy = std::make_shared<exchange>();
        copy->what = exchange::kind::post;
        copy->message = outgoing::kind::request;
        copy->id = failed.id;
        copy->replayed = true;
        copy->body = std::move(failed.body);
        by_id_[copy->id] = copy;
        replay_.push_back(copy);
        if (reinitializing_) return true;
        reinitializing_ = true;
        session_id_.clear();
        auto init = std::make_shared<exchange>();
        init->what = exchange::kind::post;
        init->message = outgoing::kind::request;
        init->is_initialize = true;
        init->internal = true;
        outgoing info;
        info.method = "initialize";
        const std::string saved_version = protocol_version_;
        protocol_version_.clear();  // initialize carries no version header
        write_post(init->request, initialize_body_, info);
        protocol_version_ = saved_version;
        dispatch(std::move(init), true);
        return true;
    }

    void after_reinitialize(bool ok, const std::string& why) {
        reinitializing_ = false;
        auto waiting = std::move(replay_);
        replay_.clear();
        if (ok && !initialized_body_.empty()) {
            auto note = std::make_shared<exchange>();
            note->message = outgoing::kind::notification;
            outgoing info;
            info.what = outgoing::kind::notification;
            write_post(note->request, initialized_body_, info);
            dispatch(std::move(note), true);
        }
        for (auto& ex : waiting) {
            if (ex->abandoned) continue;
            if (!ok) {
                fail_exchange(*ex, outcome::disconnected,
                              "the server no longer knows this session, and initializing a new one failed: " + why, 0);
                continue;
            }
            outgoing info;
            write_post(ex->request, ex->body, info);
            dispatch(ex);
        }
    }

    // ---- our own exchanges: re-initialisation, DELETE, the GET stream ------------

    void own_exchange_done(exchange& ex) override {
        if (ex.internal) {
            const bool ok = ex.status == 200 && !session_id_.empty();
            after_reinitialize(ok, ok ? std::string() : "HTTP " + std::to_string(ex.status) + " to initialize");
            return;
        }
        // The server may end its standalone stream: nothing is lost; it may be reopened later.
        settle(ex);
    }

    void own_exchange_failed(exchange& ex, outcome /*o*/, const std::string& message) override {
        if (ex.internal) {
            after_reinitialize(false, message);
            return;
        }
        settle(ex);
    }

    void settle(const exchange& ex) {
        if (ex.what == exchange::kind::del) delete_done_ = true;
        else if (ex.what == exchange::kind::get_stream) get_stream_settled_ = true;
        else return;
        ready_event_.cancel();
    }

    // Ends the session on the server (DELETE with its id), waiting a bounded time for the answer.
    asio::awaitable<void> before_release() override {
        if (!delete_on_close_ || session_id_.empty() || down_) co_return;
        auto ex = std::make_shared<exchange>();
        ex->what = exchange::kind::del;
        std::string req = "DELETE " + post_url_.target + " HTTP/1.1\r\nHost: " + post_url_.host_header() + "\r\n";
        req += static_headers_;
        append_session_headers(req);
        req += "Content-Length: 0\r\n\r\n";
        ex->request = std::move(req);
        delete_done_ = false;
        dispatch(ex, true);
        co_await wait_until([this] { return delete_done_; },
                            std::min<std::chrono::milliseconds>(limits_.connect_timeout, std::chrono::milliseconds(2000)));
    }

    bool open_get_stream_ = false, delete_on_close_ = false, reinitialize_ = false;
    std::string session_id_, protocol_version_;
    bool delete_done_ = true;
    bool get_stream_started_ = false, get_stream_settled_ = false;
    // Re-initialisation of an expired session: the handshake messages as first
    // sent, and the requests waiting to be sent again on the new session.
    std::string initialize_body_, initialized_body_;
    bool reinitializing_ = false;
    std::vector<std::shared_ptr<exchange>> replay_;
};

}  // namespace mcp_loadtest::detail
