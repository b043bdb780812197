// A server's whole process tree from Linux /proc: the server, the workers it
// forked, an `npx`/`uv run` wrapper's real server, and helpers that left its
// process group or session.
//
// Three links are followed, to a fixed point, from one reading of /proc:
// - parent links (ppid): every descendant whose ancestors are still alive;
// - process groups: every member of a group led by a member (the library starts
//   each server as the leader of its own group, so a grandchild whose parent
//   died, reparented to init, is still found through the group);
// - sessions: every member of a session led by a member (a setsid() helper's
//   own children stay in its session after it dies).
// Not found: a helper that double-forked and left both the group and the
// session of every member (its only link, its parent, died at once).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/text/command_text.hpp>
#include <mcp_loadtest/detail/os/procfs.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <string>
#include <sys/types.h>
#include <unordered_map>
#include <vector>

namespace mcp_loadtest::detail {

/// One process as /proc/<pid>/stat shows it.
struct proc_entry {
    pid_t pid = 0;
    pid_t parent = 0;
    pid_t process_group = 0;
    pid_t session = 0;
    char state = '?';              ///< R, S, D, T, Z (zombie), ...
    std::uint64_t start_ticks = 0; ///< tells this process from a later one reusing its pid

    [[nodiscard]] bool dead() const noexcept { return state == 'Z' || state == 'X' || state == 'x'; }
};

/// Every process visible under /proc now: one stat read each, about 1 ms
/// for 80 processes on a busy machine.
[[nodiscard]] MCP_LOADTEST_DECL std::vector<proc_entry> snapshot_processes();

/// The tree of `root` within a snapshot: root first (when it is in the
/// snapshot), then the rest in the order found (children before
/// grandchildren along parent links). Zombies are included (state 'Z').
/// Processes outside every link are never included, even this process.
[[nodiscard]] MCP_LOADTEST_DECL std::vector<proc_entry> process_tree_members(pid_t root, const std::vector<proc_entry>& snapshot);

/// The tree of `root` now (one /proc snapshot).
[[nodiscard]] MCP_LOADTEST_DECL std::vector<proc_entry> process_tree_members(pid_t root);

/// The live processes of `root`'s tree now, root first (when it is alive),
/// zombies left out. Empty when nothing of it is left.
[[nodiscard]] MCP_LOADTEST_DECL std::vector<pid_t> process_tree(pid_t root);

/// The whole command line of a process, as reports keep it (join_command():
/// arguments quoted like a shell, at most `max_chars` bytes). When it is
/// empty (a kernel thread, a zombie, or a process inside execve() whose new
/// command line is not set up yet) its /proc/<pid>/comm name in brackets, as
/// ps shows it: "[python3]"; empty when it is gone. Sentences and tables show
/// short_command() of it.
[[nodiscard]] MCP_LOADTEST_DECL std::string command_line(pid_t pid, std::size_t max_chars = max_command_chars);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/impl/process_tree.ipp>
#endif
