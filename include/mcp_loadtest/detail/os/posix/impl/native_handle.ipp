// The Unix backend (Linux, macOS; both Linux backends) of detail/os/native_handle.hpp.
#pragma once

#include <mcp_loadtest/detail/os/native_handle.hpp>

#if MCP_LOADTEST_OS_UNIX

#include <unistd.h>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void close_native_handle(native_handle h) noexcept {
    if (h >= 0) ::close(h);
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_UNIX
