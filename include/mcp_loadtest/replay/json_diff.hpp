// diff_json(before, after, rules): the differences between a recorded reply and a replayed one,
// each at its JSON pointer with the value before and after (docs/reports.md#comparing-replies).
//
// Objects are compared by key (their order never matters), numbers by value (1 == 1.0, within
// an optional tolerance), arrays by position unless a rule says they are sets. Rules ignore
// paths (timestamps, ids the server generates), per tool or per method as well as for every
// reply, and JSON carried inside strings (an MCP tool result's content[i].text) is compared as
// JSON. No Asio: replay calls it once per reply; tests can call it on any two documents.
#pragma once

#include <mcp_loadtest/json.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

/// Rules added to diff_rules' own for the replies of one tool (or one method).
struct tool_diff_rules {
    std::vector<std::string> ignore{};     ///< pointer patterns, as diff_rules::ignore
    std::vector<std::string> unordered{};  ///< pointer patterns, as diff_rules::unordered
    std::optional<double> number_tolerance{};  ///< set: replaces diff_rules::number_tolerance
};

/// What diff_json() compares and what it lets pass.
///
/// A pattern is a JSON pointer (RFC 6901: starts with '/', '~0' is '~' and '~1' is '/') whose
/// segment `*` matches any one key or array index: `/result/content/*/_meta`. Inside JSON
/// carried by a string the pointer goes on: `/result/content/0/text/items/*/id`.
/// A bad pattern makes diff_json() throw std::invalid_argument naming it.
struct diff_rules {
    /// Values at these pointers, and everything below them, are not compared.
    std::vector<std::string> ignore{};
    /// Arrays at these pointers are multisets: order ignored, duplicates counted.
    std::vector<std::string> unordered{};
    /// Numbers differing by at most this much are equal (absolute; 0: exact, though 1 == 1.0).
    double number_tolerance = 0;
    /// Two different strings that both parse as a JSON object or array are compared as JSON.
    bool parse_text_json = true;
    /// At most this many differences are kept; the rest are only counted (json_diff::not_shown).
    std::size_t max_differences = 100;
    /// More rules for one tool's tools/call replies, by tool name; a key may also be a method
    /// ("resources/read") for the replies of that method. diff_json()'s `tool` picks one.
    std::map<std::string, tool_diff_rules> per_tool{};
};

enum class difference_kind {
    changed,       ///< same type, another value
    type_changed,  ///< e.g. a number became a string
    added,         ///< only `after` has it
    removed,       ///< only `before` has it
    reordered,     ///< an array with the same elements in another order
};

/// "changed", "type_changed", "added", "removed", "reordered".
MCP_LOADTEST_DECL std::string_view to_string(difference_kind kind) noexcept;

/// One difference: where (RFC 6901, keys escaped: `~` is `~0`, `/` is `~1`), what, both values
/// (`before` is null for added, `after` is null for removed).
struct json_difference {
    std::string pointer;
    difference_kind kind = difference_kind::changed;
    json before;
    json after;
};

/// diff_json()'s answer: the differences in document order (keys sorted, then indices).
struct json_diff {
    std::vector<json_difference> differences;
    std::size_t not_shown = 0;  ///< differences past diff_rules::max_differences, counted only
    [[nodiscard]] bool equal() const noexcept { return differences.empty() && not_shown == 0; }
    [[nodiscard]] std::size_t total() const noexcept { return differences.size() + not_shown; }
};

/// The differences between `before` and `after` under `rules`, plus the per_tool rules of
/// `tool` (a tools/call's tool name, or another request's method; empty: the general rules only).
/// Throws std::invalid_argument for a bad pattern.
MCP_LOADTEST_DECL json_diff diff_json(const json& before, const json& after, const diff_rules& rules = {},
                                      std::string_view tool = {});

/// One canonical text per value: keys sorted, no whitespace, numbers by value (1.0 and 1 print
/// "1", -0.0 prints "0"). Equal canonical texts mean equal values under diff_json() without rules.
MCP_LOADTEST_DECL std::string canonical_json(const json& value);

/// One line: `/result/x: changed 1 -> 2`, values cut at about 200 characters.
MCP_LOADTEST_DECL std::string to_string(const json_difference& difference);

/// One line per difference, then "... and N more" when some were not shown; "" when equal.
MCP_LOADTEST_DECL std::string to_string(const json_diff& diff);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/replay/impl/json_diff.ipp>
#endif
