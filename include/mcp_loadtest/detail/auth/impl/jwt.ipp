// Definitions of detail/auth/jwt.hpp (header-only: included by it; separate compilation:
// compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/auth/jwt.hpp>

#include <mcp_loadtest/detail/wire/base64.hpp>

#include <memory>
#include <span>
#include <vector>

#if defined(MCP_LOADTEST_WITH_TLS)
#include <openssl/bio.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#endif

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL bool jwt_signing_available() noexcept {
#if defined(MCP_LOADTEST_WITH_TLS)
    return true;
#else
    return false;
#endif
}

namespace jwt_detail {
inline std::string b64url(std::string_view text) {
    return base64url_encode(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}
#if defined(MCP_LOADTEST_WITH_TLS)
inline std::string openssl_error(const char* what) {
    const unsigned long e = ERR_get_error();
    char buf[256] = {};
    if (e) ERR_error_string_n(e, buf, sizeof buf);
    ERR_clear_error();
    return std::string(what) + (e ? std::string(": ") + buf : std::string());
}
#endif
}  // namespace jwt_detail

MCP_LOADTEST_DECL jwt_result sign_jwt(const json& claims, const std::string& private_key_pem,
                                      const std::string& algorithm, const std::string& key_id) {
    jwt_result out;
#if !defined(MCP_LOADTEST_WITH_TLS)
    (void)claims;
    (void)private_key_pem;
    (void)algorithm;
    (void)key_id;
    out.error = "signing a JWT (private_key_jwt) needs OpenSSL, and this build of mcp-loadtest has none. Hint: "
                "install libssl-dev and reconfigure, or use client_secret_basic/client_secret_post.";
    return out;
#else
    using namespace jwt_detail;
    if (algorithm != "ES256" && algorithm != "RS256") {
        out.error = "signing_algorithm \"" + algorithm + "\" is not supported: use ES256 (an EC P-256 key) or RS256 (RSA)";
        return out;
    }
    if (private_key_pem.empty()) {
        out.error = "private_key_jwt needs oauth_options::private_key_pem (a PEM private key)";
        return out;
    }
    std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(private_key_pem.data(), static_cast<int>(private_key_pem.size())), &BIO_free);
    std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key(bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr,
                                                            &EVP_PKEY_free);
    if (!key) {
        out.error = openssl_error("oauth_options::private_key_pem is not a PEM private key OpenSSL can read");
        return out;
    }
    const int type = EVP_PKEY_base_id(key.get());
    if ((algorithm == "ES256") != (type == EVP_PKEY_EC) || (algorithm == "RS256" && type != EVP_PKEY_RSA)) {
        out.error = "the private key does not suit " + algorithm + " (ES256 needs an EC P-256 key, RS256 an RSA key)";
        return out;
    }
    json header = {{"alg", algorithm}, {"typ", "JWT"}};
    if (!key_id.empty()) header["kid"] = key_id;
    const std::string signing_input = b64url(header.dump()) + "." + b64url(claims.dump());
    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> md(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
    std::size_t length = 0;
    if (!md || EVP_DigestSignInit(md.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1 ||
        EVP_DigestSign(md.get(), nullptr, &length, reinterpret_cast<const unsigned char*>(signing_input.data()),
                       signing_input.size()) != 1) {
        out.error = openssl_error("signing the client assertion failed");
        return out;
    }
    std::vector<unsigned char> signature(length);
    if (EVP_DigestSign(md.get(), signature.data(), &length, reinterpret_cast<const unsigned char*>(signing_input.data()),
                       signing_input.size()) != 1) {
        out.error = openssl_error("signing the client assertion failed");
        return out;
    }
    signature.resize(length);
    if (algorithm == "ES256") {
        // OpenSSL writes ECDSA signatures in DER; JWS wants r and s as two 32-byte numbers (RFC 7518 §3.4).
        const unsigned char* p = signature.data();
        std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)> sig(d2i_ECDSA_SIG(nullptr, &p, static_cast<long>(signature.size())),
                                                                  &ECDSA_SIG_free);
        if (!sig) {
            out.error = openssl_error("reading the ECDSA signature failed");
            return out;
        }
        std::vector<unsigned char> raw(64, 0);
        const BIGNUM* r = ECDSA_SIG_get0_r(sig.get());
        const BIGNUM* s = ECDSA_SIG_get0_s(sig.get());
        if (BN_bn2binpad(r, raw.data(), 32) != 32 || BN_bn2binpad(s, raw.data() + 32, 32) != 32) {
            out.error = "the EC key is not P-256 (ES256 needs a 256-bit curve)";
            return out;
        }
        signature = std::move(raw);
    }
    out.token = signing_input + "." + base64url_encode(std::span<const std::uint8_t>(signature.data(), signature.size()));
    return out;
#endif
}

}  // namespace mcp_loadtest::detail
