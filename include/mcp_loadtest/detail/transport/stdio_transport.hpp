// The stdio transport: a child process leading a group of its own, JSON-RPC
// lines on its stdin/stdout, stderr captured as configured, its exit watched
// as it happens, and a bounded shutdown in three steps (close stdin; ask its
// group to end: SIGTERM, or a console break on Windows; kill the group), then
// reap. The operating system is reached through detail/os/.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/clock.hpp>
#include <mcp_loadtest/detail/os/child_process.hpp>
#include <mcp_loadtest/detail/os/command_lookup.hpp>
#include <mcp_loadtest/detail/os/pipe_stream.hpp>
#include <mcp_loadtest/detail/os/sigpipe.hpp>
#include <mcp_loadtest/detail/transport/line_transport.hpp>
#include <mcp_loadtest/detail/text/interpreter_text.hpp>
#include <mcp_loadtest/detail/text/truncate_for_message.hpp>
#include <mcp_loadtest/process_audit.hpp>
#include <mcp_loadtest/server.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

namespace mcp_loadtest::detail {

class stdio_transport final : public line_transport {
public:
    stdio_transport(asio::any_io_executor ex, stdio_server server)
        : line_transport(ex, server.max_message_size, server.max_send_queue),
          server_(std::move(server)),
          stdout_(ex_),
          stdin_(ex_),
          stderr_(ex_),
          exit_watch_(ex_),
          exit_event_(ex_),
          settle_timer_(ex_) {}

    ~stdio_transport() override { abort_now(); }

    MCP_LOADTEST_DECL asio::awaitable<void> open(transport_events& events, session_stats& stats) override;

    MCP_LOADTEST_DECL asio::awaitable<shutdown_result> close() override;

    MCP_LOADTEST_DECL void abort_now() noexcept override;

    [[nodiscard]] std::string_view kind() const noexcept override { return "stdio"; }
    [[nodiscard]] std::string describe() const override { return "server `" + server_.command_line() + "`"; }
    [[nodiscard]] std::chrono::milliseconds startup_timeout() const override { return server_.startup_timeout; }
    [[nodiscard]] pid_t pid() const noexcept override { return pid_; }
    [[nodiscard]] bool alive() const noexcept override { return pid_ > 0 && !exited_; }
    [[nodiscard]] const exit_status& exit() const noexcept override { return exit_; }
    [[nodiscard]] const stdio_server& server() const noexcept { return server_; }

    /// The end of the server's stderr, when captured (memory tail or file).
    [[nodiscard]] MCP_LOADTEST_DECL std::string stderr_tail(std::size_t max) const override;

    /// A hint pointing at the server's stderr, for error messages.
    [[nodiscard]] MCP_LOADTEST_DECL std::string failure_hint() const override;

    /// A Python server without -u or PYTHONUNBUFFERED: its replies may wait in its stdout buffer.
    [[nodiscard]] MCP_LOADTEST_DECL std::string unanswered_hint() const override;

private:
    MCP_LOADTEST_DECL void start();

    MCP_LOADTEST_DECL void open_stderr_file();

    MCP_LOADTEST_DECL void on_write_error(const asio::error_code& ec) override;

    MCP_LOADTEST_DECL void on_read_end(const asio::error_code&) override;

    // The server's stdout is read, its stdin written.
    void read_some(asio::mutable_buffer into, read_done done) override {
        stdout_.async_read_some(into, std::move(done));
    }
    void write_all(asio::const_buffer bytes, write_done done) override {
        asio::async_write(stdin_, bytes, std::move(done));
    }
    std::size_t try_write(asio::const_buffer bytes, asio::error_code& ec) override {
        return write_now(stdin_, bytes, ec);
    }
    [[nodiscard]] bool writable() const noexcept override { return stdin_.is_open(); }

    // ---- stderr pump (capture to memory / tee) ---------------------------

    MCP_LOADTEST_DECL void start_stderr_read();

    MCP_LOADTEST_DECL void on_stderr(const asio::error_code& ec, std::size_t n);

    // ---- process exit ----------------------------------------------------

    MCP_LOADTEST_DECL std::shared_ptr<stdio_transport> shared_self();

    MCP_LOADTEST_DECL void watch_exit();

    MCP_LOADTEST_DECL void check_exit();

    MCP_LOADTEST_DECL void arm_settle_timer(std::chrono::milliseconds d);

    // The server is gone (exited) or unreachable (stdout closed): fail everything in flight.
    MCP_LOADTEST_DECL void settle();

    MCP_LOADTEST_DECL asio::awaitable<void> wait_for_exit_or(std::chrono::milliseconds d);

    MCP_LOADTEST_DECL void release_descriptors() noexcept;

    stdio_server server_;
    pipe_stream stdout_, stdin_, stderr_;
    exit_watcher exit_watch_;
    asio::steady_timer exit_event_;  // cancelled when the child exits: a one-shot event
    asio::steady_timer settle_timer_;

    pid_t pid_ = -1;
    exit_status exit_;
    bool exited_ = false, reaped_ = false, stdout_eof_ = false;
    bool settled_ = false, closing_ = false, closed_ = false;

    std::array<char, 8192> stderr_chunk_{};
    std::string stderr_tail_;
    std::ofstream stderr_file_;  // tee to a file: the pump writes it
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/stdio_transport.ipp>
#endif
