// What one awaited call costs in Asio's coroutines before any I/O or MCP work: the floor
// under every `co_await session.call_tool(...)`.
//
// W coroutines each loop `co_await` an operation (asio::async_initiate with use_awaitable,
// completion signature void(call_result), as the session's calls) whose handler is parked;
// one posted batch completes every parked handler with a call_result, as one read of many
// replies does. The baseline parks and completes the same way with plain callbacks. The
// difference between the two is what `co_await` itself costs per call (the operation's
// coroutine frame, suspending and resuming the caller, the result moved into and out of the
// frame). bench_throughput --count N --floor await|callback runs one of them for N calls;
// instructions_per_request.sh counts both.
#pragma once

#include <mcp_loadtest/call_result.hpp>

#include <asio.hpp>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace bench {

class awaitable_floor {
public:
    awaitable_floor(asio::io_context& io, std::uint64_t calls) : io_(io), remaining_(calls) {}

    /// `in_flight` coroutines (await) or callback chains (!await) until `calls` completed;
    /// returns how many completed with an ok result.
    std::uint64_t run(std::size_t in_flight, bool await) {
        std::vector<std::unique_ptr<chain>> chains;
        for (std::size_t i = 0; i < in_flight; ++i) {
            if (await) {
                asio::co_spawn(io_, worker(), asio::detached);
            } else {
                chains.push_back(std::make_unique<chain>(this));
                chains.back()->next();
            }
        }
        io_.run();
        return ok_;
    }

private:
    struct parked_base {
        virtual ~parked_base() = default;
        virtual void complete(mcp_loadtest::call_result&& r) = 0;
    };
    template <class Handler>
    struct parked final : parked_base {
        explicit parked(Handler&& h) : handler(std::move(h)) {}
        void complete(mcp_loadtest::call_result&& r) override { std::move(handler)(std::move(r)); }
        Handler handler;
    };

    template <class Handler>
    void park(Handler&& h) {
        waiting_.push_back(std::make_unique<parked<std::decay_t<Handler>>>(std::forward<Handler>(h)));
        if (!draining_) {
            draining_ = true;
            asio::post(io_, [this] { complete_batch(); });
        }
    }

    void complete_batch() {
        draining_ = false;
        auto batch = std::move(waiting_);
        waiting_.clear();
        for (auto& p : batch) {
            mcp_loadtest::call_result r;  // what a reply's completion carries (names fit in SSO)
            r.outcome = mcp_loadtest::outcome::ok;
            r.method = "tools/call";
            r.tool = "echo";
            p->complete(std::move(r));
        }
    }

    asio::awaitable<mcp_loadtest::call_result> call() {
        return asio::async_initiate<const asio::use_awaitable_t<>&, void(mcp_loadtest::call_result)>(
            [this](auto&& handler) { park(std::move(handler)); }, asio::use_awaitable);
    }

    asio::awaitable<void> worker() {
        while (remaining_ > 0) {
            --remaining_;
            const mcp_loadtest::call_result r = co_await call();
            if (r.ok()) ++ok_;
        }
    }

    struct chain {
        awaitable_floor* floor;
        explicit chain(awaitable_floor* f) : floor(f) {}
        void next() {
            if (floor->remaining_ == 0) return;
            --floor->remaining_;
            floor->park([this](mcp_loadtest::call_result&& r) {
                if (r.ok()) ++floor->ok_;
                next();
            });
        }
    };

    asio::io_context& io_;
    std::uint64_t remaining_;
    std::uint64_t ok_ = 0;
    bool draining_ = false;
    std::vector<std::unique_ptr<parked_base>> waiting_;
};

}  // namespace bench
