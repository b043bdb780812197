// Definitions of detail/transport/tls_context.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/transport/tls_context.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>

#if defined(MCP_LOADTEST_WITH_TLS)
#include <openssl/err.h>
#include <openssl/ssl.h>
#endif

namespace mcp_loadtest::detail {

#if defined(MCP_LOADTEST_WITH_TLS)
namespace tls_setup {

// "tls.cert_file '/path'" or "tls.cert_pem": where a PEM came from, for messages (never its text).
inline std::string where(const char* file_field, const std::string& path, const char* pem_field) {
    return path.empty() ? std::string("tls.") + pem_field : std::string("tls.") + file_field + " '" + path + "'";
}

inline std::string read_file(const char* field, const std::string& path) {
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);
    const std::string named = std::string("tls.") + field + " '" + path + "'";
    if (!std::filesystem::exists(st))
        throw std::runtime_error("cannot read " + named + ": there is no such file. Hint: give the full path of a "
                                 "PEM file (relative paths start at the test's working directory).");
    if (std::filesystem::is_directory(st))
        throw std::runtime_error("cannot read " + named + ": it is a directory. Hint: give a PEM file" +
                                 (std::string(field) == "ca_file" ? " (a directory of CA certificates goes in tls.ca_dir)."
                                                                  : "."));
    std::ifstream in(std::filesystem::path(path), std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.good() && !in.eof())
        throw std::runtime_error("cannot read " + named + ": it cannot be opened. Hint: check its permissions.");
    return text;
}

inline std::string pem_from(const char* file_field, const std::string& path, const char* pem_field,
                            const std::string& pem) {
    if (!path.empty() && !pem.empty())
        throw std::runtime_error(std::string("tls.") + file_field + " and tls." + pem_field +
                                 " are both set. Hint: give the PEM as a file or as text, not both.");
    return path.empty() ? pem : read_file(file_field, path);
}

inline bool mentions(const asio::error_code& ec, const char* word) {
    return ec.message().find(word) != std::string::npos;
}

inline void trust(asio::ssl::context& ctx, const tls_options& o) {
    asio::error_code ec;
    if (o.system_trust) ctx.set_default_verify_paths(ec);  // no system store: only what the options give
    const std::string ca = pem_from("ca_file", o.ca_file, "ca_pem", o.ca_pem);
    if (!o.ca_file.empty() || !o.ca_pem.empty()) {
        ctx.add_certificate_authority(asio::buffer(ca), ec);
        if (ec)
            throw std::runtime_error("cannot load " + where("ca_file", o.ca_file, "ca_pem") +
                                     ": it holds no PEM certificate (" + ec.message() +
                                     "). Hint: give the CA (or self-signed) certificate in PEM, the text between "
                                     "-----BEGIN CERTIFICATE----- and -----END CERTIFICATE-----; convert a DER "
                                     "file with `openssl x509 -inform der -in ca.der -out ca.pem`.");
    }
    if (!o.ca_dir.empty()) {
        std::error_code fec;
        if (!std::filesystem::is_directory(std::filesystem::path(o.ca_dir), fec))
            throw std::runtime_error("cannot use tls.ca_dir '" + o.ca_dir +
                                     "': it is not a directory. Hint: give a directory of PEM CA certificates "
                                     "named by hash (run `openssl rehash` on it), or one file in tls.ca_file.");
        ctx.add_verify_path(o.ca_dir, ec);
        if (ec) throw std::runtime_error("cannot use tls.ca_dir '" + o.ca_dir + "': " + ec.message() + ".");
    }
}

inline void identify(asio::ssl::context& ctx, const tls_options& o) {
    const bool has_cert = !o.cert_file.empty() || !o.cert_pem.empty();
    const bool has_key = !o.key_file.empty() || !o.key_pem.empty();
    if (!has_cert) {
        if (has_key)
            throw std::runtime_error("a client key is set (tls.key_file or tls.key_pem) without its certificate. "
                                     "Hint: set tls.cert_file (or tls.cert_pem) to the client certificate too.");
        if (!o.key_password.empty())
            throw std::runtime_error("tls.key_password is set without a client certificate and key. Hint: set "
                                     "tls.cert_file and tls.key_file (or drop the password).");
        return;
    }
    const std::string cert_from = where("cert_file", o.cert_file, "cert_pem");
    const std::string cert = pem_from("cert_file", o.cert_file, "cert_pem", o.cert_pem);
    asio::error_code ec;
    ctx.use_certificate_chain(asio::buffer(cert), ec);
    if (ec)
        throw std::runtime_error("cannot load the client certificate from " + cert_from +
                                 ": it holds no PEM certificate (" + ec.message() +
                                 "). Hint: give the certificate in PEM (-----BEGIN CERTIFICATE-----), followed by "
                                 "any intermediate certificates.");
    // The key: its own file or text, or else beside the certificate in one PEM.
    const std::string key_from = has_key ? where("key_file", o.key_file, "key_pem") : cert_from;
    const std::string key = has_key ? pem_from("key_file", o.key_file, "key_pem", o.key_pem) : std::string{};
    const std::string& key_text = has_key ? key : cert;
    if (key_text.find("PRIVATE KEY-----") == std::string::npos)
        throw std::runtime_error(key_from + " holds no private key. Hint: " +
                                 (has_key ? std::string("give the client certificate's private key in PEM "
                                                        "(-----BEGIN PRIVATE KEY-----).")
                                          : std::string("set tls.key_file (or tls.key_pem) to the client "
                                                        "certificate's private key.")));
    ctx.use_private_key(asio::buffer(key_text), asio::ssl::context::pem, ec);
    if (ec) {
        if (key_text.find("ENCRYPTED") != std::string::npos && !mentions(ec, "mismatch"))
            throw std::runtime_error(
                "cannot decrypt the private key in " + key_from +
                (o.key_password.empty() ? std::string(": it is encrypted and tls.key_password is empty")
                                        : std::string(": tls.key_password is wrong")) +
                " (" + ec.message() + "). Hint: set tls.key_password to the key's pass phrase.");
        if (mentions(ec, "mismatch"))
            throw std::runtime_error("the private key in " + key_from + " does not match the client certificate in " +
                                     cert_from + ". Hint: give the key the certificate was issued for.");
        throw std::runtime_error("cannot load the private key from " + key_from + " (" + ec.message() +
                                 "). Hint: give the key in PEM (-----BEGIN PRIVATE KEY----- or an encrypted "
                                 "-----BEGIN ENCRYPTED PRIVATE KEY----- with tls.key_password).");
    }
    if (::SSL_CTX_check_private_key(ctx.native_handle()) != 1) {
        ::ERR_clear_error();
        throw std::runtime_error("the private key in " + key_from + " does not match the client certificate in " +
                                 cert_from + ". Hint: give the key the certificate was issued for.");
    }
}

// Where a connection notes that the server asked for a client certificate.
inline int certificate_request_index() {
    static const int index = ::SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr);
    return index;
}

