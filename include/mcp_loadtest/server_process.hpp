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

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/transport/net_connect.hpp>
#include <mcp_loadtest/detail/transport/socket_transport.hpp>
#include <mcp_loadtest/detail/transport/stdio_transport.hpp>
#include <mcp_loadtest/detail/wire/url.hpp>
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
    MCP_LOADTEST_DECL void on_message(std::string_view text, int) override;
    void on_oversized(std::string_view, std::size_t, bool, std::string_view) override {}
    void on_violation(protocol_violation::kind, std::string_view, std::size_t) override {}
    void on_request_failed(std::uint64_t, outcome, const std::string&, int) override {}
    [[nodiscard]] bool is_pending(std::uint64_t) const override { return false; }
    MCP_LOADTEST_DECL void on_transport_down(outcome, const std::string& message) override;
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
    MCP_LOADTEST_DECL server_process& operator=(server_process&& o) noexcept;
    MCP_LOADTEST_DECL ~server_process();

    [[nodiscard]] const std::string& url() const noexcept { return url_; }
    [[nodiscard]] pid_t pid() const noexcept { return wire_ ? wire_->pid() : -1; }
    [[nodiscard]] bool alive() const noexcept { return wire_ && wire_->alive(); }
    [[nodiscard]] MCP_LOADTEST_DECL std::string stderr_tail(std::size_t max_bytes = 4096) const;

    /// Bounded stop: close stdin, SIGTERM, SIGKILL, reap. Safe to call twice.
    MCP_LOADTEST_DECL asio::awaitable<shutdown_result> close();

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
    MCP_LOADTEST_DECL static asio::awaitable<server_process> start(std::shared_ptr<detail::launch_job> job);
};

/// Starts `command` and waits until it is ready (see launch_options). Throws
/// spawn_error when it cannot start and launch_error when it exits or is not
/// ready in time.
MCP_LOADTEST_DECL asio::awaitable<server_process> launch(stdio_server command, launch_options options);
MCP_LOADTEST_DECL asio::awaitable<server_process> launch(stdio_server command);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/server_process.ipp>
#endif
