// Definitions of detail/wire/url.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/wire/url.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string url::host_header() const {
    std::string out;
    out.reserve(host.size() + 8);
    if (ipv6_literal())
        ((out += '[') += host) += ']';
    else
        out += host;
    if (!default_port()) (out += ':') += port_text;
    return out;
}

}  // namespace mcp_loadtest::detail

namespace mcp_loadtest::detail::url_detail {

MCP_LOADTEST_DECL std::string redact_text(std::string_view text) {
    const std::size_t sep = text.find("://");
    const std::size_t from = sep == std::string_view::npos ? 0 : sep + 3;
    const std::size_t authority_end = text.find_first_of("/?#", from);
    const std::size_t at = text.substr(0, authority_end).rfind('@');
    std::string out;
    if (at == std::string_view::npos || at < from) {
        append_excerpt(out, text, 200);
    } else {
        std::string joined(text.substr(0, from));
        joined += text.substr(at + 1);
        append_excerpt(out, joined, 200);
    }
    return out;
}

MCP_LOADTEST_DECL bool fail(std::string* error, std::string_view text, std::string_view why) {
    if (error) {
        *error = "invalid URL ";
        *error += redact_text(text);
        *error += ": ";
        *error += why;
    }
    return false;
}

MCP_LOADTEST_DECL bool check_target(std::string_view target, std::string_view text, std::string* error) {
    for (std::size_t i = 0; i < target.size(); ++i) {
        const auto c = static_cast<unsigned char>(target[i]);
        if (c <= 0x20 || c >= 0x7f)
            return fail(error, text,
                        "the path or query holds a space, control or non-ASCII byte (" + excerpt(target.substr(i, 1)) +
                            "); percent-encode it");
    }
    return true;
}

MCP_LOADTEST_DECL std::string remove_dot_segments(std::string_view in) {
    std::string out;
    out.reserve(in.size());
    while (!in.empty()) {
        if (in.starts_with("../"))
            in.remove_prefix(3);
        else if (in.starts_with("./"))
            in.remove_prefix(2);
        else if (in.starts_with("/./"))
            in.remove_prefix(2);
        else if (in == "/.")
            in = "/";
        else if (in.starts_with("/../") || in == "/..") {
            in = in.size() == 3 ? std::string_view("/") : in.substr(3);
            const std::size_t slash = out.rfind('/');
            out.resize(slash == std::string::npos ? 0 : slash);
        } else if (in == "." || in == "..")
            in = {};
        else {
            const std::size_t next = in.find('/', 1);
            out += in.substr(0, next);
            in.remove_prefix(next == std::string_view::npos ? in.size() : next);
        }
    }
    return out.empty() ? std::string("/") : out;
}

}  // namespace mcp_loadtest::detail::url_detail

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::optional<url> parse_url(std::string_view text, std::string* error) {
    using namespace url_detail;
    text = trim_space(text);
    const std::string_view original = text;
    const std::size_t sep = text.find("://");
    const std::size_t scheme_len = scheme_length(text);
    if (sep == std::string_view::npos || scheme_len != sep) {
        fail(error, original,
             "it does not start with http://, https://, ws:// or wss:// (write e.g. http://localhost:3000/mcp)");
        return std::nullopt;
    }
    url u;
    for (const char c : text.substr(0, sep)) u.scheme += ascii_lower(c);
    const std::uint16_t default_port = default_port_for(u.scheme);
    if (default_port == 0) {
        fail(error, original, "unsupported scheme '" + u.scheme + "'; use http, https, ws or wss");
        return std::nullopt;
    }
    text.remove_prefix(sep + 3);

    const std::size_t authority_end = text.find_first_of("/?#");
    std::string_view authority = text.substr(0, authority_end);
    std::string_view rest = authority_end == std::string_view::npos ? std::string_view{} : text.substr(authority_end);
    if (const std::size_t at = authority.rfind('@'); at != std::string_view::npos) {
        u.userinfo = authority.substr(0, at);
        authority.remove_prefix(at + 1);
    }

    std::string_view host, port;
    bool has_port = false;
    if (authority.starts_with('[')) {
        const std::size_t close = authority.find(']');
        if (close == std::string_view::npos) {
            fail(error, original, "the IPv6 address has no closing ']'");
            return std::nullopt;
        }
        host = authority.substr(1, close - 1);
        if (host.empty() || host.find_first_not_of("0123456789abcdefABCDEF:.") != std::string_view::npos ||
            host.find(':') == std::string_view::npos) {
            fail(error, original, "'[" + std::string(host) + "]' is not an IPv6 address");
            return std::nullopt;
        }
        const std::string_view after = authority.substr(close + 1);
        if (!after.empty() && after.front() != ':') {
            fail(error, original, "unexpected text after the IPv6 address; write [addr]:port");
            return std::nullopt;
        }
        has_port = !after.empty();
        if (has_port) port = after.substr(1);
    } else {
        const std::size_t colon = authority.find(':');
        if (colon != std::string_view::npos && authority.find(':', colon + 1) != std::string_view::npos) {
            fail(error, original, "the host has several ':'; write an IPv6 address in brackets, as http://[::1]:3000/");
            return std::nullopt;
        }
        host = authority.substr(0, colon);
        has_port = colon != std::string_view::npos;
        if (has_port) port = authority.substr(colon + 1);
        for (const char c : host) {
            if (!host_char(c)) {
                fail(error, original, "the host holds the character " + excerpt(std::string_view(&c, 1)));
                return std::nullopt;
            }
        }
    }
    if (host.empty()) {
        fail(error, original, "it has no host");
        return std::nullopt;
    }
    for (const char c : host) u.host += ascii_lower(c);

    u.port = default_port;
    if (has_port && !port.empty()) {
        std::uint32_t value = 0;
        bool digits = port.size() <= 5;
        for (const char c : port) {
            if (c < '0' || c > '9')
                digits = false;
            else
                value = value * 10 + static_cast<std::uint32_t>(c - '0');
        }
        if (!digits || value == 0 || value > 65535) {
            fail(error, original, "port " + excerpt(port, 20) + " is not a number from 1 to 65535");
            return std::nullopt;
        }
        u.port = static_cast<std::uint16_t>(value);
    }
    u.port_text = std::to_string(u.port);

    rest = rest.substr(0, rest.find('#'));
    if (rest.empty() || rest.front() == '?')
        u.target = "/" + std::string(rest);
    else
        u.target = rest;
    if (!check_target(u.target, original, error)) return std::nullopt;
    return u;
}

