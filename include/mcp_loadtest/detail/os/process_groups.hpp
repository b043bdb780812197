// The groups servers are started in, as the process audit sees them. Every
// server leads a group of its own, whose id is the server's pid: a POSIX process
// group on Linux, a Job Object on Windows (registered here by the spawn).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/os/process_info.hpp>

#include <cstdint>
#include <set>
#include <vector>

namespace mcp_loadtest::detail {

/// A process found in one of the groups asked about.
struct group_member {
    pid_t pid = 0;
    pid_t parent = 0;
    pid_t group = 0;
    char state = '?';  ///< 'Z': a zombie (Linux)
};

/// The processes of `groups` now: alive, and zombies whose reaper is this process.
[[nodiscard]] MCP_LOADTEST_DECL std::vector<group_member> members_of_groups(const std::set<pid_t>& groups);

/// Whether anything of `group` still exists (cheaper than members_of_groups()).
[[nodiscard]] MCP_LOADTEST_DECL bool group_exists(pid_t group) noexcept;

/// Whether a descendant of a server left the server's group (setsid(),
/// setpgid() on Linux). Never on Windows: a job's processes cannot leave it.
[[nodiscard]] MCP_LOADTEST_DECL bool left_group(const proc_identity& id, pid_t group) noexcept;

/// The same, for a process as a snapshot of the system shows it.
[[nodiscard]] inline bool left_group(const proc_entry& p, pid_t group) noexcept {
    return left_group(proc_identity{p.parent, p.process_group, p.session, p.state, p.start_ticks}, group);
}

/// How a process is asked to end.
enum class end_request {
    terminate,  ///< politely: SIGTERM (Linux), CTRL_BREAK_EVENT to a group (Windows)
    kill,       ///< at once: SIGKILL (Linux), TerminateProcess / TerminateJobObject (Windows)
};

/// Every process of `group`.
MCP_LOADTEST_DECL void end_group(pid_t group, end_request how) noexcept;

/// `pid`, only if it is still the process that started at `start_ticks` (a
/// pid reused meanwhile is left alone), and the whole session it leads if it
/// leads one (Linux).
MCP_LOADTEST_DECL void end_process_if_same(pid_t pid, std::uint64_t start_ticks, end_request how) noexcept;

/// Forgets a group this process no longer watches (Windows: closes its job,
/// which ends what is left of it).
MCP_LOADTEST_DECL void forget_group(pid_t group) noexcept;

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/posix/impl/process_groups.ipp>
#include <mcp_loadtest/detail/os/windows/impl/process_groups.ipp>
#endif
