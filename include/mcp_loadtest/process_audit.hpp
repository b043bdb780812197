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

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/os/process_groups.hpp>
#include <mcp_loadtest/detail/os/process_info.hpp>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace mcp_loadtest {

/// A process found by the audit.
struct audited_process {
    pid_t pid = 0;
    pid_t process_group = 0;
    char state = '?';      ///< from /proc/<pid>/stat: R, S, D, Z (zombie), ...
    /// Its whole command line, arguments quoted like a shell (at most
    /// detail::max_command_chars, 16 KiB); "[comm]" when it has none (a zombie).
    std::string command;
    /// Not 0: the process left the process group of the server with this pid
    /// (setsid(), setpgid()); it was seen descending from it while it lived.
    pid_t escaped_from = 0;

    [[nodiscard]] MCP_LOADTEST_DECL std::string describe() const;
};

class process_audit {
public:
    /// Every process, in any group this process ever spawned a server into,
    /// that still exists: running, stopped, or a zombie this process must reap;
    /// and every known descendant of a server that left its group (see
    /// audited_process::escaped_from). (A killed grandchild whose parent died
    /// is reparented to init, which reaps it in its own time: it is dead and
    /// holds nothing, so it is not listed.) Empty means nothing leaked.
    [[nodiscard]] MCP_LOADTEST_DECL static std::vector<audited_process> survivors();

    /// True while any process of this group, or a known descendant of its
    /// server that left it, is alive (zombies aside).
    [[nodiscard]] MCP_LOADTEST_DECL static bool group_alive(pid_t pgid);

    /// Called by the library while a server lives (it is a no-op for any other
    /// pid): remembers its descendants outside its process group. Reads
    /// /proc/<pid>/task/*/children down the tree: microseconds for a server
    /// without children. A helper that double-forks (its parent exits at once)
    /// is reparented before it can be seen, and is missed.
    MCP_LOADTEST_DECL static void note_descendants(pid_t server) noexcept;

    /// Called by the library with each cleanup signal to a server's group:
    /// signals its known descendants outside the group too, each only if it is
    /// still the process that was seen (same pid and start time), and the
    /// whole session of one that made itself a session leader.
    MCP_LOADTEST_DECL static void signal_escaped(pid_t server, detail::end_request how) noexcept;

    /// Servers spawned but not yet reaped by the library.
    [[nodiscard]] MCP_LOADTEST_DECL static std::size_t unreaped();

    /// How many servers this process has spawned so far.
    [[nodiscard]] MCP_LOADTEST_DECL static std::size_t spawned();

    /// Called by the library; not for users.
    MCP_LOADTEST_DECL static void record_spawn(pid_t pid);
    MCP_LOADTEST_DECL static void record_reap(pid_t pid);

private:
    struct escaped_process {
        pid_t pid = 0;
        std::uint64_t start_ticks = 0;
        pid_t server = 0;
    };
    static constexpr std::size_t max_escaped = 4096;     // remembered at once (dead ones are dropped)
    static constexpr std::size_t max_tree_walk = 4096;   // processes visited per walk

    MCP_LOADTEST_DECL static std::vector<escaped_process>& escaped();

    // Still the process that was seen, and not a zombie?
    MCP_LOADTEST_DECL static bool same_and_alive(const escaped_process& e, detail::proc_identity* out = nullptr);

    MCP_LOADTEST_DECL static void forget_dead(std::vector<escaped_process>& known);

    // Known escaped descendants still alive: of `server`, or of any server (0).
    MCP_LOADTEST_DECL static std::vector<audited_process> escaped_alive(pid_t server);


    MCP_LOADTEST_DECL static std::mutex& mutex();
    MCP_LOADTEST_DECL static std::set<pid_t>& spawned_groups();
    MCP_LOADTEST_DECL static std::set<pid_t>& live();

    MCP_LOADTEST_DECL static std::vector<audited_process> scan(const std::set<pid_t>& groups);
};

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/process_audit.ipp>
#endif
