// Which of the tools, resources and prompts a server lists a test actually
// exercised, with each one's outcomes (docs/protocol-correctness.md#coverage).
// A plain struct, JSON both ways; merged across sessions and runs.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/outcome.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

namespace mcp_loadtest {

struct coverage_item {
    std::string kind;  ///< "tool", "resource" or "prompt"
    std::string name;  ///< tool or prompt name, resource uri
    bool listed = false;  ///< the server listed it
    std::uint64_t calls = 0;
    std::uint64_t ok = 0;
    std::uint64_t tool_errors = 0;  ///< isError results
    std::uint64_t failures = 0;     ///< every other outcome

    friend bool operator==(const coverage_item&, const coverage_item&) = default;
};

struct coverage_report {
    std::vector<coverage_item> items;  ///< sorted by kind, then name

    /// Listed items of `kind` called at least once, as a fraction (1 when none is listed).
    [[nodiscard]] MCP_LOADTEST_DECL double ratio(std::string_view kind = "tool") const;
    /// Listed but never called.
    [[nodiscard]] MCP_LOADTEST_DECL std::vector<std::string> never_called(std::string_view kind = "tool") const;
    /// Called but never listed (a test calling what the server does not offer).
    [[nodiscard]] MCP_LOADTEST_DECL std::vector<std::string> unlisted_called(std::string_view kind = "tool") const;
    /// Called, and never once ok.
    [[nodiscard]] MCP_LOADTEST_DECL std::vector<std::string> always_failing(std::string_view kind = "tool") const;

    /// One line per kind that has items: "tools: 3/8 called (37.5%); never called: a, b".
    [[nodiscard]] MCP_LOADTEST_DECL std::string summary() const;

    /// Sums counts by (kind, name); listed if either says so.
    MCP_LOADTEST_DECL void merge(const coverage_report& other);

    friend bool operator==(const coverage_report&, const coverage_report&) = default;

private:
    MCP_LOADTEST_DECL static bool before(const coverage_item& a, const coverage_item& b);
    template <class Pred>
    std::vector<std::string> names(Pred pred) const {
        std::vector<std::string> out;
        for (const auto& i : items)
            if (pred(i)) out.push_back(i.name);
        return out;
    }
    MCP_LOADTEST_DECL static std::string join(const std::vector<std::string>& v);
};

/// Accumulates a coverage_report as calls end. One lookup per call, no
/// allocation for a name already seen.
class coverage_tracker {
public:
    coverage_tracker() = default;
    coverage_tracker(const coverage_tracker&) = delete;  // it points into its own map
    coverage_tracker& operator=(const coverage_tracker&) = delete;

    void listed(std::string_view kind, std::string_view name) { entry(kind, name).listed = true; }
    MCP_LOADTEST_DECL void called(std::string_view kind, std::string_view name, outcome o);
    [[nodiscard]] MCP_LOADTEST_DECL coverage_report report() const;

private:
    MCP_LOADTEST_DECL coverage_item& entry(std::string_view kind, std::string_view name);

    struct key_less {
        using is_transparent = void;
        template <class A, class B>
        bool operator()(const A& a, const B& b) const {
            return std::pair<std::string_view, std::string_view>(a.first, a.second) <
                   std::pair<std::string_view, std::string_view>(b.first, b.second);
        }
    };
    std::map<std::pair<std::string, std::string>, coverage_item, key_less> entries_;
    coverage_item* last_ = nullptr;  // the last entry found: calls of one tool in a row look it up once
};

// ---- JSON ------------------------------------------------------------------

MCP_LOADTEST_DECL void to_json(json& j, const coverage_item& i);

/// Throws std::invalid_argument naming the missing or mistyped member.
MCP_LOADTEST_DECL void from_json(const json& j, coverage_item& i);

inline void to_json(json& j, const coverage_report& r) { j = json{{"items", r.items}}; }

MCP_LOADTEST_DECL void from_json(const json& j, coverage_report& r);

namespace detail {
/// Failure text for MCP_CHECK_COVERAGE: empty when at least `minimum` of the
/// listed items of `kind` were called.
template <class Report>
std::string coverage_failure(const Report& r, double minimum, std::string_view kind = "tool") {
    const double got = r.ratio(kind);
    if (got >= minimum) return {};
    const auto never = r.never_called(kind);
    char buf[160];
    std::snprintf(buf, sizeof buf, "coverage of %ss: expected at least %.1f%% called, got %.1f%%.", std::string(kind).c_str(),
                  100.0 * minimum, 100.0 * got);
    std::string s = buf;
    s += " Never called (" + std::to_string(never.size()) + "):";
    for (const auto& n : never) s += "\n  - " + n;
    return s + "\nA listed " + std::string(kind) +
           " no test calls may fail on every call without anyone noticing: call it (e.g. once each with "
           "mcp_loadtest::call_every_tool), or stop listing it.";
}
}  // namespace detail

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/coverage.ipp>
#endif
