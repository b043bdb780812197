// The Linux (POSIX) side of detail/os/pipe_stream.hpp.
#pragma once

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/os/native_handle.hpp>

#if MCP_LOADTEST_OS_LINUX

#include <asio/posix/stream_descriptor.hpp>

namespace mcp_loadtest::detail {

/// One end of a pipe, or a connected socket used both ways.
using pipe_stream = asio::posix::stream_descriptor;

/// Makes write_now() possible on `s`; false where it is not.
inline bool enable_write_now(pipe_stream& s) {
    asio::error_code ec;
    s.non_blocking(true, ec);
    return !ec;
}

/// Writes what fits now, without waiting: `would_block` when nothing does.
inline std::size_t write_now(pipe_stream& s, asio::const_buffer b, asio::error_code& ec) { return s.write_some(b, ec); }


/// Becomes ready when a child exits: its pidfd turns readable.
class exit_watcher {
public:
    explicit exit_watcher(const asio::any_io_executor& ex) : fd_(ex) {}
    void assign(unique_native h) { fd_.assign(h.release()); }
    [[nodiscard]] bool is_open() const { return fd_.is_open(); }
    template <class Handler>
    void async_wait(Handler&& handler) {
        fd_.async_wait(asio::posix::stream_descriptor::wait_read, std::forward<Handler>(handler));
    }
    void close() noexcept {
        asio::error_code ignored;
        fd_.close(ignored);
    }

private:
    asio::posix::stream_descriptor fd_;
};

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_LINUX
