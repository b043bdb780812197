// Several sessions at once: k server processes (or k connections to one
// network server), for bugs that need more than one client.
//
//     auto all = co_await mlt::open_sessions(server, 4);
//     auto replies = co_await mlt::concurrently(all, 40, [](mlt::session& s, std::size_t i) {
//         return s.call_tool("echo", mlt::args("message", std::to_string(i)));
//     });
//     co_await mlt::close_sessions(all);
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/combinators.hpp>
#include <mcp_loadtest/session.hpp>

#include <cstddef>
#include <vector>

namespace mcp_loadtest {

namespace detail {
struct open_sessions_job {
    any_server server;
    std::size_t count;
    client_options client;
    MCP_LOADTEST_DECL asio::awaitable<std::vector<session>> run();
};

struct close_sessions_job {
    std::vector<session>* sessions;
    MCP_LOADTEST_DECL asio::awaitable<void> run();
};

template <class F, class T>
struct across_job {
    std::vector<session>* sessions;
    std::size_t n;
    F f;
    asio::awaitable<std::vector<T>> run() {
        if (sessions->empty()) throw std::invalid_argument("mcp_loadtest::concurrently: no sessions given");
        std::vector<asio::awaitable<T>> ops;
        ops.reserve(n);
        for (std::size_t i = 0; i < n; ++i) ops.push_back(f((*sessions)[i % sessions->size()], i));
        co_return co_await when_all(std::move(ops));
    }
};
}  // namespace detail

/// Opens `count` sessions at once (each stdio session is its own process).
/// Throws connect_error if one cannot open; the others are then killed.
MCP_LOADTEST_DECL asio::awaitable<std::vector<session>> open_sessions(any_server server, std::size_t count,
                                                                      client_options client);
MCP_LOADTEST_DECL asio::awaitable<std::vector<session>> open_sessions(any_server server, std::size_t count);

/// Closes every session at once (each bounded by its server's shutdown times).
MCP_LOADTEST_DECL asio::awaitable<void> close_sessions(std::vector<session>& sessions);

/// f(sessions[i % k], i) for i in [0, n), all at once across the k sessions.
template <class F>
asio::awaitable<std::vector<awaited_t<F, session&, std::size_t>>> concurrently(std::vector<session>& sessions,
                                                                               std::size_t n, F f) {
    return detail::start_owned(detail::across_job<F, awaited_t<F, session&, std::size_t>>{&sessions, n, std::move(f)});
}

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/sessions.ipp>
#endif
