// Newline-delimited JSON-RPC over a TCP or Unix domain socket: the stdio
// framing over another byte stream (one connection = one session).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/detail/transport/line_transport.hpp>
#include <mcp_loadtest/detail/transport/net_connect.hpp>
#include <mcp_loadtest/detail/transport/stdio_transport.hpp>

#include <memory>
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

    MCP_LOADTEST_DECL asio::awaitable<void> open(transport_events& events, session_stats& stats) override;

    MCP_LOADTEST_DECL asio::awaitable<shutdown_result> close() override;

    void abort_now() noexcept override { release(); }

    [[nodiscard]] MCP_LOADTEST_DECL std::string_view kind() const noexcept override;
    [[nodiscard]] std::string describe() const override { return "server at " + redact_url(server_.url); }
    [[nodiscard]] std::chrono::milliseconds startup_timeout() const override { return server_.limits.startup_timeout; }

private:
    MCP_LOADTEST_DECL void release() noexcept;

    MCP_LOADTEST_DECL void on_write_error(const asio::error_code& ec) override;

    MCP_LOADTEST_DECL void on_read_end(const asio::error_code& ec) override;

    socket_server server_;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/socket_transport.ipp>
#endif
