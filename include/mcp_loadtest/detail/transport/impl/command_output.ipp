// Definitions of detail/transport/command_output.hpp (header-only: included by it;
// separate compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/command_output.hpp>

#include <mcp_loadtest/detail/transport/stdio_transport.hpp>

namespace mcp_loadtest::detail {

namespace command_run {

// Collects the lines; wakes the runner when the process is gone.
class collector final : public transport_events {
public:
    explicit collector(asio::any_io_executor ex) : event(ex) {}
    void on_message(std::string_view text, int) override {
        if (out.size() < 4096) out.append(text.substr(0, 4096 - out.size())).append("\n");
    }
    void on_oversized(std::string_view prefix, std::size_t, bool, std::string_view) override { on_message(prefix, 0); }
    void on_violation(protocol_violation::kind, std::string_view, std::size_t) override {}
    void on_request_failed(std::uint64_t, outcome, const std::string&, int) override {}
    [[nodiscard]] bool is_pending(std::uint64_t) const override { return false; }
    void on_transport_down(outcome, const std::string&) override {
        down = true;
        event.cancel();
    }
    asio::steady_timer event;
    std::string out;
    bool down = false;
    session_stats stats;  // here, on the heap: the transport keeps a pointer to it
};

}  // namespace command_run

MCP_LOADTEST_DECL asio::awaitable<command_output> run_to_end(std::shared_ptr<stdio_server> command,
                                                             std::chrono::milliseconds bound) {
    auto ex = co_await asio::this_coro::executor;
    command_output result;
    command->stderr_to = stderr_mode::capture;
    command->stderr_path.clear();
    command->stderr_tail_bytes = 4096;
    command->shutdown = {std::chrono::milliseconds(200), std::chrono::milliseconds(200), std::chrono::seconds(2)};
    auto watch = std::make_unique<command_run::collector>(ex);
    auto wire = std::make_shared<stdio_transport>(ex, *command);
    try {
        co_await wire->open(*watch, watch->stats);
    } catch (const spawn_error& e) {
        result.error = e.what();
        co_return result;
    }
    result.started = true;
    if (!watch->down) {
        watch->event.expires_after(bound);
        asio::error_code ec;
        co_await watch->event.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    }
    result.timed_out = !watch->down;
    const shutdown_result closed = co_await wire->close();
    wire->detach();
    result.status = closed.status;
    result.out = std::move(watch->out);
    result.err = wire->stderr_tail(4096);
    co_return result;
}

}  // namespace mcp_loadtest::detail
