// Which of the tools, resources and prompts a server lists a test actually
// exercised, with each one's outcomes (docs/protocol-correctness.md#coverage).
// A plain struct, JSON both ways; merged across sessions and runs.
#pragma once

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
    [[nodiscard]] double ratio(std::string_view kind = "tool") const {
        std::size_t listed = 0, called = 0;
        for (const auto& i : items)
            if (i.kind == kind && i.listed) {
                ++listed;
                called += i.calls > 0;
            }
        return listed == 0 ? 1.0 : static_cast<double>(called) / static_cast<double>(listed);
    }
    /// Listed but never called.
    [[nodiscard]] std::vector<std::string> never_called(std::string_view kind = "tool") const {
        return names([kind](const coverage_item& i) { return i.kind == kind && i.listed && i.calls == 0; });
    }
    /// Called but never listed (a test calling what the server does not offer).
    [[nodiscard]] std::vector<std::string> unlisted_called(std::string_view kind = "tool") const {
        return names([kind](const coverage_item& i) { return i.kind == kind && !i.listed && i.calls > 0; });
    }
    /// Called, and never once ok.
    [[nodiscard]] std::vector<std::string> always_failing(std::string_view kind = "tool") const {
        return names([kind](const coverage_item& i) { return i.kind == kind && i.calls > 0 && i.ok == 0; });
    }

    /// One line per kind that has items: "tools: 3/8 called (37.5%); never called: a, b".
    [[nodiscard]] std::string summary() const {
        std::string s;
        for (const char* kind : {"tool", "resource", "prompt"}) {
            std::size_t listed = 0, called = 0, any = 0;
            for (const auto& i : items)
                if (i.kind == kind) {
                    ++any;
                    listed += i.listed;
                    called += i.listed && i.calls > 0;
                }
            if (any == 0) continue;
            char pct[32];
            std::snprintf(pct, sizeof pct, "%.1f%%", 100.0 * ratio(kind));
            s += std::string(kind) + "s: " + std::to_string(called) + "/" + std::to_string(listed) + " called (" +
                 pct + ")";
            if (auto never = never_called(kind); !never.empty()) s += "; never called: " + join(never);
            if (auto failing = always_failing(kind); !failing.empty()) s += "; never ok: " + join(failing);
            if (auto unlisted = unlisted_called(kind); !unlisted.empty()) s += "; called but not listed: " + join(unlisted);
            s += "\n";
        }
        if (!s.empty()) s.pop_back();
        return s;
    }

    /// Sums counts by (kind, name); listed if either says so.
    void merge(const coverage_report& other) {
        for (const auto& o : other.items) {
            auto it = std::lower_bound(items.begin(), items.end(), o, before);
            if (it == items.end() || it->kind != o.kind || it->name != o.name) {
                items.insert(it, o);
                continue;
            }
            it->listed = it->listed || o.listed;
            it->calls += o.calls;
            it->ok += o.ok;
            it->tool_errors += o.tool_errors;
            it->failures += o.failures;
        }
    }

    friend bool operator==(const coverage_report&, const coverage_report&) = default;

private:
    static bool before(const coverage_item& a, const coverage_item& b) {
        return std::tie(a.kind, a.name) < std::tie(b.kind, b.name);
    }
    template <class Pred>
    std::vector<std::string> names(Pred pred) const {
        std::vector<std::string> out;
        for (const auto& i : items)
            if (pred(i)) out.push_back(i.name);
        return out;
    }
    static std::string join(const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
        return s;
    }
};

/// Accumulates a coverage_report as calls end. One lookup per call, no
/// allocation for a name already seen.
class coverage_tracker {
public:
    void listed(std::string_view kind, std::string_view name) { entry(kind, name).listed = true; }
    void called(std::string_view kind, std::string_view name, outcome o) {
        auto& e = entry(kind, name);
        ++e.calls;
        if (o == outcome::ok) ++e.ok;
        else if (o == outcome::tool_error) ++e.tool_errors;
        else ++e.failures;
    }
    [[nodiscard]] coverage_report report() const {
        coverage_report r;
        for (const auto& [key, e] : entries_) r.items.push_back(e);  // the map's order: kind, then name
        return r;
    }

private:
    coverage_item& entry(std::string_view kind, std::string_view name) {
        auto it = entries_.find(std::pair{kind, name});
        if (it != entries_.end()) return it->second;
        coverage_item item;
        item.kind.assign(kind);
        item.name.assign(name);
        auto key = std::pair{item.kind, item.name};
        return entries_.emplace(std::move(key), std::move(item)).first->second;
    }

    struct key_less {
        using is_transparent = void;
        template <class A, class B>
        bool operator()(const A& a, const B& b) const {
            return std::pair<std::string_view, std::string_view>(a.first, a.second) <
                   std::pair<std::string_view, std::string_view>(b.first, b.second);
        }
    };
    std::map<std::pair<std::string, std::string>, coverage_item, key_less> entries_;
};

// ---- JSON ------------------------------------------------------------------

inline void to_json(json& j, const coverage_item& i) {
    j = json{{"kind", i.kind}, {"name", i.name}, {"listed", i.listed}, {"calls", i.calls},
             {"ok", i.ok},     {"tool_errors", i.tool_errors},       {"failures", i.failures}};
}

/// Throws std::invalid_argument naming the missing or mistyped member.
inline void from_json(const json& j, coverage_item& i) {
    if (!j.is_object()) throw std::invalid_argument("coverage item is not an object");
    const auto field = [&j](const char* key) -> const json& {
        auto it = j.find(key);
        if (it == j.end()) throw std::invalid_argument(std::string("coverage item.") + key + " is missing");
        return *it;
    };
    const auto text = [&](const char* key) {
        const json& v = field(key);
        if (!v.is_string()) throw std::invalid_argument(std::string("coverage item.") + key + " is not a string");
        return v.get<std::string>();
    };
    const auto count = [&](const char* key) {
        const json& v = field(key);
        if (!v.is_number_unsigned())
            throw std::invalid_argument(std::string("coverage item.") + key + " is not a non-negative integer");
        return v.get<std::uint64_t>();
    };
    i.kind = text("kind");
    i.name = text("name");
    const json& listed = field("listed");
    if (!listed.is_boolean()) throw std::invalid_argument("coverage item.listed is not a boolean");
    i.listed = listed.get<bool>();
    i.calls = count("calls");
    i.ok = count("ok");
    i.tool_errors = count("tool_errors");
    i.failures = count("failures");
}

inline void to_json(json& j, const coverage_report& r) { j = json{{"items", r.items}}; }

inline void from_json(const json& j, coverage_report& r) {
    if (!j.is_object() || !j.contains("items") || !j["items"].is_array())
        throw std::invalid_argument("coverage.items is missing or not an array");
    r.items.clear();
    const json& items = j["items"];
    for (std::size_t n = 0; n < items.size(); ++n) {
        try {
            r.items.push_back(items[n].get<coverage_item>());
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument("coverage.items[" + std::to_string(n) + "]: " + e.what());
        }
    }
}

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
