// Security checks of an HTTP MCP server's authorization (docs/detectors.md#security-checks-auth_check):
// raw requests, each judged alone, that a healthy server refuses. Tokens: none, malformed,
// expired and minted for another resource must each get 401 with `WWW-Authenticate: Bearer`
// naming resource_metadata. Sessions: a session id must not work without the token that made it
// nor with another client's token, and ids must not be short, low in entropy or sequential. DNS
// rebinding: a foreign Origin and a foreign Host must be refused (403). A server that asks for no
// token (and whose description holds none) gets `not_checked` for the token checks, with why.
//
// Tokens, session ids and client secrets are never in the report, its JSON or its text.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/auth.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/network_server.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

struct auth_check_options {
    /// A token the server issued that has expired (secret). Empty: the check mints one with the
    /// server description's client credentials and waits for it to expire, if tokens live at most
    /// max_expiry_wait.
    std::string expired_token{};
    std::chrono::milliseconds max_expiry_wait = std::chrono::seconds(5);
    /// A token for another resource (audience) from the same authorization server (secret).
    /// Empty: minted with the server description's client credentials and `resource` set to the
    /// server's origin + "/mcp-loadtest-other-resource".
    std::string wrong_audience_token{};
    /// Another client identity (its own registration) for the session hijacking check; none:
    /// that check is not_checked.
    std::shared_ptr<oauth_client> other_client{};
    /// Session ids collected (from initialize responses) and judged.
    std::size_t session_samples = 5;
    std::size_t min_session_id_length = 16;
    double min_session_id_bits = 64;  ///< the estimate: varying positions × log2(alphabet)
    std::string foreign_origin = "http://evil.example";
    std::string foreign_host = "evil.example";
    std::chrono::milliseconds request_timeout = std::chrono::seconds(5);  ///< each probe, whole
};

enum class auth_verdict : std::uint8_t {
    passed,       ///< refused as it should be
    finding,      ///< accepted, or refused the wrong way (the bug)
    not_checked,  ///< could not be checked; `detail` says why
};

[[nodiscard]] constexpr std::string_view to_string(auth_verdict v) noexcept {
    switch (v) {
        case auth_verdict::passed: return "passed";
        case auth_verdict::finding: return "finding";
        case auth_verdict::not_checked: return "not_checked";
    }
    return "unknown";
}

/// One check: what was sent (no secrets) and what came back.
struct auth_check_item {
    std::string name;     ///< no_token, malformed_token, expired_token, wrong_audience, session_without_token,
                          ///< session_other_client, session_id_entropy, foreign_origin, foreign_host
    auth_verdict verdict = auth_verdict::not_checked;
    std::string request;  ///< e.g. "POST /mcp initialize, Authorization: Bearer <expired token>"
    int status = 0;       ///< 0: none (not sent, or no response)
    std::string www_authenticate;  ///< as received ("" absent)
    std::string detail;   ///< the finding, or why not checked, or a note
};

struct auth_check_report {
    std::string server;          ///< the URL, without userinfo
    bool auth_expected = false;  ///< the description holds oauth or a bearer token
    int unauthenticated_status = 0;  ///< the answer to a request without a token
    std::vector<auth_check_item> checks;
    std::chrono::nanoseconds took{0};

    /// No finding (not_checked passes).
    [[nodiscard]] MCP_LOADTEST_DECL bool passed() const noexcept;
    [[nodiscard]] MCP_LOADTEST_DECL const auth_check_item* find(std::string_view name) const noexcept;
    /// The verdict of check `name` (not_checked when absent).
    [[nodiscard]] MCP_LOADTEST_DECL auth_verdict verdict_of(std::string_view name) const noexcept;
    /// One line: the findings, or that there are none.
    [[nodiscard]] MCP_LOADTEST_DECL std::string verdict_sentence() const;
    /// Multi-line: every check, its request, status, WWW-Authenticate and detail.
    [[nodiscard]] MCP_LOADTEST_DECL std::string describe() const;
};

MCP_LOADTEST_DECL void to_json(json& j, const auth_check_item& c);
MCP_LOADTEST_DECL void to_json(json& j, const auth_check_report& r);

/// Runs every check against `server` (its oauth or bearer_token gives the valid token). Every
/// request is bounded by options.request_timeout; never throws for what the server does.
MCP_LOADTEST_DECL asio::awaitable<auth_check_report> auth_check(http_server server, auth_check_options options);
MCP_LOADTEST_DECL asio::awaitable<auth_check_report> auth_check(http_server server);

namespace detail {
/// The session id judgement alone: (finding?, evidence). Never prints the ids.
struct session_id_judgement {
    bool finding = false;
    std::string evidence;
};
[[nodiscard]] MCP_LOADTEST_DECL session_id_judgement judge_session_ids(const std::vector<std::string>& ids,
                                                                      std::size_t min_length, double min_bits);
}  // namespace detail

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detectors/impl/auth_check.ipp>
#endif
