// Which operating system backend of detail/os/ this build uses: the one place
// that asks. Every backend file compiles to nothing unless its macro is 1, so a
// build includes them all and gets one.
//
// Spawning, pipes, exit watching, signals and process groups:
//
//   MCP_LOADTEST_OS_WINDOWS  Windows (x86_64; MinGW-w64 tested under Wine):
//                            Job Objects, overlapped pipes, process handles
//   MCP_LOADTEST_OS_UNIX     every other system: posix_spawn, pipes, process
//                            groups, kill() (os/posix/); then exactly one of
//     MCP_LOADTEST_OS_PIDFD  Linux's own backend: exits watched, and processes
//                            signalled, through pidfds (the default on Linux)
//     MCP_LOADTEST_OS_POSIX  the generic POSIX backend: nothing beyond POSIX;
//                            exits watched by polling waitid(P_PID, WNOWAIT)
//                            (macOS, other Unix, and Linux built with
//                            MCP_LOADTEST_GENERIC_POSIX defined: CMake's
//                            MCP_LOADTEST_OS_BACKEND=posix, Meson's os_backend)
//
// The process table (process_info.hpp: readings, parents, groups, command lines):
//
//   MCP_LOADTEST_OS_LINUX    /proc: Linux, with either backend above
//   MCP_LOADTEST_OS_MACOS    libproc: macOS (os/macos/; not compiled or run in CI)
//   (Windows: Tool Help snapshots and PSAPI, under MCP_LOADTEST_OS_WINDOWS)
//
// Other Unix systems have no process table yet: the build stops here and says so.
#pragma once

#if defined(_WIN32)
#define MCP_LOADTEST_OS_WINDOWS 1
#define MCP_LOADTEST_OS_UNIX 0
#define MCP_LOADTEST_OS_LINUX 0
#define MCP_LOADTEST_OS_MACOS 0
#elif defined(__linux__)
#define MCP_LOADTEST_OS_WINDOWS 0
#define MCP_LOADTEST_OS_UNIX 1
#define MCP_LOADTEST_OS_LINUX 1
#define MCP_LOADTEST_OS_MACOS 0
#elif defined(__APPLE__)
#define MCP_LOADTEST_OS_WINDOWS 0
#define MCP_LOADTEST_OS_UNIX 1
#define MCP_LOADTEST_OS_LINUX 0
#define MCP_LOADTEST_OS_MACOS 1
#else
#error "mcp-loadtest reads the process table on Linux (/proc), macOS (libproc) and Windows only (detail/os/); this system has no backend yet"
#endif

#if MCP_LOADTEST_OS_LINUX && !defined(MCP_LOADTEST_GENERIC_POSIX)
#define MCP_LOADTEST_OS_PIDFD 1
#define MCP_LOADTEST_OS_POSIX 0
#elif MCP_LOADTEST_OS_UNIX
#define MCP_LOADTEST_OS_PIDFD 0
#define MCP_LOADTEST_OS_POSIX 1
#else
#define MCP_LOADTEST_OS_PIDFD 0
#define MCP_LOADTEST_OS_POSIX 0
#endif

#if MCP_LOADTEST_OS_WINDOWS
#include <cstdint>
#else
#include <sys/types.h>
#endif

namespace mcp_loadtest {

#if MCP_LOADTEST_OS_WINDOWS
/// A process id. Windows' are DWORDs (32 bits); MSVC has no pid_t at all and
/// MinGW-w64's is 64 bits, so the library names its own.
using pid_t = int;
#else
using ::pid_t;
#endif

namespace detail {
#if MCP_LOADTEST_OS_WINDOWS
using native_handle = void*;  ///< a HANDLE
inline constexpr native_handle invalid_native_handle = nullptr;
#else
using native_handle = int;  ///< a file descriptor
inline constexpr native_handle invalid_native_handle = -1;
#endif
}  // namespace detail

}  // namespace mcp_loadtest
