// A process's command line as reports keep it (whole, quoted like a shell) and
// as sentences and tables show it (short, keeping what identifies the process).
// Asio-free and OS-free: tested on strings.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

/// The longest command line a report's `command` field keeps, in bytes. A
/// longer one keeps its first `max_command_chars` bytes and ends with "...".
inline constexpr std::size_t max_command_chars = 16384;

/// Arguments joined by spaces; one that is empty or holds a character a shell
/// would read (space, quote, `$`, ...) is single-quoted the POSIX way, so the
/// words can be told apart again. Control characters (a `-c` program's
/// newlines) become spaces. Cut at `max_chars` (then ending with "...").
[[nodiscard]] MCP_LOADTEST_DECL std::string join_command(const std::vector<std::string>& args,
                                                         std::size_t max_chars = max_command_chars);

/// The words of a command line written by join_command(), quotes removed.
[[nodiscard]] MCP_LOADTEST_DECL std::vector<std::string> split_command(std::string_view command);

/// A command line for a sentence or a table cell, at most about `max_chars`:
/// the program's file name, the first path argument's file name (the script),
/// and as many of the last arguments as fit, "..." where words were left out;
/// a path shows its file name, a long word its head. Never the head of a long
/// path: `/home/u/src/x/fixtures/server.py --worker` becomes
/// `python3 .../server.py --worker`.
[[nodiscard]] MCP_LOADTEST_DECL std::string short_command(std::string_view command, std::size_t max_chars = 100);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/text/impl/command_text.ipp>
#endif
