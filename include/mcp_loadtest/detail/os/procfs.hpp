// Reading one process's counters from Linux /proc without iostreams or
// exceptions: a sampler does it for every server every few milliseconds.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <optional>
#include <string>
#include <sys/types.h>
#include <unistd.h>
#include <vector>

namespace mcp_loadtest::detail {

/// One raw reading of /proc/<pid>.
struct proc_reading {
    std::uint64_t rss_bytes = 0;
    std::uint64_t cpu_ticks = 0;    ///< utime + stime, in clock ticks (sysconf(_SC_CLK_TCK))
    std::uint64_t start_ticks = 0;  ///< start time after boot: tells a reused pid from the process first seen
    std::uint32_t open_fds = 0;
    std::uint32_t threads = 0;
};

MCP_LOADTEST_DECL long clock_ticks_per_second() noexcept;

MCP_LOADTEST_DECL std::uint64_t page_size() noexcept;

/// Reads a small file into buf; returns its length, or -1 with errno set.
MCP_LOADTEST_DECL ssize_t read_small_file(const char* path, char* buf, std::size_t cap) noexcept;

/// Counts the entries of /proc/<pid>/fd. nullopt: the process is gone.
/// A directory we may not read (another user's process) counts as 0.
MCP_LOADTEST_DECL std::optional<std::uint32_t> count_open_fds(pid_t pid) noexcept;

/// Fields 3..24 of /proc/<pid>/stat (1-based, see proc(5)) into field[3..24],
/// the state (field 3) as a char. False if the process is gone or unreadable.
MCP_LOADTEST_DECL bool read_stat_fields(pid_t pid, long long (&field)[25], char& state) noexcept;

/// Where a process sits in the process tree, and when it started (which tells
/// it from a later process that reuses its pid).
struct proc_identity {
    pid_t parent = 0;
    pid_t process_group = 0;
    pid_t session = 0;
    char state = '?';  ///< R, S, D, T, Z (zombie), ...
    std::uint64_t start_ticks = 0;
};

/// nullopt when the process is gone or unreadable (a zombie is returned, state 'Z').
MCP_LOADTEST_DECL std::optional<proc_identity> read_proc_identity(pid_t pid) noexcept;

/// The children of `pid`: from /proc/<pid>/task/<tid>/children (one file per
/// thread; cheap), or, on kernels without those files (CONFIG_PROC_CHILDREN),
/// by reading every process's parent. Empty when the process is gone.
MCP_LOADTEST_DECL std::vector<pid_t> children_of(pid_t pid);

/// Reads /proc/<pid>/stat and /proc/<pid>/fd. nullopt when the process is
/// gone, is a zombie, or cannot be read.
///
/// RSS and the thread count come from stat's `rss` and `num_threads` fields:
/// the same kernel counters as VmRSS and Threads in /proc/<pid>/status (and
/// statm's resident), read with one small file instead of two.
MCP_LOADTEST_DECL std::optional<proc_reading> read_proc(pid_t pid) noexcept;

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/impl/procfs.ipp>
#endif
