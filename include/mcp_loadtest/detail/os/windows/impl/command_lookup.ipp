// The Windows backend of detail/os/command_lookup.hpp: the search the spawner
// makes (windows/impl/spawn.ipp): PATH and PATHEXT of the server's environment.
#pragma once

#include <mcp_loadtest/detail/os/command_lookup.hpp>

#if MCP_LOADTEST_OS_WINDOWS

#include <mcp_loadtest/detail/os/windows/impl/spawn.ipp>
#include <mcp_loadtest/detail/os/windows_command_line.hpp>

#include <filesystem>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL command_lookup look_up_command(const stdio_server& server) {
    using namespace windows_spawn;
    command_lookup out;
    if (server.command.empty()) return out;
    const auto vars = environment_of(server);
    out.has_directory = server.command.find_first_of("/\\") != std::string::npos;
    out.extensions = variable(vars, L"PATHEXT", ".COM;.EXE;.BAT;.CMD");
    if (!out.has_directory) out.searched = variable(vars, L"PATH", "");
    std::string command = server.command;
    if (out.has_directory && !server.working_dir.empty() && std::filesystem::path(command).is_relative())
        command = (server.working_dir / command).string();
    if (const auto program = resolve_windows_command(command, out.searched, out.extensions, is_file)) out.found = *program;
    return out;
}

MCP_LOADTEST_DECL std::optional<std::string> server_environment_value(const stdio_server& server, std::string_view name) {
    using namespace windows_spawn;
    const auto vars = environment_of(server);
    const auto it = vars.find(upper(utf16(std::string(name))));
    if (it == vars.end()) return std::nullopt;
    return utf8(it->second.second);
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_WINDOWS
