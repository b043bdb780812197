// Definitions of call_result.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/call_result.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL json call_result::result() const {
    if (outcome != outcome::ok && outcome != outcome::tool_error &&
        !(outcome == outcome::hang && answered() && error_code == 0))
        throw result_unavailable("no result for " + describe_call() + ": " + describe());
    return parse_payload("result");
}

MCP_LOADTEST_DECL json call_result::error() const {
    if (error_code == 0 || payload_size == 0) return nullptr;
    return parse_payload("error");
}

MCP_LOADTEST_DECL json call_result::structured() const {
    const json r = result();
    const auto it = r.find("structuredContent");
    return it == r.end() ? json(nullptr) : *it;
}

MCP_LOADTEST_DECL std::string call_result::text() const {
    const json r = result();
    std::string out;
    const auto content = r.find("content");
    if (content == r.end() || !content->is_array()) return out;
    for (std::size_t i = 0; i < content->size(); ++i) {
        const json& item = (*content)[i];
        if (!item.is_object()) continue;
        const auto type = item.find("type");
        if (type == item.end() || *type != "text") continue;
        const auto text = item.find("text");
        if (!out.empty()) out += '\n';
        if (text == item.end()) continue;
        if (!text->is_string())
            throw result_unavailable("the result of " + describe_call() + " has content[" + std::to_string(i) +
                                     "].text of type " + text->type_name() +
                                     ", not a string; read result() for the content as sent.");
        out += text->get_ref<const std::string&>();
    }
    return out;
}

MCP_LOADTEST_DECL std::string call_result::describe_call() const {
    std::string s = method;
    if (!tool.empty()) s += " " + tool;
    s += " (id " + std::to_string(request_id) + ")";
    return s;
}

MCP_LOADTEST_DECL std::string call_result::describe() const {
    std::string s(to_string(outcome));
    s += " after ";
    s += detail::format_duration(std::chrono::duration_cast<std::chrono::microseconds>(duration));
    if (!message.empty()) s += ": " + message;
    return s;
}

MCP_LOADTEST_DECL json call_result::parse_payload(const char* member) const {
    try {
        return json::parse(payload_text());
    } catch (const json::exception& e) {
        throw result_unavailable("the " + std::string(member) + " of " + describe_call() + " (" +
                                 std::string(to_string(outcome)) + ") cannot be parsed: " + e.what() +
                                 ". Its text is in payload_text(), the whole reply in raw.");
    }
}

}  // namespace mcp_loadtest
