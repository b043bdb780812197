// The Windows backend of detail/os/machine_info.hpp: the processor's name from
// the registry (what Task Manager shows), the version from RtlGetVersion
// (GetVersionEx reports what the program's manifest claims, not the system).
#pragma once

#include <mcp_loadtest/detail/os/machine_info.hpp>

#if MCP_LOADTEST_OS_WINDOWS

#include <mcp_loadtest/detail/os/windows/handles.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string cpu_model() {
    wchar_t name[256] = {};
    DWORD size = sizeof name - sizeof name[0];
    if (::RegGetValueW(HKEY_LOCAL_MACHINE, L"HARDWARE\\DESCRIPTION\\System\\CentralProcessor\\0",
                       L"ProcessorNameString", RRF_RT_REG_SZ, nullptr, name, &size) != ERROR_SUCCESS)
        return "unknown";
    std::string model = utf8(name);
    while (!model.empty() && model.back() == ' ') model.pop_back();
    return model.empty() ? "unknown" : model;
}

MCP_LOADTEST_DECL std::string kernel_id() {
    using get_version = LONG(WINAPI*)(OSVERSIONINFOW*);
    const HMODULE ntdll = ::GetModuleHandleW(L"ntdll.dll");
    const auto rtl_get_version =
        ntdll ? reinterpret_cast<get_version>(reinterpret_cast<void*>(::GetProcAddress(ntdll, "RtlGetVersion"))) : nullptr;
    OSVERSIONINFOW v{};
    v.dwOSVersionInfoSize = sizeof v;
    if (!rtl_get_version || rtl_get_version(&v) != 0) return "Windows";
    SYSTEM_INFO system{};
    ::GetNativeSystemInfo(&system);
    const char* machine = system.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_AMD64   ? "x86_64"
                          : system.wProcessorArchitecture == PROCESSOR_ARCHITECTURE_ARM64 ? "aarch64"
                                                                                          : "unknown";
    return "Windows " + std::to_string(v.dwMajorVersion) + "." + std::to_string(v.dwMinorVersion) + "." +
           std::to_string(v.dwBuildNumber) + " " + machine;
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_WINDOWS