// OpenSSL calls it when a CertificateRequest arrived, before choosing the certificate to send.
inline int note_certificate_request(SSL* ssl, void*) {
    ::SSL_set_ex_data(ssl, certificate_request_index(), ssl);  // any non-null pointer
    return 1;
}

}  // namespace tls_setup

MCP_LOADTEST_DECL bool client_certificate_requested(SSL* ssl) noexcept {
    return ssl && ::SSL_get_ex_data(ssl, tls_setup::certificate_request_index()) != nullptr;
}

MCP_LOADTEST_DECL std::shared_ptr<asio::ssl::context> make_tls_context(const tls_options& o) {
    auto ctx = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
    ctx->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                     asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
    // Always a callback: without one OpenSSL asks for an encrypted key's pass phrase on the terminal.
    ctx->set_password_callback(
        [password = o.key_password](std::size_t, asio::ssl::context::password_purpose) { return password; });
    tls_setup::trust(*ctx, o);
    tls_setup::identify(*ctx, o);
    (void)tls_setup::certificate_request_index();  // allocated here, not in a handshake
    ::SSL_CTX_set_cert_cb(ctx->native_handle(), &tls_setup::note_certificate_request, nullptr);
    ctx->set_verify_mode(o.verify ? asio::ssl::verify_peer : asio::ssl::verify_none);
    return ctx;
}
#endif

