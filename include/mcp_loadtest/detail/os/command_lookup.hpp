// Where a stdio server's command would be found, without starting it: the
// same search the spawner makes (PATH of the server's environment; on Windows
// with PATHEXT too), and the environment variables the server would see. For
// the setup doctor (doctor.hpp), which says which PATH was searched.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/os/platform.hpp>
#include <mcp_loadtest/server.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace mcp_loadtest::detail {

struct command_lookup {
    std::string found;           ///< the program that would run (full path), empty when none
    bool has_directory = false;  ///< the command names a path ('/', or '\\' on Windows): no PATH search
    std::string searched;        ///< the PATH searched (empty when has_directory)
    std::string extensions;      ///< Windows: the PATHEXT extensions tried; elsewhere empty
    std::string problem;         ///< found but not runnable (e.g. not executable), in words
};

/// Looks `server.command` up as spawning it would (relative paths from its working_dir).
[[nodiscard]] MCP_LOADTEST_DECL command_lookup look_up_command(const stdio_server& server);

/// The value of `name` in the environment the server gets (its env, else this
/// process's when it inherits it; case-insensitive names on Windows), nullopt when unset.
[[nodiscard]] MCP_LOADTEST_DECL std::optional<std::string> server_environment_value(const stdio_server& server,
                                                                                   std::string_view name);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/posix/impl/command_lookup.ipp>
#include <mcp_loadtest/detail/os/windows/impl/command_lookup.ipp>
#endif
