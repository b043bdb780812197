// Definitions of detail/detectors/json_schema_check.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/detectors/json_schema_check.hpp>

// Without it valijson calls abort() on a schema it cannot parse: a tool's bad
// inputSchema would kill the test instead of being reported.
#ifndef VALIJSON_USE_EXCEPTIONS
#define VALIJSON_USE_EXCEPTIONS 1
#endif
#include <valijson/adapters/nlohmann_json_adapter.hpp>
#include <valijson/schema.hpp>
#include <valijson/schema_parser.hpp>
#include <valijson/validation_results.hpp>
#include <valijson/validator.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string pointer_of(const std::vector<std::string>& context) {
    std::string p;
    for (std::size_t i = 1; i < context.size(); ++i) {
        std::string token = context[i];
        if (token.size() >= 2 && token.front() == '[' && token.back() == ']') token = token.substr(1, token.size() - 2);
        p += '/';
        for (char c : token) {
            if (c == '~') p += "~0";
            else if (c == '/') p += "~1";
            else p += c;
        }
    }
    return p;
}

MCP_LOADTEST_DECL std::string rule_of(std::string_view d) {
    const auto starts = [d](std::string_view p) { return d.substr(0, p.size()) == p; };
    if (starts("Missing required property")) return "required";
    if (starts("Value type not permitted")) return "type";
    if (starts("Failed to match against any enum")) return "enum";
    if (starts("Failed to match expected value set by 'const'")) return "const";
    if (starts("Object contains a property")) return "additionalProperties";
    if (starts("Expected number greater than or equal")) return "minimum";
    if (starts("Expected number greater than")) return "exclusiveMinimum";
    if (starts("Expected number less than or equal")) return "maximum";
    if (starts("Expected number less than")) return "exclusiveMaximum";
    if (starts("String should be no fewer")) return "minLength";
    if (starts("String should be no more")) return "maxLength";
    if (starts("String should be a valid")) return "format";
    if (starts("Array should contain no fewer")) return "minItems";
    if (starts("Array should contain no more")) return "maxItems";
    if (starts("Array contains more items")) return "items";
    if (starts("Elements at indexes")) return "uniqueItems";
    if (starts("Object should have no fewer")) return "minProperties";
    if (starts("Object should have no more")) return "maxProperties";
    if (starts("Failed to match regex")) return "pattern";
    if (starts("Value should be a multiple") || starts("Value could not be converted")) return "multipleOf";
    if (starts("Target should not validate")) return "not";
    if (starts("Missing dependency")) return "dependencies";
    if (starts("Failed to any values against subschema in 'contains'")) return "contains";
    if (starts("Target value and comparison value are not equal")) return "const";
    return "";
}

MCP_LOADTEST_DECL std::string value_text(const json& instance, const std::string& pointer) {
    try {
        const json::json_pointer p(pointer);
        if (!instance.contains(p)) return {};
        std::string s = instance.at(p).dump(-1, ' ', false, json::error_handler_t::replace);
        if (s.size() > 200) s = s.substr(0, 197) + "...";
        return s;
    } catch (const std::exception&) {
        return {};
    }
}

