// What a measurement was taken on, for baselines (report/baseline.hpp): the CPU model and core
// count, the compiler that built the test, and the kernel. Read once per call; nothing cached.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/os/platform.hpp>

#include <string>

namespace mcp_loadtest::detail {

/// Linux: /proc/cpuinfo's "model name" (x86), else "Hardware" / "cpu model" / "Processor"
/// (ARM, MIPS). Windows: the registry's ProcessorNameString. Else "unknown".
MCP_LOADTEST_DECL std::string cpu_model();

MCP_LOADTEST_DECL unsigned cpu_cores();

/// The compiler of this translation unit, e.g. "GCC 12.2.0" or "Clang 16.0.6".
MCP_LOADTEST_DECL std::string compiler_id();

/// "Linux 6.1.0-18-amd64 x86_64".
MCP_LOADTEST_DECL std::string kernel_id();

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/impl/machine_info.ipp>
#include <mcp_loadtest/detail/os/linux/impl/machine_info.ipp>
#include <mcp_loadtest/detail/os/windows/impl/machine_info.ipp>
#include <mcp_loadtest/detail/os/macos/impl/machine_info.ipp>
#endif
