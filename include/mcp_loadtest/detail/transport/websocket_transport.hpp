// JSON-RPC over WebSocket (RFC 6455): one message per text frame, on one
// connection (one session). Pings are answered, fragments reassembled, the
// close handshake honoured; a protocol error, an oversized frame (refused from
// its header) or the connection dropping fails every call in flight.
// Outgoing bytes are bounded (send_queue.hpp): pings are answered by one pong
// for the most recent ping not yet answered (RFC 6455 §5.5.3 allows it), so a
// ping flood from a server that never reads costs nothing.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/detail/transport/byte_stream.hpp>
#include <mcp_loadtest/detail/transport/send_queue.hpp>
#include <mcp_loadtest/detail/transport/transport.hpp>
#include <mcp_loadtest/detail/wire/url.hpp>
#include <mcp_loadtest/detail/wire/websocket.hpp>

#include <array>
#include <memory>
#include <string>
#include <vector>

namespace mcp_loadtest::detail {

class websocket_transport final : public transport {
public:
    websocket_transport(asio::any_io_executor ex, websocket_server server)
        : ex_(std::move(ex)), server_(std::move(server)), socket_(ex_), timer_(ex_),
          decoder_(ws::decoder_limits{server_.limits.max_message_size, true}),
          queue_(server_.limits.max_send_queue) {}

    ~websocket_transport() override { abort_now(); }

    MCP_LOADTEST_DECL asio::awaitable<void> open(transport_events& events, session_stats& stats) override;

    MCP_LOADTEST_DECL void send(std::string_view line, const outgoing&) override;

    [[nodiscard]] std::string send_stall_hint() const override { return queue_.stall_hint("server"); }

    MCP_LOADTEST_DECL asio::awaitable<shutdown_result> close() override;

    MCP_LOADTEST_DECL void abort_now() noexcept override;

    [[nodiscard]] std::string_view kind() const noexcept override { return "websocket"; }
    [[nodiscard]] std::string describe() const override { return "server at " + redact_url(server_.url); }
    [[nodiscard]] std::chrono::milliseconds startup_timeout() const override { return server_.limits.startup_timeout; }

private:
    MCP_LOADTEST_DECL std::shared_ptr<websocket_transport> self();

    MCP_LOADTEST_DECL void flush();

    MCP_LOADTEST_DECL void start_read();

    MCP_LOADTEST_DECL void on_bytes(std::string_view bytes);

    MCP_LOADTEST_DECL void fail(outcome o, const std::string& message);

    MCP_LOADTEST_DECL void release() noexcept;

    asio::any_io_executor ex_;
    websocket_server server_;
    url url_;
    byte_stream socket_;
    asio::steady_timer timer_;
    ws::frame_decoder decoder_;
    std::array<char, 16 * 1024> buffer_{};
    send_queue queue_;
    std::string latest_ping_, peer_closed_;
    bool open_ = false, closing_ = false, handshake_done_ = false, close_received_ = false;
    bool pong_due_ = false, corked_ = false;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/websocket_transport.ipp>
#endif
