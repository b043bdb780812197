// Which MCP_LOADTEST_CASE is running: the case macros register each case (name,
// time limit, framework) in a static registry and make the running one known
// to the library while its body runs (run() names its run directory after it).
//
// The registry is also what CTest discovery reads: a binary started with
// $MCP_LOADTEST_LIST_CASES=<file> and its framework's listing flag writes one
// JSON line per case to <file> when it exits (cmake/mcp_loadtest_ctest.cmake).
#pragma once

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <string>
#include <string_view>

namespace mcp_loadtest {

/// One MCP_LOADTEST_CASE as the case macros registered it.
struct case_info {
    std::string name;       ///< the framework's test name (GoogleTest: Suite.Name)
    std::string framework;  ///< doctest, catch2, gtest
    std::chrono::milliseconds time_limit{0};
    std::string file;
    int line = 0;
};

namespace detail {

/// `name` as a directory name: lower-case letters, digits, '.', '_' and '-'
/// (every other run of characters becomes one '-'), at most 80 characters,
/// never empty, never "." or "..".
inline std::string slugify(std::string_view name) {
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

/// Every case of the program, in registration order. A deque: entries never move.
inline std::deque<case_info>& case_registry() {
    static std::deque<case_info> cases;
    return cases;
}

inline void json_escape_into(std::string& out, std::string_view s) {
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

/// The registry as JSON lines: {"name","framework","time_limit_ms","slug","file","line"}.
inline std::string case_registry_listing() {
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

/// Writes the listing to $MCP_LOADTEST_LIST_CASES (at exit: every translation
/// unit's cases are registered by then).
inline void write_case_listing_at_exit() {
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

/// Called by the case macros during static initialisation.
inline const case_info& register_case(std::string name, std::chrono::milliseconds time_limit, const char* framework,
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

inline const case_info*& current_case_slot() {
    thread_local const case_info* current = nullptr;
    return current;
}

/// Makes `c` the running case for its lifetime, restoring the previous one after.
class current_case_scope {
public:
    explicit current_case_scope(const case_info& c) : previous_(current_case_slot()) { current_case_slot() = &c; }
    ~current_case_scope() { current_case_slot() = previous_; }
    current_case_scope(const current_case_scope&) = delete;
    current_case_scope& operator=(const current_case_scope&) = delete;

private:
    const case_info* previous_;
};

}  // namespace detail

/// The MCP_LOADTEST_CASE whose body runs on this thread, or nullptr outside one.
[[nodiscard]] inline const case_info* current_case() noexcept { return detail::current_case_slot(); }

}  // namespace mcp_loadtest
