// One connection's bytes, in the clear or through TLS. TLS needs OpenSSL and
// MCP_LOADTEST_WITH_TLS (the CMake target and the Meson dependency define it
// when OpenSSL is found); without it an https:// or wss:// URL is refused
// with a message saying so.
#pragma once

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/network_server.hpp>

#include <memory>
#include <string>

#if defined(MCP_LOADTEST_WITH_TLS)
#include <asio/ssl.hpp>
#include <openssl/ssl.h>
#endif

namespace mcp_loadtest::detail {

[[nodiscard]] constexpr bool tls_available() noexcept {
#if defined(MCP_LOADTEST_WITH_TLS)
    return true;
#else
    return false;
#endif
}

#if defined(MCP_LOADTEST_WITH_TLS)
/// A client context: certificate verification on unless tls_options says
/// otherwise; trust from the system store plus tls_options::ca_file.
/// Throws std::runtime_error (with the reason) when ca_file cannot be loaded.
inline std::shared_ptr<asio::ssl::context> make_tls_context(const tls_options& o) {
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

class byte_stream {
public:
    explicit byte_stream(asio::any_io_executor ex) : plain_(std::move(ex)) {}

    void assign(int fd) { plain_.assign(fd); }

#if defined(MCP_LOADTEST_WITH_TLS)
    /// Wraps the (connected) descriptor in TLS for `host`: SNI, and the
    /// certificate checked against the host name when verification is on.
    void use_tls(std::shared_ptr<asio::ssl::context> ctx, const std::string& host, bool verify) {
        ctx_ = std::move(ctx);
        tls_ = std::make_unique<asio::ssl::stream<asio::posix::stream_descriptor&>>(plain_, *ctx_);
        ::SSL_set_tlsext_host_name(tls_->native_handle(), host.c_str());
        if (verify) tls_->set_verify_callback(asio::ssl::host_name_verification(host));
    }

    template <class Token>
    auto async_handshake(Token&& token) {
        return tls_->async_handshake(asio::ssl::stream_base::client, std::forward<Token>(token));
    }
#endif

    [[nodiscard]] bool secure() const noexcept {
#if defined(MCP_LOADTEST_WITH_TLS)
        return tls_ != nullptr;
#else
        return false;
#endif
    }

    template <class Buffers, class Token>
    auto async_read_some(const Buffers& buffers, Token&& token) {
#if defined(MCP_LOADTEST_WITH_TLS)
        if (tls_) return tls_->async_read_some(buffers, std::forward<Token>(token));
#endif
        return plain_.async_read_some(buffers, std::forward<Token>(token));
    }

    template <class Buffers, class Token>
    auto async_write(const Buffers& buffers, Token&& token) {
#if defined(MCP_LOADTEST_WITH_TLS)
        if (tls_) return asio::async_write(*tls_, buffers, std::forward<Token>(token));
#endif
        return asio::async_write(plain_, buffers, std::forward<Token>(token));
    }

    [[nodiscard]] bool is_open() const noexcept { return plain_.is_open(); }
    void close(asio::error_code& ec) { plain_.close(ec); }
    asio::posix::stream_descriptor& lowest_layer() noexcept { return plain_; }

private:
    asio::posix::stream_descriptor plain_;
#if defined(MCP_LOADTEST_WITH_TLS)
    std::shared_ptr<asio::ssl::context> ctx_;
    std::unique_ptr<asio::ssl::stream<asio::posix::stream_descriptor&>> tls_;
#endif
};

/// Why a TLS handshake failed, in words a user can act on.
inline std::string describe_tls_failure(const asio::error_code& ec, const std::string& host) {
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
