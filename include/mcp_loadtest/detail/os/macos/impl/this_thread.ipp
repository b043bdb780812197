// The macOS backend of detail/os/this_thread.hpp. Not compiled or run in CI (no macOS machine).
#pragma once

#include <mcp_loadtest/detail/os/this_thread.hpp>

#if MCP_LOADTEST_OS_MACOS

#include <pthread.h>
#include <pthread/qos.h>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL void lower_this_thread_priority() noexcept {
    // macOS schedules threads by quality of service: "utility" yields to the default class.
    (void)::pthread_set_qos_class_self_np(QOS_CLASS_UTILITY, 0);
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_MACOS
