// Definitions of detail/testing/current_case.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/testing/current_case.hpp>

namespace mcp_loadtest {

namespace detail {

MCP_LOADTEST_DECL std::string slugify(std::string_view name) {
    std::string out;
    for (const char c : name) {
        const auto u = static_cast<unsigned char>(c);
        if ((u >= 'a' && u <= 'z') || (u >= '0' && u <= '9') || c == '_' || c == '.') out += c;
        else if (u >= 'A' && u <= 'Z') out += static_cast<char>(u - 'A' + 'a');
        else if (!out.empty() && out.back() != '-') out += '-';
    }
    while (!out.empty() && (out.back() == '-' || out.back() == '.')) out.pop_back();
    if (out.size() > 80) out.resize(80);
    while (!out.empty() && (out.back() == '-' || out.back() == '.')) out.pop_back();
    if (out.empty() || out.front() == '.') out.insert(0, "case-");
    if (out == "case-") out = "case";
    return out;
}

MCP_LOADTEST_DECL std::deque<case_info>& case_registry() {
    static std::deque<case_info> cases;
    return cases;
}

MCP_LOADTEST_DECL void json_escape_into(std::string& out, std::string_view s) {
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') { out += '\\'; out += c; }
        else if (u < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", u);
            out += buf;
        } else out += c;
    }
}

MCP_LOADTEST_DECL std::string case_registry_listing() {
    std::string out;
    for (const auto& c : case_registry()) {
        out += "{\"name\":\"";
        json_escape_into(out, c.name);
        out += "\",\"framework\":\"" + c.framework + "\",\"time_limit_ms\":" + std::to_string(c.time_limit.count()) +
               ",\"slug\":\"" + slugify(c.name) + "\",\"file\":\"";
        json_escape_into(out, c.file);
        out += "\",\"line\":" + std::to_string(c.line) + "}\n";
    }
    return out;
}

MCP_LOADTEST_DECL void write_case_listing_at_exit() {
    const char* path = std::getenv("MCP_LOADTEST_LIST_CASES");
    if (!path || !*path) return;
    if (std::FILE* f = std::fopen(path, "w")) {
        const std::string text = case_registry_listing();
        std::fwrite(text.data(), 1, text.size(), f);
        std::fclose(f);
    } else {
        std::fprintf(stderr, "mcp-loadtest: cannot write the case listing to '%s' ($MCP_LOADTEST_LIST_CASES)\n", path);
    }
}

MCP_LOADTEST_DECL const case_info& register_case(std::string name, std::chrono::milliseconds time_limit, const char* framework,
                                                 const char* file, int line) {
    static const bool listing = [] {
        case_registry();  // constructed first, so destroyed after the exit handler ran
        const char* path = std::getenv("MCP_LOADTEST_LIST_CASES");
        if (path && *path) std::atexit(&write_case_listing_at_exit);
        return true;
    }();
    (void)listing;
    return case_registry().emplace_back(case_info{std::move(name), framework, time_limit, file, line});
}

MCP_LOADTEST_DECL const case_info*& current_case_slot() {
    thread_local const case_info* current = nullptr;
    return current;
}

}  // namespace detail

MCP_LOADTEST_DECL const case_info* current_case() noexcept { return detail::current_case_slot(); }

}  // namespace mcp_loadtest
