// Newline-delimited JSON-RPC over a TCP or Unix domain socket: the stdio
// framing over another byte stream (one connection = one session).
#pragma once

#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/detail/line_transport.hpp>
#include <mcp_loadtest/detail/net_connect.hpp>
#include <mcp_loadtest/detail/stdio_transport.hpp>

#include <string>
#include <tuple>

namespace mcp_loadtest::detail {

/// Awaits a connect_handler-style operation: (fd, error).
template <class Start>
asio::awaitable<std::tuple<int, std::string>> await_connect(Start start) {
    return asio::async_initiate<const asio::use_awaitable_t<>&, void(int, std::string)>(
        [start](auto handler) mutable {
            auto h = std::make_shared<decltype(handler)>(std::move(handler));
            start([h](int fd, std::string error) { (*h)(fd, std::move(error)); });
        },
        asio::use_awaitable);
}

class socket_transport final : public line_transport {
public:
    socket_transport(asio::any_io_executor ex, socket_server server)
        : line_transport(ex, server.limits.max_message_size, server.limits.max_send_queue), server_(std::move(server)) {}

    ~socket_transport() override { abort_now(); }

    asio::awaitable<void> open(transport_events& events, session_stats& stats) override {
        events_ = &events;
        stats_ = &stats;
        ignore_sigpipe_once();
        const std::string& u = server_.url;
        auto ex = ex_;
        const auto timeout = server_.limits.connect_timeout;
        std::tuple<int, std::string> r;
        if (u.rfind("unix://", 0) == 0 || u.rfind("unix:", 0) == 0) {
            std::string path = u.substr(u.rfind("unix://", 0) == 0 ? 7 : 5);
            // Named first: GCC 12 mis-relocates temporaries with strings inside co_await.
            auto connecting = await_connect([ex, path, timeout](connect_handler h) {
                async_connect_unix(ex, path, timeout, std::move(h));
            });
            r = co_await std::move(connecting);
        } else if (u.rfind("tcp://", 0) == 0) {
            std::string hostport = u.substr(6);
            if (auto slash = hostport.find('/'); slash != std::string::npos) hostport.resize(slash);
            const auto colon = hostport.rfind(':');
            if (colon == std::string::npos || colon + 1 == hostport.size())
                throw connect_error("socket_server url \"" + redact_url(u) +
                                        "\" has no port. Hint: write tcp://host:port, e.g. tcp://127.0.0.1:9000.",
                                    call_result{});
            std::string host = hostport.substr(0, colon);
            if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
            std::string port = hostport.substr(colon + 1);
            auto connecting = await_connect([ex, host, port, timeout](connect_handler h) {
                async_connect_tcp(ex, host, port, timeout, std::move(h));
            });
            r = co_await std::move(connecting);
        } else {
            throw connect_error("socket_server url \"" + redact_url(u) +
                                    "\" is neither tcp://host:port nor unix:///path. Hint: for HTTP use "
                                    "http_server, for legacy HTTP+SSE sse_server.",
                                call_result{});
        }
        auto& [fd, error] = r;
        if (fd < 0) throw connect_error(error, call_result{});
        start_io(fd, fd);
    }

    asio::awaitable<shutdown_result> close() override {
        shutdown_result r;
        r.ended = shutdown_result::how::disconnected;
        release();
        co_return r;
    }

    void abort_now() noexcept override { release(); }

    [[nodiscard]] std::string_view kind() const noexcept override {
        return server_.url.rfind("unix:", 0) == 0 ? "unix" : "tcp";
    }
    [[nodiscard]] std::string describe() const override { return "server at " + redact_url(server_.url); }
    [[nodiscard]] std::chrono::milliseconds startup_timeout() const override { return server_.limits.startup_timeout; }

private:
    void release() noexcept {
        mark_io_closed();
        close_descriptors();
    }

    void on_write_error(const asio::error_code& ec) override {
        report_down(outcome::disconnected,
                    "the connection to " + redact_url(server_.url) + " broke while sending (" + ec.message() + ").");
    }

    void on_read_end(const asio::error_code& ec) override {
        report_down(outcome::disconnected,
                    "the server at " + redact_url(server_.url) + " closed the connection" +
                        (ec == asio::error::eof ? std::string() : " (" + ec.message() + ")") +
                        "; no reply can arrive.");
    }

    socket_server server_;
};

}  // namespace mcp_loadtest::detail
