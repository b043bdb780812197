// How a process is started on Windows, as pure text: the command line a
// program's C runtime splits back into the same arguments (CommandLineToArgvW's
// rules), the line cmd.exe needs to run a .cmd/.bat shim (npx, uvx and npm are
// such shims), and a command looked up the way a shell does (PATH, PATHEXT).
// No Windows header: compiled and tested everywhere; the Windows backend
// (windows/impl/spawn.ipp) uses it.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest::detail {

/// One argument quoted so that CommandLineToArgvW (and the MSVC and MinGW C
/// runtimes) read it back unchanged: as is when it holds no space, tab or
/// quote and is not empty; else in quotes, with backslashes doubled before a
/// quote and before the closing quote.
[[nodiscard]] MCP_LOADTEST_DECL std::string quote_windows_argument(std::string_view arg);

/// The whole command line of `argv` (argv[0] the program), each argument quoted.
[[nodiscard]] MCP_LOADTEST_DECL std::string windows_command_line(const std::vector<std::string>& argv);

/// The command line that runs a batch file (`.cmd`, `.bat`) with `args`
/// through cmd.exe: `cmd.exe /d /s /c ""<script>" <args>"`. cmd.exe reads %
/// and ! itself and ends a command at a line break, whatever the quoting, so
/// an argument holding any of % ! " \r \n cannot be passed safely: nullopt then
/// (the caller names the argument in its error).
[[nodiscard]] MCP_LOADTEST_DECL std::optional<std::string> batch_command_line(std::string_view cmd_exe,
                                                                              std::string_view script,
                                                                              const std::vector<std::string>& args);

/// True for a name ending in .cmd or .bat (any case).
[[nodiscard]] MCP_LOADTEST_DECL bool is_batch_file(std::string_view path);

/// Finds `command` as cmd.exe would: a name with a directory part is tried as
/// given, a bare name in each directory of `path_list` (';'-separated, empty
/// entries skipped); each candidate first as written if it already has an
/// extension listed in `pathext` (';'-separated, e.g. ".COM;.EXE;.BAT;.CMD"),
/// then with each of those extensions appended in order. `is_file` says whether
/// a candidate exists. nullopt when nothing matches.
[[nodiscard]] MCP_LOADTEST_DECL std::optional<std::string> resolve_windows_command(
    std::string_view command, std::string_view path_list, std::string_view pathext,
    const std::function<bool(const std::string&)>& is_file);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/impl/windows_command_line.ipp>
#endif
