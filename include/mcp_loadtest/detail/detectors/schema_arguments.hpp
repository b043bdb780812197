// Tool arguments from a tool's inputSchema: one valid example (the smoke
// pass, call_every_tool.hpp) and mutations that break one rule each (the
// fuzzer, fuzz.hpp). Handles the JSON Schema a tool's inputSchema uses in
// practice: type (or a list of types), properties, required, enum, const,
// default, examples, bounds, lengths, items, anyOf/oneOf/allOf, local $ref.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

namespace schema_args {

/// The schema `s` after following a local "$ref" ("#/$defs/X", "#/definitions/X").
MCP_LOADTEST_DECL const json& resolve(const json& root, const json& s, int depth = 0);

/// The first type the schema allows (not "null" when another is allowed).
MCP_LOADTEST_DECL std::string type_of(const json& s);

MCP_LOADTEST_DECL double number(const json& s, const char* key, double fallback);

inline json example(const json& root, const json& schema, int depth);

MCP_LOADTEST_DECL json example_string(const json& s);

MCP_LOADTEST_DECL json example_number(const json& s, bool integer);

MCP_LOADTEST_DECL json example(const json& root, const json& schema, int depth);

/// splitmix64: the same values for a seed on every standard library.
MCP_LOADTEST_DECL std::uint64_t mix(std::uint64_t& state);

/// A value of another JSON type than `type` (chosen by the seed among those that differ).
MCP_LOADTEST_DECL json wrong_type_value(const std::string& type, std::uint64_t& state);

}  // namespace schema_args

/// Valid arguments for a tool: every required property, and those with a default.
MCP_LOADTEST_DECL json example_arguments(const json& input_schema);

struct argument_mutation {
    std::string name;     ///< what was changed, e.g. "'count' is 1 below its minimum"
    json arguments;       ///< the whole arguments value to send
    bool must_be_rejected = true;  ///< the schema forbids it (false: a boundary that is still valid)
};

/// Arguments that each break (or sit on the edge of) one rule of the schema,
/// in a stable order, at most `limit`. The seed picks among wrong values.
MCP_LOADTEST_DECL std::vector<argument_mutation> mutate_arguments(const json& input_schema, std::uint64_t seed,
                                                       std::size_t limit = 64);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/detectors/impl/schema_arguments.ipp>
#endif
