// The Linux backend of detail/os/process_groups.hpp: process groups, /proc, pidfds.
#pragma once

#include <mcp_loadtest/detail/os/process_groups.hpp>

#if MCP_LOADTEST_OS_LINUX

#include <csignal>
#include <cstdlib>
#include <dirent.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace mcp_loadtest::detail {

namespace linux_groups {
inline int signal_of(end_request how) noexcept { return how == end_request::kill ? SIGKILL : SIGTERM; }
}  // namespace linux_groups

MCP_LOADTEST_DECL std::vector<group_member> members_of_groups(const std::set<pid_t>& groups) {
    std::vector<group_member> out;
    if (groups.empty()) return out;
    DIR* dir = ::opendir("/proc");
    if (!dir) return out;
    const pid_t self = ::getpid();
    while (const dirent* e = ::readdir(dir)) {
        char* end = nullptr;
        const long v = std::strtol(e->d_name, &end, 10);
        if (end == e->d_name || *end != '\0' || v <= 0) continue;
        const auto id = read_proc_identity(static_cast<pid_t>(v));
        if (!id || !groups.count(id->process_group)) continue;
        if (id->state == 'Z' && id->parent != self) continue;  // dead, its reaper is someone else
        out.push_back({static_cast<pid_t>(v), id->parent, id->process_group, id->state});
    }
    ::closedir(dir);
    return out;
}

MCP_LOADTEST_DECL bool group_exists(pid_t group) noexcept { return group > 0 && ::kill(-group, 0) == 0; }

MCP_LOADTEST_DECL bool left_group(const proc_identity& id, pid_t group) noexcept { return id.process_group != group; }

MCP_LOADTEST_DECL void end_group(pid_t group, end_request how) noexcept {
    if (group > 0) ::kill(-group, linux_groups::signal_of(how));
}

MCP_LOADTEST_DECL void end_process_if_same(pid_t pid, std::uint64_t start_ticks, end_request how) noexcept {
    const int sig = linux_groups::signal_of(how);
    const auto same = [&](proc_identity& id) {
        const auto now = read_proc_identity(pid);
        if (!now || now->start_ticks != start_ticks || now->state == 'Z' || now->state == 'X') return false;
        id = *now;
        return true;
    };
    proc_identity id;
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
    // A pidfd pins the process while its identity is checked: a pid reused in between is never signalled.
    const long fd = ::syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0) return;  // gone
    if (same(id)) {
        ::syscall(SYS_pidfd_send_signal, static_cast<int>(fd), sig, nullptr, 0);
        // A session leader's session holds only its own descendants: signal them all.
        if (id.session == pid && id.process_group == pid) ::kill(-pid, sig);
    }
    ::close(static_cast<int>(fd));
#else
    if (!same(id)) return;
    ::kill(pid, sig);
    if (id.session == pid && id.process_group == pid) ::kill(-pid, sig);
#endif
}

MCP_LOADTEST_DECL void forget_group(pid_t) noexcept {}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_LINUX
