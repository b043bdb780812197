// The Unix backend of detail/os/command_lookup.hpp: the PATH search spawn_child()
// makes (the server's own PATH when its env sets one, else this process's).
#pragma once

#include <mcp_loadtest/detail/os/command_lookup.hpp>

#if MCP_LOADTEST_OS_UNIX

#include <cstdlib>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace mcp_loadtest::detail {

namespace unix_lookup {

// "" when `path` is a runnable file, else why not.
inline std::string runnable(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return "not found";
    if (!S_ISREG(st.st_mode)) return "not a regular file";
    if (::access(path.c_str(), X_OK) != 0) return "not executable (chmod +x it)";
    return {};
}

}  // namespace unix_lookup

MCP_LOADTEST_DECL command_lookup look_up_command(const stdio_server& server) {
    command_lookup out;
    if (server.command.empty()) return out;
    if (server.command.find('/') != std::string::npos) {
        out.has_directory = true;
        std::filesystem::path p(server.command);
        if (p.is_relative() && !server.working_dir.empty()) p = server.working_dir / p;
        const std::string why = unix_lookup::runnable(p.string());
        if (why.empty()) out.found = p.string();
        else if (why != "not found") out.problem = "'" + p.string() + "' is " + why;
        return out;
    }
    const auto own = server.env.find("PATH");
    const char* inherited = std::getenv("PATH");
    out.searched = own != server.env.end() ? own->second : inherited ? inherited : "/bin:/usr/bin";
    for (std::size_t from = 0; from <= out.searched.size();) {
        const auto colon = std::min(out.searched.find(':', from), out.searched.size());
        const std::string dir = out.searched.substr(from, colon - from);
        const std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : dir) / server.command;
        const std::string why = unix_lookup::runnable(candidate.string());
        if (why.empty()) {
            out.found = candidate.string();
            return out;
        }
        if (why != "not found" && out.problem.empty()) out.problem = "'" + candidate.string() + "' is " + why;
        from = colon + 1;
    }
    return out;
}

MCP_LOADTEST_DECL std::optional<std::string> server_environment_value(const stdio_server& server, std::string_view name) {
    if (const auto it = server.env.find(std::string(name)); it != server.env.end()) return it->second;
    if (!server.inherit_environment) return std::nullopt;
    const char* v = std::getenv(std::string(name).c_str());
    if (!v) return std::nullopt;
    return std::string(v);
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_UNIX
