// Definitions of sessions.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/sessions.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL asio::awaitable<std::vector<session>> open_sessions_job::run() {
    std::vector<asio::awaitable<session>> opens;
    for (std::size_t i = 0; i < count; ++i) opens.push_back(connect(server, client));
    co_return co_await when_all(std::move(opens));
}

MCP_LOADTEST_DECL asio::awaitable<void> close_sessions_job::run() {
    std::vector<asio::awaitable<shutdown_result>> closes;
    for (auto& s : *sessions) closes.push_back(s.close());
    co_await when_all(std::move(closes));
}

}  // namespace mcp_loadtest::detail

namespace mcp_loadtest {

MCP_LOADTEST_DECL asio::awaitable<std::vector<session>> open_sessions(any_server server, std::size_t count,
                                                                       client_options client) {
    return detail::start_owned(detail::open_sessions_job{std::move(server), count, std::move(client)});
}

MCP_LOADTEST_DECL asio::awaitable<std::vector<session>> open_sessions(any_server server, std::size_t count) {
    return open_sessions(std::move(server), count, client_options{});
}

MCP_LOADTEST_DECL asio::awaitable<void> close_sessions(std::vector<session>& sessions) {
    return detail::start_owned(detail::close_sessions_job{&sessions});
}

}  // namespace mcp_loadtest
