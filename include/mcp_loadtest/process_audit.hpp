// Auditing what the library spawned: is anything still alive or unreaped?
//
// Every server is started in its own process group whose id is the server's
// pid. The audit remembers those groups, so a test can assert that no server,
// and none of a server's own children, outlived it.
//
// A child that calls setsid() (a daemon, `start_new_session=True`) leaves the
// group, and once the server exits it is reparented to init: nothing links it
// to the server any more. So the server's process tree is read while it lives
// (at connect, on every sampler tick, before each cleanup signal, at every
// audit) and descendants outside its group are remembered with their start
// time; cleanup signals them too, and survivors() lists those still alive.
#pragma once

#include <mcp_loadtest/detail/procfs.hpp>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>
#include <vector>

namespace mcp_loadtest {

/// A process found by the audit.
struct audited_process {
    pid_t pid = 0;
    pid_t process_group = 0;
    char state = '?';      ///< from /proc/<pid>/stat: R, S, D, Z (zombie), ...
    std::string command;   ///< /proc/<pid>/comm
    /// Not 0: the process left the process group of the server with this pid
    /// (setsid(), setpgid()); it was seen descending from it while it lived.
    pid_t escaped_from = 0;

    [[nodiscard]] std::string describe() const {
        return "pid " + std::to_string(pid) + " (" + command + ", state " + state + ", process group " +
               std::to_string(process_group) +
               (escaped_from ? ", left the process group of server " + std::to_string(escaped_from) : std::string()) +
               ")";
    }
};

class process_audit {
public:
    /// Every process, in any group this process ever spawned a server into,
    /// that still exists: running, stopped, or a zombie this process must reap;
    /// and every known descendant of a server that left its group (see
    /// audited_process::escaped_from). (A killed grandchild whose parent died
    /// is reparented to init, which reaps it in its own time: it is dead and
    /// holds nothing, so it is not listed.) Empty means nothing leaked.
    [[nodiscard]] static std::vector<audited_process> survivors() {
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

    /// True while any process of this group, or a known descendant of its
    /// server that left it, is alive (zombies aside).
    [[nodiscard]] static bool group_alive(pid_t pgid) {
        if (!escaped_alive(pgid).empty()) return true;
        if (::kill(-pgid, 0) != 0) return false;  // ESRCH: nothing at all left
        return !scan({pgid}).empty();
    }

    /// Called by the library while a server lives (it is a no-op for any other
    /// pid): remembers its descendants outside its process group. Reads
    /// /proc/<pid>/task/*/children down the tree: microseconds for a server
    /// without children. A helper that double-forks (its parent exits at once)
    /// is reparented before it can be seen, and is missed.
    static void note_descendants(pid_t server) noexcept {
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
                    if (id->process_group != server) found.push_back({child, id->start_ticks, server});
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

    /// Called by the library with each cleanup signal to a server's group:
    /// signals its known descendants outside the group too, each only if it is
    /// still the process that was seen (same pid and start time), and the
    /// whole session of one that made itself a session leader.
    static void signal_escaped(pid_t server, int sig) noexcept {
        try {
            std::vector<escaped_process> mine;
            {
                std::lock_guard lock(mutex());
                for (const auto& e : escaped())
                    if (e.server == server) mine.push_back(e);
            }
            for (const auto& e : mine) signal_if_same(e, sig);
        } catch (...) {
        }
    }

    /// Servers spawned but not yet reaped by the library.
    [[nodiscard]] static std::size_t unreaped() {
        std::lock_guard lock(mutex());
        return live().size();
    }

    /// How many servers this process has spawned so far.
    [[nodiscard]] static std::size_t spawned() {
        std::lock_guard lock(mutex());
        return spawned_groups().size();
    }

    /// Called by the library; not for users.
    static void record_spawn(pid_t pid) {
        std::lock_guard lock(mutex());
        spawned_groups().insert(pid);
        live().insert(pid);
    }
    static void record_reap(pid_t pid) {
        std::lock_guard lock(mutex());
        live().erase(pid);
    }

private:
    struct escaped_process {
        pid_t pid = 0;
        std::uint64_t start_ticks = 0;
        pid_t server = 0;
    };
    static constexpr std::size_t max_escaped = 4096;     // remembered at once (dead ones are dropped)
    static constexpr std::size_t max_tree_walk = 4096;   // processes visited per walk

    static std::vector<escaped_process>& escaped() {
        static std::vector<escaped_process> v;
        return v;
    }

    // Still the process that was seen, and not a zombie?
    static bool same_and_alive(const escaped_process& e, detail::proc_identity* out = nullptr) {
        const auto id = detail::read_proc_identity(e.pid);
        if (!id || id->start_ticks != e.start_ticks || id->state == 'Z' || id->state == 'X') return false;
        if (out) *out = *id;
        return true;
    }

    static void forget_dead(std::vector<escaped_process>& known) {
        std::erase_if(known, [](const escaped_process& e) { return !same_and_alive(e); });
    }

    // Known escaped descendants still alive: of `server`, or of any server (0).
    static std::vector<audited_process> escaped_alive(pid_t server) {
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
            audited_process p;
            pid_t parent = 0;
            if (!read_stat(std::to_string(e.pid), p, parent)) continue;
            p.escaped_from = e.server;
            out.push_back(std::move(p));
        }
        return out;
    }

    // A pidfd pins the process while its identity is checked, so a pid reused
    // in between is never signalled.
    static void signal_if_same(const escaped_process& e, int sig) noexcept {
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_send_signal)
        const long fd = ::syscall(SYS_pidfd_open, e.pid, 0);
        if (fd < 0) return;  // gone
        detail::proc_identity id;
        if (same_and_alive(e, &id)) {
            ::syscall(SYS_pidfd_send_signal, static_cast<int>(fd), sig, nullptr, 0);
            // A session leader's session holds only its own descendants: signal them all.
            if (id.session == e.pid && id.process_group == e.pid) ::kill(-e.pid, sig);
        }
        ::close(static_cast<int>(fd));
#else
        detail::proc_identity id;
        if (!same_and_alive(e, &id)) return;
        ::kill(e.pid, sig);
        if (id.session == e.pid && id.process_group == e.pid) ::kill(-e.pid, sig);
#endif
    }

