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

namespace mcp_loadtest::detail {

/// Awaits a connect_handler-style operation.
template <class Start>
asio::awaitable<connect_result> await_connect(Start start) {
    return asio::async_initiate<const asio::use_awaitable_t<>&, void(connect_result)>(
        [start](auto handler) mutable {
            auto h = std::make_shared<decltype(handler)>(std::move(handler));
            start([h](connect_result r) { (*h)(std::move(r)); });
        },
        asio::use_awaitable);
}

class socket_transport final : public line_transport {
public:
    socket_transport(asio::any_io_executor ex, socket_server server)
        : line_transport(ex, server.limits.max_message_size, server.limits.max_send_queue),
          server_(std::move(server)),
          socket_(ex_) {}

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

    void read_some(asio::mutable_buffer into, read_done done) override {
        socket_.async_read_some(into, std::move(done));
    }
    void write_all(asio::const_buffer bytes, write_done done) override {
        asio::async_write(socket_, bytes, std::move(done));
    }
    std::size_t try_write(asio::const_buffer bytes, asio::error_code& ec) override {
        return socket_.write_some(bytes, ec);
    }
    [[nodiscard]] bool writable() const noexcept override { return socket_.is_open(); }

    socket_server server_;
    connected_socket socket_;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/socket_transport.ipp>
#endif
