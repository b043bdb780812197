// Definitions of detail/transport/streamable_http_transport.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/streamable_http_transport.hpp>

#include <mcp_loadtest/detail/text/truncate_for_message.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void streamable_http_transport::set_protocol_version(std::string_view version) {
    protocol_version_.assign(version);
    rebuild_session_headers();
    if (!version.empty() && era_ == protocol_era::legacy && open_get_stream_ && !session_id_.empty() &&
        !get_stream_started_)
        open_get_stream();
}

MCP_LOADTEST_DECL void streamable_http_transport::rebuild_session_headers() {
    session_headers_.clear();
    if (!session_id_.empty()) session_headers_ += "Mcp-Session-Id: " + session_id_ + "\r\n";
    if (!protocol_version_.empty()) session_headers_ += "MCP-Protocol-Version: " + protocol_version_ + "\r\n";
}

MCP_LOADTEST_DECL void streamable_http_transport::append_message_headers(std::string& out, const outgoing& info) const {
    using namespace std::string_view_literals;
    append_session_headers(out);
    if (era_ != protocol_era::modern || info.what != outgoing::kind::request) return;
    out += "Mcp-Method: "sv;
    append_http_header_value(out, info.method);
    out += "\r\n"sv;
    if (!info.name.empty() &&
        (info.method == "tools/call" || info.method == "prompts/get" || info.method == "resources/read")) {
        out += "Mcp-Name: "sv;
        append_http_header_value(out, info.name);
        out += "\r\n"sv;
    }
    if (info.param_headers)
        for (const auto& [name, value] : *info.param_headers) {
            out += "Mcp-Param-"sv;
            out += name;
            out += ": "sv;
            append_http_header_value(out, value);
            out += "\r\n"sv;
        }
}

MCP_LOADTEST_DECL void streamable_http_transport::on_head(exchange& ex, const http1::response_head& head,
                                                        std::optional<std::string_view> ct) {
    const bool success = ex.status >= 200 && ex.status < 300;
    if (!ex.is_sse && ct && success && ex.status != 202 && ex.id && !ex.internal &&
        ex.message == outgoing::kind::request && !is_json_media_type(*ct)) {
        // Streamable HTTP answers a request with JSON or SSE only: nothing
        // else can carry its reply, so the call ends when the body starts.
        ex.unexpected_type = true;
        ex.content_type = truncate_for_message(*ct, 100);
    }
    if (ex.is_initialize || (ex.what == exchange::kind::post && session_id_.empty()))
        if (auto sid = head.find("mcp-session-id"); sid && !sid->empty()) {
            session_id_.assign(*sid);
            rebuild_session_headers();
        }
    if (ex.what == exchange::kind::get_stream) {
        get_stream_settled_ = true;
        ready_event_.cancel();
    }
}

MCP_LOADTEST_DECL void streamable_http_transport::answer_left_call_pending(exchange& ex, std::string_view body) {
    const int status = ex.status;
    if (!body.empty())
        fail_exchange(ex, outcome::malformed,
                      "HTTP " + std::to_string(status) + " answered request " + std::to_string(ex.id) +
                          " with a JSON body that is not its reply: \"" + truncate_for_message(body, 200) + "\"",
                      status);
    else if (status != 202)
        fail_exchange(ex, outcome::malformed, "HTTP " + std::to_string(status) + " with an empty body", status);
}

MCP_LOADTEST_DECL bool streamable_http_transport::try_resume(exchange& ex) {
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
    file_by_id(r);
    const auto delay = std::chrono::milliseconds(std::min<std::uint64_t>(ex.events().retry_ms().value_or(1000), 30000));
    auto timer = std::make_shared<asio::steady_timer>(ex_, delay);
    auto me = std::static_pointer_cast<streamable_http_transport>(shared_from_this());
    timer->async_wait([me, r, timer](const asio::error_code& ec) {
        if (ec || me->closing_ || r->abandoned) return;
        me->open_stream(r);
    });
    return true;
}

