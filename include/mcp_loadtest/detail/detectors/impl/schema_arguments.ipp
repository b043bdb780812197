// Definitions of detail/detectors/schema_arguments.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/detectors/schema_arguments.hpp>

namespace mcp_loadtest::detail::schema_args {

MCP_LOADTEST_DECL const json& resolve(const json& root, const json& s, int depth) {
    if (!s.is_object() || depth > 16) return s;
    auto ref = s.find("$ref");
    if (ref == s.end() || !ref->is_string()) return s;
    const std::string& r = ref->get_ref<const std::string&>();
    if (r.empty() || r[0] != '#') return s;
    try {
        const json::json_pointer ptr(r.substr(1));
        if (root.contains(ptr)) return resolve(root, root.at(ptr), depth + 1);
    } catch (const std::exception&) {
    }
    return s;
}

MCP_LOADTEST_DECL std::string type_of(const json& s) {
    if (!s.is_object()) return "";
    auto t = s.find("type");
    if (t != s.end()) {
        if (t->is_string()) return t->get<std::string>();
        if (t->is_array()) {
            for (const auto& x : *t)
                if (x.is_string() && x != "null") return x.get<std::string>();
            if (!t->empty() && t->front().is_string()) return t->front().get<std::string>();
        }
    }
    if (s.contains("properties")) return "object";
    if (s.contains("items")) return "array";
    return "";
}

MCP_LOADTEST_DECL double number(const json& s, const char* key, double fallback) {
    auto it = s.find(key);
    return it != s.end() && it->is_number() ? it->get<double>() : fallback;
}

MCP_LOADTEST_DECL json example_string(const json& s) {
    const std::string format = s.value("format", "");
    std::string v = format == "date-time" ? "2026-01-01T00:00:00Z"
                    : format == "date"    ? "2026-01-01"
                    : format == "uri" || format == "url" ? "https://example.com/"
                    : format == "email"   ? "user@example.com"
                    : format == "uuid"    ? "123e4567-e89b-12d3-a456-426614174000"
                                          : "example";
    const auto min_len = static_cast<std::size_t>(number(s, "minLength", 0));
    const auto max_len = static_cast<std::size_t>(number(s, "maxLength", 1e9));
    while (v.size() < min_len) v += 'x';
    if (v.size() > max_len) v.resize(max_len);
    return v;
}

MCP_LOADTEST_DECL json example_number(const json& s, bool integer) {
    double lo = number(s, "minimum", -std::numeric_limits<double>::infinity());
    double hi = number(s, "maximum", std::numeric_limits<double>::infinity());
    if (auto x = s.find("exclusiveMinimum"); x != s.end() && x->is_number()) lo = x->get<double>() + (integer ? 1 : 0.5);
    if (auto x = s.find("exclusiveMaximum"); x != s.end() && x->is_number()) hi = x->get<double>() - (integer ? 1 : 0.5);
    double v = 1;
    if (v < lo) v = lo;
    if (v > hi) v = hi;
    if (const double m = number(s, "multipleOf", 0); m > 0) v = std::ceil(v / m) * m;
    if (integer) return static_cast<std::int64_t>(std::ceil(v));
    return v;
}

MCP_LOADTEST_DECL json example(const json& root, const json& schema, int depth) {
    const json& s = resolve(root, schema);
    if (!s.is_object() || depth > 16) return nullptr;
    if (auto c = s.find("const"); c != s.end()) return *c;
    if (auto d = s.find("default"); d != s.end()) return *d;
    if (auto e = s.find("enum"); e != s.end() && e->is_array() && !e->empty()) return e->front();
    if (auto e = s.find("examples"); e != s.end() && e->is_array() && !e->empty()) return e->front();
    for (const char* k : {"anyOf", "oneOf"})
        if (auto alt = s.find(k); alt != s.end() && alt->is_array() && !alt->empty())
            return example(root, alt->front(), depth + 1);
    if (auto all = s.find("allOf"); all != s.end() && all->is_array()) {
        json merged = json::object();
        for (const auto& part : *all) {
            json v = example(root, part, depth + 1);
            if (v.is_object()) merged.update(v);
        }
        if (!merged.empty()) return merged;
    }
    const std::string t = type_of(s);
    if (t == "string") return example_string(s);
    if (t == "integer") return example_number(s, true);
    if (t == "number") return example_number(s, false);
    if (t == "boolean") return true;
    if (t == "null") return nullptr;
    if (t == "array") {
        json a = json::array();
        const auto n = static_cast<std::size_t>(number(s, "minItems", 0));
        const json items = s.contains("items") ? s["items"] : json::object();
        for (std::size_t i = 0; i < n && i < 64; ++i) a.push_back(example(root, items, depth + 1));
        return a;
    }
    if (t == "object" || t.empty()) {
        json o = json::object();
        const json props = s.contains("properties") && s["properties"].is_object() ? s["properties"] : json::object();
        if (auto req = s.find("required"); req != s.end() && req->is_array())
            for (const auto& r : *req)
                if (r.is_string()) {
                    const std::string key = r.get<std::string>();
                    o[key] = props.contains(key) ? example(root, props[key], depth + 1) : json("example");
                }
        for (const auto& [key, p] : props.items())
            if (!o.contains(key) && p.is_object() && p.contains("default")) o[key] = p["default"];
        return o;
    }
    return nullptr;
}

MCP_LOADTEST_DECL std::uint64_t mix(std::uint64_t& state) {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

MCP_LOADTEST_DECL json wrong_type_value(const std::string& type, std::uint64_t& state) {
    static const char* const kinds[] = {"string", "integer", "boolean", "object", "array", "null"};
    std::vector<json> candidates;
    for (const char* k : kinds) {
        const std::string kind = k;
        if (kind == type || (type == "number" && kind == "integer")) continue;
        if (kind == "string") candidates.push_back("not-a-" + (type.empty() ? std::string("value") : type));
        else if (kind == "integer") candidates.push_back(12345);
        else if (kind == "boolean") candidates.push_back(false);
        else if (kind == "object") candidates.push_back(json{{"unexpected", true}});
        else if (kind == "array") candidates.push_back(json::array({1, "two"}));
        else candidates.push_back(nullptr);
    }
    return candidates[mix(state) % candidates.size()];
}

}  // namespace mcp_loadtest::detail::schema_args

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL json example_arguments(const json& input_schema) {
    json v = schema_args::example(input_schema, input_schema, 0);
    return v.is_object() ? v : json::object();
}

MCP_LOADTEST_DECL std::vector<argument_mutation> mutate_arguments(const json& input_schema, std::uint64_t seed,
                                                       std::size_t limit) {
    using namespace schema_args;
    std::vector<argument_mutation> out;
    const json base = example_arguments(input_schema);
    const json& schema = resolve(input_schema, input_schema);
    const json props = schema.is_object() && schema.contains("properties") && schema["properties"].is_object()
                           ? schema["properties"]
                           : json::object();
    std::uint64_t state = seed;
    const auto add = [&](std::string name, json args, bool rejected) {
        if (out.size() < limit) out.push_back({std::move(name), std::move(args), rejected});
    };
    const auto with = [&](const std::string& key, json value) {
        json a = base;
        a[key] = std::move(value);
        return a;
    };

    if (auto req = schema.find("required"); schema.is_object() && req != schema.end() && req->is_array())
        for (const auto& r : *req)
            if (r.is_string()) {
                json a = base;
                a.erase(r.get<std::string>());
                add("required '" + r.get<std::string>() + "' missing", std::move(a), true);
            }

    for (const auto& [key, raw] : props.items()) {
        const json& p = resolve(input_schema, raw);
        if (!p.is_object()) continue;
        const std::string t = type_of(p);
        const bool typed = p.contains("type") && !p.contains("anyOf") && !p.contains("oneOf");
        const bool nullable = p.contains("type") && p["type"].is_array() &&
                              std::find(p["type"].begin(), p["type"].end(), json("null")) != p["type"].end();
        if (typed && !t.empty()) {
            json wrong = wrong_type_value(t, state);
            const bool rejected = !(wrong.is_null() && nullable);
            add("'" + key + "' has the wrong type (" + wrong.dump() + " for " + t + ")", with(key, wrong), rejected);
        }
        if (t == "integer" || t == "number") {
            if (auto mn = p.find("minimum"); mn != p.end() && mn->is_number()) {
                add("'" + key + "' at its minimum", with(key, *mn), false);
                add("'" + key + "' 1 below its minimum", with(key, mn->get<double>() - 1), true);
            }
            if (auto mx = p.find("maximum"); mx != p.end() && mx->is_number()) {
                add("'" + key + "' at its maximum", with(key, *mx), false);
                add("'" + key + "' 1 above its maximum", with(key, mx->get<double>() + 1), true);
            }
            if (!p.contains("maximum")) add("'" + key + "' is 1e308", with(key, 1e308), t == "integer");
            if (t == "integer") add("'" + key + "' is 1.5 (not an integer)", with(key, 1.5), true);
            add("'" + key + "' is -0", with(key, -0.0), p.contains("minimum") && number(p, "minimum", 0) > 0);
        }
        if (t == "string") {
            const double min_len = number(p, "minLength", 0);
            const double max_len = number(p, "maxLength", -1);
            const bool constrained = p.contains("enum") || p.contains("const") || p.contains("pattern") ||
                                     p.contains("format");
            if (!constrained) add("'" + key + "' is empty", with(key, ""), min_len > 0);
            if (!constrained)
                add("'" + key + "' is 1 MiB long", with(key, std::string(1 << 20, 'x')), max_len >= 0 && max_len < (1 << 20));
        }
        if (auto e = p.find("enum"); e != p.end() && e->is_array())
            add("'" + key + "' is not one of its enum values", with(key, "not-in-enum-" + std::to_string(mix(state) % 1000)),
                true);
    }

    const bool closed = schema.is_object() && schema.contains("additionalProperties") &&
                        schema["additionalProperties"] == false;
    add("an extra, undeclared argument", with("zz_unexpected_" + std::to_string(mix(state) % 1000), 1), closed);
    add("arguments is null", json(nullptr), true);
    add("arguments is an array", json::array({base}), true);
    return out;
}

}  // namespace mcp_loadtest::detail