    static std::mutex& mutex() {
        static std::mutex m;
        return m;
    }
    static std::set<pid_t>& spawned_groups() {
        static std::set<pid_t> s;
        return s;
    }
    static std::set<pid_t>& live() {
        static std::set<pid_t> s;
        return s;
    }

    static std::vector<audited_process> scan(const std::set<pid_t>& groups) {
        std::vector<audited_process> out;
        if (groups.empty()) return out;
        DIR* dir = ::opendir("/proc");
        if (!dir) return out;
        const pid_t self = ::getpid();
        while (dirent* e = ::readdir(dir)) {
            const std::string name = e->d_name;
            if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; }))
                continue;
            audited_process p;
            pid_t parent = 0;
            if (!read_stat(name, p, parent)) continue;
            if (!groups.count(p.process_group)) continue;
            if (p.state == 'Z' && parent != self) continue;  // dead, its reaper is someone else
            out.push_back(p);
        }
        ::closedir(dir);
        return out;
    }

    static bool read_stat(const std::string& pid, audited_process& p, pid_t& parent) {
        std::ifstream f("/proc/" + pid + "/stat");
        std::string line;
        if (!std::getline(f, line)) return false;
        // pid (comm) state ppid pgrp ...; comm may contain spaces and ')'.
        const auto open = line.find('(');
        const auto close = line.rfind(')');
        if (open == std::string::npos || close == std::string::npos || close + 2 >= line.size()) return false;
        p.pid = static_cast<pid_t>(std::stol(line.substr(0, open)));
        p.command = line.substr(open + 1, close - open - 1);
        int ppid = 0, pgrp = 0;
        char state = '?';
        if (std::sscanf(line.c_str() + close + 2, "%c %d %d", &state, &ppid, &pgrp) != 3) return false;
        p.state = state;
        parent = static_cast<pid_t>(ppid);
        p.process_group = pgrp;
        return true;
    }
};

}  // namespace mcp_loadtest