namespace tls_setup {

// OpenSSL's reason for an error of its own (an alert the server sent, a failed check), else 0.
inline int reason_of(const asio::error_code& ec) noexcept {
#if defined(MCP_LOADTEST_WITH_TLS)
    if (ec.category() == asio::error::get_ssl_category())
        return ERR_GET_REASON(static_cast<unsigned long>(static_cast<unsigned int>(ec.value())));
#endif
    (void)ec;
    return 0;
}

// What to do when the server refused the client's certificate, or the lack of one; "" when it did not.
inline std::string refusal_hint(int reason, const tls_options& o) {
    [[maybe_unused]] const bool client_cert = !o.cert_file.empty() || !o.cert_pem.empty();
    switch (reason) {
#if defined(MCP_LOADTEST_WITH_TLS)
#if defined(SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED)
        case SSL_R_TLSV13_ALERT_CERTIFICATE_REQUIRED:
            return client_cert ? ": the server still asked for a client certificate. Hint: check that "
                                 "tls.cert_file holds the certificate the server expects."
                               : ": the server requires a client certificate (mutual TLS) and none was given. "
                                 "Hint: set tls.cert_file and tls.key_file (or tls.cert_pem and tls.key_pem) to a "
                                 "certificate signed by a CA the server trusts.";
#endif
        case SSL_R_SSLV3_ALERT_HANDSHAKE_FAILURE:
            return client_cert ? "" : ". Hint: the server may require a client certificate (mutual TLS): set "
                                      "tls.cert_file and tls.key_file; otherwise it shares no TLS version or cipher "
                                      "with this client.";
        case SSL_R_TLSV1_ALERT_UNKNOWN_CA:
        case SSL_R_SSLV3_ALERT_BAD_CERTIFICATE:
        case SSL_R_SSLV3_ALERT_UNSUPPORTED_CERTIFICATE:
        case SSL_R_SSLV3_ALERT_CERTIFICATE_REVOKED:
        case SSL_R_SSLV3_ALERT_CERTIFICATE_EXPIRED:
        case SSL_R_SSLV3_ALERT_CERTIFICATE_UNKNOWN:
        case SSL_R_TLSV1_ALERT_ACCESS_DENIED:
        case SSL_R_TLSV1_ALERT_DECRYPT_ERROR:
            return client_cert ? ": the server refused the client certificate. Hint: use a certificate issued by a "
                                 "CA the server trusts (tls.cert_file), still valid, with its own key (tls.key_file)."
                               : "";
#endif
        default: return "";
    }
}

}  // namespace tls_setup

MCP_LOADTEST_DECL std::string describe_tls_failure(const asio::error_code& ec, const std::string& host,
                                                   const tls_options& o, const std::string& verify_error) {
    std::string m = "the TLS handshake with " + host + " failed: " + ec.message();
    const int reason = tls_setup::reason_of(ec);
    if (const std::string hint = tls_setup::refusal_hint(reason, o); !hint.empty()) return m + hint;
#if defined(MCP_LOADTEST_WITH_TLS)
    if (reason == SSL_R_CERTIFICATE_VERIFY_FAILED) {
        if (!verify_error.empty()) m += " (" + verify_error + ")";
        if (verify_error.find("mismatch") != std::string::npos)
            return m + ". Hint: the server's certificate does not name this host; connect with a name or address "
                       "it lists (or, for a throwaway test server only, set tls.verify = false).";
        return m + ". Hint: the server's certificate is not trusted; give the CA that signed it in tls.ca_file (or "
                   "tls.ca_dir, tls.ca_pem" +
               (o.system_trust ? "" : "; tls.system_trust is false, so the system store is not used") +
               "), or, for a throwaway test server only, set tls.verify = false.";
    }
#endif
    (void)verify_error;
    if (ec.message().find("certificate") != std::string::npos)
        return m + ". Hint: the server's certificate is not trusted for this host name; give its CA in tls.ca_file "
                   "(or, for a throwaway test server only, set tls.verify = false).";
    return m + ". Hint: check that the port speaks TLS (https:// or wss://) and not plain HTTP.";
}

MCP_LOADTEST_DECL std::string describe_tls_refusal(const asio::error_code& ec, const std::string& host,
                                                   const tls_options& o, bool certificate_requested) {
    if (!tls_setup::refusal_hint(tls_setup::reason_of(ec), o).empty())
        return describe_tls_failure(ec, host, o, std::string{});
    if (!certificate_requested || ec == asio::error::operation_aborted) return {};
    // The alert was lost: the server's reset (it had our request unread) discards it.
    const bool client_cert = !o.cert_file.empty() || !o.cert_pem.empty();
    std::string m = "the TLS connection to " + host + " failed right after the handshake: " + ec.message();
    if (!client_cert)
        return m + ", after the server asked for a client certificate and none was given: it probably requires a "
                   "client certificate (mutual TLS). Hint: set tls.cert_file and tls.key_file (or tls.cert_pem and "
                   "tls.key_pem) to a certificate signed by a CA the server trusts.";
    return m + ", after the server asked for a client certificate: it probably refused the client certificate. "
               "Hint: use a certificate issued by a CA the server trusts (tls.cert_file), still valid, with its own "
               "key (tls.key_file).";
}

}  // namespace mcp_loadtest::detail
