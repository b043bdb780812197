// Auditing what the library spawned: is anything still alive or unreaped?
//
// Every server is started in its own process group whose id is the server's
// pid. The audit remembers those groups, so a test can assert that no server,
// and none of a server's own children, outlived it.
#pragma once

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <mutex>
#include <set>
#include <string>
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

    [[nodiscard]] std::string describe() const {
        return "pid " + std::to_string(pid) + " (" + command + ", state " + state + ", process group " +
               std::to_string(process_group) + ")";
    }
};

class process_audit {
public:
    /// Every process, in any group this process ever spawned a server into,
    /// that still exists: running, stopped, or a zombie this process must reap.
    /// (A killed grandchild whose parent died is reparented to init, which
    /// reaps it in its own time: it is dead and holds nothing, so it is not
    /// listed.) Empty means nothing leaked.
    [[nodiscard]] static std::vector<audited_process> survivors() {
        std::set<pid_t> groups;
        {
            std::lock_guard lock(mutex());
            groups = spawned_groups();
        }
        return scan(groups);
    }

    /// True while any process of this group is alive (zombies aside).
    [[nodiscard]] static bool group_alive(pid_t pgid) {
        if (::kill(-pgid, 0) != 0) return false;  // ESRCH: nothing at all left
        return !scan({pgid}).empty();
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
