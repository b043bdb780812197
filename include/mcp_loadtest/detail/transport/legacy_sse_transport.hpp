// The legacy HTTP+SSE transport (2024-11-05) over the shared HTTP connection
// pool: one long-lived GET stream carries every server message, and its first
// `endpoint` event names the URL the client POSTs to.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/transport/http_pool.hpp>

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
    MCP_LOADTEST_DECL asio::awaitable<void> after_open() override;

    MCP_LOADTEST_DECL bool on_control_event(exchange& ex, const sse::event& e) override;

    MCP_LOADTEST_DECL void on_endpoint_event(const url& stream_url, std::string_view data);

    // Every reply travels on the stream: when it ends, nothing more can arrive.
    MCP_LOADTEST_DECL void own_exchange_done(exchange& ex) override;

    MCP_LOADTEST_DECL void own_exchange_failed(exchange& ex, outcome o, const std::string& message) override;

    // Kept for open()'s message when the stream fails before naming the endpoint.
    MCP_LOADTEST_DECL void report_down(outcome o, const std::string& message);

    std::shared_ptr<exchange> stream_;
    bool endpoint_known_ = false;
    std::string down_message_;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/legacy_sse_transport.ipp>
#endif
