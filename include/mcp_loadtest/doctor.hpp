// The setup doctor (docs/index.md#the-setup-doctor): given a server
// description, a checklist of what would stop it from working, each item with
// what was found and a one-line fix. For a stdio server: the command on PATH
// (and the PATH searched), the interpreter and its version, a Node version too
// old for the package's engines.node, whether the server stays up and keeps
// stdout clean until it answers initialize, whether initialize is answered
// within the startup budget, and Python's block-buffered stdout (confirmed by
// starting the server once more with PYTHONUNBUFFERED=1). For a network server:
// the opening. Bounded: each `--version` run by doctor_options::version_timeout,
// each start by the description's startup_timeout and shutdown policy.
//
//     auto report = co_await mlt::doctor(mlt::stdio_server{"python3", {"server.py"}});
//     std::cout << report.to_terminal();
//     MCP_REQUIRE_DOCTOR_OK(report);
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/client_options.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/session.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mcp_loadtest {

enum class check_status : std::uint8_t {
    ok,       ///< nothing in the way
    warning,  ///< may get in the way, or could not be told
    problem,  ///< stops the server from working (or from working with every client)
    skipped,  ///< does not apply, or an earlier problem kept it from running
};

[[nodiscard]] MCP_LOADTEST_DECL std::string_view to_string(check_status s) noexcept;

/// One item of the checklist.
struct doctor_check {
    /// Stable id: "command", "interpreter", "node_version", "stays_up",
    /// "clean_stdout", "initialize", "python_buffering".
    std::string name;
    check_status status = check_status::skipped;
    std::string found;  ///< what the doctor found, in a sentence or two
    std::string fix;    ///< one line: what to do (empty when ok or skipped)
};

struct doctor_options {
    /// Bound on each `<interpreter> --version` run.
    std::chrono::milliseconds version_timeout{5000};
    /// A Python server (without -u or PYTHONUNBUFFERED) that leaves initialize
    /// unanswered while running is started once more with PYTHONUNBUFFERED=1:
    /// an answer then proves its replies were stuck in its stdout buffer.
    bool retry_unbuffered = true;
};
// Written inline inside co_await: must stay trivially copyable (docs/index.md#compiler-notes).
static_assert(std::is_trivially_copyable_v<doctor_options>);

struct doctor_report {
    std::string server;     ///< describe(server): the command line, or the URL without credentials
    std::string transport;  ///< transport_name(server)
    std::vector<doctor_check> checks;  ///< in the order they ran
    std::chrono::nanoseconds took{0};

    /// No check found a problem (warnings pass).
    [[nodiscard]] MCP_LOADTEST_DECL bool passed() const noexcept;
    /// The check with this name, or nullptr.
    [[nodiscard]] MCP_LOADTEST_DECL const doctor_check* find(std::string_view name) const noexcept;
    /// "SETUP OK: ..." or "SETUP PROBLEMS: <each problem: what was found. Fix: ...>".
    [[nodiscard]] MCP_LOADTEST_DECL std::string verdict_sentence() const;
    /// A Markdown checklist: a table of status, check, what was found and the fix.
    [[nodiscard]] MCP_LOADTEST_DECL std::string to_markdown() const;
    /// Plain text for a terminal or a log: one line per check (✅ ⚠️ ❌ ➖), its fix indented below.
    [[nodiscard]] MCP_LOADTEST_DECL std::string to_terminal() const;
};

// The options take overloads, not defaults: a defaulted class-type argument
// would be a temporary inside the caller's co_await (docs/index.md#compiler-notes).
/// Runs the checklist on `server` (see the top of this header). Never throws for
/// what it diagnoses: a server that cannot start is a finding.
MCP_LOADTEST_DECL asio::awaitable<doctor_report> doctor(any_server server, doctor_options options, client_options client);
MCP_LOADTEST_DECL asio::awaitable<doctor_report> doctor(any_server server, doctor_options options);
MCP_LOADTEST_DECL asio::awaitable<doctor_report> doctor(any_server server);

// ---- JSON (durations as integer nanoseconds, enums as their names) -----------

MCP_LOADTEST_DECL void to_json(json& j, const doctor_check& c);
MCP_LOADTEST_DECL void from_json(const json& j, doctor_check& c);

MCP_LOADTEST_DECL void to_json(json& j, const doctor_report& r);
MCP_LOADTEST_DECL void from_json(const json& j, doctor_report& r);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/doctor.ipp>
#endif
