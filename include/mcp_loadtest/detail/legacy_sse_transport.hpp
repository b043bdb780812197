// The legacy HTTP+SSE transport (2024-11-05) over the shared HTTP connection
// pool: one long-lived GET stream carries every server message, and its first
// `endpoint` event names the URL the client POSTs to.
#pragma once

#include <mcp_loadtest/detail/http_pool.hpp>

#include <memory>
#include <string>

namespace mcp_loadtest::detail {

class legacy_sse_transport final : public http_pool_transport {
public:
    legacy_sse_transport(asio::any_io_executor ex, sse_server server)
        : http_pool_transport(std::move(ex), server) {}

    [[nodiscard]] std::string_view kind() const noexcept override { return "http+sse"; }

private:
    // open() is done when the stream has named the POST endpoint (bounded by connect_timeout).
    asio::awaitable<void> after_open() override {
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

    bool on_control_event(exchange& ex, const sse::event& e) override {
        if (ex.what != exchange::kind::legacy_stream || e.type != "endpoint") return false;
        on_endpoint_event(e.data);
        return true;
    }

    void on_endpoint_event(std::string_view data) {
        std::string error;
        auto target = resolve_relative(url_, data, &error);
        if (!target || target->origin() != url_.origin()) {
            report_down(outcome::protocol_error, "the `endpoint` event named \"" + truncate_for_message(data, 200) +
                                                     "\", which is not a URL on the same origin" +
                                                     (error.empty() ? "" : ": " + error));
            ready_event_.cancel();
            return;
        }
        post_url_ = *target;
        post_host_ = post_url_.host_header();
        endpoint_known_ = true;
        ready_event_.cancel();
    }

    // Every reply travels on the stream: when it ends, nothing more can arrive.
    void own_exchange_done(exchange& ex) override {
        if (ex.what != exchange::kind::legacy_stream) return;
        report_down(outcome::disconnected, "the server ended the SSE stream at " + redact_url(url_text_) +
                                               "; no reply can arrive.");
    }

    void own_exchange_failed(exchange& ex, outcome o, const std::string& message) override {
        if (ex.what != exchange::kind::legacy_stream) return;
        report_down(o == outcome::ok ? outcome::disconnected : o, message);
        ready_event_.cancel();
    }

    // Kept for open()'s message when the stream fails before naming the endpoint.
    void report_down(outcome o, const std::string& message) {
        down_message_ = message;
        transport::report_down(o, message);
    }

    std::shared_ptr<exchange> stream_;
    bool endpoint_known_ = false;
    std::string down_message_;
};

}  // namespace mcp_loadtest::detail