MCP_LOADTEST_DECL void streamable_http_transport::open_get_stream() {
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

MCP_LOADTEST_DECL void streamable_http_transport::keep_for_replay(exchange& ex, std::string_view body) {
    if (!reinitialize_ || era_ != protocol_era::legacy) return;
    if (ex.is_initialize) initialize_body_.assign(body);
    else if (ex.is_initialized_notification) initialized_body_.assign(body);
    else if (ex.message == outgoing::kind::request) ex.body.assign(body);
}

MCP_LOADTEST_DECL bool streamable_http_transport::session_gone(const exchange& ex, int status) const {
    return !session_id_.empty() && (status == 404 || status == 400) && !ex.is_initialize;
}

MCP_LOADTEST_DECL bool streamable_http_transport::resend_on_new_session(exchange& ex) {
    return reinitialize_ && ex.message == outgoing::kind::request && !ex.replayed && !ex.body.empty() &&
           !initialize_body_.empty() && replay_after_reinitialize(ex);
}

MCP_LOADTEST_DECL bool streamable_http_transport::replay_after_reinitialize(exchange& failed) {
    if (!failed.id || failed.abandoned || !events_ || !events_->is_pending(failed.id)) return false;
    auto copy = std::make_shared<exchange>();
    copy->what = exchange::kind::post;
    copy->message = outgoing::kind::request;
    copy->id = failed.id;
    copy->replayed = true;
    copy->body = std::move(failed.body);
    file_by_id(copy);
    replay_.push_back(copy);
    if (reinitializing_) return true;
    reinitializing_ = true;
    session_id_.clear();
    rebuild_session_headers();
    auto init = std::make_shared<exchange>();
    init->what = exchange::kind::post;
    init->message = outgoing::kind::request;
    init->is_initialize = true;
    init->internal = true;
    outgoing info;
    info.method = "initialize";
    const std::string saved_version = protocol_version_;
    protocol_version_.clear();  // initialize carries no version header
    rebuild_session_headers();
    write_post(init->request, initialize_body_, info);
    protocol_version_ = saved_version;
    rebuild_session_headers();
    dispatch(std::move(init), true);
    return true;
}

MCP_LOADTEST_DECL void streamable_http_transport::after_reinitialize(bool ok, const std::string& why) {
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

MCP_LOADTEST_DECL void streamable_http_transport::own_exchange_done(exchange& ex) {
    if (ex.internal) {
        const bool ok = ex.status == 200 && !session_id_.empty();
        after_reinitialize(ok, ok ? std::string() : "HTTP " + std::to_string(ex.status) + " to initialize");
        return;
    }
    // The server may end its standalone stream: nothing is lost; it may be reopened later.
    settle(ex);
}

MCP_LOADTEST_DECL void streamable_http_transport::own_exchange_failed(exchange& ex, outcome /*o*/, const std::string& message) {
    if (ex.internal) {
        after_reinitialize(false, message);
        return;
    }
    settle(ex);
}

MCP_LOADTEST_DECL void streamable_http_transport::settle(const exchange& ex) {
    if (ex.what == exchange::kind::del) delete_done_ = true;
    else if (ex.what == exchange::kind::get_stream) get_stream_settled_ = true;
    else return;
    ready_event_.cancel();
}

MCP_LOADTEST_DECL asio::awaitable<void> streamable_http_transport::before_release() {
    if (!delete_on_close_ || session_id_.empty() || down_) co_return;
    auto ex = std::make_shared<exchange>();
    ex->what = exchange::kind::del;
    std::string req = request_start("DELETE", post_url_, route_);
    req += static_headers_;
    req += proxy_header(route_);
    append_session_headers(req);
    req += "Content-Length: 0\r\n\r\n";
    ex->request = std::move(req);
    delete_done_ = false;
    dispatch(ex, true);
    co_await wait_until([this] { return delete_done_; },
                        std::min<std::chrono::milliseconds>(limits_.connect_timeout, std::chrono::milliseconds(2000)));
}

}  // namespace mcp_loadtest::detail
