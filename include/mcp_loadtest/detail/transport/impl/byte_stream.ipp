// Definitions of detail/transport/byte_stream.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/byte_stream.hpp>

namespace mcp_loadtest::detail {

#if defined(MCP_LOADTEST_WITH_TLS)
MCP_LOADTEST_DECL std::shared_ptr<asio::ssl::context> make_tls_context(const tls_options& o) {
    auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
    ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                     asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
    asio::error_code ec;
    ctx->set_default_verify_paths(ec);
    if (!o.ca_file.empty()) {
        ctx->load_verify_file(o.ca_file, ec);
        if (ec)
            throw std::runtime_error("cannot load tls.ca_file '" + o.ca_file + "': " + ec.message() +
                                     ". Hint: give a PEM file with the CA (or self-signed) certificate.");
    }
    ctx->set_verify_mode(o.verify ? asio::ssl::verify_peer : asio::ssl::verify_none);
    return ctx;
}
#endif

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

MCP_LOADTEST_DECL std::string describe_tls_failure(const asio::error_code& ec, const std::string& host) {
    std::string m = "the TLS handshake with " + host + " failed: " + ec.message();
    const std::string text = ec.message();
    if (text.find("certificate") != std::string::npos)
        m += ". Hint: the server's certificate is not trusted for this host name; give its CA in tls.ca_file "
             "(or, for a throwaway test server only, set tls.verify = false).";
    else
        m += ". Hint: check that the port speaks TLS (https:// or wss://) and not plain HTTP.";
    return m;
}

}  // namespace mcp_loadtest::detail
