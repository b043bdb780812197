// Definitions of detail/transport/legacy_sse_transport.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/legacy_sse_transport.hpp>

#include <mcp_loadtest/detail/text/truncate_for_message.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL asio::awaitable<void> legacy_sse_transport::after_open() {
    auto ex = std::make_shared<exchange>();
    ex->what = exchange::kind::legacy_stream;
    std::string req = stream_request();
    req += "\r\n";
    ex->request = std::move(req);
    stream_ = ex;
    open_stream(ex);
    co_await wait_until([this] { return endpoint_known_; }, limits_.connect_timeout);
    if (endpoint_known_) co_return;
    std::string why = down_message_.empty() ? "no `endpoint` event within " +
                                                  std::to_string(limits_.connect_timeout.count()) + " ms"
                                            : down_message_;
    if (ex->status != 0 && ex->status != 200) why = "GET answered HTTP " + std::to_string(ex->status);
    release_all();
    throw connect_error("cannot open the legacy HTTP+SSE stream at " + redact_url(url_text_) + ": " + why +
                            ". Hint: the URL must be the server's SSE endpoint (often /sse); for Streamable HTTP "
                            "use http_server.",
                        call_result{});
}

MCP_LOADTEST_DECL bool legacy_sse_transport::on_control_event(exchange& ex, const sse::event& e) {
    if (ex.what != exchange::kind::legacy_stream || e.type != "endpoint") return false;
    on_endpoint_event(destination(ex), e.data);
    return true;
}

MCP_LOADTEST_DECL void legacy_sse_transport::on_endpoint_event(const url& stream_url, std::string_view data) {
    std::string error;
    auto target = resolve_relative(stream_url, data, &error);  // the stream's URL after any redirect
    if (!target || target->origin() != stream_url.origin()) {
        report_down(outcome::protocol_error, "the `endpoint` event named \"" + truncate_for_message(data, 200) +
                                                 "\", which is not a URL on the same origin" +
                                                 (error.empty() ? "" : ": " + error));
        ready_event_.cancel();
        return;
    }
    if (stream_url.origin() != url_.origin()) build_static_headers(false);  // redirected away: no credentials there
    set_post_url(*target);
    endpoint_known_ = true;
    ready_event_.cancel();
}

MCP_LOADTEST_DECL void legacy_sse_transport::own_exchange_done(exchange& ex) {
    if (ex.what != exchange::kind::legacy_stream) return;
    report_down(outcome::disconnected, "the server ended the SSE stream at " + redact_url(url_text_) +
                                           "; no reply can arrive.");
}

MCP_LOADTEST_DECL void legacy_sse_transport::own_exchange_failed(exchange& ex, outcome o, const std::string& message) {
    if (ex.what != exchange::kind::legacy_stream) return;
    report_down(o == outcome::ok ? outcome::disconnected : o, message);
    ready_event_.cancel();
}

MCP_LOADTEST_DECL void legacy_sse_transport::report_down(outcome o, const std::string& message) {
    down_message_ = message;
    transport::report_down(o, message);
}

}  // namespace mcp_loadtest::detail
