// Definitions of detail/transport/stdio_transport.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/stdio_transport.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL asio::awaitable<void> stdio_transport::open(transport_events& events, session_stats& stats) {
    events_ = &events;
    stats_ = &stats;
    start();
    co_return;
}

MCP_LOADTEST_DECL asio::awaitable<shutdown_result> stdio_transport::close() {
    const auto t0 = clock::now();
    shutdown_result r;
    if (closed_) {
        r.status = exit_;
        co_return r;
    }
    closing_ = true;
    // Helpers that left the server's group are found while the server lives:
    // one that exits on its own at stdin EOF leaves no later chance.
    if (!exited_) process_audit::note_descendants(pid_);
    asio::error_code ignored;
    stdin_.close(ignored);  // the server reads EOF
    stop_writing();
    if (exited_) {
        r.ended = shutdown_result::how::already_exited;
    } else {
        co_await wait_for_exit_or(server_.shutdown.after_stdin_close);
        if (exited_) {
            r.ended = shutdown_result::how::stdin_closed;
        } else {
            signal_group(pid_, end_request::terminate);
            co_await wait_for_exit_or(server_.shutdown.after_sigterm);
            if (exited_) {
                r.ended = shutdown_result::how::terminated;
            } else {
                signal_group(pid_, end_request::kill);
                co_await wait_for_exit_or(server_.shutdown.after_sigkill);
                r.ended = exited_ ? shutdown_result::how::killed : shutdown_result::how::abandoned;
            }
        }
    }
    if (exited_ && !reaped_) {
        reap(pid_);
        reaped_ = true;
    }
    // reap() SIGKILLed the server's own children; give the kernel a moment to finish them.
    const auto until = clock::now() + server_.shutdown.after_sigkill;
    asio::steady_timer pause(ex_);
    while (exited_ && process_audit::group_alive(pid_) && clock::now() < until) {
        pause.expires_after(std::chrono::milliseconds(2));
        asio::error_code ignored_ec;
        co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ignored_ec));
    }
    release_descriptors();
    closed_ = true;
    r.status = exit_;
    r.took = clock::now() - t0;
    co_return r;
}

