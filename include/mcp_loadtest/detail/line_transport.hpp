// Newline-delimited JSON-RPC over a byte stream: the stdio framing, reused for
// TCP and Unix sockets. One read buffer scanned in place (no copy per line),
// one outbox written with one syscall per batch, and a hard line-size limit
// that keeps framing (an oversized line is skipped to its newline, never
// buffered whole).
#pragma once

#include <mcp_loadtest/detail/send_queue.hpp>
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
    [[nodiscard]] std::string send_stall_hint() const override { return queue_.stall_hint("server"); }

protected:
    line_transport(asio::any_io_executor ex, std::size_t max_message_size, std::size_t max_send_queue)
        : ex_(std::move(ex)), read_end_(ex_), write_end_(ex_), max_message_size_(max_message_size),
          queue_(max_send_queue) {}

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
        queue_.outbox().append(bytes.data(), bytes.size());
        if (queue_.over_limit()) {
            // The server answers nothing we write: stop growing, end the session.
            // Ended from the loop, not inside the caller's send.
            write_broken_ = true;
            asio::post(ex_, [self = shared_from_this(), message = queue_.overflow_message(describe(), "max_send_queue")] {
                static_cast<line_transport&>(*self).report_down(outcome::hang, message);
            });
            queue_.discard();
            return;
        }
        // While a batch of replies is being dispatched, the requests their
        // callers send next are gathered and written once, after the batch.
        if (!queue_.writing() && !corked_) flush();
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
        asio::async_write(writer(), asio::buffer(queue_.begin_write()),
                          [self = std::static_pointer_cast<line_transport>(shared_from_this())](
                              const asio::error_code& ec, std::size_t n) { self->on_written(ec, n); });
    }

    void on_written(const asio::error_code& ec, std::size_t n) {
        queue_.end_write();
        if (stats_) stats_->bytes_written += n;
        if (ec) {
            write_broken_ = true;
            queue_.discard();
            if (ec != asio::error::operation_aborted && !io_closed_) on_write_error(ec);
            return;
        }
        if (queue_.has_queued() && !write_broken_ && writer().is_open()) flush();
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
        if (queue_.has_queued() && !queue_.writing() && !write_broken_ && writer().is_open()) flush();
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
                    keep_oversized_tail(std::string_view(base + read_begin_, read_end_pos_ - read_begin_));
                    discarded_ += read_end_pos_ - read_begin_;
                    read_begin_ = read_end_pos_ = scan_from_ = 0;
                    return;
                }
                keep_oversized_tail(std::string_view(base + read_begin_, static_cast<std::size_t>(nl - (base + read_begin_))));
                discarded_ += static_cast<std::size_t>(nl - (base + read_begin_));
                read_begin_ = scan_from_ = static_cast<std::size_t>(nl - base) + 1;
                discarding_ = false;
                events_->on_oversized(oversized_prefix_, discarded_, true, oversized_tail_);
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
                oversized_tail_.assign(line.substr(line.size() - std::min<std::size_t>(line.size(), tail_kept)));
                events_->on_oversized(oversized_prefix_, line.size(), true, oversized_tail_);
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
        oversized_tail_.clear();
        keep_oversized_tail(std::string_view(read_buffer_.data() + read_begin_, discarded_));
        discarding_ = true;
        read_begin_ = read_end_pos_ = scan_from_ = 0;
        if (read_buffer_.size() > 256 * 1024) {
            read_buffer_.resize(64 * 1024);
            read_buffer_.shrink_to_fit();
        }
        // Do not make the caller wait for the end of the line.
        events_->on_oversized(oversized_prefix_, discarded_, false, {});
    }

    // The last tail_kept bytes of the line being skipped.
    void keep_oversized_tail(std::string_view more) {
        if (more.size() >= tail_kept) {
            oversized_tail_.assign(more.substr(more.size() - tail_kept));
            return;
        }
        const std::size_t total = oversized_tail_.size() + more.size();
        if (total > tail_kept) oversized_tail_.erase(0, total - tail_kept);
        oversized_tail_.append(more);
    }
    static constexpr std::size_t tail_kept = 1024;

    asio::posix::stream_descriptor read_end_, write_end_;
    std::size_t max_message_size_;

    send_queue queue_;
    bool write_broken_ = false, corked_ = false, io_closed_ = false;

    std::vector<char> read_buffer_;
    std::size_t read_begin_ = 0, read_end_pos_ = 0, scan_from_ = 0;
    bool discarding_ = false;
    std::size_t discarded_ = 0;
    std::string oversized_prefix_, oversized_tail_;
};

}  // namespace mcp_loadtest::detail
