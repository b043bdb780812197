// A small JSON Schema checker for the subset our published schemas use
// (type, required, properties, additionalProperties, items, enum, const, minimum,
// pattern, oneOf, $ref to #/$defs/...). Enough to prove a report matches its schema.
#pragma once

#include <mcp_loadtest/json.hpp>

#include <fstream>
#include <regex>
#include <string>
#include <vector>

namespace mlt_test {

inline const std::string repo_dir = std::string(MCP_LOADTEST_TEST_FIXTURES) + "/..";

inline mcp_loadtest::json load_json(const std::string& path) {
    std::ifstream f(path);
    if (!f) throw std::runtime_error("cannot open " + path);
    return mcp_loadtest::json::parse(f);
}

namespace detail {
using mcp_loadtest::json;

inline bool has_type(const json& v, const std::string& t) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "integer") return v.is_number_integer();
    if (t == "number") return v.is_number();
    if (t == "boolean") return v.is_boolean();
    if (t == "null") return v.is_null();
    return false;
}

inline void check(const json& v, const json& schema, const json& root, const std::string& at,
                  std::vector<std::string>& out) {
    if (schema.contains("$ref")) {
        const std::string ref = schema["$ref"];
        const std::string prefix = "#/$defs/";
        if (ref.rfind(prefix, 0) != 0 || !root["$defs"].contains(ref.substr(prefix.size()))) {
            out.push_back(at + ": unresolvable $ref " + ref);
            return;
        }
        check(v, root["$defs"][ref.substr(prefix.size())], root, at, out);
        return;
    }
    if (schema.contains("type")) {
        const auto& t = schema["type"];
        bool ok = false;
        if (t.is_string()) ok = has_type(v, t);
        else for (const auto& one : t) ok = ok || has_type(v, one);
        if (!ok) {
            out.push_back(at + ": expected type " + t.dump() + ", got " + v.dump().substr(0, 80));
            return;
        }
    }
    if (schema.contains("enum")) {
        bool found = false;
        for (const auto& e : schema["enum"]) found = found || e == v;
        if (!found) out.push_back(at + ": " + v.dump() + " is not one of " + schema["enum"].dump());
    }
    if (schema.contains("const") && schema["const"] != v)
        out.push_back(at + ": " + v.dump() + " is not " + schema["const"].dump());
    if (schema.contains("pattern") && v.is_string() &&
        !std::regex_search(v.get<std::string>(), std::regex(schema["pattern"].get<std::string>())))
        out.push_back(at + ": " + v.dump() + " does not match " + schema["pattern"].dump());
    if (schema.contains("oneOf")) {
        std::size_t passed = 0;
        for (const auto& branch : schema["oneOf"]) {
            std::vector<std::string> ignored;
            check(v, branch, root, at, ignored);
            passed += ignored.empty();
        }
        if (passed != 1) out.push_back(at + ": matches " + std::to_string(passed) + " of oneOf's branches, not 1");
    }
    if (schema.contains("minimum") && v.is_number() && v.get<double>() < schema["minimum"].get<double>())
        out.push_back(at + ": " + v.dump() + " is below the minimum " + schema["minimum"].dump());
    if (v.is_object()) {
        for (const auto& r : schema.value("required", json::array()))
            if (!v.contains(r.get<std::string>())) out.push_back(at + ": missing required member " + r.dump());
        const json props = schema.value("properties", json::object());
        for (const auto& [k, member] : v.items()) {
            if (props.contains(k)) check(member, props[k], root, at + "/" + k, out);
            else if (schema.contains("additionalProperties")) {
                const auto& ap = schema["additionalProperties"];
                if (ap.is_boolean() && !ap.get<bool>()) out.push_back(at + ": unexpected member \"" + k + "\"");
                else if (ap.is_object()) check(member, ap, root, at + "/" + k, out);
            }
        }
    }
    if (v.is_array() && schema.contains("items"))
        for (std::size_t i = 0; i < v.size(); ++i) check(v[i], schema["items"], root, at + "/" + std::to_string(i), out);
}
}  // namespace detail

/// Every way `value` departs from `schema` (empty: it conforms).
inline std::vector<std::string> validate(const mcp_loadtest::json& value, const mcp_loadtest::json& schema) {
    std::vector<std::string> out;
    detail::check(value, schema, schema, "", out);
    return out;
}

}  // namespace mlt_test
