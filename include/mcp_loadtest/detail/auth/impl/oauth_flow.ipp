// Definitions of detail/auth/oauth_flow.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/auth/oauth_flow.hpp>

#include <mcp_loadtest/detail/auth/discovery.hpp>
#include <mcp_loadtest/detail/auth/jwt.hpp>
#include <mcp_loadtest/detail/wire/base64.hpp>
#include <mcp_loadtest/detail/wire/form.hpp>
#include <mcp_loadtest/detail/wire/sha256.hpp>
#include <mcp_loadtest/detail/wire/www_authenticate.hpp>

#include <mcp_loadtest/any_server.hpp>

#include <algorithm>
#include <array>
#include <random>
#include <span>

namespace mcp_loadtest::detail {

namespace oauth_detail {

using steady = std::chrono::steady_clock;

// 32 random bytes, base64url: a PKCE verifier (43 characters, RFC 7636 §4.1), a state, a jti.
inline std::string random_text(std::size_t bytes = 32) {
    // A device per call, not a static one: libc++'s keeps /dev/urandom open for as long as it
    // lives, which the suite's descriptor check rightly calls a leak (a few calls per flow).
    std::random_device device;
    std::vector<std::uint8_t> raw(bytes);
    for (std::size_t i = 0; i < bytes; i += 4) {
        const std::uint32_t v = device();
        for (std::size_t j = 0; j < 4 && i + j < bytes; ++j) raw[i + j] = static_cast<std::uint8_t>(v >> (8 * j));
    }
    return base64url_encode(raw);
}

inline std::string pkce_challenge(std::string_view verifier) {
    const auto digest = sha256::of(verifier);
    return base64url_encode(std::span<const std::uint8_t>(digest.data(), digest.size()));
}

inline std::string basic_credentials(std::string_view id, std::string_view secret) {
    // RFC 6749 §2.3.1: each part form-urlencoded, then Basic.
    const std::string pair = percent_encode(id) + ":" + percent_encode(secret);
    return "Basic " + base64_encode(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(pair.data()), pair.size()));
}

// Whether every scope of `wanted` is in `granted`.
inline bool covers(std::string_view granted, std::string_view wanted) { return merge_scopes(granted, wanted).size() == merge_scopes(granted, "").size(); }

inline std::string string_field(const json& j, const char* name) {
    const auto it = j.find(name);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "invalid_client (bad secret)", from an OAuth error body; only the error fields, never the rest.
inline std::string oauth_error_text(const std::string& body) {
    try {
        const json j = json::parse(body);
        if (j.is_object() && j.contains("error")) {
            std::string out = string_field(j, "error");
            if (const auto d = string_field(j, "error_description"); !d.empty()) out += " (" + d + ")";
            return out;
        }
    } catch (const std::exception&) {
    }
    return "no OAuth error in the body";
}

// Whether `location` is the redirect URI (scheme, host, port and path alike).
inline bool reaches(const url& location, const std::string& redirect_uri) {
    const auto r = parse_url(redirect_uri);
    if (!r) return false;
    const auto path = [](const url& u) { return u.target.substr(0, u.target.find('?')); };
    return location.origin() == r->origin() && path(location) == path(*r);
}

}  // namespace oauth_detail

struct oauth_flow::run_context {
    std::shared_ptr<oauth_client> client;
    const oauth_options& options;
    auth_target target;
    fetch_context fetch;
    oauth_entry entry;     // a working copy, published when the flow ends
    std::string challenge_scope;
    std::string resource_metadata_url;
    std::uint64_t requests = 0;
};

MCP_LOADTEST_DECL auth_answer oauth_flow::cached(oauth_client& client, const url& server) {
    auth_answer out;
    std::lock_guard lock(client.state_->mutex);
    const auto it = client.state_->entries.find(resource_identifier(server));
    if (it == client.state_->entries.end()) return out;
    const oauth_entry& e = *it->second;
    if (e.access_token.empty() || oauth_detail::steady::now() >= e.expires_at) return out;
    out.token = e.access_token;
    out.refresh_at = e.refresh_at;
    return out;
}

MCP_LOADTEST_DECL void oauth_flow::count_resend(oauth_client& client, bool step_up) {
    std::lock_guard lock(client.state_->mutex);
    ++(step_up ? client.state_->stats.step_ups : client.state_->stats.challenges);
}

MCP_LOADTEST_DECL asio::awaitable<auth_answer> oauth_flow::obtain(std::shared_ptr<oauth_client> client, auth_target target,
                                                                auth_refusal refusal, std::string current) {
    const bool refreshing = refusal.status == 0;
    using namespace oauth_detail;
    oauth_state& st = *client->state_;
    const std::string key = resource_identifier(target.server);
    const auto challenge = find_challenge(refusal.www_authenticate, "Bearer");
    const std::string challenge_scope = challenge ? challenge->param("scope").value_or("") : std::string();
    const bool step_up = refusal.status == 403;

    std::shared_ptr<oauth_entry> entry;
    std::shared_ptr<asio::steady_timer> wait;
    std::uint64_t generation = 0;
    auth_answer out;
    {
        std::lock_guard lock(st.mutex);
        auto& slot = st.entries[key];
        if (!slot) slot = std::make_shared<oauth_entry>();
        entry = slot;
        // Another session already replaced the token this request carried.
        if (!entry->access_token.empty() && entry->access_token != current && steady::now() < entry->expires_at &&
            (!step_up || covers(entry->scope, challenge_scope))) {
            out.token = entry->access_token;
            out.refresh_at = entry->refresh_at;
            co_return out;
        }
        if (entry->busy) {
            wait = std::make_shared<asio::steady_timer>(target.executor);
            wait->expires_after(client->options().request_timeout * 12);
            entry->waiters.push_back(wait);
            generation = entry->generation;
        } else {
            entry->busy = true;
        }
    }
    if (wait) {
        // Wait for the flow under way, bounded (it makes at most about ten bounded requests).
        asio::error_code ec;
        co_await wait->async_wait(asio::redirect_error(asio::use_awaitable, ec));
        std::lock_guard lock(st.mutex);
        if (entry->generation == generation) {
            out.error = "another session's authorization did not finish within " +
                        std::to_string((client->options().request_timeout * 12).count()) + " ms";
        } else if (!entry->access_token.empty() && entry->access_token != current) {
            out.token = entry->access_token;
            out.refresh_at = entry->refresh_at;
        } else {
            out.error = entry->last_error.empty() ? std::string("another session's authorization got no token")
                                                  : entry->last_error;
        }
        co_return out;
    }

    fetch_context fc;
    fc.executor = target.executor;
    fc.proxy = target.proxy;
    fc.tls = target.tls;
    fc.timeout = client->options().request_timeout;
    run_context rc{client, client->options(), std::move(target), std::move(fc), oauth_entry{}, challenge_scope,
                   challenge ? challenge->param("resource_metadata").value_or("") : std::string(), 0};
    {
        std::lock_guard lock(st.mutex);
        rc.entry = *entry;
        rc.entry.waiters.clear();
    }
    const auto t0 = steady::now();
    std::string error;
    bool refreshed = false, authorized = false;
    if (!rc.entry.refresh_token.empty() && (refreshing || (!step_up && !current.empty() && current == rc.entry.access_token))) {
        // An expiring token, or one the server stopped accepting: the refresh token first.
        error = co_await refresh_grant(rc);
        refreshed = error.empty();
    }
    if (!refreshed) {
        error.clear();
        // A new challenge may name other metadata: discover again on every 401 without a token of ours.
        if (!rc.entry.discovered || (!refreshing && !step_up && !rc.resource_metadata_url.empty() &&
                                     rc.resource_metadata_url != rc.entry.resource_metadata_url)) {
            const bool had_identity = !rc.entry.client_id.empty();
            const std::string issuer = rc.entry.issuer;
            error = co_await discover(rc);
            if (had_identity && issuer != rc.entry.issuer) rc.entry.client_id.clear();  // another server: register anew
        }
        if (error.empty() && rc.entry.client_id.empty()) error = co_await identify(rc);
        if (error.empty()) {
            std::string scope = refreshing ? rc.entry.scope
                                : step_up  ? merge_scopes(rc.entry.scope, rc.challenge_scope)
                                           : choose_scope(rc.options.scope, rc.challenge_scope, rc.entry.resource_metadata,
                                                          rc.entry.server_metadata, rc.options.grant == oauth_grant::authorization_code);
            error = co_await grant(rc, scope);
            authorized = error.empty();
        }
    }
    const auto took = steady::now() - t0;

    std::vector<std::shared_ptr<asio::steady_timer>> waiters;
    {
        std::lock_guard lock(st.mutex);
        st.stats.requests += rc.requests;
        st.stats.time_getting_tokens += took;
        st.stats.slowest = std::max<std::chrono::nanoseconds>(st.stats.slowest, took);
        if (!rc.entry.token_endpoint.empty()) st.stats.token_endpoint = redact_url(rc.entry.token_endpoint);
        if (error.empty()) {
            auto keep = std::move(entry->waiters);
            *entry = rc.entry;
            entry->waiters = std::move(keep);
            entry->last_error.clear();
            if (refreshed || (refreshing && rc.options.grant == oauth_grant::client_credentials)) ++st.stats.refreshes;
            else if (authorized) ++st.stats.authorizations;
            out.token = entry->access_token;
            out.refresh_at = entry->refresh_at;
        } else {
            // What was learnt stays (metadata, registration); the failed token does not.
            entry->last_error = error;
            ++st.stats.failures;
            out.error = error;
        }
        entry->busy = false;
        ++entry->generation;
        waiters = std::move(entry->waiters);
        entry->waiters.clear();
    }
    for (auto& w : waiters) asio::post(w->get_executor(), [w] { w->cancel(); });
    co_return out;
}

MCP_LOADTEST_DECL asio::awaitable<fetch_response> oauth_flow::fetch(run_context& rc, fetch_request request) {
    ++rc.requests;
    co_return co_await http_fetch(rc.fetch, std::move(request));
}

MCP_LOADTEST_DECL asio::awaitable<std::optional<json>> oauth_flow::fetch_json(run_context& rc, std::string url_text) {
    const auto u = parse_url(url_text);
    if (!u) co_return std::nullopt;
    fetch_request req;
    req.target = *u;
    req.headers.emplace_back("Accept", "application/json");
    const fetch_response res = co_await fetch(rc, std::move(req));
    if (!res.ok()) co_return std::nullopt;
    try {
        json j = json::parse(res.body);
        if (j.is_object()) co_return j;
    } catch (const std::exception&) {
    }
    co_return std::nullopt;
}

MCP_LOADTEST_DECL asio::awaitable<std::string> oauth_flow::discover(run_context& rc) {
    using namespace oauth_detail;
    oauth_entry& e = rc.entry;
    const url& server = rc.target.server;
    // 1. The protected resource's metadata: where the 401 says, else the well-known URLs.
    std::vector<std::string> candidates;
    if (!rc.resource_metadata_url.empty()) candidates.push_back(rc.resource_metadata_url);
    for (auto& u : protected_resource_metadata_urls(server))
        if (std::find(candidates.begin(), candidates.end(), u) == candidates.end()) candidates.push_back(std::move(u));
    std::optional<json> prm;
    for (const auto& u : candidates) {
        auto j = co_await fetch_json(rc, u);
        if (j && j->contains("authorization_servers") && (*j)["authorization_servers"].is_array() &&
            !(*j)["authorization_servers"].empty() && (*j)["authorization_servers"][0].is_string()) {
            prm = std::move(j);
            break;
        }
    }
    e.legacy = !prm;
    e.resource_metadata_url = rc.resource_metadata_url;
    if (prm) {
        const std::string resource = string_field(*prm, "resource");
        if (!resource.empty() && !resource_matches(resource, server))
            co_return "the protected resource metadata names the resource \"" + redact_url(resource) +
                "\", which is not this server (" + server.redacted() +
                "): refusing to ask for a token for it (RFC 9728 §3.3; a token minted for another resource must "
                "not be used here). Hint: fix the server's metadata `resource` field.";
        e.resource_metadata = *prm;
        e.resource = resource.empty() ? resource_identifier(server) : resource;
        e.issuer = (*prm)["authorization_servers"][0].get<std::string>();
    } else {
        // 2025-03-26: no resource metadata; the authorization server is the server's origin.
        e.resource_metadata = json::object();
        e.resource = resource_identifier(server);
        e.issuer = server.origin();
    }
    // 2. The authorization server's metadata.
    const auto issuer = parse_url(e.issuer);
    if (!issuer)
        co_return "the protected resource metadata names the authorization server \"" + redact_url(e.issuer) +
            "\", which is not an http(s) URL";
    std::optional<json> meta;
    const auto meta_urls = authorization_server_metadata_urls(*issuer);
    for (const auto& u : meta_urls) {
        auto j = co_await fetch_json(rc, u);
        if (j && (*j).contains("token_endpoint")) {
            meta = std::move(j);
            break;
        }
    }
    if (meta) {
        e.server_metadata = *meta;
        if (const auto claimed = string_field(*meta, "issuer"); !claimed.empty()) e.issuer = claimed;
        e.authorization_endpoint = string_field(*meta, "authorization_endpoint");
        e.token_endpoint = string_field(*meta, "token_endpoint");
        e.registration_endpoint = string_field(*meta, "registration_endpoint");
        if (rc.options.grant == oauth_grant::authorization_code) {
            const auto methods = meta->find("code_challenge_methods_supported");
            const bool s256 = methods != meta->end() && methods->is_array() &&
                              std::find(methods->begin(), methods->end(), json("S256")) != methods->end();
            if (!s256)
                co_return "the authorization server " + issuer->redacted() +
                    " does not list S256 in code_challenge_methods_supported: MCP clients must not use the "
                    "authorization code grant without PKCE. Hint: enable PKCE (S256) on the server, or use "
                    "oauth_grant::client_credentials.";
        }
    } else if (e.legacy) {
        // 2025-03-26 without metadata: the default endpoints at the server's origin.
        e.server_metadata = json::object();
        e.authorization_endpoint = server.origin() + "/authorize";
        e.token_endpoint = server.origin() + "/token";
        e.registration_endpoint = server.origin() + "/register";
    } else {
        std::string tried;
        for (const auto& u : meta_urls) tried += (tried.empty() ? "" : ", ") + redact_url(u);
        co_return "no authorization server metadata for " + issuer->redacted() + " (tried " + tried +
            "). Hint: check the resource metadata's authorization_servers.";
    }
    if (e.token_endpoint.empty()) co_return "the authorization server's metadata names no token_endpoint";
    e.discovered = true;
    co_return std::string();
}

MCP_LOADTEST_DECL asio::awaitable<std::string> oauth_flow::identify(run_context& rc) {
    using namespace oauth_detail;
    oauth_entry& e = rc.entry;
    const oauth_options& o = rc.options;
    if (!o.client_id.empty()) {
        e.client_id = o.client_id;
        e.client_secret = o.client_secret;
        e.registered_auth_method.clear();
        co_return std::string();
    }
    const auto cimd = e.server_metadata.find("client_id_metadata_document_supported");
    if (!o.client_metadata_url.empty() && cimd != e.server_metadata.end() && cimd->is_boolean() && cimd->get<bool>()) {
        e.client_id = o.client_metadata_url;  // the server fetches the document itself
        e.client_secret.clear();
        e.registered_auth_method = o.private_key_pem.empty() ? "none" : "private_key_jwt";
        co_return std::string();
    }
    if (e.registration_endpoint.empty())
        co_return std::string(
            "the authorization server offers no dynamic client registration (no registration_endpoint)") +
            (o.client_metadata_url.empty() ? "" : " and does not accept client ID metadata documents") +
            ", and no client_id was given. Hint: register the client with the server and set oauth_options::client_id "
            "(and client_secret).";
    const auto reg = parse_url(e.registration_endpoint);
    if (!reg) co_return "the registration_endpoint \"" + redact_url(e.registration_endpoint) + "\" is not an http(s) URL";
    const token_endpoint_auth method = choose_token_auth(o.auth_method, true, !o.private_key_pem.empty(), "", e.server_metadata);
    json body = {{"client_name", o.client_name},
                 {"redirect_uris", json::array({o.redirect_uri})},
                 {"token_endpoint_auth_method", std::string(to_string(method))}};
    if (o.grant == oauth_grant::client_credentials) {
        body["grant_types"] = json::array({"client_credentials"});
    } else {
        body["grant_types"] = json::array({"authorization_code", "refresh_token"});
        body["response_types"] = json::array({"code"});
    }
    fetch_request req;
    req.method = "POST";
    req.target = *reg;
    req.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
    req.body = body.dump();
    const fetch_response res = co_await fetch(rc, std::move(req));
    if (!res.error.empty()) co_return "dynamic client registration failed: " + res.error;
    json answer;
    try {
        answer = json::parse(res.body);
    } catch (const std::exception&) {
    }
    if (!res.ok() || !answer.is_object() || string_field(answer, "client_id").empty())
        co_return "dynamic client registration at " + reg->redacted() + " answered HTTP " + std::to_string(res.status) +
            (res.ok() ? " without a client_id" : ": " + oauth_error_text(res.body));
    e.client_id = string_field(answer, "client_id");
    e.client_secret = string_field(answer, "client_secret");
    e.registered_auth_method = string_field(answer, "token_endpoint_auth_method");
    co_return std::string();
}

MCP_LOADTEST_DECL asio::awaitable<std::string> oauth_flow::grant(run_context& rc, const std::string& scope) {
    using namespace oauth_detail;
    oauth_entry& e = rc.entry;
    const oauth_options& o = rc.options;
    form_fields form;
    if (o.grant == oauth_grant::client_credentials) {
        form = {{"grant_type", "client_credentials"}};
        if (!scope.empty()) form.emplace_back("scope", scope);
        form.emplace_back("resource", e.resource);
        co_return co_await token_request(rc, std::move(form), e.token_endpoint);
    }
    if (o.grant == oauth_grant::cross_app_access) {
        // SEP-990: the identity provider exchanges the user's ID token for an identity
        // assertion grant (ID-JAG) for this authorization server and resource...
        const auto idp = parse_url(o.idp_token_endpoint);
        if (!idp) co_return std::string("cross_app_access needs oauth_options::idp_token_endpoint (an http(s) URL)");
        form_fields exchange = {
            {"grant_type", "urn:ietf:params:oauth:grant-type:token-exchange"},
            {"requested_token_type", "urn:ietf:params:oauth:token-type:id-jag"},
            {"audience", e.issuer},
            {"resource", e.resource},
            {"subject_token", o.idp_id_token},
            {"subject_token_type", "urn:ietf:params:oauth:token-type:id_token"}};
        if (!o.idp_client_id.empty()) exchange.emplace_back("client_id", o.idp_client_id);
        if (!scope.empty()) exchange.emplace_back("scope", scope);
        fetch_request req;
        req.method = "POST";
        req.target = *idp;
        req.headers = {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}};
        req.body = form_encode(exchange);
        const fetch_response res = co_await fetch(rc, std::move(req));
        if (!res.error.empty()) co_return "the token exchange at the identity provider failed: " + res.error;
        std::string assertion;
        try {
            const json j = json::parse(res.body);
            if (res.ok() && j.is_object()) assertion = string_field(j, "access_token");
        } catch (const std::exception&) {
        }
        if (assertion.empty())
            co_return "the identity provider's token exchange at " + idp->redacted() + " answered HTTP " +
                std::to_string(res.status) + ": " + oauth_error_text(res.body);
        // ...which the authorization server takes as a JWT bearer grant (RFC 7523).
        form = {{"grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"}, {"assertion", assertion}};
        if (!scope.empty()) form.emplace_back("scope", scope);
        co_return co_await token_request(rc, std::move(form), e.token_endpoint);
    }
    // Authorization code with PKCE (S256) and state.
    const auto endpoint = parse_url(e.authorization_endpoint);
    if (!endpoint)
        co_return "the authorization server's authorization_endpoint \"" + redact_url(e.authorization_endpoint) +
            "\" is not an http(s) URL";
    const std::string verifier = random_text();
    const std::string state = random_text(16);
    form_fields query = {{"response_type", "code"},
                                                              {"client_id", e.client_id},
                                                              {"redirect_uri", o.redirect_uri},
                                                              {"state", state},
                                                              {"code_challenge", pkce_challenge(verifier)},
                                                              {"code_challenge_method", "S256"},
                                                              {"resource", e.resource}};
    if (!scope.empty()) query.emplace_back("scope", scope);
    const std::string authorization_url =
        e.authorization_endpoint + (e.authorization_endpoint.find('?') == std::string::npos ? "?" : "&") + form_encode(query);
    std::string redirected;
    if (o.browser) {
        try {
            redirected = co_await o.browser(authorization_url);
        } catch (const std::exception& ex) {
            co_return std::string("oauth_options::browser failed: ") + ex.what();
        }
    } else {
        // Follow the authorization endpoint's redirects until one reaches redirect_uri.
        auto at = parse_url(authorization_url);
        for (int hop = 0; at && hop < 10 && redirected.empty(); ++hop) {
            fetch_request req;
            req.target = *at;
            const fetch_response res = co_await fetch(rc, std::move(req));
            if (!res.error.empty()) co_return "the authorization request failed: " + res.error;
            const auto location = res.header("location");
            if (res.status < 300 || res.status >= 400 || !location)
                co_return "the authorization endpoint " + endpoint->redacted() + " answered HTTP " +
                    std::to_string(res.status) +
                    " instead of redirecting to redirect_uri (a login page wants a user?). Hint: set "
                    "oauth_options::browser to complete the step, or use oauth_grant::client_credentials.";
            auto next = resolve_relative(*at, *location);
            if (!next) co_return "the authorization endpoint redirected to an invalid Location";
            if (reaches(*next, o.redirect_uri)) redirected = location->find("://") != std::string::npos ? *location : next->redacted();
            at = std::move(next);
        }
        if (redirected.empty()) co_return std::string("the authorization endpoint redirected more than 10 times without reaching redirect_uri");
    }
    const std::size_t q = redirected.find('?');
    const auto fields = parse_form(q == std::string::npos ? std::string_view{}
                                                           : std::string_view(redirected).substr(q + 1, redirected.find('#', q) - q - 1));
    if (const auto err = form_value(fields, "error"))
        co_return "the authorization server refused the authorization request: " + *err +
            (form_value(fields, "error_description") ? " (" + *form_value(fields, "error_description") + ")" : "");
    if (form_value(fields, "state").value_or("") != state)
        co_return std::string("the redirect's state does not match the one sent: refusing its code (a forged redirect?)");
    const auto code = form_value(fields, "code");
    if (!code || code->empty()) co_return std::string("the redirect to redirect_uri carries no authorization code");
    form = {{"grant_type", "authorization_code"},
            {"code", *code},
            {"redirect_uri", o.redirect_uri},
            {"code_verifier", verifier},
            {"resource", e.resource}};
    e.scope = scope;
    co_return co_await token_request(rc, std::move(form), e.token_endpoint);
}

