// Cases for auth_check against fixtures/oauth_server.py (the healthy twin and one flag per bug)
// and fixtures/http_server.py (no authorization). Included by tests/test_detectors.cpp.
#pragma once

#include <mcp_loadtest/auth.hpp>
#include <mcp_loadtest/detail/auth/http_fetch.hpp>
#include <mcp_loadtest/detail/auth/oauth_flow.hpp>
#include <mcp_loadtest/detectors/auth_check.hpp>
#include <mcp_loadtest/network.hpp>

#include <array>
#include <string>
#include <string_view>

namespace auth_check_test {

inline const std::array<std::string_view, 9> all_checks{
    "no_token",     "malformed_token",      "expired_token",      "wrong_audience", "session_without_token",
    "session_other_client", "session_id_entropy", "foreign_origin", "foreign_host"};

inline mlt::oauth_options machine_client() {
    mlt::oauth_options o;
    o.grant = mlt::oauth_grant::client_credentials;
    o.client_id = "load-test";
    o.client_secret = "load-test-secret";
    return o;
}

inline mlt::oauth_options registered_machine_client() {
    mlt::oauth_options o;  // no client_id: registers itself (another identity)
    o.grant = mlt::oauth_grant::client_credentials;
    o.client_name = "auth-check-other";
    return o;
}

inline mlt::auth_check_options options_for(std::shared_ptr<mlt::oauth_client> other) {
    mlt::auth_check_options o;
    o.other_client = std::move(other);
    o.max_expiry_wait = std::chrono::seconds(3);
    o.request_timeout = std::chrono::seconds(5);
    return o;
}

// Outside the coroutine frames (doctest's INFO/MESSAGE types must not be frame fields).
inline void show(const std::string& text) { MESSAGE(text); }
inline void check_secure(const mlt::auth_check_report& r) { MCP_CHECK_AUTH_SECURE(r); }

// Every check has verdict `expected` except `finding`, which is a finding.
inline void check_only(const mlt::auth_check_report& r, std::string_view finding, const std::string& flag) {
    INFO(flag);
    INFO(r.describe());
    CHECK(!r.passed());
    for (auto name : all_checks) {
        INFO(name);
        REQUIRE(r.find(name) != nullptr);
        if (name == finding) CHECK(r.verdict_of(name) == mlt::auth_verdict::finding);
        else CHECK(r.verdict_of(name) == mlt::auth_verdict::passed);
    }
}

inline void check_all_passed(const mlt::auth_check_report& r) {
    INFO(r.describe());
    CHECK(r.passed());
    for (auto name : all_checks) {
        INFO(name);
        CHECK(r.verdict_of(name) == mlt::auth_verdict::passed);
    }
}

// --session-ignores-token: a session id taken as the credential fires both session token checks.
inline void check_session_bypass(const mlt::auth_check_report& r) {
    INFO(r.describe());
    CHECK(r.verdict_of("session_without_token") == mlt::auth_verdict::finding);
    CHECK(r.verdict_of("session_other_client") == mlt::auth_verdict::finding);
    for (std::string_view name : {"no_token", "malformed_token", "expired_token", "wrong_audience",
                                  "session_id_entropy", "foreign_origin", "foreign_host"}) {
        INFO(name);
        CHECK(r.verdict_of(name) == mlt::auth_verdict::passed);
    }
}

// A server without authorization: the token checks are not_checked, saying why.
inline void check_no_auth(const mlt::auth_check_report& r) {
    INFO(r.describe());
    for (std::string_view name : {"no_token", "malformed_token", "expired_token", "wrong_audience",
                                  "session_without_token", "session_other_client"}) {
        INFO(name);
        REQUIRE(r.find(name) != nullptr);
        CHECK(r.verdict_of(name) == mlt::auth_verdict::not_checked);
        CHECK(r.find(name)->detail.find("no authorization to check") != std::string::npos);
    }
}

inline bool has(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// Runs auth_check against oauth_server.py with `flag` ("" none), tokens living 1 s.
inline asio::awaitable<mlt::auth_check_report> run_against(std::string flag) {
    std::vector<std::string> flags{"--token-lifetime", "1"};
    if (!flag.empty()) flags.push_back(flag);
    const auto cmd = churn_test::quiet(fixture("oauth_server.py", flags));
    auto proc = co_await mlt::launch(cmd);
    mlt::http_server server;
    server.url = proc.url();
    server.oauth = mlt::make_oauth(machine_client());
    auto other = mlt::make_oauth(registered_machine_client());
    const auto options = options_for(other);
    auto report = co_await mlt::auth_check(server, options);
    co_await proc.close();
    co_return report;
}

}  // namespace auth_check_test

MCP_LOADTEST_CASE("auth_check: the healthy oauth_server passes every check, and no token or session id is in the report") {
    using namespace auth_check_test;
    const auto cmd = churn_test::quiet(fixture("oauth_server.py", {"--token-lifetime", "1"}));
    auto proc = co_await mlt::launch(cmd);
    mlt::http_server server;
    server.url = proc.url();
    auto client = mlt::make_oauth(machine_client());
    server.oauth = client;
    auto other = mlt::make_oauth(registered_machine_client());
    auto options = options_for(other);
    options.wrong_audience_token.clear();
    const auto report = co_await mlt::auth_check(server, options);
    show(report.describe());
    check_all_passed(report);
    check_secure(report);
    CHECK(report.auth_expected);
    CHECK(report.unauthenticated_status == 401);
    const auto* none = report.find("no_token");
    REQUIRE(none != nullptr);
    CHECK(has(none->www_authenticate, "Bearer"));
    CHECK(has(none->www_authenticate, "resource_metadata="));

    // Secrets: the valid tokens used (still cached) and the client secret appear nowhere.
    const std::string text = report.describe() + mlt::json(report).dump() + report.verdict_sentence();
    const auto url = mlt::detail::parse_url(server.url);
    REQUIRE(url);
    const mlt::detail::auth_answer mine = mlt::detail::oauth_flow::cached(*client, *url);
    const mlt::detail::auth_answer theirs = mlt::detail::oauth_flow::cached(*other, *url);
    if (!mine.token.empty()) CHECK(!has(text, mine.token));
    if (!theirs.token.empty()) CHECK(!has(text, theirs.token));
    CHECK(!has(text, "load-test-secret"));
    CHECK(!has(text, "at-"));  // the fixture's tokens start so
    CHECK(!has(text, "Mcp-Session-Id: "));
    co_await proc.close();
}

MCP_LOADTEST_CASE("auth_check: user-supplied tokens are never printed") {
    using namespace auth_check_test;
    const auto cmd = churn_test::quiet(fixture("oauth_server.py"));
    auto proc = co_await mlt::launch(cmd);
    mlt::http_server server;
    server.url = proc.url();
    server.oauth = mlt::make_oauth(machine_client());
    auto options = options_for(nullptr);
    options.expired_token = "secret-expired-token-4711";
    options.wrong_audience_token = "secret-audience-token-4711";
    const auto report = co_await mlt::auth_check(server, options);
    const std::string text = report.describe() + mlt::json(report).dump();
    CHECK(!has(text, "4711"));
    // An unknown token is refused, so both pass; the other client is missing: not_checked with why.
    CHECK(report.verdict_of("expired_token") == mlt::auth_verdict::passed);
    CHECK(report.verdict_of("wrong_audience") == mlt::auth_verdict::passed);
    CHECK(report.verdict_of("session_other_client") == mlt::auth_verdict::not_checked);
    CHECK(has(report.find("session_other_client")->detail, "options.other_client"));
    co_await proc.close();
}

MCP_LOADTEST_CASE("auth_check: tokens living longer than max_expiry_wait leave the expired check not_checked") {
    using namespace auth_check_test;
    const auto cmd = churn_test::quiet(fixture("oauth_server.py"));
    auto proc = co_await mlt::launch(cmd);
    mlt::http_server server;
    server.url = proc.url();
    server.oauth = mlt::make_oauth(machine_client());
    const auto options = options_for(nullptr);
    const auto report = co_await mlt::auth_check(server, options);
    CHECK(report.verdict_of("expired_token") == mlt::auth_verdict::not_checked);
    CHECK(has(report.find("expired_token")->detail, "options.expired_token"));
    CHECK(report.verdict_of("wrong_audience") == mlt::auth_verdict::passed);
    co_await proc.close();
}

MCP_LOADTEST_CASE("auth_check: each security bug of oauth_server is flagged by exactly its check") {
    using namespace auth_check_test;
    const std::array<std::pair<std::string_view, std::string_view>, 8> bugs{{
        {"--accept-missing-token", "no_token"},
        {"--accept-malformed-token", "malformed_token"},
        {"--accept-expired-token", "expired_token"},
        {"--accept-any-audience", "wrong_audience"},
        {"--session-ignores-token", ""},
        {"--sequential-session-ids", "session_id_entropy"},
        {"--no-origin-check", "foreign_origin"},
        {"--no-host-check", "foreign_host"},
    }};
    for (const auto& [flag, check] : bugs) {
        const std::string f(flag);
        const auto report = co_await run_against(f);
        if (f == "--accept-any-audience") show(report.describe() + mlt::json(*report.find(check)).dump());  // docs/detectors.md
        if (check.empty()) check_session_bypass(report);
        else check_only(report, check, f);
    }
}

MCP_LOADTEST_CASE("auth_check: a server without authorization gives not_checked with reasons and still checks Origin and Host") {
    using namespace auth_check_test;
    const auto cmd = churn_test::quiet(fixture("http_server.py"));
    auto proc = co_await mlt::launch(cmd);
    mlt::http_server server;
    server.url = proc.url();
    const auto report = co_await mlt::auth_check(server);
    show(report.describe());
    CHECK(!report.auth_expected);
    CHECK(report.unauthenticated_status == 200);
    check_no_auth(report);
    CHECK(report.verdict_of("session_id_entropy") == mlt::auth_verdict::passed);  // uuid4 ids
    CHECK(report.verdict_of("foreign_origin") == mlt::auth_verdict::passed);
    CHECK(report.find("foreign_origin")->status == 403);
    // http_server.py checks Origin only: its Host check runs and reports what it saw.
    CHECK(report.verdict_of("foreign_host") != mlt::auth_verdict::not_checked);
    CHECK(report.find("foreign_host")->status != 0);
    co_await proc.close();
}

TEST_CASE("auth_check: session ids judged by length, entropy and sequence") {
    using mlt::detail::judge_session_ids;
    const auto uuids = judge_session_ids({"3c57d805-ed92-4703-a0dd-11fe7a91ea33", "9f1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d",
                                          "a0b1c2d3-e4f5-4617-9829-3a4b5c6d7e8f"},
                                         16, 64);
    CHECK(!uuids.finding);
    const auto seq = judge_session_ids({"session-1", "session-2", "session-3", "session-4"}, 16, 64);
    CHECK(seq.finding);
    CHECK(seq.evidence.find("sequential") != std::string::npos);
    CHECK(seq.evidence.find("session-") == std::string::npos);  // the ids themselves are never printed
    // Long but counted: a shared prefix and an even step.
    const auto counted = judge_session_ids({"abcdefabcdefabcdef0100", "abcdefabcdefabcdef0105",
                                            "abcdefabcdefabcdef0110"},
                                           16, 64);
    CHECK(counted.finding);
    CHECK(counted.evidence.find("sequential") != std::string::npos);
    const auto short_ids = judge_session_ids({"a1Zq", "x9Pw", "m3Kd"}, 16, 64);
    CHECK(short_ids.finding);
    CHECK(short_ids.evidence.find("short") != std::string::npos);
}
