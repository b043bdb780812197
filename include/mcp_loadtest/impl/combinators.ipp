// Definitions of combinators.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/combinators.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL release_gate::release_gate(asio::any_io_executor ex, std::size_t n)
    : wake(ex, std::chrono::steady_clock::time_point::max()), expected(n) {}

}  // namespace mcp_loadtest::detail
