// JSON Schema validation through valijson, with its findings turned into
// schema_violation records: RFC 6901 pointers, the keyword broken, the value.
// valijson reports every failed branch of an anyOf (a content item is checked
// against each content type); the branches whose discriminating `const`
// failed are dropped, so one bad value gives one or two findings, not thirty.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#if !__has_include(<valijson/validator.hpp>)
#error "mcp_loadtest strict mode needs valijson (header-only): apt-get install libvalijson-dev, vcpkg install valijson, or Conan valijson/1.0.x"
#endif

#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/schema_violation.hpp>

#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

// The valijson types the declarations name; the definitions include valijson.
namespace valijson {
class Schema;
class ValidationResults;
}  // namespace valijson

namespace mcp_loadtest {

/// A schema valijson cannot use (not a JSON Schema, an unresolvable $ref...).
class invalid_schema : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

/// Where a checked value sits, for the findings.
struct schema_context {
    std::string_view where;   ///< schema_violation::where
    std::string_view tool;
    std::string_view method;
    std::string_view prefix;  ///< prepended to every pointer, e.g. "/structuredContent"
};

namespace detail {

/// valijson's "<root>[content][0]" context as an RFC 6901 pointer.
MCP_LOADTEST_DECL std::string pointer_of(const std::vector<std::string>& context);

/// The JSON Schema keyword a valijson message is about ("" for a wrapper message).
MCP_LOADTEST_DECL std::string rule_of(std::string_view d);

MCP_LOADTEST_DECL std::string value_text(const json& instance, const std::string& pointer);

/// The findings of one validation, collapsed as described at the top.
MCP_LOADTEST_DECL void collect(valijson::ValidationResults& results, const json& instance, const schema_context& ctx,
                    std::vector<schema_violation>& out);

}  // namespace detail

/// A compiled JSON Schema (draft-07, and the parts of 2020-12 that MCP's
/// schemas and tools' schemas use). Immutable and cheap to copy.
class json_schema {
public:
    /// Compiles `document`, or its definition at `ref` ("#/$defs/CallToolResult")
    /// with the document's definitions in scope. Throws invalid_schema.
    MCP_LOADTEST_DECL static json_schema compile(const json& document, std::string_view ref = {});

    /// Appends what `instance` breaks to `out`; never throws for bad instances.
    MCP_LOADTEST_DECL void validate(const json& instance, const schema_context& ctx, std::vector<schema_violation>& out) const;
    [[nodiscard]] MCP_LOADTEST_DECL bool accepts(const json& instance) const;

private:
    std::shared_ptr<const valijson::Schema> schema_;
};

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/detectors/impl/json_schema_check.ipp>
#endif
