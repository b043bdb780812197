// Definitions of session_info.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/session_info.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::string_view protocol_violation::name(kind k) noexcept {
    switch (k) {
        case kind::non_json_line: return "non_json_line";
        case kind::oversized_message: return "oversized_message";
        case kind::not_jsonrpc: return "not_jsonrpc";
        case kind::unknown_response: return "unknown_response";
        case kind::batch: return "batch";
        case kind::stdin_closed: return "stdin_closed";
        case kind::duplicate_member: return "duplicate_member";
        case kind::duplicate_reply: return "duplicate_reply";
        case kind::reply_to_notification: return "reply_to_notification";
        case kind::progress_wrong_token: return "progress_wrong_token";
        case kind::progress_after_result: return "progress_after_result";
        case kind::progress_not_increasing: return "progress_not_increasing";
    }
    return "unknown";
}

MCP_LOADTEST_DECL std::string protocol_violation::describe() const {
    return std::string(name(what)) + " (" + (request_id ? "request id " + std::to_string(request_id) + ", " : "") +
           std::to_string(size) + " bytes): " + sample;
}

MCP_LOADTEST_DECL std::string_view to_string(protocol_era e) noexcept {
    return e == protocol_era::modern ? "modern" : "legacy";
}

MCP_LOADTEST_DECL std::string_view shutdown_result::name(how h) noexcept {
    switch (h) {
        case how::already_exited: return "already_exited";
        case how::stdin_closed: return "stdin_closed";
        case how::terminated: return "terminated";
        case how::killed: return "killed";
        case how::abandoned: return "abandoned";
        case how::disconnected: return "disconnected";
    }
    return "unknown";
}

}  // namespace mcp_loadtest
