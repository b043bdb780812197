// Definitions of process_audit.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/process_audit.hpp>

#include <mcp_loadtest/detail/text/command_text.hpp>
#include <mcp_loadtest/detail/os/process_groups.hpp>
#include <mcp_loadtest/detail/os/process_tree.hpp>

namespace mcp_loadtest {

namespace detail {
// An audited process as the system shows it now; its whole command line (a zombie's
// is its name in brackets, as ps shows it).
inline audited_process audited(const group_member& m) {
    audited_process p;
    p.pid = m.pid;
    p.process_group = m.group;
    p.state = m.state;
    p.command = command_line(m.pid);
    return p;
}
}  // namespace detail

MCP_LOADTEST_DECL std::string audited_process::describe() const {
    return "pid " + std::to_string(pid) + " (`" + detail::short_command(command) + "`, state " + state + ", process group " +
           std::to_string(process_group) +
           (escaped_from ? ", left the process group of server " + std::to_string(escaped_from) : std::string()) +
           ")";
}

MCP_LOADTEST_DECL std::vector<audited_process> process_audit::survivors() {
    std::set<pid_t> groups, servers;
    {
        std::lock_guard lock(mutex());
        groups = spawned_groups();
        servers = live();
    }
    for (pid_t server : servers) note_descendants(server);
    auto out = scan(groups);
    for (auto& p : escaped_alive(0))
        if (std::none_of(out.begin(), out.end(), [&](const audited_process& o) { return o.pid == p.pid; }))
            out.push_back(std::move(p));
    return out;
}

MCP_LOADTEST_DECL bool process_audit::group_alive(pid_t pgid) {
    if (!escaped_alive(pgid).empty()) return true;
    if (!detail::group_exists(pgid)) return false;  // nothing at all left
    return !scan({pgid}).empty();
}

MCP_LOADTEST_DECL void process_audit::note_descendants(pid_t server) noexcept {
    try {
        {
            std::lock_guard lock(mutex());
            if (!live().count(server)) return;
        }
        std::vector<escaped_process> found;
        std::vector<pid_t> to_visit{server};
        std::size_t visited = 0;
        while (!to_visit.empty() && visited < max_tree_walk) {
            const pid_t parent = to_visit.back();
            to_visit.pop_back();
            for (pid_t child : detail::children_of(parent)) {
                if (++visited > max_tree_walk) break;
                const auto id = detail::read_proc_identity(child);
                if (!id || id->parent != parent) continue;  // gone, or already reparented
                if (detail::left_group(*id, server)) found.push_back({child, id->start_ticks, server});
                to_visit.push_back(child);
            }
        }
        if (found.empty()) return;
        std::lock_guard lock(mutex());
        auto& known = escaped();
        for (const auto& e : found) {
            const bool seen = std::any_of(known.begin(), known.end(), [&](const escaped_process& k) {
                return k.pid == e.pid && k.start_ticks == e.start_ticks;
            });
            if (seen) continue;
            if (known.size() >= max_escaped) forget_dead(known);
            if (known.size() < max_escaped) known.push_back(e);
        }
    } catch (...) {  // out of memory: the audit is best effort, cleanup must go on
    }
}

MCP_LOADTEST_DECL void process_audit::signal_escaped(pid_t server, detail::end_request how) noexcept {
    try {
        std::vector<escaped_process> mine;
        {
            std::lock_guard lock(mutex());
            for (const auto& e : escaped())
                if (e.server == server) mine.push_back(e);
        }
        for (const auto& e : mine) detail::end_process_if_same(e.pid, e.start_ticks, how);
    } catch (...) {
    }
}

MCP_LOADTEST_DECL std::size_t process_audit::unreaped() {
    std::lock_guard lock(mutex());
    return live().size();
}

MCP_LOADTEST_DECL std::size_t process_audit::spawned() {
    std::lock_guard lock(mutex());
    return spawned_groups().size();
}

MCP_LOADTEST_DECL void process_audit::record_spawn(pid_t pid) {
    std::lock_guard lock(mutex());
    spawned_groups().insert(pid);
    live().insert(pid);
}

MCP_LOADTEST_DECL void process_audit::record_reap(pid_t pid) {
    std::lock_guard lock(mutex());
    live().erase(pid);
}

MCP_LOADTEST_DECL std::vector<process_audit::escaped_process>& process_audit::escaped() {
    static std::vector<escaped_process> v;
    return v;
}

MCP_LOADTEST_DECL bool process_audit::same_and_alive(const escaped_process& e, detail::proc_identity* out) {
    const auto id = detail::read_proc_identity(e.pid);
    if (!id || id->start_ticks != e.start_ticks || id->state == 'Z' || id->state == 'X') return false;
    if (out) *out = *id;
    return true;
}

MCP_LOADTEST_DECL void process_audit::forget_dead(std::vector<escaped_process>& known) {
    std::erase_if(known, [](const escaped_process& e) { return !same_and_alive(e); });
}

MCP_LOADTEST_DECL std::vector<audited_process> process_audit::escaped_alive(pid_t server) {
    std::vector<escaped_process> candidates;
    {
        std::lock_guard lock(mutex());
        if (server == 0) forget_dead(escaped());
        for (const auto& e : escaped())
            if (server == 0 || e.server == server) candidates.push_back(e);
    }
    std::vector<audited_process> out;
    for (const auto& e : candidates) {
        detail::proc_identity id;
        if (!same_and_alive(e, &id)) continue;
        audited_process p = detail::audited({e.pid, id.parent, id.process_group, id.state});
        p.escaped_from = e.server;
        out.push_back(std::move(p));
    }
    return out;
}

MCP_LOADTEST_DECL std::mutex& process_audit::mutex() {
    static std::mutex m;
    return m;
}

MCP_LOADTEST_DECL std::set<pid_t>& process_audit::spawned_groups() {
    static std::set<pid_t> s;
    return s;
}

MCP_LOADTEST_DECL std::set<pid_t>& process_audit::live() {
    static std::set<pid_t> s;
    return s;
}

MCP_LOADTEST_DECL std::vector<audited_process> process_audit::scan(const std::set<pid_t>& groups) {
    std::vector<audited_process> out;
    for (const auto& m : detail::members_of_groups(groups)) out.push_back(detail::audited(m));
    return out;
}

}  // namespace mcp_loadtest
