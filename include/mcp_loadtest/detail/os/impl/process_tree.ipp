// Definitions of detail/os/process_tree.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/os/process_tree.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::vector<proc_entry> process_tree_members(pid_t root, const std::vector<proc_entry>& snapshot) {
    std::vector<proc_entry> out;
    if (root <= 0) return out;
    std::unordered_map<pid_t, std::vector<std::size_t>> children, group_members, session_members;
    std::unordered_map<pid_t, std::size_t> index;
    for (std::size_t i = 0; i < snapshot.size(); ++i) {
        const auto& p = snapshot[i];
        index[p.pid] = i;
        children[p.parent].push_back(i);
        group_members[p.process_group].push_back(i);
        session_members[p.session].push_back(i);
    }
    std::vector<char> taken(snapshot.size(), 0);
    const pid_t self = this_process_id();
    std::vector<std::size_t> queue;  // indexes into snapshot, in the order found
    const auto take = [&](std::size_t i) {
        if (taken[i] || snapshot[i].pid == self || snapshot[i].pid == 1) return;
        taken[i] = 1;
        queue.push_back(i);
    };
    const auto take_all = [&](const auto& map, pid_t key) {
        if (const auto it = map.find(key); it != map.end())
            for (std::size_t i : it->second) take(i);
    };
    if (const auto it = index.find(root); it != index.end()) take(it->second);
    // A dead or reaped root still leads its group and session while any member lives.
    take_all(group_members, root);
    take_all(session_members, root);
    for (std::size_t next = 0; next < queue.size(); ++next) {
        const auto& p = snapshot[queue[next]];
        take_all(children, p.pid);
        if (p.process_group == p.pid) take_all(group_members, p.pid);
        if (p.session == p.pid) take_all(session_members, p.pid);
    }
    out.reserve(queue.size());
    for (std::size_t i : queue) out.push_back(snapshot[i]);
    return out;
}

MCP_LOADTEST_DECL std::vector<proc_entry> process_tree_members(pid_t root) {
    return process_tree_members(root, snapshot_processes());
}

MCP_LOADTEST_DECL std::vector<pid_t> process_tree(pid_t root) {
    std::vector<pid_t> out;
    for (const auto& p : process_tree_members(root))
        if (!p.dead()) out.push_back(p.pid);
    return out;
}

}  // namespace mcp_loadtest::detail
