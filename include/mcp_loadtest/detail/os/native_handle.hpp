// An owned pipe end, file or process handle of this process: a file descriptor
// on Linux, a HANDLE on Windows (os/platform.hpp names the type).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/os/platform.hpp>

#include <utility>

namespace mcp_loadtest::detail {

/// Closes `h` (nothing for invalid_native_handle).
MCP_LOADTEST_DECL void close_native_handle(native_handle h) noexcept;

class unique_native {
public:
    unique_native() = default;
    explicit unique_native(native_handle h) noexcept : h_(h) {}
    unique_native(unique_native&& o) noexcept : h_(o.release()) {}
    unique_native& operator=(unique_native&& o) noexcept {
        if (this != &o) reset(o.release());
        return *this;
    }
    unique_native(const unique_native&) = delete;
    unique_native& operator=(const unique_native&) = delete;
    ~unique_native() { reset(); }
    [[nodiscard]] native_handle get() const noexcept { return h_; }
    [[nodiscard]] explicit operator bool() const noexcept { return h_ != invalid_native_handle; }
    native_handle release() noexcept { return std::exchange(h_, invalid_native_handle); }
    void reset(native_handle h = invalid_native_handle) noexcept {
        if (h_ != invalid_native_handle) close_native_handle(h_);
        h_ = h;
    }

private:
    native_handle h_ = invalid_native_handle;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/os/posix/impl/native_handle.ipp>
#include <mcp_loadtest/detail/os/windows/impl/native_handle.ipp>
#endif
