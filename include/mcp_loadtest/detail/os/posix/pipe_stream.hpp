// The Unix side of detail/os/pipe_stream.hpp: pipes are file descriptors; a
// child's exit is watched through its pidfd (the Linux backend) or by polling
// waitid() (the generic POSIX backend, exit_poller.hpp).
#pragma once

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/os/native_handle.hpp>
#include <mcp_loadtest/detail/os/posix/exit_poller.hpp>

#if MCP_LOADTEST_OS_UNIX

#include <asio/posix/stream_descriptor.hpp>

namespace mcp_loadtest::detail {

/// One end of a pipe.
using pipe_stream = asio::posix::stream_descriptor;

/// Makes write_now() possible on `s`; false where it is not.
inline bool enable_write_now(pipe_stream& s) {
    asio::error_code ec;
    s.non_blocking(true, ec);
    return !ec;
}

/// Writes what fits now, without waiting: `would_block` when nothing does.
inline std::size_t write_now(pipe_stream& s, asio::const_buffer b, asio::error_code& ec) { return s.write_some(b, ec); }

#if MCP_LOADTEST_OS_PIDFD
/// Becomes ready when a child exits: its pidfd turns readable. Without a pidfd
/// (a Linux kernel older than 5.3), by polling, as the generic POSIX backend does.
class exit_watcher {
public:
    explicit exit_watcher(const asio::any_io_executor& ex) : fd_(ex), poller_(ex) {}
    /// Watches child `pid` through `exit_handle` (spawned_child::exit_handle), its pidfd when there is one.
    void watch(pid_t pid, unique_native exit_handle) {
        if (exit_handle) fd_.assign(exit_handle.release());
        else poller_.watch(pid);
    }
    [[nodiscard]] bool is_open() const { return fd_.is_open() || poller_.is_open(); }
    template <class Handler>
    void async_wait(Handler&& handler) {
        if (fd_.is_open()) fd_.async_wait(asio::posix::stream_descriptor::wait_read, std::forward<Handler>(handler));
        else poller_.async_wait(std::forward<Handler>(handler));
    }
    void close() noexcept {
        asio::error_code ignored;
        fd_.close(ignored);
        poller_.close();
    }

private:
    asio::posix::stream_descriptor fd_;
    exit_poller poller_;
};
#else
/// Becomes ready when a child exits: polled, POSIX has no descriptor for it (exit_poller.hpp).
class exit_watcher {
public:
    explicit exit_watcher(const asio::any_io_executor& ex) : poller_(ex) {}
    /// Watches child `pid` (spawned_child::exit_handle is always absent here).
    void watch(pid_t pid, unique_native) { poller_.watch(pid); }
    [[nodiscard]] bool is_open() const { return poller_.is_open(); }
    template <class Handler>
    void async_wait(Handler&& handler) {
        poller_.async_wait(std::forward<Handler>(handler));
    }
    void close() noexcept { poller_.close(); }

private:
    exit_poller poller_;
};
#endif

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_UNIX
