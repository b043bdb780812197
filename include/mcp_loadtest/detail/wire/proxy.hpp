// Which HTTP proxy, if any, carries a connection to a server: proxy_options, else the
// environment (http_proxy, https_proxy, all_proxy and no_proxy, each also in upper case), and
// the Proxy-Authorization value from a proxy URL's userinfo.
//
// I/O-free apart from read_proxy_environment() (std::getenv), so every rule is tested on its
// own. The rules follow curl where curl has one: NO_PROXY is a comma- or space-separated list
// of host names (matching the name and its subdomains; a leading dot is ignored), IP addresses
// (CIDR allowed), each optionally with ":port", or "*" for every host. Proxies from the
// environment never carry loopback traffic (localhost, *.localhost, 127.0.0.0/8, ::1), as
// browsers and Go do; proxy_options::url does.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/detail/wire/url.hpp>
#include <mcp_loadtest/network_server.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace mcp_loadtest::detail {

/// The proxy variables as the environment holds them (empty when unset); lower case wins.
struct proxy_environment {
    std::string http_proxy, https_proxy, all_proxy, no_proxy;
    /// The variable each came from ("https_proxy", "HTTPS_PROXY", ...), for messages.
    std::string http_name, https_name, all_name;
};

/// Reads the variables with std::getenv.
[[nodiscard]] MCP_LOADTEST_DECL proxy_environment read_proxy_environment();

/// Localhost names and loopback addresses (what environment proxies never carry).
[[nodiscard]] MCP_LOADTEST_DECL bool is_loopback_host(std::string_view host) noexcept;

/// True when `list` (NO_PROXY syntax) says `target` is reached directly.
[[nodiscard]] MCP_LOADTEST_DECL bool no_proxy_matches(std::string_view list, const url& target);

/// What carries a connection to one server.
struct proxy_choice {
    std::optional<url> proxy;  ///< the proxy; none: connect directly
    std::string source;        ///< where it came from: "proxy.url", "HTTPS_PROXY", ...
    std::string error;         ///< set when the configured proxy URL is unusable (the connection must fail)
    /// CONNECT host:port first (https, wss and ws targets); else requests in absolute form.
    [[nodiscard]] bool tunnel_for(const url& target) const noexcept { return proxy && target.scheme != "http"; }
    /// "the proxy http://host:port (HTTPS_PROXY)", credentials left out.
    [[nodiscard]] MCP_LOADTEST_DECL std::string describe() const;
};

/// Parses a proxy URL: "http://[user:password@]host[:port]" or plain "host:port" (port 80 when
/// none is given). https://, socks and other schemes are refused with a message saying so.
[[nodiscard]] MCP_LOADTEST_DECL std::optional<url> parse_proxy_url(std::string_view text, std::string* error);

/// The proxy for `target`: `options.url` when set (unless its no_proxy matches), else the
/// environment's (unless options.from_environment is false, NO_PROXY matches or the target is
/// loopback).
[[nodiscard]] MCP_LOADTEST_DECL proxy_choice choose_proxy(const url& target, const proxy_options& options,
                                                          const proxy_environment& env);

/// "Basic <base64(user:password)>" from the proxy URL's userinfo (percent-decoded), or empty.
[[nodiscard]] MCP_LOADTEST_DECL std::string proxy_authorization(const url& proxy);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/wire/impl/proxy.ipp>
#endif
