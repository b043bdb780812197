// Definitions of detail/transport/socket_transport.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/socket_transport.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL asio::awaitable<void> socket_transport::open(transport_events& events, session_stats& stats) {
    events_ = &events;
    stats_ = &stats;
    ignore_sigpipe_once();
    const std::string& u = server_.url;
    auto ex = ex_;
    const auto timeout = server_.limits.connect_timeout;
    connect_result r;
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
    if (!r.socket) throw connect_error(r.error, call_result{});
    socket_ = std::move(*r.socket);
    // try_write() must fail with would_block, not wait.
    asio::error_code ec;
    socket_.non_blocking(true, ec);
    start_io(/*write_in_place=*/!ec);
}

MCP_LOADTEST_DECL asio::awaitable<shutdown_result> socket_transport::close() {
    shutdown_result r;
    r.ended = shutdown_result::how::disconnected;
    release();
    co_return r;
}

MCP_LOADTEST_DECL std::string_view socket_transport::kind() const noexcept {
    return server_.url.rfind("unix:", 0) == 0 ? "unix" : "tcp";
}

MCP_LOADTEST_DECL void socket_transport::release() noexcept {
    mark_io_closed();
    asio::error_code ignored;
    socket_.close(ignored);
}

MCP_LOADTEST_DECL void socket_transport::on_write_error(const asio::error_code& ec) {
    report_down(outcome::disconnected,
                "the connection to " + redact_url(server_.url) + " broke while sending (" + ec.message() + ").");
}

MCP_LOADTEST_DECL void socket_transport::on_read_end(const asio::error_code& ec) {
    report_down(outcome::disconnected,
                "the server at " + redact_url(server_.url) + " closed the connection" +
                    (ec == asio::error::eof ? std::string() : " (" + ec.message() + ")") +
                    "; no reply can arrive.");
}

}  // namespace mcp_loadtest::detail
