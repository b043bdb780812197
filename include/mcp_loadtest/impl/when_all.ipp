// Definitions of when_all.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/when_all.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL asio::awaitable<void> wait_until_woken(asio::steady_timer& timer) {
    asio::error_code ec;
    co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

MCP_LOADTEST_DECL asio::awaitable<bool> void_as_bool_job::run() {
    co_await std::move(op);
    co_return true;
}

MCP_LOADTEST_DECL asio::awaitable<void> discard_job::run() { co_await std::move(all); }

}  // namespace mcp_loadtest::detail

namespace mcp_loadtest {

MCP_LOADTEST_DECL asio::awaitable<void> when_all(std::vector<asio::awaitable<void>> operations) {
    std::vector<asio::awaitable<bool>> wrapped;
    wrapped.reserve(operations.size());
    for (auto& op : operations) wrapped.push_back(detail::start_owned(detail::void_as_bool_job{std::move(op)}));
    return detail::start_owned(detail::discard_job{when_all(std::move(wrapped))});
}

}  // namespace mcp_loadtest
