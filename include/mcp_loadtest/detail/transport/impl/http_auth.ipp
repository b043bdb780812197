// Definitions of detail/transport/http_auth.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/http_auth.hpp>

#include <atomic>

namespace mcp_loadtest::detail {

namespace http_auth_detail {
inline std::atomic<http_authorizer_factory>& factory() noexcept {
    static std::atomic<http_authorizer_factory> f{nullptr};
    return f;
}
}  // namespace http_auth_detail

MCP_LOADTEST_DECL void set_http_authorizer_factory(http_authorizer_factory f) noexcept {
    http_auth_detail::factory().store(f, std::memory_order_release);
}

MCP_LOADTEST_DECL http_authorizer_factory get_http_authorizer_factory() noexcept {
    return http_auth_detail::factory().load(std::memory_order_acquire);
}

}  // namespace mcp_loadtest::detail
