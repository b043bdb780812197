// The Linux backend of detail/os/this_thread.hpp.
#pragma once

#include <mcp_loadtest/detail/os/this_thread.hpp>

#if MCP_LOADTEST_OS_LINUX

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void lower_this_thread_priority() noexcept {
    // Per thread on Linux: a thread id is a PRIO_PROCESS target.
    (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::syscall(SYS_gettid)), 19);
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_LINUX
