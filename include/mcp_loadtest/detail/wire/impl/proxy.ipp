// Definitions of detail/wire/proxy.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/wire/proxy.hpp>

#include <mcp_loadtest/detail/wire/base64.hpp>

#include <array>
#include <cstdint>
#include <cstdlib>

namespace mcp_loadtest::detail {

namespace proxy_detail {

// A numeric IPv4 or IPv6 address (no brackets) as 16 bytes (IPv4 in the first 4), or nullopt.
struct ip_address {
    std::array<std::uint8_t, 16> bytes{};
    bool v6 = false;
};

inline std::optional<ip_address> parse_ipv4(std::string_view s) {
    ip_address a;
    int part = 0;
    std::size_t i = 0;
    while (part < 4) {
        unsigned value = 0;
        std::size_t digits = 0;
        while (i < s.size() && s[i] >= '0' && s[i] <= '9' && digits < 4) {
            value = value * 10 + static_cast<unsigned>(s[i] - '0');
            ++i;
            ++digits;
        }
        if (digits == 0 || value > 255) return std::nullopt;
        a.bytes[static_cast<std::size_t>(part++)] = static_cast<std::uint8_t>(value);
        if (part < 4) {
            if (i >= s.size() || s[i] != '.') return std::nullopt;
            ++i;
        }
    }
    if (i != s.size()) return std::nullopt;
    return a;
}

inline int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

inline std::optional<ip_address> parse_ipv6(std::string_view s) {
    if (s.find(':') == std::string_view::npos) return std::nullopt;
    std::array<std::uint16_t, 8> head{}, tail{};
    std::size_t nhead = 0, ntail = 0;
    bool gap = false;
    std::size_t i = 0;
    if (s.starts_with("::")) {
        gap = true;
        i = 2;
    }
    while (i < s.size()) {
        std::size_t j = i;
        unsigned value = 0;
        while (j < s.size() && hex_digit(s[j]) >= 0 && j - i < 4) value = value * 16 + static_cast<unsigned>(hex_digit(s[j++]));
        if (j == i) return std::nullopt;
        if (j < s.size() && s[j] == '.') return std::nullopt;  // embedded IPv4: not needed here
        auto& group = gap ? tail : head;
        auto& n = gap ? ntail : nhead;
        if (nhead + ntail >= 8) return std::nullopt;
        group[n++] = static_cast<std::uint16_t>(value);
        i = j;
        if (i == s.size()) break;
        if (s[i] != ':') return std::nullopt;
        if (i + 1 < s.size() && s[i + 1] == ':') {
            if (gap) return std::nullopt;
            gap = true;
            i += 2;
        } else {
            ++i;
            if (i == s.size()) return std::nullopt;
        }
    }
    if (!gap && nhead != 8) return std::nullopt;
    if (gap && nhead + ntail > 7) return std::nullopt;
    ip_address a;
    a.v6 = true;
    std::array<std::uint16_t, 8> all{};
    for (std::size_t k = 0; k < nhead; ++k) all[k] = head[k];
    for (std::size_t k = 0; k < ntail; ++k) all[8 - ntail + k] = tail[k];
    for (std::size_t k = 0; k < 8; ++k) {
        a.bytes[2 * k] = static_cast<std::uint8_t>(all[k] >> 8);
        a.bytes[2 * k + 1] = static_cast<std::uint8_t>(all[k] & 0xff);
    }
    return a;
}

inline std::optional<ip_address> parse_ip(std::string_view s) {
    if (auto v4 = parse_ipv4(s)) return v4;
    return parse_ipv6(s);
}

inline bool same_prefix(const ip_address& a, const ip_address& b, unsigned bits) {
    for (std::size_t k = 0; bits > 0; ++k, bits = bits >= 8 ? bits - 8 : 0) {
        const unsigned take = bits >= 8 ? 8 : bits;
        const auto mask = static_cast<std::uint8_t>(0xff << (8 - take));
        if ((a.bytes[k] & mask) != (b.bytes[k] & mask)) return false;
    }
    return true;
}

inline std::string lower(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) out += ascii_lower(c);
    return out;
}

// One NO_PROXY entry against a host (lower case, no brackets) and port.
inline bool entry_matches(std::string_view entry, std::string_view host, std::uint16_t port) {
    if (entry == "*") return true;
    std::string_view name = entry, port_text;
    if (entry.starts_with('[')) {
        const std::size_t close = entry.find(']');
        if (close == std::string_view::npos) return false;
        name = entry.substr(1, close - 1);
        if (entry.size() > close + 1) {
            if (entry[close + 1] != ':') return false;
            port_text = entry.substr(close + 2);
        }
    } else if (const std::size_t colon = entry.find(':');
               colon != std::string_view::npos && entry.find(':', colon + 1) == std::string_view::npos) {
        name = entry.substr(0, colon);
        port_text = entry.substr(colon + 1);
    }
    if (!port_text.empty()) {
        unsigned p = 0;
        for (const char c : port_text) {
            if (c < '0' || c > '9' || p > 65535) return false;
            p = p * 10 + static_cast<unsigned>(c - '0');
        }
        if (p != port) return false;
    }
    unsigned bits = 128;
    std::string_view address = name;
    if (const std::size_t slash = name.find('/'); slash != std::string_view::npos) {
        address = name.substr(0, slash);
        bits = 0;
        for (const char c : name.substr(slash + 1)) {
            if (c < '0' || c > '9' || bits > 128) return false;
            bits = bits * 10 + static_cast<unsigned>(c - '0');
        }
    }
    if (const auto want = parse_ip(address)) {
        const auto got = parse_ip(host);
        if (!got || got->v6 != want->v6) return false;
        const unsigned width = want->v6 ? 128 : 32;
        return same_prefix(*got, *want, bits < width ? bits : width);
    }
    while (name.starts_with('.')) name.remove_prefix(1);
    while (name.ends_with('.')) name.remove_suffix(1);
    if (name.empty()) return false;
    const std::string n = lower(name);
    if (host == n) return true;
    return host.size() > n.size() && host.ends_with(n) && host[host.size() - n.size() - 1] == '.';
}

inline void pick(std::string& value, std::string& name, const char* lower_name, const char* upper_name) {
    for (const char* var : {lower_name, upper_name}) {
        const char* v = std::getenv(var);
        if (v && *v) {
            value = v;
            name = var;
            return;
        }
    }
}

inline std::string percent_decode(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '%' && i + 2 < s.size()) {
            const int hi = hex_digit(s[i + 1]), lo = hex_digit(s[i + 2]);
            if (hi >= 0 && lo >= 0) {
                out += static_cast<char>(hi * 16 + lo);
                i += 2;
                continue;
            }
        }
        out += s[i];
    }
    return out;
}

}  // namespace proxy_detail