MCP_LOADTEST_DECL std::optional<url> resolve_relative(const url& base, std::string_view ref,
                                                      std::string* error) {
    using namespace url_detail;
    ref = trim_space(ref);
    if (ref.empty()) {
        if (error) *error = "invalid URL reference: it is empty (resolving against " + base.redacted() + ")";
        return std::nullopt;
    }
    if (scheme_length(ref) != 0) return parse_url(ref, error);
    if (ref.starts_with("//")) return parse_url(base.scheme + ":" + std::string(ref), error);

    ref = ref.substr(0, ref.find('#'));
    const std::size_t q = ref.find('?');
    const std::string_view ref_path = ref.substr(0, q);
    const std::string_view ref_query = q == std::string_view::npos ? std::string_view{} : ref.substr(q);
    const std::string_view base_target = base.target;
    const std::string_view base_path = base_target.substr(0, base_target.find('?'));

    std::string path;
    if (ref_path.empty()) {
        path = base_path;  // "?query" (or "" after dropping a fragment) keeps the base path
    } else if (ref_path.front() == '/') {
        path = remove_dot_segments(ref_path);
    } else {
        std::string merged(base_path.substr(0, base_path.rfind('/') + 1));
        merged += ref_path;
        path = remove_dot_segments(merged);
    }
    url out = base;
    out.target = std::move(path);
    if (ref_path.empty() && ref_query.empty()) {
        const std::size_t bq = base_target.find('?');
        if (bq != std::string_view::npos) out.target += base_target.substr(bq);
    }
    out.target += ref_query;
    const std::string text = base.origin() + out.target;
    if (!check_target(out.target, text, error)) return std::nullopt;
    return out;
}

}  // namespace mcp_loadtest::detail
