// Memory for a busy recording (client_options::record), touched before the recorder
// needs it. Writing to fresh memory costs a page fault per page the first time: on the
// two-core VMs this project is measured on, about 1.5 us per 4 KiB page, more than
// recording the messages in it (at a million calls/s a recording fills ~200 MB/s, so the
// faults alone took 8-12 % of run()'s throughput). A thread at the lowest priority
// touches the next blocks ahead, with CPU time the run and the server leave idle; the
// recorder takes a ready block without waiting, or a fresh one when none is ready.
//
// One supply per process, shared by the recorders that hold it: its thread starts with
// the first and ends with the last, so nothing stays behind once recording stops.
// Memory stays bounded: at most `ready_target` blocks wait.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace mcp_loadtest::detail {

class prefaulted_blocks {
public:
    static constexpr std::size_t block_size = std::size_t{1} << 20;
    /// Blocks kept ready: ~40 ms of a recording at a million calls/s.
    static constexpr std::size_t ready_target = 8;

    /// The process's supply; its thread runs while anyone holds it.
    [[nodiscard]] MCP_LOADTEST_DECL static std::shared_ptr<prefaulted_blocks> acquire();

    /// A block of `block_size` bytes, its pages touched if the thread had one ready,
    /// else fresh. Never waits for the thread.
    [[nodiscard]] MCP_LOADTEST_DECL std::unique_ptr<char[]> take();

    /// Blocks handed out touched, and fresh because none was ready.
    [[nodiscard]] MCP_LOADTEST_DECL std::size_t taken_ready() const;
    [[nodiscard]] MCP_LOADTEST_DECL std::size_t taken_fresh() const;

    MCP_LOADTEST_DECL prefaulted_blocks();
    MCP_LOADTEST_DECL ~prefaulted_blocks();
    prefaulted_blocks(const prefaulted_blocks&) = delete;
    prefaulted_blocks& operator=(const prefaulted_blocks&) = delete;

private:
    MCP_LOADTEST_DECL void fill_loop();

    mutable std::mutex mutex_;
    std::condition_variable wanted_;
    std::vector<std::unique_ptr<char[]>> ready_;
    std::size_t taken_ready_ = 0, taken_fresh_ = 0;
    bool stopping_ = false;
    std::atomic<bool> stop_touching_{false};  // stopping_, read without the lock mid-block
    std::thread filler_;  // not started when the system has no thread to give
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/session/impl/prefaulted_blocks.ipp>
#endif