MCP_LOADTEST_DECL asio::awaitable<std::string> oauth_flow::refresh_grant(run_context& rc) {
    form_fields form = {
        {"grant_type", "refresh_token"}, {"refresh_token", rc.entry.refresh_token}, {"resource", rc.entry.resource}};
    const std::string kept = rc.entry.refresh_token;
    std::string error = co_await token_request(rc, std::move(form), rc.entry.token_endpoint);
    if (error.empty() && rc.entry.refresh_token.empty()) rc.entry.refresh_token = kept;
    if (!error.empty()) rc.entry.refresh_token.clear();  // refused: do not offer it again
    co_return error;
}

MCP_LOADTEST_DECL asio::awaitable<std::string> oauth_flow::token_request(run_context& rc,
                                                                      form_fields form, std::string endpoint) {
    using namespace oauth_detail;
    oauth_entry& e = rc.entry;
    const oauth_options& o = rc.options;
    const auto target = parse_url(endpoint);
    if (!target) co_return "the token_endpoint \"" + redact_url(endpoint) + "\" is not an http(s) URL";
    fetch_request req;
    req.method = "POST";
    req.target = *target;
    req.headers = {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}};
    {
        switch (choose_token_auth(o.auth_method, !e.client_secret.empty(), !o.private_key_pem.empty(),
                                  e.registered_auth_method, e.server_metadata)) {
            case token_endpoint_auth::client_secret_basic:
                req.headers.emplace_back("Authorization", basic_credentials(e.client_id, e.client_secret));
                break;
            case token_endpoint_auth::client_secret_post:
                form.emplace_back("client_id", e.client_id);
                form.emplace_back("client_secret", e.client_secret);
                break;
            case token_endpoint_auth::private_key_jwt: {
                const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                                     std::chrono::system_clock::now().time_since_epoch()).count();
                const json claims = {{"iss", e.client_id}, {"sub", e.client_id}, {"aud", e.issuer},
                                     {"iat", now},         {"exp", now + 300},   {"jti", random_text(16)}};
                const jwt_result jwt = sign_jwt(claims, o.private_key_pem, o.signing_algorithm, o.key_id);
                if (!jwt.error.empty()) co_return jwt.error;
                form.emplace_back("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
                form.emplace_back("client_assertion", jwt.token);
                break;
            }
            case token_endpoint_auth::none:
            case token_endpoint_auth::automatic:
                form.emplace_back("client_id", e.client_id);
                break;
        }
    }
    req.body = form_encode(form);
    const auto sent_at = steady::now();
    const fetch_response res = co_await fetch(rc, std::move(req));
    if (!res.error.empty()) co_return "the token request failed: " + res.error;
    json j;
    try {
        j = json::parse(res.body);
    } catch (const std::exception&) {
    }
    const std::string token = j.is_object() ? string_field(j, "access_token") : std::string();
    if (!res.ok() || token.empty())
        co_return "the token endpoint " + target->redacted() + " answered HTTP " + std::to_string(res.status) + ": " +
            (res.ok() ? std::string("no access_token in the answer") : oauth_error_text(res.body));
    if (const auto type = string_field(j, "token_type"); !type.empty()) {
        std::string lower = type;
        for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (lower != "bearer")
            co_return "the token endpoint issued a \"" + type + "\" token; MCP servers take Bearer tokens only";
    }
    e.access_token = token;
    if (const auto r = string_field(j, "refresh_token"); !r.empty()) e.refresh_token = r;
    if (const auto s = string_field(j, "scope"); !s.empty()) e.scope = s;
    else if (const auto asked = form_value(form, "scope")) e.scope = *asked;
    e.expires_at = e.refresh_at = steady::time_point::max();
    if (const auto it = j.find("expires_in"); it != j.end() && it->is_number() && it->get<double>() > 0) {
        const auto lifetime = std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(it->get<double>()));
        // From when the request left: the server's clock started no earlier.
        e.expires_at = sent_at + lifetime;
        const auto early = std::min<steady::duration>(o.refresh_before_expiry, lifetime / 2);
        e.refresh_at = e.expires_at - early;
    }
    co_return std::string();
}

}  // namespace mcp_loadtest::detail

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL auth_answer oauth_authorizer::cached(const url& server) { return oauth_flow::cached(*client_, server); }

MCP_LOADTEST_DECL void oauth_authorizer::obtain(auth_target target, auth_refusal refusal, std::string current,
                                                std::function<void(auth_answer)> done) {
    auto ex = target.executor;
    asio::co_spawn(ex, oauth_flow::obtain(client_, std::move(target), std::move(refusal), std::move(current)),
                   [done = std::move(done)](std::exception_ptr e, auth_answer answer) {
                       if (e) {
                           answer = {};
                           try {
                               std::rethrow_exception(e);
                           } catch (const std::exception& x) {
                               answer.error = std::string("the authorization failed: ") + x.what();
                           } catch (...) {
                               answer.error = "the authorization failed";
                           }
                       }
                       done(std::move(answer));
                   });
}

MCP_LOADTEST_DECL void oauth_authorizer::count_resend(bool step_up) { oauth_flow::count_resend(*client_, step_up); }

MCP_LOADTEST_DECL std::shared_ptr<http_authorizer> make_oauth_authorizer(std::shared_ptr<oauth_client> client) {
    return std::make_shared<oauth_authorizer>(std::move(client));
}

}  // namespace mcp_loadtest::detail
