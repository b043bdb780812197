// Definitions of oauth_stats.hpp (header-only: included by it; separate compilation:
// compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/oauth_stats.hpp>

#include <atomic>

namespace mcp_loadtest::detail {

namespace oauth_stats_detail {
inline std::atomic<oauth_stats_reader>& reader() noexcept {
    static std::atomic<oauth_stats_reader> r{nullptr};
    return r;
}
}  // namespace oauth_stats_detail

MCP_LOADTEST_DECL void set_oauth_stats_reader(oauth_stats_reader reader) noexcept {
    oauth_stats_detail::reader().store(reader, std::memory_order_release);
}

MCP_LOADTEST_DECL oauth_stats_reader get_oauth_stats_reader() noexcept {
    return oauth_stats_detail::reader().load(std::memory_order_acquire);
}

}  // namespace mcp_loadtest::detail
