// Sending a request through a session core and awaiting its one call_result:
// shared by the public session handle and the opening (handshake.hpp).
#pragma once

#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/completion.hpp>
#include <mcp_loadtest/detail/jsonrpc_writer.hpp>
#include <mcp_loadtest/detail/session_core.hpp>
#include <mcp_loadtest/json.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace mcp_loadtest::detail {

struct start_request_initiation {
    std::shared_ptr<session_core> core;
    template <class Handler>
    void operator()(Handler&& handler, session_core::request_line req) const {
        core->start_request(std::move(req), call_completion(std::forward<Handler>(handler)));
    }
};

/// Sends a prepared request when awaited. Not a coroutine: the line is already
/// written, and the core is kept alive by the operation.
inline asio::awaitable<call_result> start_request(std::shared_ptr<session_core> core,
                                                  session_core::request_line&& req) {
    return asio::async_initiate<const asio::use_awaitable_t<>&, void(call_result)>(
        start_request_initiation{std::move(core)}, asio::use_awaitable, std::move(req));
}

/// Any request but tools/call, written in the session's era; `tool` names the
/// resource or prompt for reports.
inline asio::awaitable<call_result> send_request(session_core& c, std::string_view method, const json& params,
                                                 std::string tool, call_options options) {
    session_core::request_line req;
    req.id = c.next_id();
    req.line = c.take_line_buffer();
    req.method.assign(method);
    req.tool = std::move(tool);
    req.options = options;
    const bool modern = c.era() == protocol_era::modern;
    req.params_members_at =
        write_request(req.line, req.id, method, params, modern ? &c.modern_meta() : nullptr, options.progress);
    return start_request(c.shared_from_this(), std::move(req));
}

/// The same without a name (kept out of co_await expressions: no temporary string there).
inline asio::awaitable<call_result> send_request(session_core& c, std::string_view method, const json& params,
                                                 call_options options) {
    return send_request(c, method, params, std::string(), options);
}

}  // namespace mcp_loadtest::detail
