// Definitions of detail/session/send_request.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/session/send_request.hpp>

#include <mcp_loadtest/detail/wire/jsonrpc_writer.hpp>
#include <mcp_loadtest/detail/wire/same_text.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL asio::awaitable<call_result> start_request(std::shared_ptr<session_core> core,
                                                              session_core::request_box req) {
    return asio::async_initiate<const asio::use_awaitable_t<>&, void(call_result)>(
        start_request_initiation{std::move(core)}, asio::use_awaitable, std::move(req));
}

MCP_LOADTEST_DECL void fill_tool_call(session_core& c, session_core::request_line& req, std::string_view name,
                                      const arguments& args, const call_options& options) {
    if (c.strict()) c.check_arguments(name, args.text());
    req.id = c.next_id();
    // The line is written over its buffer. Compared first: the request mostly still holds
    // the names of its last call (see start_request).
    if (!same_text(req.method, "tools/call")) req.method.assign("tools/call");
    if (!same_text(req.tool, name)) req.tool.assign(name);
    req.options = options;
    req.param_headers.clear();
    req.raw = false;
    req.keep_reply = true;
    const bool modern = c.era() == protocol_era::modern;
    request_meta meta;
    meta.modern_members = modern ? &c.meta_members() : nullptr;
    meta.progress = options.progress;
    req.params_members_at = write_tool_call(req.line, req.id, name, args.text(), meta);
    if (modern) c.param_headers_for(name, args.text(), req.param_headers);
}

MCP_LOADTEST_DECL bool refill_tool_call(session_core& c, session_core::request_line& req, std::string_view name,
                                        const arguments& args) {
    if (req.options.progress) return false;
    if (c.strict()) c.check_arguments(name, args.text());
    return refill_request(c, req);
}

MCP_LOADTEST_DECL bool refill_request(session_core& c, session_core::request_line& req) {
    if (req.options.progress) return false;
    if (!rewrite_request_id(req.line, req.id, c.last_id() + 1)) return false;
    req.id = c.next_id();
    return true;  // start_request leaves the names in req (session_core.hpp)
}

MCP_LOADTEST_DECL void fill_request(session_core& c, session_core::request_line& req, std::string_view method,
                                    std::string_view name, const arguments& params, const call_options& options) {
    req.id = c.next_id();
    if (!same_text(req.method, method)) req.method.assign(method);
    if (!same_text(req.tool, name)) req.tool.assign(name);
    req.options = options;
    req.param_headers.clear();
    req.raw = false;
    req.keep_reply = true;
    const bool modern = c.era() == protocol_era::modern;
    if (params.text().find("\"_meta\"") != std::string::npos) {
        // The caller's own _meta is merged with the era's: through the JSON writer.
        req.line.clear();  // write_request appends
        req.params_members_at = write_request(req.line, req.id, method, json::parse(params.text()),
                                              modern ? &c.modern_meta() : nullptr, options.progress);
        return;
    }
    request_meta meta;
    meta.modern_members = modern ? &c.meta_members() : nullptr;
    meta.progress = options.progress;
    req.params_members_at = write_request_text(req.line, req.id, method, params.text(), meta);
}

MCP_LOADTEST_DECL asio::awaitable<call_result> send_request(session_core& c, std::string_view method, const json& params,
                                                             std::string tool, call_options options) {
    auto box = c.take_request();
    session_core::request_line& req = *box;
    req.id = c.next_id();
    req.line.clear();  // write_request appends
    req.method.assign(method);
    req.tool = std::move(tool);
    req.options = options;
    req.param_headers.clear();
    req.raw = false;
    req.keep_reply = true;
    const bool modern = c.era() == protocol_era::modern;
    req.params_members_at =
        write_request(req.line, req.id, method, params, modern ? &c.modern_meta() : nullptr, options.progress);
    return start_request(c.shared_from_this(), std::move(box));
}

MCP_LOADTEST_DECL asio::awaitable<call_result> send_request(session_core& c, std::string_view method, const json& params,
                                                             call_options options) {
    return send_request(c, method, params, std::string(), options);
}

}  // namespace mcp_loadtest::detail
