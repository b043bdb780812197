// The Unix backend of detail/os/process_groups.hpp: POSIX process groups and
// kill(); the members of groups from the process table (process_info.hpp: /proc,
// libproc). The Linux backend (MCP_LOADTEST_OS_PIDFD) pins a process with a
// pidfd while checking who it is; the generic POSIX backend cannot.
#pragma once

#include <mcp_loadtest/detail/os/process_groups.hpp>

#if MCP_LOADTEST_OS_UNIX

#include <csignal>
#include <cstdlib>
#if MCP_LOADTEST_OS_PIDFD
#include <sys/syscall.h>
#endif
#include <unistd.h>

namespace mcp_loadtest::detail {

namespace unix_groups {
inline int signal_of(end_request how) noexcept { return how == end_request::kill ? SIGKILL : SIGTERM; }
}  // namespace unix_groups

MCP_LOADTEST_DECL std::vector<group_member> members_of_groups(const std::set<pid_t>& groups) {
    std::vector<group_member> out;
    if (groups.empty()) return out;
    const pid_t self = ::getpid();
    for (const proc_entry& e : snapshot_processes()) {
        if (!groups.count(e.process_group)) continue;
        if (e.state == 'Z' && e.parent != self) continue;  // dead, its reaper is someone else
        out.push_back({e.pid, e.parent, e.process_group, e.state});
    }
    return out;
}

MCP_LOADTEST_DECL bool group_exists(pid_t group) noexcept { return group > 0 && ::kill(-group, 0) == 0; }

MCP_LOADTEST_DECL bool left_group(const proc_identity& id, pid_t group) noexcept { return id.process_group != group; }

MCP_LOADTEST_DECL void end_group(pid_t group, end_request how) noexcept {
    if (group > 0) ::kill(-group, unix_groups::signal_of(how));
}

MCP_LOADTEST_DECL void end_process_if_same(pid_t pid, std::uint64_t start_ticks, end_request how) noexcept {
    const int sig = unix_groups::signal_of(how);
    const auto same = [&](proc_identity& id) {
        const auto now = read_proc_identity(pid);
        if (!now || now->start_ticks != start_ticks || now->state == 'Z' || now->state == 'X') return false;
        id = *now;
        return true;
    };
    proc_identity id;
#if MCP_LOADTEST_OS_PIDFD && defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
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
    // Checked, then signalled: a pid reused in between (rare: pids are handed out in turn) is not told apart.
    if (!same(id)) return;
    ::kill(pid, sig);
    if (id.session == pid && id.process_group == pid) ::kill(-pid, sig);
#endif
}

MCP_LOADTEST_DECL void forget_group(pid_t) noexcept {}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_UNIX
