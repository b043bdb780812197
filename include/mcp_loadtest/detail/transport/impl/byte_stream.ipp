// Definitions of detail/transport/byte_stream.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/byte_stream.hpp>

namespace mcp_loadtest::detail {

#if defined(MCP_LOADTEST_WITH_TLS)
MCP_LOADTEST_DECL void byte_stream::use_tls(std::shared_ptr<asio::ssl::context> ctx, const std::string& host, bool verify) {
    ctx_ = std::move(ctx);
    tls_ = std::make_unique<asio::ssl::stream<connected_socket&>>(plain_, *ctx_);
    ::SSL_set_tlsext_host_name(tls_->native_handle(), host.c_str());
    if (verify) tls_->set_verify_callback(asio::ssl::host_name_verification(host));
}
#endif

MCP_LOADTEST_DECL std::size_t byte_stream::write_in_place(asio::const_buffer bytes) noexcept {
#if defined(MCP_LOADTEST_WITH_TLS)
    if (tls_) return 0;
#endif
    asio::error_code ec;
    if (!non_blocking_set_) {
        plain_.non_blocking(true, ec);
        if (ec) return 0;
        non_blocking_set_ = true;
    }
    const std::size_t n = plain_.write_some(bytes, ec);
    return ec ? 0 : n;
}

MCP_LOADTEST_DECL bool byte_stream::secure() const noexcept {
#if defined(MCP_LOADTEST_WITH_TLS)
    return tls_ != nullptr;
#else
    return false;
#endif
}

MCP_LOADTEST_DECL bool byte_stream::tls_certificate_requested() const noexcept {
#if defined(MCP_LOADTEST_WITH_TLS)
    if (tls_) return client_certificate_requested(tls_->native_handle());
#endif
    return false;
}

MCP_LOADTEST_DECL std::string byte_stream::tls_verify_error() const {
#if defined(MCP_LOADTEST_WITH_TLS)
    if (!tls_) return {};
    const long verdict = ::SSL_get_verify_result(tls_->native_handle());
    if (verdict != X509_V_OK) return ::X509_verify_cert_error_string(verdict);
#endif
    return {};
}

}  // namespace mcp_loadtest::detail
