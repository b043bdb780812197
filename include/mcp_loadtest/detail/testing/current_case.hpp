// Which MCP_LOADTEST_CASE is running: the case macros register each case (name,
// time limit, framework) in a static registry and make the running one known
// to the library while its body runs (run() names its run directory after it).
//
// The registry is also what CTest discovery reads: a binary started with
// $MCP_LOADTEST_LIST_CASES=<file> and its framework's listing flag writes one
// JSON line per case to <file> when it exits (cmake/mcp_loadtest_ctest.cmake).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

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
MCP_LOADTEST_DECL std::string slugify(std::string_view name);

/// Every case of the program, in registration order. A deque: entries never move.
MCP_LOADTEST_DECL std::deque<case_info>& case_registry();

MCP_LOADTEST_DECL void json_escape_into(std::string& out, std::string_view s);

/// The registry as JSON lines: {"name","framework","time_limit_ms","slug","file","line"}.
MCP_LOADTEST_DECL std::string case_registry_listing();

/// Writes the listing to $MCP_LOADTEST_LIST_CASES (at exit: every translation
/// unit's cases are registered by then).
MCP_LOADTEST_DECL void write_case_listing_at_exit();

/// Called by the case macros during static initialisation.
MCP_LOADTEST_DECL const case_info& register_case(std::string name, std::chrono::milliseconds time_limit, const char* framework,
                                                 const char* file, int line);

MCP_LOADTEST_DECL const case_info*& current_case_slot();

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
[[nodiscard]] MCP_LOADTEST_DECL const case_info* current_case() noexcept;

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/testing/impl/current_case.ipp>
#endif
