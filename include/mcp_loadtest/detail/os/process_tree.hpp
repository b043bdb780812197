// A server's whole process tree, from one snapshot of every process
// (process_info.hpp): the server, the workers it forked, an `npx`/`uv run`
// wrapper's real server, and helpers that left its process group or session.
//
// Three links are followed, to a fixed point (Windows has only the first):
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

#include <mcp_loadtest/detail/os/process_info.hpp>

#include <cstddef>
#include <unordered_map>
#include <vector>

namespace mcp_loadtest::detail {

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

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/impl/process_tree.ipp>
#endif
