// Definitions of any_server.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/any_server.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL std::string redact_url(std::string_view url) {
    std::string out(url);
    const auto scheme_end = out.find("://");
    if (scheme_end != std::string::npos) {
        const auto host_begin = scheme_end + 3;
        const auto path_begin = out.find('/', host_begin);
        const auto at = out.rfind('@', path_begin == std::string::npos ? out.size() : path_begin);
        if (at != std::string::npos && at >= host_begin) out.replace(host_begin, at + 1 - host_begin, "***@");
    }
    const auto q = out.find('?');
    if (q == std::string::npos) return out;
    std::string result = out.substr(0, q + 1);
    std::string_view rest = std::string_view(out).substr(q + 1);
    bool first = true;
    while (!rest.empty()) {
        const auto amp = rest.find('&');
        std::string_view pair = rest.substr(0, amp);
        rest = amp == std::string_view::npos ? std::string_view{} : rest.substr(amp + 1);
        const auto eq = pair.find('=');
        std::string key(pair.substr(0, eq));
        std::string lower = key;
        for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const bool secret = lower.find("key") != std::string::npos || lower.find("token") != std::string::npos ||
                            lower.find("secret") != std::string::npos || lower.find("password") != std::string::npos ||
                            lower == "auth" || lower == "sig" || lower == "signature";
        if (!first) result += '&';
        first = false;
        result += secret && eq != std::string_view::npos ? key + "=***" : std::string(pair);
    }
    return result;
}

}  // namespace mcp_loadtest::detail

namespace mcp_loadtest {

MCP_LOADTEST_DECL std::string describe(const any_server& server) {
    return std::visit(
        [](const auto& s) -> std::string {
            using T = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<T, stdio_server>) return s.command_line();
            else return detail::redact_url(s.url);
        },
        server);
}

MCP_LOADTEST_DECL std::string transport_name(const any_server& server) {
    return std::visit(
        [](const auto& s) -> std::string {
            using T = std::decay_t<decltype(s)>;
            if constexpr (std::is_same_v<T, stdio_server>) return "stdio";
            else if constexpr (std::is_same_v<T, http_server>) return "streamable-http";
            else if constexpr (std::is_same_v<T, sse_server>) return "http+sse";
            else if constexpr (std::is_same_v<T, websocket_server>) return "websocket";
            else return s.url.rfind("unix:", 0) == 0 ? "unix" : "tcp";
        },
        server);
}

}  // namespace mcp_loadtest
