// The state behind a session: one child process, its pipes, and the
// JSON-RPC correlation of many requests in flight on one stdin/stdout pair.
//
// Threading: a core is used from one executor (one thread at a time), like
// every Asio I/O object. Internal I/O uses plain callbacks that hold a
// shared_ptr to the core; the public session handle owns its life and kills
// the child when dropped without close().
#pragma once

#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/client_options.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/child_process.hpp>
#include <mcp_loadtest/detail/completion.hpp>
#include <mcp_loadtest/detail/json_scan.hpp>
#include <mcp_loadtest/server.hpp>
#include <mcp_loadtest/session_info.hpp>

#include <algorithm>
#include <array>
#include <fcntl.h>
#include <csignal>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mcp_loadtest::detail {

using clock = std::chrono::steady_clock;

inline void ignore_sigpipe_once() {
    static std::once_flag once;
    std::call_once(once, [] {
        // Writes to a dead server's stdin must fail with EPIPE, not kill the test.
        struct sigaction old {};
        if (::sigaction(SIGPIPE, nullptr, &old) == 0 && old.sa_handler == SIG_DFL)
            ::signal(SIGPIPE, SIG_IGN);
    });
}

inline std::string truncate_for_message(std::string_view s, std::size_t n = 512) {
    std::string out(s.substr(0, n));
    for (char& c : out)
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t') c = ' ';
    if (s.size() > n) out += "...";
    return out;
}

class session_core : public std::enable_shared_from_this<session_core> {
public:
    session_core(asio::any_io_executor ex, stdio_server server, client_options options)
        : ex_(std::move(ex)),
          server_(std::move(server)),
          options_(std::move(options)),
          stdin_(ex_),
          stdout_(ex_),
          stderr_(ex_),
          pidfd_(ex_),
          deadline_timer_(ex_),
          exit_event_(ex_),
          settle_timer_(ex_),
          started_at_(clock::now()) {}

    session_core(const session_core&) = delete;
    session_core& operator=(const session_core&) = delete;

    ~session_core() { abort_now(); }

    // ---- lifecycle -------------------------------------------------------

    void start() {
        ignore_sigpipe_once();
        unique_fd stderr_for_child;
        unique_fd stderr_pipe_read;
        const bool want_pipe = server_.stderr_to == stderr_mode::tee ||
                               (server_.stderr_to == stderr_mode::capture && server_.stderr_path.empty());
        if (server_.stderr_to == stderr_mode::discard) {
            stderr_for_child = unique_fd(::open("/dev/null", O_WRONLY | O_CLOEXEC));
        } else if (server_.stderr_to == stderr_mode::capture && !server_.stderr_path.empty()) {
            stderr_for_child = open_stderr_file();
        } else if (want_pipe) {
            auto p = make_pipe();
            stderr_pipe_read = std::move(p.read_end);
            stderr_for_child = std::move(p.write_end);
            if (!server_.stderr_path.empty()) stderr_file_ = open_stderr_file();
        }

        spawned_child child = spawn_child(server_, stderr_for_child ? stderr_for_child.get() : -1);
        pid_ = child.pid;
        stdin_.assign(child.stdin_write.release());
        stdout_.assign(child.stdout_read.release());
        if (child.pidfd) pidfd_.assign(child.pidfd.release());
        if (stderr_pipe_read) stderr_.assign(stderr_pipe_read.release());
        stderr_for_child.reset();  // the child has its copy

        read_buffer_.resize(64 * 1024);
        start_read();
        watch_exit();
        if (stderr_.is_open()) start_stderr_read();
        if (options_.session_deadline.count() > 0)
            session_deadline_ = started_at_ + options_.session_deadline;
    }

    /// Graceful shutdown: close stdin, wait; SIGTERM the group, wait; SIGKILL, reap.
    asio::awaitable<shutdown_result> close() {
        const auto t0 = clock::now();
        shutdown_result r;
        if (closed_) {
            r.status = exit_;
            co_return r;
        }
        closing_ = true;
        fail_all_pending(outcome::cancelled, "the session was closed while the call was in flight", true);
        asio::error_code ignored;
        stdin_.close(ignored);

        if (exited_) {
            r.ended = shutdown_result::how::already_exited;
        } else {
            co_await wait_for_exit_or(server_.shutdown.after_stdin_close);
            if (exited_) {
                r.ended = shutdown_result::how::stdin_closed;
            } else {
                signal_group(pid_, SIGTERM);
                co_await wait_for_exit_or(server_.shutdown.after_sigterm);
                if (exited_) {
                    r.ended = shutdown_result::how::terminated;
                } else {
                    signal_group(pid_, SIGKILL);
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
            pause.expires_after(2ms);
            asio::error_code ignored_ec;
            co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ignored_ec));
        }
        release_descriptors();
        closed_ = true;
        r.status = exit_;
        r.took = clock::now() - t0;
        co_return r;
    }

