// Definitions of coverage.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/coverage.hpp>

#include <mcp_loadtest/detail/wire/same_text.hpp>

namespace mcp_loadtest {

MCP_LOADTEST_DECL double coverage_report::ratio(std::string_view kind) const {
    std::size_t listed = 0, called = 0;
    for (const auto& i : items)
        if (i.kind == kind && i.listed) {
            ++listed;
            called += i.calls > 0;
        }
    return listed == 0 ? 1.0 : static_cast<double>(called) / static_cast<double>(listed);
}

MCP_LOADTEST_DECL std::vector<std::string> coverage_report::never_called(std::string_view kind) const {
    return names([kind](const coverage_item& i) { return i.kind == kind && i.listed && i.calls == 0; });
}

MCP_LOADTEST_DECL std::vector<std::string> coverage_report::unlisted_called(std::string_view kind) const {
    return names([kind](const coverage_item& i) { return i.kind == kind && !i.listed && i.calls > 0; });
}

MCP_LOADTEST_DECL std::vector<std::string> coverage_report::always_failing(std::string_view kind) const {
    return names([kind](const coverage_item& i) { return i.kind == kind && i.calls > 0 && i.ok == 0; });
}

MCP_LOADTEST_DECL std::string coverage_report::summary() const {
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

MCP_LOADTEST_DECL void coverage_report::merge(const coverage_report& other) {
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

MCP_LOADTEST_DECL bool coverage_report::before(const coverage_item& a, const coverage_item& b) {
    return std::tie(a.kind, a.name) < std::tie(b.kind, b.name);
}

MCP_LOADTEST_DECL std::string coverage_report::join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

MCP_LOADTEST_DECL void coverage_tracker::called(std::string_view kind, std::string_view name, outcome o) {
    auto& e = entry(kind, name);
    ++e.calls;
    if (o == outcome::ok) ++e.ok;
    else if (o == outcome::tool_error) ++e.tool_errors;
    else ++e.failures;
}

MCP_LOADTEST_DECL coverage_report coverage_tracker::report() const {
    coverage_report r;
    for (const auto& [key, e] : entries_) r.items.push_back(e);  // the map's order: kind, then name
    return r;
}

MCP_LOADTEST_DECL coverage_item& coverage_tracker::entry(std::string_view kind, std::string_view name) {
    if (last_ && detail::same_text(last_->name, name) && detail::same_text(last_->kind, kind)) return *last_;
    auto it = entries_.find(std::pair{kind, name});
    if (it == entries_.end()) {
        coverage_item item;
        item.kind.assign(kind);
        item.name.assign(name);
        auto key = std::pair{item.kind, item.name};
        it = entries_.emplace(std::move(key), std::move(item)).first;
    }
    last_ = &it->second;  // std::map's nodes stay put
    return *last_;
}

MCP_LOADTEST_DECL void to_json(json& j, const coverage_item& i) {
    j = json{{"kind", i.kind}, {"name", i.name}, {"listed", i.listed}, {"calls", i.calls},
             {"ok", i.ok},     {"tool_errors", i.tool_errors},       {"failures", i.failures}};
}

MCP_LOADTEST_DECL void from_json(const json& j, coverage_item& i) {
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

MCP_LOADTEST_DECL void from_json(const json& j, coverage_report& r) {
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

}  // namespace mcp_loadtest
