// Starting a network server for a test: spawn it, wait until it is ready,
// stop it with the same bounded sequence as a stdio server (close stdin,
// SIGTERM, SIGKILL, reap the process group).
//
//     auto proc = co_await mlt::launch(mlt::stdio_server{"node", {"dist/index.js", "streamableHttp"},
//                                                        {{"PORT", "3001"}}},
//                                       mlt::launch_options{.url = "http://127.0.0.1:3001/mcp"});
//     auto report = co_await mlt::run(mlt::http_server{proc.url()}, load, calls);
//     co_await proc.close();
#pragma once

#include <mcp_loadtest/detail/net_connect.hpp>
#include <mcp_loadtest/detail/socket_transport.hpp>
#include <mcp_loadtest/detail/stdio_transport.hpp>
#include <mcp_loadtest/detail/url.hpp>
#include <mcp_loadtest/server.hpp>
#include <mcp_loadtest/session_info.hpp>

#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>

namespace mcp_loadtest {

/// When a launched server counts as ready.
struct launch_options {
    /// Ready when the server prints a stdout line starting with this prefix;
    /// the rest of the line is its URL (mcp-loadtest's fixtures print
    /// "MCP_LOADTEST_LISTENING http://127.0.0.1:port/mcp"). Used when `url` is empty.
    std::string url_line_prefix = "MCP_LOADTEST_LISTENING ";
    /// A known URL: ready once its host and port accept a TCP connection.
    std::string url{};
    std::chrono::milliseconds ready_timeout = std::chrono::seconds(10);
};

/// Thrown by launch() when the server exits or is not ready in time.
class launch_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

namespace detail {
class launch_watch final : public transport_events {
public:
    explicit launch_watch(asio::any_io_executor ex, std::string prefix) : event(ex), prefix_(std::move(prefix)) {}
    void on_message(std::string_view text, int) override {
        if (!url.empty() || prefix_.empty() || text.substr(0, prefix_.size()) != prefix_) return;
        url.assign(text.substr(prefix_.size()));
        while (!url.empty() && (url.back() == ' ' || url.back() == '\r')) url.pop_back();
        event.cancel();
    }
    void on_oversized(std::string_view, std::size_t, bool, std::string_view) override {}
    void on_violation(protocol_violation::kind, std::string_view, std::size_t) override {}
    void on_request_failed(std::uint64_t, outcome, const std::string&, int) override {}
    [[nodiscard]] bool is_pending(std::uint64_t) const override { return false; }
    void on_transport_down(outcome, const std::string& message) override {
        down = message;
        event.cancel();
    }
    asio::steady_timer event;
    std::string url;
    std::string down;
    session_stats stats;  // here, on the heap: the transport keeps a pointer to it

private:
    std::string prefix_;
};
}  // namespace detail

/// A running server process started by launch(). Dropping it without close()
/// SIGKILLs and reaps its process group.
class server_process {
public:
    server_process() = default;
    server_process(server_process&&) noexcept = default;
    server_process& operator=(server_process&& o) noexcept {
        if (this != &o) {
            if (wire_) wire_->abort_now();
            wire_ = std::move(o.wire_);
            watch_ = std::move(o.watch_);
            url_ = std::move(o.url_);
        }
        return *this;
    }
    ~server_process() {
        if (wire_) {
            wire_->abort_now();
            wire_->detach();
        }
    }

    [[nodiscard]] const std::string& url() const noexcept { return url_; }
    [[nodiscard]] pid_t pid() const noexcept { return wire_ ? wire_->pid() : -1; }
    [[nodiscard]] bool alive() const noexcept { return wire_ && wire_->alive(); }
    [[nodiscard]] std::string stderr_tail(std::size_t max_bytes = 4096) const {
        return wire_ ? wire_->stderr_tail(max_bytes) : std::string();
    }

    /// Bounded stop: close stdin, SIGTERM, SIGKILL, reap. Safe to call twice.
    asio::awaitable<shutdown_result> close() {
        if (!wire_) co_return shutdown_result{};
        auto keep = wire_;
        co_return co_await keep->close();
    }

private:
    friend struct launcher;
    std::shared_ptr<detail::stdio_transport> wire_;
    std::unique_ptr<detail::launch_watch> watch_;  // heap: the transport points at it
    std::string url_;
};

namespace detail {
struct launch_job {
    stdio_server command{};
    launch_options options{};
};
}  // namespace detail

struct launcher {
    static asio::awaitable<server_process> start(std::shared_ptr<detail::launch_job> job) {
        auto ex = co_await asio::this_coro::executor;
        server_process proc;
        const std::string who = "server `" + job->command.command_line() + "`";
        proc.watch_ = std::make_unique<detail::launch_watch>(ex, job->options.url.empty() ? job->options.url_line_prefix
                                                                                         : std::string());
        proc.wire_ = std::make_shared<detail::stdio_transport>(ex, std::move(job->command));
        co_await proc.wire_->open(*proc.watch_, proc.watch_->stats);
        const auto deadline = std::chrono::steady_clock::now() + job->options.ready_timeout;
        auto& w = *proc.watch_;
        const auto failed = [&](const std::string& why) {
            throw launch_error(who + " " + why + proc.wire_->failure_hint());
        };
        if (job->options.url.empty()) {
            w.event.expires_at(deadline);
            asio::error_code ec;
            co_await w.event.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            if (w.url.empty()) {
                if (!w.down.empty()) failed("exited before it was ready: " + w.down);
                failed("printed no \"" + job->options.url_line_prefix + "<url>\" line within " +
                       std::to_string(job->options.ready_timeout.count()) +
                       " ms. Hint: give launch_options.url when the server does not print its address.");
            }
            proc.url_ = w.url;
        } else {
            std::string error;
            const auto u = detail::parse_url(job->options.url, &error);
            if (!u) failed("cannot be waited for: " + error);
            for (;;) {
                // Named first: GCC 12 mis-relocates temporaries with strings inside co_await.
                auto connecting = detail::await_connect([ex, host = u->host, port = u->port_text](
                                                            detail::connect_handler h) {
                    detail::async_connect_tcp(ex, host, port, std::chrono::milliseconds(500), std::move(h));
                });
                auto [fd, why] = co_await std::move(connecting);
                if (fd >= 0) {
                    ::close(fd);
                    break;
                }
                if (!w.down.empty()) failed("exited before it was ready: " + w.down);
                if (std::chrono::steady_clock::now() >= deadline)
                    failed("did not accept connections on " + u->redacted() + " within " +
                           std::to_string(job->options.ready_timeout.count()) + " ms (" + why + ")");
                asio::steady_timer pause(ex);
                pause.expires_after(std::chrono::milliseconds(20));
                asio::error_code ignored;
                co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ignored));
            }
            proc.url_ = job->options.url;
        }
        co_return proc;
    }
};

/// Starts `command` and waits until it is ready (see launch_options). Throws
/// spawn_error when it cannot start and launch_error when it exits or is not
/// ready in time.
inline asio::awaitable<server_process> launch(stdio_server command, launch_options options) {
    return launcher::start(std::make_shared<detail::launch_job>(std::move(command), std::move(options)));
}
inline asio::awaitable<server_process> launch(stdio_server command) {
    return launch(std::move(command), launch_options{});
}

}  // namespace mcp_loadtest
