// Definitions of combinators.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/combinators.hpp>

#include <system_error>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL asio::awaitable<void> expire_after(std::chrono::nanoseconds d) {
    asio::steady_timer timer(co_await asio::this_coro::executor, d);
    asio::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) throw std::system_error(ec);
}

MCP_LOADTEST_DECL release_gate::release_gate(asio::any_io_executor ex, std::size_t n)
    : wake(ex, std::chrono::steady_clock::time_point::max()), expected(n) {}

}  // namespace mcp_loadtest::detail
