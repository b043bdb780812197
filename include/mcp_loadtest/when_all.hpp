// Awaiting many operations at once: the building block for putting many calls
// in flight on one session (or across sessions).
//
//     std::vector<asio::awaitable<mlt::call_result>> calls;
//     for (int i = 0; i < 64; ++i) calls.push_back(s.call_tool("echo", args));
//     std::vector<mlt::call_result> results = co_await mlt::when_all(std::move(calls));
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/owned_coroutine.hpp>

#include <chrono>
#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <vector>

namespace mcp_loadtest {

namespace detail {
/// Waits until `timer` expires or is cancelled (either way returns). Defined
/// once (impl/when_all.ipp) rather than written out in each template below,
/// where every instantiation would compile Asio's wait machinery again.
MCP_LOADTEST_DECL asio::awaitable<void> wait_until_woken(asio::steady_timer& timer);

template <class T>
struct when_all_job {
    std::vector<asio::awaitable<T>> operations;

    asio::awaitable<std::vector<T>> run() {
        struct state_t {
            explicit state_t(asio::any_io_executor ex, std::size_t n)
                : results(n), signals(n), wake(ex, std::chrono::steady_clock::time_point::max()) {}
            std::vector<std::optional<T>> results;
            std::vector<asio::cancellation_signal> signals;
            asio::steady_timer wake;
            std::size_t finished = 0;
            std::exception_ptr error;
        };
        auto ex = co_await asio::this_coro::executor;
        const std::size_t n = operations.size();
        auto state = std::make_shared<state_t>(ex, n);
        for (std::size_t i = 0; i < n; ++i) {
            asio::co_spawn(ex, std::move(operations[i]),
                           asio::bind_cancellation_slot(state->signals[i].slot(),
                                                        [state, i](std::exception_ptr e, std::optional<T> v) {
                                                            if (e && !state->error) state->error = e;
                                                            if (v) state->results[i] = std::move(v);
                                                            if (++state->finished == state->results.size())
                                                                state->wake.cancel();
                                                        }));
        }
        bool cancelled = false;
        while (state->finished < n) {
            co_await wait_until_woken(state->wake);
            if (state->finished < n && !cancelled) {
                // Our caller was cancelled: pass it on, then wait for everyone to finish.
                cancelled = true;
                for (auto& s : state->signals) s.emit(asio::cancellation_type::terminal);
            }
        }
        if (state->error) std::rethrow_exception(state->error);
        std::vector<T> out;
        out.reserve(n);
        for (auto& r : state->results) out.push_back(std::move(*r));
        co_return out;
    }
};

struct void_as_bool_job {
    asio::awaitable<void> op;
    MCP_LOADTEST_DECL asio::awaitable<bool> run();
};

struct discard_job {
    asio::awaitable<std::vector<bool>> all;
    MCP_LOADTEST_DECL asio::awaitable<void> run();
};
}  // namespace detail

/// Runs every awaitable concurrently on the current executor and returns
/// their results in the order given. If any throws, the first exception is
/// rethrown once all have finished. Cancelling the caller cancels them all.
template <class T>
asio::awaitable<std::vector<T>> when_all(std::vector<asio::awaitable<T>> operations) {
    return detail::start_owned(detail::when_all_job<T>{std::move(operations)});
}

/// The same for awaitables that return nothing.
MCP_LOADTEST_DECL asio::awaitable<void> when_all(std::vector<asio::awaitable<void>> operations);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/when_all.ipp>
#endif
