// Newline-delimited JSON-RPC over a byte stream: the stdio framing, reused for
// TCP and Unix sockets. One read buffer scanned in place (no copy per line),
// one outbox written with one syscall per batch, and a hard line-size limit
// that keeps framing (an oversized line is skipped to its newline, never
// buffered whole). The stream itself is the subclass's: a child's pipes
// (stdio_transport) or a connected socket (socket_transport), reached through
// four hooks, so that this file includes neither pipes nor sockets.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/transport/send_queue.hpp>
#include <mcp_loadtest/detail/transport/transport.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

class line_transport : public transport {
public:
    void send(std::string_view line, const outgoing&) override { write(line); }
    [[nodiscard]] std::string send_stall_hint() const override { return queue_.stall_hint("server"); }

protected:
    line_transport(asio::any_io_executor ex, std::size_t max_message_size, std::size_t max_send_queue)
        : ex_(std::move(ex)), max_message_size_(max_message_size), queue_(max_send_queue) {}

    /// Starts reading, once the subclass's stream is open. `write_in_place`:
    /// try_write() returns would_block instead of waiting.
    MCP_LOADTEST_DECL void start_io(bool write_in_place);

    MCP_LOADTEST_DECL void write(std::string_view bytes);

    /// Nothing more is written (stdio: the server's stdin was closed).
    void stop_writing() noexcept { write_broken_ = true; }

    // The completions the hooks are given (named types: one instantiation each).
    struct read_done {
        std::shared_ptr<line_transport> self;
        void operator()(const asio::error_code& ec, std::size_t n) const { self->on_read(ec, n); }
    };
    struct write_done {
        std::shared_ptr<line_transport> self;
        void operator()(const asio::error_code& ec, std::size_t n) const { self->on_written(ec, n); }
    };

    // The stream's hooks: read some bytes, write all of them, write what fits
    // now without waiting, and whether writing is still possible.
    virtual void read_some(asio::mutable_buffer into, read_done done) = 0;
    virtual void write_all(asio::const_buffer bytes, write_done done) = 0;
    virtual std::size_t try_write(asio::const_buffer bytes, asio::error_code& ec) = 0;
    [[nodiscard]] virtual bool writable() const noexcept = 0;

    /// The peer stopped reading (EPIPE, ECONNRESET) while we were writing.
    virtual void on_write_error(const asio::error_code& ec) = 0;
    /// The read direction ended (EOF or error); final partial line already delivered.
    virtual void on_read_end(const asio::error_code& ec) = 0;

    [[nodiscard]] bool io_closed() const noexcept { return io_closed_; }
    void mark_io_closed() noexcept { io_closed_ = true; }

    asio::any_io_executor ex_;

private:
    // Writes the queued bytes; `in_place`: try a non-blocking write first.
    MCP_LOADTEST_DECL void flush(bool in_place);

    MCP_LOADTEST_DECL void on_written(const asio::error_code& ec, std::size_t n);

    MCP_LOADTEST_DECL void start_read();

    MCP_LOADTEST_DECL void on_read(const asio::error_code& ec, std::size_t n);

    MCP_LOADTEST_DECL void process_buffer();

    MCP_LOADTEST_DECL void deliver(std::string_view line);

    MCP_LOADTEST_DECL void begin_oversized();

    // The last tail_kept bytes of the line being skipped.
    MCP_LOADTEST_DECL void keep_oversized_tail(std::string_view more);
    static constexpr std::size_t tail_kept = 1024;

    std::size_t max_message_size_;

    send_queue queue_;
    bool write_broken_ = false, corked_ = false, io_closed_ = false, write_in_place_ = false;

    std::vector<char> read_buffer_;
    std::size_t read_begin_ = 0, read_end_pos_ = 0, scan_from_ = 0;
    bool discarding_ = false;
    std::size_t discarded_ = 0;
    std::string oversized_prefix_, oversized_tail_;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/line_transport.ipp>
#endif
