// Definitions of detail/session/cancel_moment.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/session/cancel_moment.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::chrono::nanoseconds cancel_delay(cancel_moment m, std::chrono::nanoseconds median,
                                                           std::size_t k, std::size_t n) noexcept {
    switch (m) {
        case cancel_moment::after_send: return std::chrono::nanoseconds(0);
        case cancel_moment::mid_call: return median / 2;
        case cancel_moment::reply_due: {
            const double share = n > 1 ? 0.90 + 0.10 * static_cast<double>(k % n) / static_cast<double>(n - 1) : 0.95;
            return std::chrono::nanoseconds(static_cast<std::int64_t>(share * static_cast<double>(median.count())));
        }
    }
    return std::chrono::nanoseconds(0);
}

MCP_LOADTEST_DECL bool reply_crossed_cancel(std::chrono::nanoseconds cancel_after,
                                               std::chrono::nanoseconds reply_after,
                                               std::chrono::nanoseconds expected,
                                               std::chrono::nanoseconds allowance) noexcept {
    return reply_after - cancel_after <= allowance && reply_after + allowance >= expected * 4 / 5;
}

MCP_LOADTEST_DECL std::string last_line_of(std::string_view text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) text.remove_suffix(1);
    const auto nl = text.rfind('\n');
    return std::string(nl == std::string_view::npos ? text : text.substr(nl + 1));
}

}  // namespace mcp_loadtest::detail
