// Compile-time baseline: a doctest case that runs one Asio coroutine on a timer,
// no mcp-loadtest. bench/compile_time/compile_time.sh compiles it beside the
// two library files and prints their ratios against it.
#include <doctest/doctest.h>

#include <asio.hpp>

#include <chrono>

namespace {
asio::awaitable<int> tick() {
    asio::steady_timer timer(co_await asio::this_coro::executor, std::chrono::milliseconds(1));
    co_await timer.async_wait(asio::use_awaitable);
    co_return 1;
}
}  // namespace

TEST_CASE("one coroutine on a timer") {
    asio::io_context io;
    int got = 0;
    asio::co_spawn(io, tick(), [&](std::exception_ptr e, int v) {
        if (e) std::rethrow_exception(e);
        got = v;
    });
    io.run();
    CHECK(got == 1);
}
