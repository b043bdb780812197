// Definitions of detail/detectors/cross_talk_attribution.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/detectors/cross_talk_attribution.hpp>

#include <mcp_loadtest/json.hpp>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void collect_strings(const json& v, std::vector<std::string>& out) {
    if (v.is_string()) {
        out.push_back(v.get<std::string>());
    } else if (v.is_object() || v.is_array()) {
        for (const auto& item : v) collect_strings(item, out);
    }
}

MCP_LOADTEST_DECL std::vector<argument_strings> distinctive_strings(const std::vector<json>& arguments) {
    std::vector<argument_strings> strings(arguments.size());
    std::map<std::string, std::size_t> owners;  // string -> number of requests that have it
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        std::vector<std::string> raw;
        collect_strings(arguments[i], raw);
        for (const auto& s : raw) {
            std::string escaped = json(s).dump();
            escaped = escaped.substr(1, escaped.size() - 2);
            bool seen = false;
            for (const auto& t : strings[i].all) seen = seen || t == escaped;
            if (seen) continue;
            ++owners[escaped];
            strings[i].all.push_back(std::move(escaped));
        }
    }
    for (auto& mine : strings)
        for (const auto& s : mine.all)
            if (s.size() >= min_distinctive_length && owners[s] == 1) mine.distinctive.push_back(s);
    return strings;
}

MCP_LOADTEST_DECL std::optional<carried_strings> find_carried_strings(std::size_t own, std::string_view reply_text,
                                                          const std::vector<argument_strings>& strings) {
    std::optional<carried_strings> best;
    for (std::size_t j = 0; j < strings.size(); ++j) {
        if (j == own) continue;
        for (const auto& s : strings[j].distinctive) {
            if (best && s.size() <= best->value.size()) continue;
            if (reply_text.find(s) == std::string_view::npos) continue;
            bool part_of_own = false;
            for (const auto& mine : strings[own].all) part_of_own = part_of_own || mine.find(s) != std::string::npos;
            if (!part_of_own) best = carried_strings{j, s};
        }
    }
    return best;
}

}  // namespace mcp_loadtest::detail