MCP_LOADTEST_DECL proxy_environment read_proxy_environment() {
    proxy_environment env;
    std::string ignored;
    proxy_detail::pick(env.http_proxy, env.http_name, "http_proxy", "HTTP_PROXY");
    proxy_detail::pick(env.https_proxy, env.https_name, "https_proxy", "HTTPS_PROXY");
    proxy_detail::pick(env.all_proxy, env.all_name, "all_proxy", "ALL_PROXY");
    proxy_detail::pick(env.no_proxy, ignored, "no_proxy", "NO_PROXY");
    return env;
}

MCP_LOADTEST_DECL bool is_loopback_host(std::string_view host) noexcept {
    if (host == "localhost" || host.ends_with(".localhost")) return true;
    const auto ip = proxy_detail::parse_ip(host);
    if (!ip) return false;
    if (!ip->v6) return ip->bytes[0] == 127;
    for (std::size_t k = 0; k < 15; ++k)
        if (ip->bytes[k] != 0) return false;
    return ip->bytes[15] == 1;
}

MCP_LOADTEST_DECL bool no_proxy_matches(std::string_view list, const url& target) {
    std::size_t i = 0;
    while (i < list.size()) {
        const std::size_t end = list.find_first_of(", \t", i);
        const std::string_view entry = list.substr(i, end == std::string_view::npos ? list.size() - i : end - i);
        i = end == std::string_view::npos ? list.size() : end + 1;
        if (!entry.empty() && proxy_detail::entry_matches(entry, target.host, target.port)) return true;
    }
    return false;
}

MCP_LOADTEST_DECL std::string proxy_choice::describe() const {
    if (!proxy) return "no proxy";
    return "the proxy " + proxy->origin() + (source.empty() ? std::string() : " (" + source + ")");
}

MCP_LOADTEST_DECL std::optional<url> parse_proxy_url(std::string_view text, std::string* error) {
    text = url_detail::trim_space(text);
    std::string with_scheme;
    if (text.find("://") == std::string_view::npos) {
        with_scheme = "http://";
        with_scheme += text;
        text = with_scheme;
    }
    const std::string scheme = proxy_detail::lower(text.substr(0, text.find("://")));
    if (scheme != "http") {
        if (error)
            *error = "the proxy URL " + url_detail::redact_text(text) + " has the scheme '" + scheme +
                     "'; only http:// proxies are supported (https:// and wss:// servers are still reached "
                     "through them, in a CONNECT tunnel encrypted end to end)";
        return std::nullopt;
    }
    std::string why;
    auto u = parse_url(text, &why);
    if (!u) {
        if (error) *error = "invalid proxy URL: " + why;
        return std::nullopt;
    }
    return u;
}

MCP_LOADTEST_DECL proxy_choice choose_proxy(const url& target, const proxy_options& options,
                                            const proxy_environment& env) {
    proxy_choice c;
    std::string_view text;
    if (!options.url.empty()) {
        if (no_proxy_matches(options.no_proxy, target)) return c;
        text = options.url;
        c.source = "proxy.url";
    } else {
        if (!options.from_environment || is_loopback_host(target.host)) return c;
        const bool plain = target.scheme == "http" || target.scheme == "ws";
        const std::string& value = plain ? env.http_proxy : env.https_proxy;
        const std::string& name = plain ? env.http_name : env.https_name;
        if (!value.empty()) {
            text = value;
            c.source = name;
        } else if (!env.all_proxy.empty()) {
            text = env.all_proxy;
            c.source = env.all_name;
        }
        if (text.empty()) return c;
        if (no_proxy_matches(options.no_proxy, target) || no_proxy_matches(env.no_proxy, target)) {
            c.source.clear();
            return c;
        }
    }
    std::string error;
    c.proxy = parse_proxy_url(text, &error);
    if (!c.proxy) c.error = error + " (from " + c.source + ")";
    return c;
}

MCP_LOADTEST_DECL std::string proxy_authorization(const url& proxy) {
    if (proxy.userinfo.empty()) return {};
    const std::size_t colon = proxy.userinfo.find(':');
    std::string plain = proxy_detail::percent_decode(std::string_view(proxy.userinfo).substr(0, colon));
    plain += ':';
    if (colon != std::string::npos) plain += proxy_detail::percent_decode(std::string_view(proxy.userinfo).substr(colon + 1));
    std::string out = "Basic ";
    base64_append(out, std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(plain.data()), plain.size()));
    return out;
}

}  // namespace mcp_loadtest::detail
