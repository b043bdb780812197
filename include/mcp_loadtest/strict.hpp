// Strict mode (docs/protocol-correctness.md#strict-validation): tool
// arguments against the tool's inputSchema before sending, results against its
// outputSchema and the spec's content rules, every message against the
// official MCP schema of the negotiated revision.
//
//     mlt::client_options o;
//     o.strict = mlt::strict_mode({.mcp_schemas = {"schemas/2025-06-18.schema.json"}});
//     auto s = co_await mlt::connect(server, o);
//
// Needs valijson (header-only; Debian libvalijson-dev, vcpkg and Conan valijson).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/detectors/json_schema_check.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/schema_violation.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mcp_loadtest {

/// The official JSON Schema of one MCP revision. Definitions are compiled on
/// first use and cached; safe to share between sessions and threads.
class mcp_schema {
public:
    /// Reads "<revision>.schema.json" (or ".../<revision>/schema.json", as the
    /// spec repository lays them out). Throws std::runtime_error saying where to get it.
    MCP_LOADTEST_DECL static mcp_schema load(const std::filesystem::path& file, std::string revision = {});

    MCP_LOADTEST_DECL static mcp_schema from_json(json doc, std::string revision);

    [[nodiscard]] const std::string& revision() const noexcept { return state_->revision; }

    /// The result definition for `method` (CallToolRequest -> CallToolResult,
    /// else EmptyResult), or nullptr when the revision has no such method.
    [[nodiscard]] MCP_LOADTEST_DECL const json_schema* result_schema(std::string_view method) const;

    /// The definition a message from the server must match (by its method, or
    /// the error response), or nullptr.
    [[nodiscard]] MCP_LOADTEST_DECL const json_schema* incoming_schema(const json& message) const;

private:
    struct state {
        std::string revision, ref_prefix;
        json document;
        std::map<std::string, std::string> requests, notifications;  // method -> definition
        std::mutex mutex;
        std::unordered_map<std::string, std::unique_ptr<json_schema>> compiled;
    };

    [[nodiscard]] MCP_LOADTEST_DECL bool has_definition(const std::string& name) const;

    MCP_LOADTEST_DECL const json_schema* definition(const std::string& name) const;

    std::shared_ptr<state> state_;
};

struct strict_options {
    /// Official MCP schemas, one file per revision ("2025-06-18.schema.json"), or
    /// directories holding them. A session checks its messages against the one
    /// of its negotiated revision; with none for it, only the tools' own
    /// schemas and the content rules are checked.
    std::vector<std::filesystem::path> mcp_schemas{};
    bool check_arguments = true;  ///< against the tool's inputSchema, before sending (throws invalid_arguments)
    bool check_results = true;    ///< outputSchema, structuredContent, content items
    bool check_messages = true;   ///< every message against the MCP schema
};

namespace detail {

/// The spec's rules for a content item, for when no MCP schema is loaded.
MCP_LOADTEST_DECL void check_content_items(const json& result, std::string_view tool, std::vector<schema_violation>& out);

/// A tool's schema as MCP requires it: a valid JSON Schema whose root is an object schema.
/// One finding per schema, however many rules its one cause breaks.
MCP_LOADTEST_DECL std::optional<json_schema> compile_tool_schema(const json& schema, const char* where, const std::string& tool,
                                                      std::vector<schema_violation>& out);

/// Folds `v`, a violation of the MCP schema by a tools/list result, into the finding
/// compile_tool_schema() made for the same tool's schema, if there is one (true then).
MCP_LOADTEST_DECL bool fold_into_tool_schema_finding(const json& list_result, const schema_violation& v,
                                                     std::vector<schema_violation>& out);

class strict_validator final : public message_validator {
public:
    strict_validator(strict_options options, std::shared_ptr<const std::vector<mcp_schema>> schemas)
        : options_(std::move(options)), schemas_(std::move(schemas)) {}

    MCP_LOADTEST_DECL void set_protocol_version(std::string_view version) override;

    MCP_LOADTEST_DECL void learn_tools(const json& list_result, std::vector<schema_violation>& out) override;

    MCP_LOADTEST_DECL void check_arguments(std::string_view tool, const json& arguments, std::vector<schema_violation>& out) override;

    MCP_LOADTEST_DECL void check_result(std::string_view method, std::string_view tool, const json& result,
                      std::vector<schema_violation>& out) override;

    MCP_LOADTEST_DECL void check_incoming(const json& message, std::vector<schema_violation>& out) override;

private:
    struct tool_contract {
        std::optional<json_schema> input;
        std::optional<json_schema> output;
        bool declares_output = false;
    };
    strict_options options_;
    std::shared_ptr<const std::vector<mcp_schema>> schemas_;
    const mcp_schema* current_ = nullptr;
    std::unordered_map<std::string, tool_contract> tools_;
};

}  // namespace detail

/// Strict mode for client_options::strict. Loads (and checks) the MCP schemas
/// now, once: a wrong path fails here, not in the middle of a run.
MCP_LOADTEST_DECL strict_validation strict_mode(const strict_options& options);
inline strict_validation strict_mode() { return strict_mode(strict_options{}); }

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/strict.ipp>
#endif