    /// Synchronous last resort (session dropped without close(), or the test
    /// was abandoned): pending calls end as cancelled, the group is SIGKILLed
    /// and reaped before this returns.
    void abort_now() noexcept {
        if (closed_ || pid_ <= 0) return;
        closing_ = true;
        try {
            fail_all_pending(outcome::cancelled,
                             "the session was destroyed while the call was in flight", true);
        } catch (...) {
        }
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

    // ---- requests --------------------------------------------------------

    std::uint64_t next_id() noexcept { return ++last_id_; }
    [[nodiscard]] std::uint64_t last_id() const noexcept { return last_id_; }

    /// A prepared request: the complete line to send and what to call it.
    struct request_line {
        std::uint64_t id = 0;
        std::string line;  // ends with '\n'
        std::string method;
        std::string tool;
        call_options options;
    };

    /// Registers and sends a request; `completion` gets exactly one call_result.
    void start_request(request_line&& req, call_completion&& completion) {
        if (closed_ || closing_ || dead_ || past_session_deadline()) {
            call_result r = make_result(req.id, std::move(req.method), std::move(req.tool), clock::now());
            if (dead_) {
                r.outcome = dead_outcome_;
                r.message = dead_message_;
            } else if (closed_ || closing_) {
                r.outcome = outcome::cancelled;
                r.message = "the session is closed; open a new one with connect()";
            } else {
                r.outcome = outcome::timeout;
                r.message = session_deadline_message();
            }
            completion.post(std::move(r));
            return;
        }
        const auto now = clock::now();
        const auto timeout = req.options.timeout.count() > 0 ? req.options.timeout : options_.default_timeout;
        pending_call p;
        p.method = std::move(req.method);
        p.tool = std::move(req.tool);
        p.sent_at = now;
        p.timeout = timeout;
        p.grace = req.options.grace;
        p.cancel_on_timeout = req.options.cancel_on_timeout;
        p.deadline = now + timeout;
        p.deadline_is_session = false;
        if (session_deadline_ && *session_deadline_ < p.deadline) {
            p.deadline = *session_deadline_;
            p.deadline_is_session = true;
        }
        auto slot = completion.slot();
        p.completion = std::move(completion);
        const std::uint64_t id = req.id;
        const auto deadline = p.deadline;
        if (!free_nodes_.empty()) {
            // Reuse a node of a finished call: no allocation per request.
            auto node = std::move(free_nodes_.back());
            free_nodes_.pop_back();
            node.key() = id;
            node.mapped() = std::move(p);
            pending_.insert(std::move(node));
        } else {
            pending_.emplace(id, std::move(p));
        }
        if (slot.is_connected()) {
            slot.assign([weak = weak_from_this(), id](asio::cancellation_type) {
                if (auto self = weak.lock()) self->cancel(id, "cancelled by the caller", true);
            });
        }
        schedule_deadline(deadline, id);
        ++stats_.requests_sent;
        write(req.line);
    }

    /// Sends a notification (no reply expected).
    void send_notification(std::string_view method, std::string_view params_json) {
        if (closed_ || closing_ || dead_) return;
        std::string line = R"({"jsonrpc":"2.0","method":)";
        append_json_string(line, method);
        if (!params_json.empty()) {
            line += R"(,"params":)";
            line += params_json;
        }
        line += "}\n";
        ++stats_.notifications_sent;
        write(line);
    }

    /// Ends an in-flight call as cancelled and tells the server. False if not in flight.
    bool cancel(std::uint64_t id, std::string_view reason, bool deferred) {
        auto it = pending_.find(id);
        if (it == pending_.end()) return false;
        auto node = pending_.extract(it);
        pending_call& p = node.mapped();
        send_cancelled(id, reason);
        remember_expired(id, p);
        call_result r = make_result(id, std::move(p.method), std::move(p.tool), p.sent_at);
        r.outcome = outcome::cancelled;
        r.message = std::string(reason);
        r.progress_notifications = p.progress;
        if (deferred) p.completion.post(std::move(r));
        else p.completion.complete(std::move(r));
        return true;
    }

    // ---- state -----------------------------------------------------------

    [[nodiscard]] pid_t pid() const noexcept { return pid_; }
    [[nodiscard]] bool alive() const noexcept { return pid_ > 0 && !exited_; }
    [[nodiscard]] bool closed() const noexcept { return closed_; }
    [[nodiscard]] const exit_status& exit() const noexcept { return exit_; }
    [[nodiscard]] const session_stats& stats() const noexcept { return stats_; }
    [[nodiscard]] const stdio_server& server() const noexcept { return server_; }
    [[nodiscard]] const client_options& options() const noexcept { return options_; }
    [[nodiscard]] const std::deque<notification>& notifications() const noexcept { return notifications_; }
    [[nodiscard]] const std::vector<protocol_violation>& violations() const noexcept { return violations_; }
    [[nodiscard]] const std::vector<late_reply>& late_replies() const noexcept { return late_replies_; }
    [[nodiscard]] asio::any_io_executor executor() const noexcept { return ex_; }
    server_identity identity;

    [[nodiscard]] std::vector<in_flight_call> in_flight() const {
        std::vector<in_flight_call> v;
        const auto now = clock::now();
        for (const auto& [id, p] : pending_) v.push_back({id, p.method, p.tool, now - p.sent_at});
        std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.request_id < b.request_id; });
        return v;
    }

    /// The end of the server's stderr, when captured (memory tail or file).
    [[nodiscard]] std::string stderr_tail(std::size_t max = 4096) const {
        if (server_.stderr_to == stderr_mode::capture && !server_.stderr_path.empty()) {
            unique_fd fd(::open(server_.stderr_path.c_str(), O_RDONLY | O_CLOEXEC));
            if (!fd) return {};
            const off_t size = ::lseek(fd.get(), 0, SEEK_END);
            const off_t from = size > static_cast<off_t>(max) ? size - static_cast<off_t>(max) : 0;
            std::string out(static_cast<std::size_t>(size - from), '\0');
            const ssize_t n = ::pread(fd.get(), out.data(), out.size(), from);
            out.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
            return out;
        }
        return stderr_tail_.size() > max ? stderr_tail_.substr(stderr_tail_.size() - max) : stderr_tail_;
    }

    /// A hint pointing at the server's stderr, for error messages.
    [[nodiscard]] std::string stderr_hint() const {
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

private:
    struct pending_call {
        call_completion completion;
        std::string method;
        std::string tool;
        clock::time_point sent_at;
        clock::time_point deadline;
        std::chrono::milliseconds timeout{0};
        std::chrono::milliseconds grace{0};
        bool in_grace = false;
        bool deadline_is_session = false;
        bool cancel_on_timeout = true;
        std::uint32_t progress = 0;
    };

    struct deadline_entry {
        clock::time_point at;
        std::uint64_t id;
        bool operator>(const deadline_entry& o) const noexcept { return at > o.at; }
    };

    struct expired_call {
        std::string method, tool;
        clock::time_point sent_at;
    };

    static call_result make_result(std::uint64_t id, std::string method, std::string tool,
                                   clock::time_point sent_at) {
        call_result r;
        r.request_id = id;
        r.method = std::move(method);
        r.tool = std::move(tool);
        r.duration = clock::now() - sent_at;
        return r;
    }

    unique_fd open_stderr_file() {
        std::error_code ec;
        if (server_.stderr_path.has_parent_path())
            std::filesystem::create_directories(server_.stderr_path.parent_path(), ec);
        unique_fd fd(::open(server_.stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
        if (!fd)
            throw spawn_error("cannot open stderr capture file '" + server_.stderr_path.string() +
                              "': " + std::strerror(errno) +
                              ". Hint: check that the directory is writable, or leave stderr_path empty to "
                              "capture into memory.");
        return fd;
    }

    // ---- deadlines -------------------------------------------------------

    [[nodiscard]] bool past_session_deadline() const noexcept {
        return session_deadline_ && clock::now() >= *session_deadline_;
    }

    [[nodiscard]] std::string session_deadline_message() const {
        return "the session deadline (client_options.session_deadline = " +
               std::to_string(options_.session_deadline.count()) +
               " ms) has passed. Hint: raise it, or open a fresh session for the next phase.";
    }

    void schedule_deadline(clock::time_point at, std::uint64_t id) {
        // Entries of calls that already ended are dropped only when they reach
        // the top; without this they pile up for a whole timeout period (16 B
        // per call: ~0.5 GB at 1M calls/s and the default 30 s), and once they
        // start expiring the timer fires continually to discard them. Rebuild
        // from the calls in flight when stale entries dominate: O(1) amortized.
        if (deadlines_.size() >= 1024 && deadlines_.size() > 2 * pending_.size()) compact_deadlines();
        deadlines_.push({at, id});
        if (at < armed_for_) arm_deadline_timer(at);
    }

    void compact_deadlines() {
        std::vector<deadline_entry> live;
        live.reserve(pending_.size() + 1);
        for (const auto& [id, p] : pending_) live.push_back({p.deadline, id});
        deadlines_ = decltype(deadlines_)(std::greater<>{}, std::move(live));
    }

    void arm_deadline_timer(clock::time_point at) {
        armed_for_ = at;
        const std::uint64_t generation = ++deadline_generation_;
        deadline_timer_.expires_at(at);
        deadline_timer_.async_wait([self = shared_from_this(), generation](const asio::error_code& ec) {
            if (ec == asio::error::operation_aborted || generation != self->deadline_generation_) return;
            self->on_deadline();
        });
    }

    void on_deadline() {
        armed_for_ = clock::time_point::max();
        const auto now = clock::now();
        while (!deadlines_.empty() && deadlines_.top().at <= now) {
            const deadline_entry e = deadlines_.top();
            deadlines_.pop();
            auto it = pending_.find(e.id);
            if (it == pending_.end() || it->second.deadline != e.at) continue;  // done or rescheduled
            pending_call& p = it->second;
            if (!p.deadline_is_session && !p.in_grace && p.grace.count() > 0) {
                p.in_grace = true;
                p.deadline = p.sent_at + p.timeout + p.grace;
                if (session_deadline_ && *session_deadline_ < p.deadline) {
                    p.deadline = *session_deadline_;
                    p.deadline_is_session = true;
                }
                deadlines_.push({p.deadline, e.id});
                continue;
            }
            expire(it);
            if (closed_) return;
        }
        if (!deadlines_.empty() && !closed_) arm_deadline_timer(deadlines_.top().at);
    }

    void expire(std::unordered_map<std::uint64_t, pending_call>::iterator it) {
        const std::uint64_t id = it->first;
        auto node = pending_.extract(it);
        pending_call& p = node.mapped();
        call_result r = make_result(id, std::move(p.method), std::move(p.tool), p.sent_at);
        r.progress_notifications = p.progress;
        const auto ms = [](auto d) { return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count()); };
        if (p.deadline_is_session) {
            r.outcome = outcome::timeout;
            r.message = session_deadline_message();
        } else if (p.in_grace) {
            r.outcome = outcome::deadlock;
            r.message = "no reply to " + r.describe_call() + " within its timeout (" + ms(p.timeout) +
                        " ms) plus grace period (" + ms(p.grace) +
                        " ms); the server looks deadlocked. Hint: dump its threads (py-spy dump / gdb) "
                        "while it is stuck; lazy initialisation on the first call is a common cause.";
        } else {
            r.outcome = outcome::hang;
            r.message = "no reply to " + r.describe_call() + " within " + ms(p.timeout) +
                        " ms. Hint: raise call_options.timeout if the tool is legitimately slow; "
                        "set call_options.grace to tell a slow server from a deadlocked one.";
        }
        if (p.cancel_on_timeout) send_cancelled(id, "timed out after " + ms(clock::now() - p.sent_at) + " ms");
        remember_expired(id, p);
        p.completion.complete(std::move(r));
    }

    void remember_expired(std::uint64_t id, const pending_call& p) {
        // Kept so a reply arriving later is recognised as late, not unknown.
        expired_.emplace(id, expired_call{p.method, p.tool, p.sent_at});
        expired_order_.push_back(id);
        if (expired_order_.size() > 4096) {
            expired_.erase(expired_order_.front());
            expired_order_.pop_front();
        }
    }

    void send_cancelled(std::uint64_t id, std::string_view reason) {
        std::string params = R"({"requestId":)";
        append_uint(params, id);
        params += R"(,"reason":)";
        append_json_string(params, reason);
        params += '}';
        send_notification("notifications/cancelled", params);
    }

    // ---- writing ---------------------------------------------------------

    void write(std::string_view bytes) {
        if (write_broken_ || !stdin_.is_open()) return;
        outbox_.append(bytes.data(), bytes.size());
        // While a batch of replies is being dispatched, the requests their
        // callers send next are gathered and written once, after the batch.
        if (!write_in_flight_ && !corked_) flush();
    }

    void flush() {
        writing_.swap(outbox_);
        outbox_.clear();
        write_in_flight_ = true;
        asio::async_write(stdin_, asio::buffer(writing_),
                          [self = shared_from_this()](const asio::error_code& ec, std::size_t n) {
                              self->on_written(ec, n);
                          });
    }

    void on_written(const asio::error_code& ec, std::size_t n) {
        write_in_flight_ = false;
        stats_.bytes_written += n;
        writing_.clear();
        if (ec) {
            if (ec != asio::error::operation_aborted && !exited_ && !closing_) {
                // EPIPE while running: it closed stdin. Replies may still come; timeouts bound the rest.
                record_violation(protocol_violation::kind::stdin_closed,
                                 "the server closed its stdin while still running (" + ec.message() + ")", 0);
            }
            write_broken_ = true;
            outbox_.clear();
            return;
        }
        if (!outbox_.empty() && stdin_.is_open()) flush();
    }

    // ---- reading ---------------------------------------------------------

    void start_read() {
        if (read_end_ == read_buffer_.size()) {
            // Compact, then grow up to what one maximal message needs.
            if (read_begin_ > 0) {
                std::memmove(read_buffer_.data(), read_buffer_.data() + read_begin_, read_end_ - read_begin_);
                read_end_ -= read_begin_;
                scan_from_ -= read_begin_;
                read_begin_ = 0;
            }
            if (read_end_ == read_buffer_.size())
                read_buffer_.resize(std::min(read_buffer_.size() * 2, server_.max_message_size + 64 * 1024));
        }
        stdout_.async_read_some(
            asio::buffer(read_buffer_.data() + read_end_, read_buffer_.size() - read_end_),
            [self = shared_from_this()](const asio::error_code& ec, std::size_t n) { self->on_read(ec, n); });
    }

    void on_read(const asio::error_code& ec, std::size_t n) {
        if (closed_) return;
        stats_.bytes_read += n;
        read_end_ += n;
        {
            // Requests sent by callers resumed in this batch are written once, after it.
            corked_ = true;
            struct uncork {
                bool& corked;
                ~uncork() { corked = false; }
            } guard{corked_};
            process_buffer();
        }
        if (closed_) return;
        if (!outbox_.empty() && !write_in_flight_ && !write_broken_ && stdin_.is_open()) flush();
        if (ec) {
            if (ec == asio::error::operation_aborted) return;
            // EOF (or a read error): a final unterminated line still counts.
            if (!discarding_ && read_end_ > read_begin_) {
                const std::string_view last(read_buffer_.data() + read_begin_, read_end_ - read_begin_);
                read_begin_ = read_end_ = scan_from_ = 0;
                handle_line(last);
            }
            on_stdout_closed();
            return;
        }
        if (read_begin_ == read_end_) read_begin_ = read_end_ = scan_from_ = 0;
        start_read();
    }

    void process_buffer() {
        const std::size_t max = server_.max_message_size;
        while (!closed_) {
            char* base = read_buffer_.data();
            if (discarding_) {
                auto* nl = static_cast<char*>(std::memchr(base + read_begin_, '\n', read_end_ - read_begin_));
                if (!nl) {
                    discarded_ += read_end_ - read_begin_;
                    read_begin_ = read_end_ = scan_from_ = 0;
                    return;
                }
                discarded_ += static_cast<std::size_t>(nl - (base + read_begin_));
                read_begin_ = scan_from_ = static_cast<std::size_t>(nl - base) + 1;
                discarding_ = false;
                finish_oversized();
                continue;
            }
            auto* nl = static_cast<char*>(std::memchr(base + scan_from_, '\n', read_end_ - scan_from_));
            if (!nl) {
                scan_from_ = read_end_;
                if (read_end_ - read_begin_ > max) begin_oversized();
                return;
            }
            const std::size_t line_end = static_cast<std::size_t>(nl - base);
            const std::string_view line(base + read_begin_, line_end - read_begin_);
            read_begin_ = scan_from_ = line_end + 1;
            if (line.size() > max) {
                oversized_prefix_.assign(line.substr(0, 4096));
                discarded_ = line.size();
                finish_oversized();
                continue;
            }
            handle_line(line);
        }
    }

    void begin_oversized() {
        oversized_prefix_.assign(read_buffer_.data() + read_begin_, std::min<std::size_t>(4096, read_end_ - read_begin_));
        discarded_ = read_end_ - read_begin_;
        discarding_ = true;
        read_begin_ = read_end_ = scan_from_ = 0;
        if (read_buffer_.size() > 256 * 1024) {
            read_buffer_.resize(64 * 1024);
            read_buffer_.shrink_to_fit();
        }
        fail_oversized_call("at least ");  // do not make the caller wait for the end of the line
    }

    // The line is gone; its start may still name the request it answered.
    void finish_oversized() {
        record_violation(protocol_violation::kind::oversized_message, oversized_prefix_, discarded_);
        fail_oversized_call("");
        oversized_prefix_.clear();
        discarded_ = 0;
    }

    void fail_oversized_call(const char* qualifier) {
        const envelope env = envelope_scanner::scan(oversized_prefix_);
        if (!env.id_is_integer || env.method.present()) return;
        auto it = pending_.find(env.id_value);
        if (it == pending_.end()) return;
        finish_pending(it, outcome::malformed,
                       "the reply was " + std::string(qualifier) + std::to_string(discarded_) +
                           " bytes, over stdio_server.max_message_size (" +
                           std::to_string(server_.max_message_size) +
                           " bytes); it was discarded and the session continues. Hint: raise max_message_size "
                           "if replies this large are intended.",
                       {}, {}, 0);
    }

    void handle_line(std::string_view line) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.remove_suffix(1);
        std::size_t first = 0;
        while (first < line.size() && (line[first] == ' ' || line[first] == '\t')) ++first;
        line.remove_prefix(first);
        if (line.empty()) return;

        const envelope env = envelope_scanner::scan(line);
        if (!env.valid) {
            if (env.is_object && env.id_is_integer && !env.method.present()) {
                if (auto it = pending_.find(env.id_value); it != pending_.end()) {
                    finish_pending(it, outcome::malformed,
                                   "the reply is not valid JSON (syntax error at byte " +
                                       std::to_string(env.error_offset) + " of " + std::to_string(line.size()) +
                                       "): \"" + truncate_for_message(line, 200) + "\"",
                                   {}, {}, 0);
                    return;
                }
            }
            record_violation(protocol_violation::kind::non_json_line, line, line.size());
            return;
        }
        if (!env.is_object) {
            record_violation(line.front() == '[' ? protocol_violation::kind::batch
                                                 : protocol_violation::kind::not_jsonrpc,
                             line, line.size());
            return;
        }
        if (env.method.present()) {
            if (env.id.present()) handle_server_request(env, line);
            else handle_notification(env, line);
            return;
        }
        if (!env.id.present() || !env.id_is_integer) {
            record_violation(protocol_violation::kind::not_jsonrpc, line, line.size());
            return;
        }
        auto it = pending_.find(env.id_value);
        if (it == pending_.end()) {
            if (auto late = expired_.find(env.id_value); late != expired_.end()) {
                ++stats_.late_replies;
                if (late_replies_.size() < 10000)
                    late_replies_.push_back({env.id_value, late->second.method, late->second.tool,
                                             clock::now() - late->second.sent_at});
                expired_.erase(late);
            } else {
                record_violation(protocol_violation::kind::unknown_response, line, line.size());
            }
            return;
        }
        ++stats_.replies_received;
        if (!env.jsonrpc_20) {
            finish_pending(it, outcome::malformed,
                           "the reply lacks \"jsonrpc\":\"2.0\": \"" + truncate_for_message(line, 200) + "\"",
                           line, {}, 0);
        } else if (env.error.present()) {
            std::int64_t code = 0;
            std::string msg;
            try {
                const json e = json::parse(env.error.in(line));
                code = e.value("code", std::int64_t{0});
                msg = e.value("message", std::string{});
            } catch (const std::exception&) {
            }
            const outcome o = classify_error_code(code);
            finish_pending(it, o,
                           "the server answered with JSON-RPC error " + std::to_string(code) + ": " + msg,
                           line, env.error, code);
        } else if (env.result.present()) {
            if (!env.result_is_object) {
                finish_pending(it, outcome::malformed,
                               "the reply's result is not a JSON object: \"" +
                                   truncate_for_message(env.result.in(line), 200) + "\"",
                               line, env.result, 0);
            } else if (env.result_is_error_flagged && it->second.method == "tools/call") {
                finish_pending(it, outcome::tool_error, "the tool reported an error (isError: true)", line,
                               env.result, 0);
            } else {
                finish_pending(it, outcome::ok, {}, line, env.result, 0);
            }
        } else {
            finish_pending(it, outcome::malformed,
                           "the reply has neither \"result\" nor \"error\": \"" +
                               truncate_for_message(line, 200) + "\"",
                           line, {}, 0);
        }
    }

    void finish_pending(std::unordered_map<std::uint64_t, pending_call>::iterator it, outcome o,
                        std::string message, std::string_view line, span payload, std::int64_t code) {
        const std::uint64_t id = it->first;
        auto node = pending_.extract(it);
        pending_call& p = node.mapped();
        call_result r = make_result(id, std::move(p.method), std::move(p.tool), p.sent_at);
        r.progress_notifications = p.progress;
        r.error_code = code;
        r.raw.assign(line);
        r.payload_begin = payload.begin;
        r.payload_size = payload.size;
        if (p.in_grace && o == outcome::ok) {
            // Answered, but only during the grace period: slow enough to be a hang.
            r.outcome = outcome::hang;
            r.message = "the reply came after the timeout (" + std::to_string(p.timeout.count()) +
                        " ms), during the grace period";
        } else {
            r.outcome = o;
            r.message = std::move(message);
        }
        p.completion.complete(std::move(r));
        recycle(std::move(node));
    }

    void recycle(std::unordered_map<std::uint64_t, pending_call>::node_type&& node) {
        if (free_nodes_.size() < 256) free_nodes_.push_back(std::move(node));
    }

    void handle_notification(const envelope& env, std::string_view line) {
        ++stats_.notifications_received;
        notification n;
        n.method.assign(env.method.in(line));
        n.received_at = clock::now();
        if (env.params.present()) {
            try {
                n.params = json::parse(env.params.in(line));
            } catch (const std::exception&) {
            }
        }
        if (n.method == "notifications/progress" && n.params.is_object()) {
            const auto token = n.params.find("progressToken");
            if (token != n.params.end() && token->is_number_unsigned()) {
                if (auto it = pending_.find(token->get<std::uint64_t>()); it != pending_.end())
                    ++it->second.progress;
            }
        }
        if (options_.on_notification) options_.on_notification(n);
        if (options_.notification_history > 0) {
            if (notifications_.size() >= options_.notification_history) notifications_.pop_front();
            notifications_.push_back(std::move(n));
        }
    }

    void handle_server_request(const envelope& env, std::string_view line) {
        const std::string method(env.method.in(line));
        json params = json::object();
        if (env.params.present()) {
            try {
                params = json::parse(env.params.in(line));
            } catch (const std::exception&) {
            }
        }
        std::string reply = R"({"jsonrpc":"2.0","id":)";
        reply += env.id.in(line);
        const auto error_reply = [&reply](std::int64_t code, std::string_view message) {
            reply += R"(,"error":{"code":)";
            reply += std::to_string(code);
            reply += R"(,"message":)";
            append_json_string(reply, message);
            reply += "}}\n";
        };
        const auto result_reply = [&reply](const json& result) {
            reply += R"(,"result":)";
            reply += result.dump();
            reply += "}\n";
        };
        try {
            if (auto h = options_.request_handlers.find(method); h != options_.request_handlers.end() && h->second) {
                result_reply(h->second(params));
            } else if (method == "ping") {
                result_reply(json::object());
            } else if (method == "roots/list" && (options_.declare_roots || !options_.roots.empty())) {
                json roots = json::array();
                for (const auto& r : options_.roots) {
                    json item{{"uri", r.uri}};
                    if (!r.name.empty()) item["name"] = r.name;
                    roots.push_back(std::move(item));
                }
                result_reply(json{{"roots", roots}});
            } else {
                error_reply(-32601, "Method not found: this client has no handler for " + method +
                                        " (mcp-loadtest: install one in client_options.request_handlers)");
            }
        } catch (const rpc_error& e) {
            error_reply(e.code(), e.what());
        } catch (const std::exception& e) {
            error_reply(-32603, std::string("Internal error in the client's handler: ") + e.what());
        }
        ++stats_.server_requests_answered;
        write(reply);
    }

    void record_violation(protocol_violation::kind k, std::string_view text, std::size_t size) {
        ++stats_.protocol_violations;
        if (violations_.size() >= 100) return;
        violations_.push_back({k, truncate_for_message(text), size ? size : text.size(), clock::now() - started_at_});
    }

    // ---- stderr pump (capture to memory / tee) ---------------------------

    void start_stderr_read() {
        stderr_.async_read_some(asio::buffer(stderr_chunk_),
                                [self = shared_from_this()](const asio::error_code& ec, std::size_t n) {
                                    self->on_stderr(ec, n);
                                });
    }

    void on_stderr(const asio::error_code& ec, std::size_t n) {
        if (n > 0) {
            const char* data = stderr_chunk_.data();
            if (server_.stderr_to == stderr_mode::tee) write_all(STDERR_FILENO, data, n);
            if (stderr_file_) write_all(stderr_file_.get(), data, n);
            stderr_tail_.append(data, n);
            const std::size_t cap = std::max<std::size_t>(server_.stderr_tail_bytes, 1);
            if (stderr_tail_.size() > 2 * cap) stderr_tail_.erase(0, stderr_tail_.size() - cap);
        }
        if (ec || closed_) return;
        start_stderr_read();
    }

    static void write_all(int fd, const char* data, std::size_t n) noexcept {
        while (n > 0) {
            const ssize_t w = ::write(fd, data, n);
            if (w < 0) {
                if (errno == EINTR) continue;
                return;  // best effort: a full disk must not break the session
            }
            data += w;
            n -= static_cast<std::size_t>(w);
        }
    }

    // ---- process exit ----------------------------------------------------

    void watch_exit() {
        if (pidfd_.is_open()) {
            pidfd_.async_wait(asio::posix::stream_descriptor::wait_read,
                              [self = shared_from_this()](const asio::error_code& ec) {
                                  if (ec == asio::error::operation_aborted || self->closed_) return;
                                  self->check_exit();
                              });
        } else {
            // No pidfd (kernel < 5.3): poll.
            poll_timer_.emplace(ex_);
            poll_timer_->expires_after(10ms);
            poll_timer_->async_wait([self = shared_from_this()](const asio::error_code& ec) {
                if (ec == asio::error::operation_aborted || self->closed_) return;
                self->check_exit();
            });
        }
    }

    void check_exit() {
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
            arm_settle_timer(100ms);
        }
    }

    void on_stdout_closed() {
        stdout_eof_ = true;
        if (exited_) {
            settle();
        } else {
            // Usually the exit follows at once; if not, the server closed stdout and lives on.
            arm_settle_timer(500ms);
        }
    }

    void arm_settle_timer(std::chrono::milliseconds d) {
        settle_timer_.expires_after(d);
        settle_timer_.async_wait([self = shared_from_this()](const asio::error_code& ec) {
            if (ec == asio::error::operation_aborted || self->closed_) return;
            self->settle();
        });
    }

    // The server is gone (exited) or unreachable (stdout closed): fail everything in flight.
    void settle() {
        if (dead_) return;
        dead_ = true;
        settle_timer_.cancel();
        if (exited_) {
            dead_outcome_ = outcome::crash;
            dead_message_ = "the server " + exit_.describe() + (closing_ ? "" : " while the call was in flight") + ".";
            if (!reaped_) {
                reap(pid_);
                reaped_ = true;
            }
        } else {
            dead_outcome_ = outcome::disconnected;
            dead_message_ = "the server closed its stdout but is still running (pid " + std::to_string(pid_) +
                            "); no reply can arrive.";
        }
        if (!closing_) dead_message_ += stderr_hint();
        fail_all_pending(dead_outcome_, dead_message_, false);
    }

    void fail_all_pending(outcome o, const std::string& message, bool deferred) {
        auto pending = std::move(pending_);
        pending_.clear();
        std::vector<std::pair<std::uint64_t, pending_call>> ordered;
        ordered.reserve(pending.size());
        for (auto& [id, p] : pending) ordered.emplace_back(id, std::move(p));
        std::sort(ordered.begin(), ordered.end(), [](auto& a, auto& b) { return a.first < b.first; });
        for (auto& [id, p] : ordered) {
            call_result r = make_result(id, std::move(p.method), std::move(p.tool), p.sent_at);
            r.outcome = o;
            r.message = message;
            r.progress_notifications = p.progress;
            if (deferred) p.completion.post(std::move(r));
            else p.completion.complete(std::move(r));
        }
    }

    asio::awaitable<void> wait_for_exit_or(std::chrono::milliseconds d) {
        if (exited_) co_return;
        exit_event_.expires_after(d);
        asio::error_code ec;
        co_await exit_event_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
        if (!exited_ && !pidfd_.is_open()) check_exit();  // polling fallback
    }

    void release_descriptors() noexcept {
        asio::error_code ignored;
        stdin_.close(ignored);
        stdout_.close(ignored);
        stderr_.close(ignored);
        pidfd_.close(ignored);
        deadline_timer_.cancel();
        exit_event_.cancel();
        settle_timer_.cancel();
        if (poll_timer_) poll_timer_->cancel();
    }

    asio::any_io_executor ex_;
    stdio_server server_;
    client_options options_;
    asio::posix::stream_descriptor stdin_, stdout_, stderr_, pidfd_;
    asio::steady_timer deadline_timer_;
    asio::steady_timer exit_event_;   // cancelled when the child exits: a one-shot event
    asio::steady_timer settle_timer_;
    std::optional<asio::steady_timer> poll_timer_;
    clock::time_point started_at_;
    std::optional<clock::time_point> session_deadline_;

    pid_t pid_ = -1;
    exit_status exit_;
    bool exited_ = false, reaped_ = false, stdout_eof_ = false;
    bool dead_ = false, closing_ = false, closed_ = false;
    outcome dead_outcome_ = outcome::crash;
    std::string dead_message_;

    std::uint64_t last_id_ = 0;
    std::unordered_map<std::uint64_t, pending_call> pending_;
    std::vector<std::unordered_map<std::uint64_t, pending_call>::node_type> free_nodes_;
    std::priority_queue<deadline_entry, std::vector<deadline_entry>, std::greater<>> deadlines_;
    clock::time_point armed_for_ = clock::time_point::max();
    std::uint64_t deadline_generation_ = 0;
    std::unordered_map<std::uint64_t, expired_call> expired_;
    std::deque<std::uint64_t> expired_order_;

    std::string outbox_, writing_;
    bool write_in_flight_ = false, write_broken_ = false, corked_ = false;

    std::vector<char> read_buffer_;
    std::size_t read_begin_ = 0, read_end_ = 0, scan_from_ = 0;
    bool discarding_ = false;
    std::size_t discarded_ = 0;
    std::string oversized_prefix_;

    std::array<char, 8192> stderr_chunk_{};
    std::string stderr_tail_;
    unique_fd stderr_file_;

    session_stats stats_;
    std::deque<notification> notifications_;
    std::vector<protocol_violation> violations_;
    std::vector<late_reply> late_replies_;
};

}  // namespace mcp_loadtest::detail
