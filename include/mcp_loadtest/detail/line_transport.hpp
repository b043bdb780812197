// Newline-delimited JSON-RPC over a byte stream: the stdio framing, reused for
// TCP and Unix sockets. One read buffer scanned in place (no copy per line),
// one outbox written with one syscall per batch, and a hard line-size limit
// that keeps framing (an oversized line is skipped to its newline, never
// buffered whole).
#pragma once

#include <mcp_loadtest/detail/transport.hpp>

#include <algorithm>
#include <cstring>
#include <string>
#include <string_view>
#include <sys/socket.h>
#include <vector>

namespace mcp_loadtest::detail {

class line_transport : public transport {
public:
    void send(std::string_view line, const outgoing&) override { write(line); }

protected:
    line_transport(asio::any_io_executor ex, std::size_t max_message_size)
        : ex_(std::move(ex)), read_end_(ex_), write_end_(ex_), max_message_size_(max_message_size) {}

    // A bidirectional descriptor (socket) is used for both directions.
    void start_io(int read_fd, int write_fd) {
        read_end_.assign(read_fd);
        if (write_fd >= 0 && write_fd != read_fd) write_end_.assign(write_fd);
        read_buffer_.resize(64 * 1024);
        start_read();
    }

    asio::posix::stream_descriptor& writer() { return write_end_.is_open() ? write_end_ : read_end_; }

    void write(std::string_view bytes) {
        if (write_broken_ || !writer().is_open()) return;
        outbox_.append(bytes.data(), bytes.size());
        // While a batch of replies is being dispatched, the requests their
        // callers send next are gathered and written once, after the batch.
        if (!write_in_flight_ && !corked_) flush();
    }

    /// Half-closes the write direction (stdio: the server sees EOF on stdin).
    void close_write_end() {
        asio::error_code ignored;
        if (write_end_.is_open()) write_end_.close(ignored);
        else if (read_end_.is_open()) ::shutdown(read_end_.native_handle(), SHUT_WR);
        write_broken_ = true;
    }

    void close_descriptors() noexcept {
        asio::error_code ignored;
        read_end_.close(ignored);
        write_end_.close(ignored);
    }

    /// The peer stopped reading (EPIPE, ECONNRESET) while we were writing.
    virtual void on_write_error(const asio::error_code& ec) = 0;
    /// The read direction ended (EOF or error); final partial line already delivered.
    virtual void on_read_end(const asio::error_code& ec) = 0;

    [[nodiscard]] bool io_closed() const noexcept { return io_closed_; }
    void mark_io_closed() noexcept { io_closed_ = true; }

    asio::any_io_executor ex_;

private:
    void flush() {
        writing_.swap(outbox_);
        outbox_.clear();
        write_in_flight_ = true;
        asio::async_write(writer(), asio::buffer(writing_),
                          [self = std::static_pointer_cast<line_transport>(shared_from_this())](
                              const asio::error_code& ec, std::size_t n) { self->on_written(ec, n); });
    }

    void on_written(const asio::error_code& ec, std::size_t n) {
        write_in_flight_ = false;
        if (stats_) stats_->bytes_written += n;
        writing_.clear();
        if (ec) {
            write_broken_ = true;
            outbox_.clear();
            if (ec != asio::error::operation_aborted && !io_closed_) on_write_error(ec);
            return;
        }
        if (!outbox_.empty() && writer().is_open()) flush();
    }

    void start_read() {
        if (read_end_pos_ == read_buffer_.size()) {
            // Compact, then grow up to what one maximal message needs.
            if (read_begin_ > 0) {
                std::memmove(read_buffer_.data(), read_buffer_.data() + read_begin_, read_end_pos_ - read_begin_);
                read_end_pos_ -= read_begin_;
                scan_from_ -= read_begin_;
                read_begin_ = 0;
            }
            if (read_end_pos_ == read_buffer_.size())
                read_buffer_.resize(std::min(read_buffer_.size() * 2, max_message_size_ + 64 * 1024));
        }
        read_end_.async_read_some(
            asio::buffer(read_buffer_.data() + read_end_pos_, read_buffer_.size() - read_end_pos_),
            [self = std::static_pointer_cast<line_transport>(shared_from_this())](const asio::error_code& ec,
                                                                                  std::size_t n) {
                self->on_read(ec, n);
            });
    }

