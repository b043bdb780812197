// Definitions of detail/transport/send_queue.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/send_queue.hpp>

#include <mcp_loadtest/detail/text/format.hpp>

#include <chrono>
#include <string>
#include <string_view>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL const std::string& send_queue::begin_write() {
    writing_.swap(outbox_);
    outbox_.clear();
    writing_now_ = true;
    write_started_ = clock::now();
    return writing_;
}

MCP_LOADTEST_DECL void send_queue::end_write() noexcept {
    writing_.clear();
    writing_now_ = false;
}

MCP_LOADTEST_DECL void send_queue::discard() noexcept {
    outbox_.clear();
    if (!writing_now_) writing_.clear();
}

MCP_LOADTEST_DECL std::string send_queue::stall_hint(std::string_view who, std::chrono::milliseconds after) const {
    if (!writing_now_) return {};
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - write_started_);
    if (waited < after) return {};
    return " The " + std::string(who) + " has stopped reading: a write to it has made no progress for " +
           std::to_string(waited.count()) + " ms, with " + format_bytes(waiting()) +
           " waiting to be sent. It is stuck, or busy writing without reading its input.";
}

MCP_LOADTEST_DECL std::string send_queue::overflow_message(std::string_view who, std::string_view limit_name) const {
    return "the " + std::string(who) + " stopped reading: " + std::to_string(waiting()) +
           " bytes are waiting to be sent to it, more than " + std::string(limit_name) + " (" +
           format_bytes(limit_) + ") allows. It is stuck, or writes (pings, requests, floods of output) without reading its input; "
           "no call can complete. Hint: raise " + std::string(limit_name) +
           " only if the server legitimately reads this slowly.";
}

}  // namespace mcp_loadtest::detail
