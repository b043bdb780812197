// Definitions of detail/transport/transport.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/transport.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL asio::awaitable<void> transport::after_handshake() { co_return; }

MCP_LOADTEST_DECL void transport::detach() noexcept {
    events_ = nullptr;
    stats_ = nullptr;  // lives in the core too
}

MCP_LOADTEST_DECL void transport::report_down(outcome o, const std::string& message) {
    if (down_) return;
    down_ = true;
    if (events_) events_->on_transport_down(o, message);
}

}  // namespace mcp_loadtest::detail
