// Scenario combinators: small awaitable-returning functions that compose
// calls into load shapes and bug checks. Each is bounded by what it awaits
// (every call has its timeout) and passes cancellation on to everything it
// started.
//
//     auto replies = co_await mlt::concurrently(40, [&](std::size_t i) {
//         return s.call_tool("echo", mlt::args("message", "m" + std::to_string(i)));
//     });
//     auto burst = co_await mlt::release_together(std::move(armed_calls));   // burst.write_spread
//     auto timed = co_await mlt::with_timeout(2s, s.call_tool("slow"));       // timed.timed_out
//
// docs/scenarios.md has one example of each and shows how to build a detector.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/owned_coroutine.hpp>
#include <mcp_loadtest/when_all.hpp>

#include <chrono>
#include <cstddef>
#include <exception>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

namespace mcp_loadtest {

/// The value type of the awaitable `f(args...)` returns.
template <class F, class... Args>
using awaited_t = typename std::invoke_result_t<F&, Args...>::value_type;

// ---- concurrently ---------------------------------------------------------------

namespace detail {
template <class F, class T>
struct concurrently_job {
    F f;  // kept here until every operation ends: a coroutine lambda's frame refers to it
    std::size_t n;
    asio::awaitable<std::vector<T>> run() {
        std::vector<asio::awaitable<T>> ops;
        ops.reserve(n);
        for (std::size_t i = 0; i < n; ++i) ops.push_back(f(i));
        co_return co_await when_all(std::move(ops));
    }
};
}  // namespace detail

/// Starts f(0) .. f(n-1) at once (on one session: many ids on one pipe) and
/// returns every result in index order. f returns an awaitable.
template <class F>
asio::awaitable<std::vector<awaited_t<F, std::size_t>>> concurrently(std::size_t n, F f) {
    return detail::start_owned(detail::concurrently_job<F, awaited_t<F, std::size_t>>{std::move(f), n});
}

// ---- release barrier ------------------------------------------------------------

/// The results of calls released together, and how together they were.
template <class T>
struct released {
    std::vector<T> results;
    /// From the first call's start (its request written) to the last one's.
    std::chrono::nanoseconds write_spread{0};
};

namespace detail {
/// Waits `d`; throws std::system_error if cancelled first. Not a template, like
/// wait_until_woken() (when_all.hpp): an async_wait written in a template body
/// with non-dependent operands is instantiated wherever the header is included.
MCP_LOADTEST_DECL asio::awaitable<void> expire_after(std::chrono::nanoseconds d);

struct release_gate {
    MCP_LOADTEST_DECL explicit release_gate(asio::any_io_executor ex, std::size_t n);
    asio::steady_timer wake;
    std::size_t expected;
    std::size_t arrived = 0;
    std::chrono::steady_clock::time_point first_start{}, last_start{};
};

template <class T>
struct gated_job {
    std::shared_ptr<release_gate> gate;
    asio::awaitable<T> op;
    asio::awaitable<T> run() {
        // Wait until every call is armed (spawned and waiting here); the last
        // to arrive opens the gate, and all resume in the same turn.
        if (++gate->arrived < gate->expected) {
            co_await wait_until_woken(gate->wake);
        } else {
            gate->wake.cancel();
        }
        const auto now = std::chrono::steady_clock::now();
        if (gate->first_start == std::chrono::steady_clock::time_point{}) gate->first_start = now;
        gate->last_start = now;
        co_return co_await std::move(op);  // the request is written as this starts
    }
};

template <class T>
struct release_job {
    std::vector<asio::awaitable<T>> ops;
    asio::awaitable<released<T>> run() {
        auto gate = std::make_shared<release_gate>(co_await asio::this_coro::executor, ops.size());
        std::vector<asio::awaitable<T>> gated;
        gated.reserve(ops.size());
        for (auto& op : ops) gated.push_back(start_owned(gated_job<T>{gate, std::move(op)}));
        released<T> out;
        out.results = co_await when_all(std::move(gated));
        out.write_spread = gate->last_start - gate->first_start;
        co_return out;
    }
};
}  // namespace detail

/// The release barrier: `armed` calls (created, not yet awaited: nothing is
/// sent) are all started, then released in one turn of the event loop, so
/// their requests are written back to back and their clocks start together.
template <class T>
asio::awaitable<released<T>> release_together(std::vector<asio::awaitable<T>> armed) {
    return detail::start_owned(detail::release_job<T>{std::move(armed)});
}

// ---- repeat ---------------------------------------------------------------------

namespace detail {
template <class F, class T>
struct repeat_job {
    F f;
    std::size_t n;
    std::chrono::nanoseconds for_duration;  // > 0: repeat_for
    asio::awaitable<std::vector<T>> run() {
        std::vector<T> out;
        const auto end = std::chrono::steady_clock::now() + for_duration;
        for (std::size_t i = 0; for_duration.count() > 0 ? std::chrono::steady_clock::now() < end : i < n; ++i)
            out.push_back(co_await f(i));
        co_return out;
    }
};
}  // namespace detail

/// f(0), then f(1), ... f(n-1), one after another; every result in order.
template <class F>
asio::awaitable<std::vector<awaited_t<F, std::size_t>>> repeat(std::size_t n, F f) {
    return detail::start_owned(detail::repeat_job<F, awaited_t<F, std::size_t>>{std::move(f), n, {}});
}

/// f(0), f(1), ... one after another until `d` has passed (the last one started
/// before then runs to its end); every result in order.
template <class F>
asio::awaitable<std::vector<awaited_t<F, std::size_t>>> repeat_for(std::chrono::nanoseconds d, F f) {
    return detail::start_owned(
        detail::repeat_job<F, awaited_t<F, std::size_t>>{std::move(f), 0, std::max(d, std::chrono::nanoseconds(1))});
}

// ---- with_timeout and first_of ------------------------------------------------

/// A value, or that the time ran out first (and the operation was cancelled).
template <class T>
struct timed {
    std::optional<T> value;
    bool timed_out = false;
    [[nodiscard]] explicit operator bool() const noexcept { return value.has_value(); }
};

/// Which of several operations finished first, and its value.
template <class T>
struct first_result {
    std::size_t index = 0;
    T value;
};

namespace detail {
template <class T>
struct race_state {
    explicit race_state(asio::any_io_executor ex, std::size_t n)
        : signals(n), wake(ex, std::chrono::steady_clock::time_point::max()) {}
    std::vector<asio::cancellation_signal> signals;
    asio::steady_timer wake;
    std::size_t finished = 0;
    std::optional<first_result<T>> winner;
    std::exception_ptr error;
};

/// Runs every operation; the first to finish wins and the others are cancelled
/// (terminal), then awaited, so nothing outlives the call.
template <class T>
struct first_of_job {
    std::vector<asio::awaitable<T>> ops;
    asio::awaitable<first_result<T>> run() {
        const std::size_t n = ops.size();
        if (n == 0) throw std::invalid_argument("mcp_loadtest::first_of: no operations given");
        auto state = std::make_shared<race_state<T>>(co_await asio::this_coro::executor, n);
        auto ex = co_await asio::this_coro::executor;
        for (std::size_t i = 0; i < n; ++i)
            asio::co_spawn(ex, std::move(ops[i]),
                           asio::bind_cancellation_slot(state->signals[i].slot(),
                                                        [state, i, n](std::exception_ptr e, std::optional<T> v) {
                                                            const bool first = !state->winner && !state->error;
                                                            if (first) {
                                                                if (e) state->error = e;
                                                                else state->winner = first_result<T>{i, std::move(*v)};
                                                                for (std::size_t j = 0; j < n; ++j)
                                                                    if (j != i) state->signals[j].emit(asio::cancellation_type::terminal);
                                                            }
                                                            if (++state->finished == n) state->wake.cancel();
                                                        }));
        bool cancelled = false;
        while (state->finished < n) {
            co_await wait_until_woken(state->wake);
            if (state->finished < n && !cancelled && !state->winner && !state->error) {
                cancelled = true;  // our caller was cancelled: pass it on
                for (auto& s : state->signals) s.emit(asio::cancellation_type::terminal);
            }
        }
        if (state->error) std::rethrow_exception(state->error);
        if (!state->winner) throw std::runtime_error("mcp_loadtest::first_of: cancelled before any finished");
        co_return std::move(*state->winner);
    }
};

template <class T>
struct timeout_job {
    std::chrono::nanoseconds limit;
    asio::awaitable<T> op;
    asio::awaitable<timed<T>> run() {
        std::vector<asio::awaitable<std::optional<T>>> both;
        both.push_back(wrap(std::move(op)));
        both.push_back(expire(limit));
        first_of_job<std::optional<T>> race{std::move(both)};  // named first: GCC 12 (owned_coroutine.hpp)
        auto first = co_await start_owned(std::move(race));
        timed<T> out;
        out.timed_out = first.index == 1;
        if (!out.timed_out) out.value = std::move(first.value);
        co_return out;
    }
    static asio::awaitable<std::optional<T>> wrap(asio::awaitable<T> op) {
        return start_owned(wrap_job{std::move(op)});
    }
    struct wrap_job {
        asio::awaitable<T> op;
        asio::awaitable<std::optional<T>> run() { co_return std::optional<T>(co_await std::move(op)); }
    };
    static asio::awaitable<std::optional<T>> expire(std::chrono::nanoseconds d) {
        co_await expire_after(d);  // throws when cancelled: the operation won
        co_return std::nullopt;
    }
};
}  // namespace detail

/// The first of `ops` to finish, with its index; the rest are cancelled and awaited.
template <class T>
asio::awaitable<first_result<T>> first_of(std::vector<asio::awaitable<T>> ops) {
    return detail::start_owned(detail::first_of_job<T>{std::move(ops)});
}
template <class T, class... More>
asio::awaitable<first_result<T>> first_of(asio::awaitable<T> a, asio::awaitable<T> b, More... more) {
    std::vector<asio::awaitable<T>> ops;
    ops.push_back(std::move(a));
    ops.push_back(std::move(b));
    (ops.push_back(std::move(more)), ...);
    return first_of(std::move(ops));
}

/// `op`, or timed_out after `d` (the operation is cancelled: a call ends as
/// `cancelled` and the server is told). Returns an outcome, never throws for time.
template <class T>
asio::awaitable<timed<T>> with_timeout(std::chrono::nanoseconds d, asio::awaitable<T> op) {
    return detail::start_owned(detail::timeout_job<T>{d, std::move(op)});
}

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/combinators.ipp>
#endif
