// Strict validation's findings and the seam the session calls it through.
//
// Light on purpose (no JSON Schema validator here): client_options holds a
// `strict_validation`, and only a test that turns strict mode on includes
// <mcp_loadtest/strict.hpp>, which implements it with valijson.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/json.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

/// One place where a message broke a schema: a tool's inputSchema /
/// outputSchema, the official MCP schema of the negotiated revision, or one of
/// the spec's rules the schema cannot express.
struct schema_violation {
    /// What was checked: "arguments" (the test's own call), "result",
    /// "structuredContent", "message" (a whole message against the MCP schema),
    /// "inputSchema" / "outputSchema" (a tool's schema is itself invalid).
    std::string where;
    std::string tool;     ///< the tool concerned, when there is one
    std::string method;   ///< the request's method ("tools/call"), or the message's
    std::string pointer;  ///< JSON pointer into the checked value ("" = the value itself)
    std::string rule;     ///< the rule broken: "required", "type", "enum", "additionalProperties", ...
    std::string value;    ///< the offending value as JSON, truncated to 200 characters
    std::string message;  ///< one sentence: what is wrong and against which schema

    [[nodiscard]] MCP_LOADTEST_DECL std::string describe() const;
    friend bool operator==(const schema_violation&, const schema_violation&) = default;
};

MCP_LOADTEST_DECL void to_json(json& j, const schema_violation& v);
MCP_LOADTEST_DECL void from_json(const json& j, schema_violation& v);

/// An invalid call: the arguments break the tool's inputSchema. The test's
/// bug, so it is thrown before anything is sent.
class invalid_arguments : public std::invalid_argument {
public:
    invalid_arguments(const std::string& what, std::vector<schema_violation> violations)
        : std::invalid_argument(what), violations_(std::move(violations)) {}
    [[nodiscard]] const std::vector<schema_violation>& violations() const noexcept { return violations_; }

private:
    std::vector<schema_violation> violations_;
};

namespace detail {

/// One per session, used from the session's executor. Each check appends what
/// it finds to `out`.
class message_validator {
public:
    virtual ~message_validator() = default;
    /// The negotiated protocol revision, once known (selects the MCP schema).
    virtual void set_protocol_version(std::string_view version) = 0;
    /// One tools/list result (each page): remembers every tool's inputSchema
    /// and outputSchema; a schema that is not valid JSON Schema is reported.
    virtual void learn_tools(const json& list_result, std::vector<schema_violation>& out) = 0;
    /// A tools/call's arguments against the tool's inputSchema (before sending).
    virtual void check_arguments(std::string_view tool, const json& arguments,
                                 std::vector<schema_violation>& out) = 0;
    /// A successful reply's result for a request of `method` (`tool` for
    /// tools/call): the MCP schema's result type, and for tools/call the
    /// tool's outputSchema and the spec's rules for content items.
    virtual void check_result(std::string_view method, std::string_view tool, const json& result,
                              std::vector<schema_violation>& out) = 0;
    /// Any other message from the server (a notification, a server request,
    /// an error response) against the MCP schema.
    virtual void check_incoming(const json& message, std::vector<schema_violation>& out) = 0;
};

}  // namespace detail

/// Strict mode for client_options::strict (off when empty). Made by
/// mcp_loadtest::strict_mode() in <mcp_loadtest/strict.hpp>.
struct strict_validation {
    std::function<std::unique_ptr<detail::message_validator>()> make_validator{};
    explicit operator bool() const noexcept { return static_cast<bool>(make_validator); }
};

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/schema_violation.ipp>
#endif
