// What a server's command line says about its interpreter, as pure text for the
// setup doctor (doctor.hpp): which interpreter runs it (python, node, uv,
// npx...), whether Python's stdout is unbuffered (-u), the script or package it
// runs; versions as `--version` prints them, and npm's `engines` ranges.
// Asio-free and OS-free: tested on strings.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

/// The interpreters the doctor knows.
enum class interpreter_kind : std::uint8_t { none, python, node, uv, npx, deno, bun };

[[nodiscard]] MCP_LOADTEST_DECL std::string_view to_string(interpreter_kind k) noexcept;

/// Which interpreter `command` is, by its file name without directory or a
/// Windows extension: python, python3, python3.12, py, pythonw -> python; node,
/// nodejs -> node; uv, uvx -> uv; npx -> npx; deno; bun.
[[nodiscard]] MCP_LOADTEST_DECL interpreter_kind interpreter_of(std::string_view command);

/// A command's file name without its directory and a .exe/.cmd/.bat extension.
[[nodiscard]] MCP_LOADTEST_DECL std::string program_name(std::string_view command);

/// Python's own options (before the script, -m or -c) include -u: stdout unbuffered.
[[nodiscard]] MCP_LOADTEST_DECL bool python_unbuffered_flag(const std::vector<std::string>& args);

/// The script `node` runs: its first argument that is not an option (nor an
/// option's value: -r/--require, --import, --loader, -e and -p take one).
/// Empty when it runs none (-e, -p, the REPL).
[[nodiscard]] MCP_LOADTEST_DECL std::string node_script(const std::vector<std::string>& args);

/// The package `npx` runs, without its version: `-y @scope/name@1.2 --flag`
/// gives "@scope/name"; `--package=x`/`-p x` name it too. Empty when none.
[[nodiscard]] MCP_LOADTEST_DECL std::string npx_package(const std::vector<std::string>& args);

struct version_number {
    int major = 0, minor = 0, patch = 0;
    friend bool operator==(const version_number&, const version_number&) = default;
    friend auto operator<=>(const version_number&, const version_number&) = default;
};

/// "v20.11.1", "Python 3.11.7", "uv 0.4.18 (...)": the first number with at
/// least a major.minor; nullopt when there is none.
[[nodiscard]] MCP_LOADTEST_DECL std::optional<version_number> find_version(std::string_view text);

[[nodiscard]] MCP_LOADTEST_DECL std::string to_string(const version_number& v);

/// Whether `v` satisfies an npm semver range (package.json "engines"): ||
/// alternatives of space-separated comparators (>=, >, <=, <, =, ^, ~, x
/// wildcards, partial versions) and hyphen ranges. nullopt when the range is
/// written some way this does not read.
[[nodiscard]] MCP_LOADTEST_DECL std::optional<bool> satisfies_range(const version_number& v, std::string_view range);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/text/impl/interpreter_text.ipp>
#endif
