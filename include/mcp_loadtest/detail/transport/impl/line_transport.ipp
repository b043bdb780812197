// Definitions of detail/transport/line_transport.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/line_transport.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void line_transport::start_io(bool write_in_place) {
    write_in_place_ = write_in_place;
    read_buffer_.resize(64 * 1024);
    start_read();
}

MCP_LOADTEST_DECL void line_transport::write(std::string_view bytes) {
    if (write_broken_ || !writable()) return;
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
    if (!queue_.writing() && !corked_) flush(/*in_place=*/false);
}

MCP_LOADTEST_DECL void line_transport::flush(bool in_place) {
    const std::string& bytes = queue_.begin_write();
    std::size_t done = 0;
    if (in_place && write_in_place_) {
        // After a batch of replies: nearly always the pipe or socket has room.
        // Written here, there is no operation to allocate and no completion to
        // run, and the loop goes straight to sleep instead of polling once
        // more for the completion. A full pipe, a partial write or an error
        // takes the asynchronous path below, so a failure is still reported
        // from the loop. A send outside a batch (a timer's, the first ones)
        // takes that path too: until its completion runs, the sends after it
        // gather into one write, made here when it does.
        asio::error_code ec;
        done = try_write(asio::buffer(bytes), ec);
        if (ec) done = 0;
        if (done == bytes.size()) {
            on_written(ec, done);
            return;
        }
        if (stats_) stats_->bytes_written += done;
    }
    write_all(asio::buffer(bytes) + done, write_done{std::static_pointer_cast<line_transport>(shared_from_this())});
}

MCP_LOADTEST_DECL void line_transport::on_written(const asio::error_code& ec, std::size_t n) {
    queue_.end_write();
    if (stats_) stats_->bytes_written += n;
    if (ec) {
        write_broken_ = true;
        queue_.discard();
        if (ec != asio::error::operation_aborted && !io_closed_) on_write_error(ec);
        return;
    }
    // The sends gathered while it was written: the window ends here.
    if (queue_.has_queued() && !write_broken_ && writable()) flush(/*in_place=*/true);
}

MCP_LOADTEST_DECL void line_transport::start_read() {
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
    read_some(asio::buffer(read_buffer_.data() + read_end_pos_, read_buffer_.size() - read_end_pos_),
              read_done{std::static_pointer_cast<line_transport>(shared_from_this())});
}

MCP_LOADTEST_DECL void line_transport::on_read(const asio::error_code& ec, std::size_t n) {
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
    if (queue_.has_queued() && !queue_.writing() && !write_broken_ && writable()) flush(/*in_place=*/true);
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

MCP_LOADTEST_DECL void line_transport::process_buffer() {
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

MCP_LOADTEST_DECL void line_transport::deliver(std::string_view line) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
        line.remove_suffix(1);
    std::size_t first = 0;
    while (first < line.size() && (line[first] == ' ' || line[first] == '\t')) ++first;
    line.remove_prefix(first);
    if (!line.empty() && events_) events_->on_message(line, 0);
}

MCP_LOADTEST_DECL void line_transport::begin_oversized() {
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

MCP_LOADTEST_DECL void line_transport::keep_oversized_tail(std::string_view more) {
    if (more.size() >= tail_kept) {
        oversized_tail_.assign(more.substr(more.size() - tail_kept));
        return;
    }
    const std::size_t total = oversized_tail_.size() + more.size();
    if (total > tail_kept) oversized_tail_.erase(0, total - tail_kept);
    oversized_tail_.append(more);
}

}  // namespace mcp_loadtest::detail
