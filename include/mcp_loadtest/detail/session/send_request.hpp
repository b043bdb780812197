// Sending a request through a session core and awaiting its one call_result:
// shared by the public session handle and the opening (handshake.hpp).
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/session/completion.hpp>
#include <mcp_loadtest/detail/session/session_core.hpp>
#include <mcp_loadtest/json.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace mcp_loadtest::detail {

struct start_request_initiation {
    std::shared_ptr<session_core> core;
    template <class Handler>
    void operator()(Handler&& handler, session_core::request_box req) const {
        core->start_request(std::move(*req), call_completion(std::forward<Handler>(handler)));
        core->recycle_request(std::move(req));
    }
};

/// Sends a prepared request when awaited. Not a coroutine: the line is already
/// written, and the core is kept alive by the operation.
MCP_LOADTEST_DECL asio::awaitable<call_result> start_request(std::shared_ptr<session_core> core,
                                                             session_core::request_box req);

/// Writes a tools/call of `name` in the session's era into `req` (every member set,
/// its line's buffer reused); in strict mode, throws invalid_arguments first when
/// the arguments break the tool's inputSchema.
MCP_LOADTEST_DECL void fill_tool_call(session_core& c, session_core::request_line& req, std::string_view name,
                                      const arguments& args, const call_options& options);

/// fill_tool_call again, under the next id, for the call `req` already holds:
/// the caller vouches that `req` was last filled by fill_tool_call on this session
/// with this name, these arguments (the same text) and the same options (the load
/// engine knows: its fixed calls). Only the id's digits are written, over the old
/// ones; false, with nothing changed and no id taken, when they would not fit
/// exactly (the id gained a digit) or the options repeat the id (progress): then
/// call fill_tool_call. Strict mode checks the arguments as fill_tool_call does.
MCP_LOADTEST_DECL bool refill_tool_call(session_core& c, session_core::request_line& req, std::string_view name,
                                        const arguments& args);

/// Writes a request of any other method, its params serialized already (`params`: a JSON
/// object), into `req` as fill_tool_call does; `name` names the resource or prompt for
/// reports. The load engine's requests of a mix that are not tool calls.
MCP_LOADTEST_DECL void fill_request(session_core& c, session_core::request_line& req, std::string_view method,
                                    std::string_view name, const arguments& params, const call_options& options);

/// fill_request again, under the next id, for the request `req` already holds (as
/// refill_tool_call, without strict mode's check of tool arguments).
MCP_LOADTEST_DECL bool refill_request(session_core& c, session_core::request_line& req);

/// Any request but tools/call, written in the session's era; `tool` names the
/// resource or prompt for reports.
MCP_LOADTEST_DECL asio::awaitable<call_result> send_request(session_core& c, std::string_view method, const json& params,
                                                            std::string tool, call_options options);

/// The same without a name (kept out of co_await expressions: no temporary string there).
MCP_LOADTEST_DECL asio::awaitable<call_result> send_request(session_core& c, std::string_view method, const json& params,
                                                            call_options options);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/session/impl/send_request.ipp>
#endif
