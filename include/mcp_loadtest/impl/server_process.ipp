// Definitions of server_process.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/server_process.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void launch_watch::on_message(std::string_view text, int) {
    if (!url.empty() || prefix_.empty() || text.substr(0, prefix_.size()) != prefix_) return;
    url.assign(text.substr(prefix_.size()));
    while (!url.empty() && (url.back() == ' ' || url.back() == '\r')) url.pop_back();
    event.cancel();
}

MCP_LOADTEST_DECL void launch_watch::on_transport_down(outcome, const std::string& message) {
    down = message;
    event.cancel();
}

}  // namespace mcp_loadtest::detail

namespace mcp_loadtest {

MCP_LOADTEST_DECL server_process& server_process::operator=(server_process&& o) noexcept {
    if (this != &o) {
        if (wire_) wire_->abort_now();
        wire_ = std::move(o.wire_);
        watch_ = std::move(o.watch_);
        url_ = std::move(o.url_);
    }
    return *this;
}

MCP_LOADTEST_DECL server_process::~server_process() {
    if (wire_) {
        wire_->abort_now();
        wire_->detach();
    }
}

MCP_LOADTEST_DECL std::string server_process::stderr_tail(std::size_t max_bytes) const {
    return wire_ ? wire_->stderr_tail(max_bytes) : std::string();
}

MCP_LOADTEST_DECL asio::awaitable<shutdown_result> server_process::close() {
    if (!wire_) co_return shutdown_result{};
    auto keep = wire_;
    co_return co_await keep->close();
}

MCP_LOADTEST_DECL asio::awaitable<server_process> launcher::start(std::shared_ptr<detail::launch_job> job) {
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
            detail::connect_result connected = co_await std::move(connecting);
            if (connected.socket) break;  // closed as it goes out of scope
            const std::string& why = connected.error;
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

MCP_LOADTEST_DECL asio::awaitable<server_process> launch(stdio_server command, launch_options options) {
    return launcher::start(std::make_shared<detail::launch_job>(std::move(command), std::move(options)));
}

MCP_LOADTEST_DECL asio::awaitable<server_process> launch(stdio_server command) {
    return launch(std::move(command), launch_options{});
}

}  // namespace mcp_loadtest
