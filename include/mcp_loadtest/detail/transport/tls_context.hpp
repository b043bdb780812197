// The client side of TLS: the OpenSSL context a server's tls_options describe
// (whom to trust, and the client certificate for servers that require one),
// and why a handshake or a first read failed, in words a user can act on.
// Needs MCP_LOADTEST_WITH_TLS (byte_stream.hpp refuses secure URLs without it).
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/network_server.hpp>

#include <memory>
#include <string>

#if defined(MCP_LOADTEST_WITH_TLS)
#include <asio/ssl.hpp>
#endif

namespace mcp_loadtest::detail {

#if defined(MCP_LOADTEST_WITH_TLS)
/// A client context: verification on unless tls_options says otherwise; trust
/// from the system store (unless system_trust is false) plus ca_file, ca_dir
/// and ca_pem; the client certificate and key when given. Throws
/// std::runtime_error saying which field was wrong and what to do (an
/// unreadable file names its path; a key that does not match the certificate,
/// or a wrong key_password, says so). Never prints key_pem or key_password.
MCP_LOADTEST_DECL std::shared_ptr<asio::ssl::context> make_tls_context(const tls_options& o);

/// Whether the server asked this connection for a client certificate (sent a
/// CertificateRequest); contexts from make_tls_context() record it.
[[nodiscard]] MCP_LOADTEST_DECL bool client_certificate_requested(SSL* ssl) noexcept;
#endif

/// Why a TLS handshake with `host` failed, and what to do. `verify_error`:
/// OpenSSL's verdict on the server's certificate ("" when it has none).
MCP_LOADTEST_DECL std::string describe_tls_failure(const asio::error_code& ec, const std::string& host,
                                                   const tls_options& o, const std::string& verify_error);

/// The same, when a connection fails after the handshake and before any
/// answer because the server refused the client certificate, or the lack of
/// one: under TLS 1.3 the client's side of the handshake is over before the
/// server checks it, so its alert arrives as the first read's error; or is
/// lost (the server's reset discards it) and only `certificate_requested`
/// (the server asked for one) points to it. "" for any other failure.
MCP_LOADTEST_DECL std::string describe_tls_refusal(const asio::error_code& ec, const std::string& host,
                                                   const tls_options& o, bool certificate_requested);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/tls_context.ipp>
#endif
