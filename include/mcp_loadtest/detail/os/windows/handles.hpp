// What every Windows backend file of detail/os/ needs: <windows.h> without its
// min/max macros, an owned HANDLE, and UTF-16 <-> UTF-8. Windows only.
#pragma once

#include <mcp_loadtest/detail/os/platform.hpp>

#if MCP_LOADTEST_OS_WINDOWS

#ifndef NOMINMAX
#define NOMINMAX  // std::min and std::max stay usable after <windows.h>
#endif
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <windows.h>

#include <mcp_loadtest/detail/os/native_handle.hpp>

#include <string>
#include <string_view>

namespace mcp_loadtest::detail {

/// An owned kernel object handle (a process, a snapshot, a job, a pipe end):
/// unique_native, whose native_handle is a HANDLE here, made from what the
/// Windows API returns: INVALID_HANDLE_VALUE (CreateFileW's failure) counts as none.
class unique_handle : public unique_native {
public:
    unique_handle() = default;
    explicit unique_handle(HANDLE h) noexcept : unique_native(h == INVALID_HANDLE_VALUE ? nullptr : h) {}
};

/// UTF-16 (what Windows APIs speak) to UTF-8 (what the library's strings hold).
inline std::string utf8(std::wstring_view w) {
    if (w.empty()) return {};
    const int n = ::WideCharToMultiByte(CP_UTF8, 0, w.data(), static_cast<int>(w.size()), nullptr, 0, nullptr, nullptr);
    std::string out(static_cast<std::size_t>(n > 0 ? n : 0), '\0');
    if (n > 0) ::WideCharToMultiByte(CP_UTF8, 0, w.data(), static_cast<int>(w.size()), out.data(), n, nullptr, nullptr);
    return out;
}

/// UTF-8 to UTF-16.
inline std::wstring utf16(std::string_view s) {
    if (s.empty()) return {};
    const int n = ::MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), nullptr, 0);
    std::wstring out(static_cast<std::size_t>(n > 0 ? n : 0), L'\0');
    if (n > 0) ::MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), out.data(), n);
    return out;
}

}  // namespace mcp_loadtest::detail

#endif  // MCP_LOADTEST_OS_WINDOWS
