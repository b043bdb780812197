// Which operating system backend of detail/os/ this build uses: the one place
// that asks. Every backend file compiles to nothing unless its macro is 1, so a
// build includes them all and gets one.
//
//   MCP_LOADTEST_OS_LINUX    Linux: /proc, pidfds
//   MCP_LOADTEST_OS_WINDOWS  Windows (x86_64; MinGW-w64 tested under Wine)
//
// Other systems (macOS) have no backend yet: the build stops here and says so.
#pragma once

#if defined(_WIN32)
#define MCP_LOADTEST_OS_WINDOWS 1
#define MCP_LOADTEST_OS_LINUX 0
#elif defined(__linux__)
#define MCP_LOADTEST_OS_WINDOWS 0
#define MCP_LOADTEST_OS_LINUX 1
#else
#error "mcp-loadtest has operating-system backends for Linux and Windows only (detail/os/); macOS is not supported yet"
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