MCP_LOADTEST_DECL void collect(valijson::ValidationResults& results, const json& instance, const schema_context& ctx,
                    std::vector<schema_violation>& out) {
    struct raw_error {
        std::string pointer, description, rule;
    };
    std::vector<raw_error> pending;
    std::vector<raw_error> kept;
    std::vector<std::string> alternatives_with_a_match;  // pointers of anyOf/oneOf with a surviving branch
    valijson::ValidationResults::Error e;
    while (results.popError(e)) {
        raw_error r{pointer_of(e.context), e.description, rule_of(e.description)};
        const std::string& d = r.description;
        if (d.rfind("Failed to validate against child schema #", 0) == 0) {
            // The errors since the last branch under this pointer are this branch's.
            std::vector<raw_error> branch, rest;
            for (auto& p : pending)
                (p.pointer.rfind(r.pointer, 0) == 0 ? branch : rest).push_back(std::move(p));
            pending = std::move(rest);
            bool discriminator_failed = false;
            for (const auto& b : branch)
                if (b.rule == "const" && b.pointer.size() > r.pointer.size() &&
                    b.pointer.find('/', r.pointer.size() + 1) == std::string::npos)
                    discriminator_failed = true;  // e.g. /content/0/type is not this branch's const
            if (!discriminator_failed) {
                alternatives_with_a_match.push_back(r.pointer);
                for (auto& b : branch) kept.push_back(std::move(b));
            }
            continue;
        }
        if (d.rfind("Failed to validate against any schemas allowed by anyOf", 0) == 0 ||
            d.rfind("Failed to validate against exactly one child schema", 0) == 0) {
            bool matched = false;
            for (const auto& p : alternatives_with_a_match) matched = matched || p == r.pointer;
            if (!matched) {
                r.rule = d.rfind("Failed to validate against exactly", 0) == 0 ? "oneOf" : "anyOf";
                r.description = "matches none of the shapes allowed here";
                kept.push_back(std::move(r));
            }
            continue;
        }
        if (r.rule.empty()) continue;  // "Failed to validate item #2": a wrapper of the real cause
        pending.push_back(std::move(r));
    }
    for (auto& p : pending) kept.push_back(std::move(p));
    for (auto& k : kept) {
        schema_violation v;
        v.where = std::string(ctx.where);
        v.tool = std::string(ctx.tool);
        v.method = std::string(ctx.method);
        std::string pointer = k.pointer;
        if (k.rule == "required") {
            const auto q1 = k.description.find('\'');
            const auto q2 = k.description.rfind('\'');
            if (q1 != std::string::npos && q2 > q1) pointer += "/" + k.description.substr(q1 + 1, q2 - q1 - 1);
            v.value = value_text(instance, k.pointer);
        } else {
            v.value = value_text(instance, k.pointer);
        }
        v.pointer = std::string(ctx.prefix) + pointer;
        v.rule = k.rule;
        v.message = k.description;
        bool duplicate = false;
        for (const auto& o : out) duplicate = duplicate || (o.pointer == v.pointer && o.rule == v.rule && o.where == v.where);
        if (!duplicate) out.push_back(std::move(v));
    }
}

}  // namespace mcp_loadtest::detail

namespace mcp_loadtest {

MCP_LOADTEST_DECL json_schema json_schema::compile(const json& document, std::string_view ref) {
    json root = document;
    if (!root.is_object() && !root.is_boolean())
        throw invalid_schema("a JSON Schema is an object (or a boolean), not " + std::string(root.type_name()));
    if (root.is_object()) {
        root.erase("$schema");  // valijson parses as draft-07; never fetches a meta-schema
        root.erase("$id");
        if (!ref.empty()) root["$ref"] = std::string(ref);
    }
    auto schema = std::make_shared<valijson::Schema>();
    try {
        valijson::SchemaParser parser(valijson::SchemaParser::kDraft7);
        valijson::adapters::NlohmannJsonAdapter adapter(root);
        parser.populateSchema(adapter, *schema);
    } catch (const std::exception& e) {
        throw invalid_schema(std::string("not a usable JSON Schema: ") + e.what());
    }
    json_schema s;
    s.schema_ = std::move(schema);
    return s;
}

MCP_LOADTEST_DECL void json_schema::validate(const json& instance, const schema_context& ctx, std::vector<schema_violation>& out) const {
    if (!schema_) return;
    try {
        valijson::Validator validator;
        valijson::ValidationResults results;
        valijson::adapters::NlohmannJsonAdapter adapter(instance);
        if (!validator.validate(*schema_, adapter, &results)) detail::collect(results, instance, ctx, out);
    } catch (const std::exception& e) {
        out.push_back({std::string(ctx.where), std::string(ctx.tool), std::string(ctx.method), std::string(ctx.prefix),
                       "validator", {}, std::string("the validator failed: ") + e.what()});
    }
}

MCP_LOADTEST_DECL bool json_schema::accepts(const json& instance) const {
    std::vector<schema_violation> out;
    validate(instance, {}, out);
    return out.empty();
}

}  // namespace mcp_loadtest
