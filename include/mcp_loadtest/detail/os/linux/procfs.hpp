// Reading Linux /proc without iostreams or exceptions: the helpers of the Linux
// backend (linux/impl/process_info.ipp) and of thread readings. Linux only.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/os/platform.hpp>
#if MCP_LOADTEST_OS_LINUX

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

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_LINUX

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/linux/impl/procfs.ipp>
#endif
