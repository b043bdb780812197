// Definitions of schema_violation.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/schema_violation.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::string schema_violation::describe() const {
    std::string s = where;
    if (!tool.empty()) s += " of '" + tool + "'";
    else if (!method.empty()) s += " of " + method;
    s += " at " + (pointer.empty() ? std::string("(root)") : pointer) + " breaks \"" + rule + "\"";
    if (!value.empty()) s += " (value " + value + ")";
    if (!message.empty()) s += ": " + message;
    return s;
}

MCP_LOADTEST_DECL void to_json(json& j, const schema_violation& v) {
    j = json{{"where", v.where},     {"tool", v.tool}, {"method", v.method}, {"pointer", v.pointer},
             {"rule", v.rule},       {"value", v.value}, {"message", v.message}};
}

MCP_LOADTEST_DECL void from_json(const json& j, schema_violation& v) {
    v.where = j.value("where", "");
    v.tool = j.value("tool", "");
    v.method = j.value("method", "");
    v.pointer = j.value("pointer", "");
    v.rule = j.value("rule", "");
    v.value = j.value("value", "");
    v.message = j.value("message", "");
}

}  // namespace mcp_loadtest
