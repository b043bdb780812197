// The bytes a transport has yet to write, bounded. A server that stops
// reading while it keeps us busy (pings to answer, requests to reply to, calls
// a load test keeps sending) must not grow the client: past the limit the
// transport ends with a message saying the server stopped reading. One write
// is in flight at a time; its start is kept so a timeout can tell a server
// that stopped reading from one that is merely slow.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace mcp_loadtest::detail {

class send_queue {
public:
    using clock = std::chrono::steady_clock;

    explicit send_queue(std::size_t limit) noexcept : limit_(limit) {}

    /// Where the next bytes are appended (transports frame straight into it).
    [[nodiscard]] std::string& outbox() noexcept { return outbox_; }
    [[nodiscard]] bool has_queued() const noexcept { return !outbox_.empty(); }
    [[nodiscard]] bool writing() const noexcept { return writing_now_; }
    /// Queued plus being written.
    [[nodiscard]] std::size_t waiting() const noexcept { return outbox_.size() + writing_.size(); }
    /// More is waiting than the limit allows: the peer is not reading.
    [[nodiscard]] bool over_limit() const noexcept { return waiting() > limit_; }

    /// Moves the queued bytes to the write buffer; write them, then call end_write().
    [[nodiscard]] MCP_LOADTEST_DECL const std::string& begin_write();
    MCP_LOADTEST_DECL void end_write() noexcept;
    /// Drops everything (the connection is gone).
    MCP_LOADTEST_DECL void discard() noexcept;

    /// " The server has stopped reading: ..." when a write has waited at least
    /// `after`, else empty. Appended to hang messages.
    [[nodiscard]] MCP_LOADTEST_DECL std::string stall_hint(std::string_view who, std::chrono::milliseconds after =
                                                                                      std::chrono::milliseconds(500)) const;

    /// The ending when over_limit(): says who stopped reading and what to do.
    [[nodiscard]] MCP_LOADTEST_DECL std::string overflow_message(std::string_view who, std::string_view limit_name) const;

private:
    std::string outbox_, writing_;
    std::size_t limit_;
    bool writing_now_ = false;
    clock::time_point write_started_{};
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/send_queue.ipp>
#endif
