// Definitions of detail/report/report_evidence.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/report/report_evidence.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string evidence_text(const json& v, std::size_t max_chars) {
    std::string s = v.is_string() ? v.get<std::string>() : v.is_null() ? std::string("–") : v.dump();
    if (s.size() > max_chars) s = s.substr(0, max_chars) + "…";
    return s;
}

MCP_LOADTEST_DECL std::vector<evidence_table> evidence_tables(const json& report, std::size_t max_rows) {
    std::vector<evidence_table> out;
    evidence_table figures{"", {"name", "value"}, {}, 0, false};
    std::vector<evidence_table> nested;
    if (!report.is_object()) return out;
    for (const auto& [key, value] : report.items()) {
        if (key == "verdict_sentence") continue;  // shown first, as the verdict
        if (value.is_object()) {
            evidence_table t{key, {"name", "value"}, {}, 0, false};
            for (const auto& [k, v] : value.items()) t.rows.push_back({k, evidence_text(v)});
            nested.push_back(std::move(t));
        } else if (value.is_array()) {
            if (value.empty()) {
                figures.rows.push_back({key, "none"});
                continue;
            }
            const bool objects = std::all_of(value.begin(), value.end(), [](const json& e) { return e.is_object(); });
            evidence_table t{key, {}, {}, 0, !objects};
            if (objects) {
                for (const auto& e : value)
                    for (const auto& [k, v] : e.items())
                        if (std::find(t.columns.begin(), t.columns.end(), k) == t.columns.end()) t.columns.push_back(k);
            } else {
                t.columns = {key};
            }
            for (const auto& e : value) {
                if (t.rows.size() == max_rows) {
                    ++t.rows_left_out;
                    continue;
                }
                if (!objects) {
                    t.rows.push_back({evidence_text(e)});
                    continue;
                }
                std::vector<std::string> row;
                for (const auto& c : t.columns) row.push_back(e.contains(c) ? evidence_text(e.at(c), 200) : "");
                t.rows.push_back(std::move(row));
            }
            nested.push_back(std::move(t));
        } else {
            figures.rows.push_back({key, evidence_text(value)});
        }
    }
    out.push_back(std::move(figures));
    for (auto& t : nested) out.push_back(std::move(t));
    return out;
}

}  // namespace mcp_loadtest::detail
