// One connection's bytes, in the clear or through TLS. TLS needs OpenSSL and
// MCP_LOADTEST_WITH_TLS (the CMake target and the Meson dependency define it
// when OpenSSL is found); without it an https:// or wss:// URL is refused
// with a message saying so.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/transport/net_connect.hpp>
#include <mcp_loadtest/detail/transport/tls_context.hpp>
#include <mcp_loadtest/network_server.hpp>

#include <cstddef>
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

class byte_stream {
public:
    explicit byte_stream(asio::any_io_executor ex) : plain_(std::move(ex)) {}

    void assign(connected_socket socket) { plain_ = std::move(socket); }

#if defined(MCP_LOADTEST_WITH_TLS)
    /// Wraps the (connected) descriptor in TLS for `host`: SNI, and the
    /// certificate checked against the host name when verification is on.
    MCP_LOADTEST_DECL void use_tls(std::shared_ptr<asio::ssl::context> ctx, const std::string& host, bool verify);

    template <class Token>
    auto async_handshake(Token&& token) {
        return tls_->async_handshake(asio::ssl::stream_base::client, std::forward<Token>(token));
    }
#endif

    /// OpenSSL's verdict on the server's certificate after a failed
    /// handshake ("certificate has expired", ...); "" when it had none.
    [[nodiscard]] MCP_LOADTEST_DECL std::string tls_verify_error() const;
    /// Whether the server asked for a client certificate in the handshake.
    [[nodiscard]] MCP_LOADTEST_DECL bool tls_certificate_requested() const noexcept;

    [[nodiscard]] MCP_LOADTEST_DECL bool secure() const noexcept;

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

    /// Writes what the socket takes now, without waiting, and returns how
    /// many bytes that was: 0 when it would block or failed (an asynchronous
    /// write of the rest then meets the error and reports it), and always 0
    /// under TLS, whose records only async_write() produces.
    [[nodiscard]] MCP_LOADTEST_DECL std::size_t write_in_place(asio::const_buffer bytes) noexcept;
    [[nodiscard]] bool is_open() const noexcept { return plain_.is_open(); }
    void close(asio::error_code& ec) { plain_.close(ec); }
    connected_socket& lowest_layer() noexcept { return plain_; }

private:
    connected_socket plain_;
#if defined(MCP_LOADTEST_WITH_TLS)
    std::shared_ptr<asio::ssl::context> ctx_;
    std::unique_ptr<asio::ssl::stream<connected_socket&>> tls_;
#endif
    bool non_blocking_set_ = false;  // write_in_place() must not wait: set on its first use
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/byte_stream.ipp>
#endif
