// Definitions of detail/session/prefaulted_blocks.hpp.
#pragma once

#include <mcp_loadtest/detail/session/prefaulted_blocks.hpp>
#include <mcp_loadtest/detail/os/this_thread.hpp>

#include <system_error>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::shared_ptr<prefaulted_blocks> prefaulted_blocks::acquire() {
    static std::mutex guard;
    static std::weak_ptr<prefaulted_blocks> current;
    std::lock_guard lock(guard);
    std::shared_ptr<prefaulted_blocks> supply = current.lock();
    if (!supply) {
        supply = std::make_shared<prefaulted_blocks>();
        current = supply;
    }
    return supply;
}

MCP_LOADTEST_DECL prefaulted_blocks::prefaulted_blocks() {
    ready_.reserve(ready_target);
    try {
        filler_ = std::thread([this] { fill_loop(); });
    } catch (const std::system_error&) {
        // No thread: every block is fresh, as without this supply.
    }
}

MCP_LOADTEST_DECL prefaulted_blocks::~prefaulted_blocks() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    stop_touching_.store(true, std::memory_order_relaxed);
    wanted_.notify_one();
    if (filler_.joinable()) filler_.join();
}

MCP_LOADTEST_DECL std::unique_ptr<char[]> prefaulted_blocks::take() {
    std::unique_ptr<char[]> block;
    {
        std::lock_guard lock(mutex_);
        if (!ready_.empty()) {
            block = std::move(ready_.back());
            ready_.pop_back();
            ++taken_ready_;
        } else {
            ++taken_fresh_;
        }
    }
    if (block) {
        wanted_.notify_one();
        return block;
    }
    return std::unique_ptr<char[]>(new char[block_size]);
}

MCP_LOADTEST_DECL std::size_t prefaulted_blocks::taken_ready() const {
    std::lock_guard lock(mutex_);
    return taken_ready_;
}

MCP_LOADTEST_DECL std::size_t prefaulted_blocks::taken_fresh() const {
    std::lock_guard lock(mutex_);
    return taken_fresh_;
}

MCP_LOADTEST_DECL void prefaulted_blocks::fill_loop() {
    lower_this_thread_priority();
    // Smaller than any page size in use, so every page is written.
    constexpr std::size_t stride = 4096;
    std::unique_lock lock(mutex_);
    while (true) {
        wanted_.wait(lock, [this] { return stopping_ || ready_.size() < ready_target; });
        if (stopping_) return;
        lock.unlock();
        std::unique_ptr<char[]> block(new (std::nothrow) char[block_size]);
        if (block) {
            // The block is handed to another thread, so these writes cannot be left out.
            // A starved thread must not hold up the last recorder's end for a whole block.
            for (std::size_t at = 0; at < block_size; at += stride) {
                if (at % (64 * stride) == 0 && stop_touching_.load(std::memory_order_relaxed)) return;
                block[at] = 0;
            }
        }
        lock.lock();
        if (!block) {  // no memory to spare now: the recorders allocate their own
            wanted_.wait(lock, [this] { return stopping_; });
            return;
        }
        ready_.push_back(std::move(block));
    }
}

}  // namespace mcp_loadtest::detail