MCP_LOADTEST_DECL void stdio_transport::abort_now() noexcept {
    if (closed_ || pid_ <= 0) {
        release_descriptors();
        return;
    }
    closing_ = true;
    if (!reaped_) {
        const exit_status s = exited_ ? exit_ : kill_and_reap_now(pid_, server_.shutdown.after_sigkill);
        if (s.exited) {
            if (!exited_) exit_ = s;
            exited_ = true;
            if (!reaped_) reap(pid_);
            reaped_ = true;
            const auto until = clock::now() + std::chrono::seconds(1);
            while (process_audit::group_alive(pid_) && clock::now() < until)
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    release_descriptors();
    closed_ = true;
}

MCP_LOADTEST_DECL std::string stdio_transport::stderr_tail(std::size_t max) const {
    if (server_.stderr_to == stderr_mode::capture && !server_.stderr_path.empty()) {
        std::ifstream file(server_.stderr_path, std::ios::binary | std::ios::ate);
        if (!file) return {};
        const std::streamoff size = file.tellg();
        const std::streamoff from = size > static_cast<std::streamoff>(max) ? size - static_cast<std::streamoff>(max) : 0;
        std::string out(static_cast<std::size_t>(size > from ? size - from : 0), '\0');
        file.seekg(from);
        file.read(out.data(), static_cast<std::streamsize>(out.size()));
        out.resize(static_cast<std::size_t>(std::max<std::streamsize>(file.gcount(), 0)));
        return out;
    }
    return stderr_tail_.size() > max ? stderr_tail_.substr(stderr_tail_.size() - max) : stderr_tail_;
}

MCP_LOADTEST_DECL std::string stdio_transport::failure_hint() const {
    switch (server_.stderr_to) {
        case stderr_mode::inherit:
            return " The server's stderr went to the test's stderr; look there, or set "
                   "stdio_server.stderr_to = stderr_mode::capture to get it in this message.";
        case stderr_mode::discard:
            return " The server's stderr was discarded; set stderr_to = stderr_mode::capture to see it.";
        default: {
            std::string tail = stderr_tail(1024);
            while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.pop_back();
            if (tail.empty()) return " The server wrote nothing to stderr.";
            return " Last stderr output: \"" + truncate_for_message(tail, 1024) + "\"" +
                   (server_.stderr_path.empty() ? "" : " (full log: " + server_.stderr_path.string() + ")");
        }
    }
}

MCP_LOADTEST_DECL std::string stdio_transport::unanswered_hint() const {
    const interpreter_kind kind = interpreter_of(server_.command);
    if (kind != interpreter_kind::python && kind != interpreter_kind::uv) return {};
    if (kind == interpreter_kind::python && python_unbuffered_flag(server_.args)) return {};
    if (const auto v = server_environment_value(server_, "PYTHONUNBUFFERED"); v && !v->empty()) return {};
    return " It is a Python server started without -u or PYTHONUNBUFFERED: a reply print()ed without flush waits "
           "in its stdout buffer (8 KiB on a pipe). Set PYTHONUNBUFFERED=1 in stdio_server.env, or run the "
           "checklist of mcp_loadtest::doctor(server), which confirms it.";
}

MCP_LOADTEST_DECL void stdio_transport::start() {
    ignore_sigpipe_once();
    // Captured to a file: the server writes it itself. Tee'd, or captured to
    // memory: through a pipe this side reads (and copies to the file, if any).
    child_stderr err = child_stderr::inherit;
    if (server_.stderr_to == stderr_mode::discard) err = child_stderr::discard;
    else if (server_.stderr_to == stderr_mode::capture && !server_.stderr_path.empty()) err = child_stderr::file;
    else if (server_.stderr_to == stderr_mode::tee || server_.stderr_to == stderr_mode::capture) err = child_stderr::pipe;
    if (err == child_stderr::pipe && !server_.stderr_path.empty()) open_stderr_file();

    spawned_child child = spawn_child(server_, err);
    pid_ = child.pid;
    exit_watch_.watch(child.pid, std::move(child.exit_handle));
    if (child.stderr_read) stderr_.assign(child.stderr_read.release());
    stdout_.assign(child.stdout_read.release());
    stdin_.assign(child.stdin_write.release());
    // try_write() must fail with would_block, not wait.
    start_io(/*write_in_place=*/enable_write_now(stdin_));
    watch_exit();
    if (stderr_.is_open()) start_stderr_read();
}

MCP_LOADTEST_DECL void stdio_transport::open_stderr_file() {
    std::error_code ec;
    if (server_.stderr_path.has_parent_path())
        std::filesystem::create_directories(server_.stderr_path.parent_path(), ec);
    stderr_file_.open(server_.stderr_path, std::ios::binary | std::ios::trunc);
    if (!stderr_file_)
        throw spawn_error("cannot open stderr capture file '" + server_.stderr_path.string() +
                          "'. Hint: check that the directory is writable, or leave stderr_path empty to "
                          "capture into memory.");
}

MCP_LOADTEST_DECL void stdio_transport::on_write_error(const asio::error_code& ec) {
    if (exited_ || closing_ || !events_) return;
    // EPIPE while running: it closed stdin. Replies may still come; timeouts bound the rest.
    events_->on_violation(protocol_violation::kind::stdin_closed,
                          "the server closed its stdin while still running (" + ec.message() + ")", 0);
}

MCP_LOADTEST_DECL void stdio_transport::on_read_end(const asio::error_code&) {
    stdout_eof_ = true;
    if (exited_) {
        settle();
    } else {
        // Usually the exit follows at once; if not, the server closed stdout and lives on.
        arm_settle_timer(std::chrono::milliseconds(500));
    }
}

MCP_LOADTEST_DECL void stdio_transport::start_stderr_read() {
    stderr_.async_read_some(asio::buffer(stderr_chunk_),
                            [self = shared_self()](const asio::error_code& ec, std::size_t n) {
                                self->on_stderr(ec, n);
                            });
}

MCP_LOADTEST_DECL void stdio_transport::on_stderr(const asio::error_code& ec, std::size_t n) {
    if (n > 0) {
        const char* data = stderr_chunk_.data();
        // Written through at once, unbuffered: a test that crashes next still shows it.
        if (server_.stderr_to == stderr_mode::tee) {
            std::fwrite(data, 1, n, stderr);
            std::fflush(stderr);
        }
        if (stderr_file_.is_open()) stderr_file_.write(data, static_cast<std::streamsize>(n)).flush();
        stderr_tail_.append(data, n);
        const std::size_t cap = std::max<std::size_t>(server_.stderr_tail_bytes, 1);
        if (stderr_tail_.size() > 2 * cap) stderr_tail_.erase(0, stderr_tail_.size() - cap);
    }
    if (ec || closed_) return;
    start_stderr_read();
}

MCP_LOADTEST_DECL std::shared_ptr<stdio_transport> stdio_transport::shared_self() {
    return std::static_pointer_cast<stdio_transport>(shared_from_this());
}

MCP_LOADTEST_DECL void stdio_transport::watch_exit() {
    // exit_watcher (os/pipe_stream.hpp) becomes ready when the child exits, on every backend.
    exit_watch_.async_wait([self = shared_self()](const asio::error_code& ec) {
        if (ec == asio::error::operation_aborted || self->closed_) return;
        self->check_exit();
    });
}

MCP_LOADTEST_DECL void stdio_transport::check_exit() {
    const exit_status s = peek_exit(pid_);
    if (!s.exited) {
        watch_exit();
        return;
    }
    exit_ = s;
    exited_ = true;
    exit_event_.cancel();
    if (stdout_eof_) {
        settle();
    } else {
        // Replies written just before exiting are still in the pipe: read them first.
        arm_settle_timer(std::chrono::milliseconds(100));
    }
}

MCP_LOADTEST_DECL void stdio_transport::arm_settle_timer(std::chrono::milliseconds d) {
    settle_timer_.expires_after(d);
    settle_timer_.async_wait([self = shared_self()](const asio::error_code& ec) {
        if (ec == asio::error::operation_aborted || self->closed_) return;
        self->settle();
    });
}

MCP_LOADTEST_DECL void stdio_transport::settle() {
    if (settled_) return;
    settled_ = true;
    settle_timer_.cancel();
    outcome o;
    std::string message;
    if (exited_) {
        o = outcome::crash;
        message = "the server " + exit_.describe() + (closing_ ? "" : " while the call was in flight") + ".";
        if (!reaped_) {
            reap(pid_);
            reaped_ = true;
        }
    } else {
        o = outcome::disconnected;
        message = "the server closed its stdout but is still running (pid " + std::to_string(pid_) +
                  "); no reply can arrive.";
    }
    if (!closing_) message += failure_hint();
    report_down(o, message);
}

MCP_LOADTEST_DECL asio::awaitable<void> stdio_transport::wait_for_exit_or(std::chrono::milliseconds d) {
    if (exited_) co_return;
    exit_event_.expires_after(d);
    asio::error_code ec;
    co_await exit_event_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
}

MCP_LOADTEST_DECL void stdio_transport::release_descriptors() noexcept {
    mark_io_closed();
    asio::error_code ignored;
    stdout_.close(ignored);
    stdin_.close(ignored);
    stderr_.close(ignored);
    exit_watch_.close();
    exit_event_.cancel();
    settle_timer_.cancel();
}

}  // namespace mcp_loadtest::detail