    void on_read(const asio::error_code& ec, std::size_t n) {
        if (io_closed_ || !events_) return;
        if (stats_) stats_->bytes_read += n;
        read_end_pos_ += n;
        {
            // Requests sent by callers resumed in this batch are written once, after it.
            corked_ = true;
            struct uncork {
                bool& corked;
                ~uncork() { corked = false; }
            } guard{corked_};
            process_buffer();
        }
        if (io_closed_ || !events_) return;
        if (!outbox_.empty() && !write_in_flight_ && !write_broken_ && writer().is_open()) flush();
        if (ec) {
            if (ec == asio::error::operation_aborted) return;
            // EOF (or a read error): a final unterminated line still counts.
            if (!discarding_ && read_end_pos_ > read_begin_) {
                const std::string_view last(read_buffer_.data() + read_begin_, read_end_pos_ - read_begin_);
                read_begin_ = read_end_pos_ = scan_from_ = 0;
                deliver(last);
            }
            if (!io_closed_) on_read_end(ec);
            return;
        }
        if (read_begin_ == read_end_pos_) read_begin_ = read_end_pos_ = scan_from_ = 0;
        start_read();
    }

    void process_buffer() {
        const std::size_t max = max_message_size_;
        while (!io_closed_ && events_) {
            char* base = read_buffer_.data();
            if (discarding_) {
                auto* nl = static_cast<char*>(std::memchr(base + read_begin_, '\n', read_end_pos_ - read_begin_));
                if (!nl) {
                    discarded_ += read_end_pos_ - read_begin_;
                    read_begin_ = read_end_pos_ = scan_from_ = 0;
                    return;
                }
                discarded_ += static_cast<std::size_t>(nl - (base + read_begin_));
                read_begin_ = scan_from_ = static_cast<std::size_t>(nl - base) + 1;
                discarding_ = false;
                events_->on_oversized(oversized_prefix_, discarded_, true);
                continue;
            }
            auto* nl = static_cast<char*>(std::memchr(base + scan_from_, '\n', read_end_pos_ - scan_from_));
            if (!nl) {
                scan_from_ = read_end_pos_;
                if (read_end_pos_ - read_begin_ > max) begin_oversized();
                return;
            }
            const std::size_t line_end = static_cast<std::size_t>(nl - base);
            const std::string_view line(base + read_begin_, line_end - read_begin_);
            read_begin_ = scan_from_ = line_end + 1;
            if (line.size() > max) {
                oversized_prefix_.assign(line.substr(0, 4096));
                events_->on_oversized(oversized_prefix_, line.size(), true);
                continue;
            }
            deliver(line);
        }
    }

    void deliver(std::string_view line) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.remove_suffix(1);
        std::size_t first = 0;
        while (first < line.size() && (line[first] == ' ' || line[first] == '\t')) ++first;
        line.remove_prefix(first);
        if (!line.empty() && events_) events_->on_message(line, 0);
    }

    void begin_oversized() {
        oversized_prefix_.assign(read_buffer_.data() + read_begin_,
                                 std::min<std::size_t>(4096, read_end_pos_ - read_begin_));
        discarded_ = read_end_pos_ - read_begin_;
        discarding_ = true;
        read_begin_ = read_end_pos_ = scan_from_ = 0;
        if (read_buffer_.size() > 256 * 1024) {
            read_buffer_.resize(64 * 1024);
            read_buffer_.shrink_to_fit();
        }
        // Do not make the caller wait for the end of the line.
        events_->on_oversized(oversized_prefix_, discarded_, false);
    }

    asio::posix::stream_descriptor read_end_, write_end_;
    std::size_t max_message_size_;

    std::string outbox_, writing_;
    bool write_in_flight_ = false, write_broken_ = false, corked_ = false, io_closed_ = false;

    std::vector<char> read_buffer_;
    std::size_t read_begin_ = 0, read_end_pos_ = 0, scan_from_ = 0;
    bool discarding_ = false;
    std::size_t discarded_ = 0;
    std::string oversized_prefix_;
};

}  // namespace mcp_loadtest::detail
