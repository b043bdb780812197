// The Windows side of detail/os/pipe_stream.hpp.
#pragma once

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/os/native_handle.hpp>

#if MCP_LOADTEST_OS_WINDOWS

#include <asio/windows/object_handle.hpp>
#include <asio/windows/stream_handle.hpp>

namespace mcp_loadtest::detail {

/// One end of an overlapped named pipe (windows/spawn.hpp makes them).
using pipe_stream = asio::windows::stream_handle;

/// A write on a Windows pipe handle blocks until it is read: never written in place.
inline bool enable_write_now(pipe_stream&) { return false; }

inline std::size_t write_now(pipe_stream&, asio::const_buffer, asio::error_code& ec) {
    ec = asio::error::would_block;
    return 0;
}

/// Becomes ready when a child exits: its process handle is signalled.
class exit_watcher {
public:
    explicit exit_watcher(const asio::any_io_executor& ex) : handle_(ex) {}
    /// Watches the child through `exit_handle`, its process handle (spawned_child::exit_handle).
    void watch(pid_t, unique_native exit_handle) {
        if (exit_handle) handle_.assign(exit_handle.release());
    }
    [[nodiscard]] bool is_open() const { return handle_.is_open(); }
    template <class Handler>
    void async_wait(Handler&& handler) {
        handle_.async_wait(std::forward<Handler>(handler));
    }
    void close() noexcept {
        asio::error_code ignored;
        handle_.close(ignored);
    }

private:
    asio::windows::object_handle handle_;
};

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_WINDOWS
