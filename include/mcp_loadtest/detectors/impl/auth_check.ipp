// Definitions of detectors/auth_check.hpp (header-only: included by it; separate compilation:
// src/parts/analysis.cpp).
#include <mcp_loadtest/detectors/auth_check.hpp>
#include <mcp_loadtest/detail/auth/discovery.hpp>
#include <mcp_loadtest/detail/auth/http_fetch.hpp>
#include <mcp_loadtest/detail/auth/oauth_flow.hpp>
#include <mcp_loadtest/detail/wire/form.hpp>
#include <mcp_loadtest/detail/wire/url.hpp>
#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp_loadtest {

MCP_LOADTEST_DECL bool auth_check_report::passed() const noexcept {
    return std::none_of(checks.begin(), checks.end(),
                        [](const auth_check_item& c) { return c.verdict == auth_verdict::finding; });
}

MCP_LOADTEST_DECL const auth_check_item* auth_check_report::find(std::string_view name) const noexcept {
    for (const auto& c : checks)
        if (c.name == name) return &c;
    return nullptr;
}

MCP_LOADTEST_DECL auth_verdict auth_check_report::verdict_of(std::string_view name) const noexcept {
    const auth_check_item* c = find(name);
    return c ? c->verdict : auth_verdict::not_checked;
}

MCP_LOADTEST_DECL std::string auth_check_report::verdict_sentence() const {
    std::string findings;
    std::size_t passed_n = 0, skipped = 0;
    for (const auto& c : checks) {
        if (c.verdict == auth_verdict::finding) findings += (findings.empty() ? "" : "; ") + c.name + ": " + c.detail;
        else if (c.verdict == auth_verdict::passed) ++passed_n;
        else ++skipped;
    }
    if (!findings.empty()) return "auth_check of " + server + " found: " + findings;
    return "auth_check of " + server + ": no finding (" + std::to_string(passed_n) + " passed, " +
           std::to_string(skipped) + " not checked)";
}

MCP_LOADTEST_DECL std::string auth_check_report::describe() const {
    std::string s = verdict_sentence() + "\n";
    s += "  without a token the server answered " + std::to_string(unauthenticated_status) +
         (auth_expected ? " (the description holds credentials)\n" : " (the description holds no credentials)\n");
    for (const auto& c : checks) {
        s += "  " + std::string(to_string(c.verdict)) + "  " + c.name;
        if (!c.request.empty()) s += "\n      sent: " + c.request;
        if (c.status != 0) s += "\n      status: " + std::to_string(c.status);
        if (!c.www_authenticate.empty()) s += "\n      WWW-Authenticate: " + c.www_authenticate;
        if (!c.detail.empty()) s += "\n      " + c.detail;
        s += "\n";
    }
    return s;
}

MCP_LOADTEST_DECL void to_json(json& j, const auth_check_item& c) {
    j = json{{"name", c.name}, {"verdict", std::string(to_string(c.verdict))}, {"request", c.request},
             {"status", c.status}, {"www_authenticate", c.www_authenticate}, {"detail", c.detail}};
}

MCP_LOADTEST_DECL void to_json(json& j, const auth_check_report& r) {
    json checks = json::array();
    for (const auto& c : r.checks) checks.push_back(c);
    j = json{{"server", r.server}, {"auth_expected", r.auth_expected}, {"unauthenticated_status", r.unauthenticated_status},
             {"passed", r.passed()}, {"verdict_sentence", r.verdict_sentence()}, {"checks", std::move(checks)},
             {"took_ns", static_cast<std::int64_t>(r.took.count())}};
}

namespace detail {

namespace auth_check_text {
inline std::string one_decimal(double v) {
    const long tenths = std::lround(v * 10);
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10);
}
}  // namespace auth_check_text
using auth_check_text::one_decimal;

MCP_LOADTEST_DECL session_id_judgement judge_session_ids(const std::vector<std::string>& ids, std::size_t min_length,
                                                         double min_bits) {
    session_id_judgement j;
    if (ids.empty()) return j;
    std::size_t shortest = ids.front().size(), longest = 0;
    std::set<char> alphabet;
    for (const auto& id : ids) {
        shortest = std::min(shortest, id.size());
        longest = std::max(longest, id.size());
        for (char ch : id)
            if (std::isalnum(static_cast<unsigned char>(ch))) alphabet.insert(ch);
    }
    // The alphabet an id generator draws from, by the classes seen: hex, decimal, or letters and digits.
    bool upper = false, lower_hex = false, lower_other = false;
    for (char ch : alphabet) {
        if (ch >= 'A' && ch <= 'Z') upper = true;
        else if (ch >= 'a' && ch <= 'f') lower_hex = true;
        else if (ch >= 'g' && ch <= 'z') lower_other = true;
    }
    double size = 10;
    if (lower_other || upper) size = 10 + (lower_hex || lower_other ? 26 : 0) + (upper ? 26 : 0);
    else if (lower_hex) size = 16;
    std::size_t varying = 0;
    for (std::size_t i = 0; i < longest; ++i) {
        bool differs = false;
        for (const auto& id : ids)
            if (i >= id.size() || id[i] != ids.front()[i]) differs = true;
        if (differs) ++varying;
    }
    const double bits = ids.size() < 2 ? static_cast<double>(shortest) * std::log2(size)
                                        : static_cast<double>(varying) * std::log2(size);
    // Sequential: the ids share everything but one run of digits, and those numbers step evenly.
    bool sequential = false;
    if (ids.size() >= 3) {
        std::vector<long long> numbers;
        std::string shape;
        bool same_shape = true;
        for (const auto& id : ids) {
            std::string s;
            std::string digits;
            std::string last_digits;
            for (char ch : id) {
                if (std::isdigit(static_cast<unsigned char>(ch))) digits += ch;
                else {
                    if (!digits.empty()) { s += '#'; last_digits = digits; digits.clear(); }
                    s += ch;
                }
            }
            if (!digits.empty()) { s += '#'; last_digits = digits; }
            // The shape with only the last number blanked must agree: compare prefix and suffix around it.
            const std::size_t at = id.rfind(last_digits);
            const std::string around = last_digits.empty() || last_digits.size() > 15
                                           ? id
                                           : id.substr(0, at) + "#" + id.substr(at + last_digits.size());
            if (shape.empty()) shape = around;
            else if (shape != around) same_shape = false;
            if (last_digits.empty() || last_digits.size() > 15) same_shape = false;
            else numbers.push_back(std::stoll(last_digits));
        }
        if (same_shape && numbers.size() == ids.size()) {
            const long long step = numbers[1] - numbers[0];
            sequential = step != 0;
            for (std::size_t i = 2; i < numbers.size(); ++i)
                if (numbers[i] - numbers[i - 1] != step) sequential = false;
        }
    }
    j.evidence = std::to_string(ids.size()) + " ids, length " + std::to_string(shortest) +
                 (longest != shortest ? ".." + std::to_string(longest) : std::string()) + ", alphabet ~" +
                 std::to_string(static_cast<int>(size)) + " characters, " + std::to_string(varying) +
                 " positions vary: about " + one_decimal(bits) + " bits";
    std::string why;
    if (sequential) why = "sequential (one number steps evenly between ids)";
    if (shortest < min_length)
        why += (why.empty() ? "" : ", ") + std::string("short (") + std::to_string(shortest) + " < " +
               std::to_string(min_length) + " characters)";
    if (bits < min_bits)
        why += (why.empty() ? "" : ", ") + std::string("low entropy (about ") + one_decimal(bits) + " < " +
               one_decimal(min_bits) + " bits)";
    if (!why.empty()) {
        j.finding = true;
        j.evidence = "guessable session ids: " + why + "; " + j.evidence;
    } else {
        j.evidence += ", not sequential";
    }
    return j;
}

constexpr std::string_view auth_probe_initialize =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},)"
    R"("clientInfo":{"name":"mcp-loadtest-auth-check","version":"1"}}})";
constexpr std::string_view auth_probe_ping = R"({"jsonrpc":"2.0","id":2,"method":"ping"})";

// A check not yet made: its name and the request it sends.
inline auth_check_item unchecked(std::string name, std::string request) {
    auth_check_item item;
    item.name = std::move(name);
    item.request = std::move(request);
    return item;
}

struct auth_probe {
    std::string token;      // secret; "" none; sent as Bearer
    std::string raw_authorization;  // sent as is when not empty (malformed)
    std::string session_id;  // secret
    std::string origin, host;
    bool ping = false;
};

struct auth_check_run {
    http_server server;
    auth_check_options options;
    url endpoint;
    fetch_context context;
    auth_check_report report;
    std::string challenge;  // WWW-Authenticate of the unauthenticated request

    asio::awaitable<fetch_response> send(auth_probe p) {
        fetch_request req;
        req.method = "POST";
        req.target = endpoint;
        req.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"}};
        for (const auto& h : server.headers) req.headers.emplace_back(h.name, h.value);
        if (!p.raw_authorization.empty()) req.headers.emplace_back("Authorization", p.raw_authorization);
        else if (!p.token.empty()) req.headers.emplace_back("Authorization", "Bearer " + p.token);
        if (!p.session_id.empty()) {
            req.headers.emplace_back("Mcp-Session-Id", p.session_id);
            req.headers.emplace_back("MCP-Protocol-Version", "2025-06-18");
        }
        if (!p.origin.empty()) req.headers.emplace_back("Origin", p.origin);
        req.host_override = p.host;
        req.body = std::string(p.ping ? auth_probe_ping : auth_probe_initialize);
        co_return co_await http_fetch(context, std::move(req));
    }

    static void fill(auth_check_item& item, const fetch_response& r) {
        item.status = r.status;
        item.www_authenticate = r.header("WWW-Authenticate").value_or("");
        if (r.status == 0) item.detail = "no response: " + r.error;
    }

    // A valid token for the MCP server: the description's bearer_token, or its oauth client's.
    asio::awaitable<std::string> valid_token() {
        if (!server.bearer_token.empty()) co_return server.bearer_token;
        if (!server.oauth) co_return std::string();
        auth_answer cached = oauth_flow::cached(*server.oauth, endpoint);
        if (!cached.token.empty()) co_return cached.token;
        co_return co_await token_of(server.oauth);
    }

    // A token of `client` that is not due for renewal: the cached one, else a renewed or new one
    // (tokens may live about as long as the checks take).
    asio::awaitable<std::string> token_of(std::shared_ptr<oauth_client> client) {
        const auth_answer cached = oauth_flow::cached(*client, endpoint);
        if (!cached.token.empty()) co_return cached.token;
        auth_target target{endpoint, context.executor, server.proxy, server.tls};
        auth_refusal refusal{401, challenge};
        const auth_answer answer = co_await oauth_flow::obtain(std::move(client), std::move(target), std::move(refusal), "");
        co_return answer.token;
    }

    // Mints a token for `resource` at the authorization server with the description's client
    // credentials: (token, expires_in seconds, why not).
    struct minted {
        std::string token;
        double expires_in = -1;
        std::string error;
    };
    asio::awaitable<minted> mint(std::string resource) {
        minted m;
        if (!server.oauth || server.oauth->options().client_id.empty() || server.oauth->options().client_secret.empty()) {
            m.error = "the server description holds no oauth client with a client_id and client_secret to mint it with";
            co_return m;
        }
        std::string token_endpoint;
        for (const auto& prm_url : protected_resource_metadata_urls(endpoint)) {
            const auto prm = co_await get_json(prm_url);
            if (!prm || !prm->contains("authorization_servers") || !(*prm)["authorization_servers"].is_array() ||
                (*prm)["authorization_servers"].empty())
                continue;
            const auto issuer = parse_url((*prm)["authorization_servers"][0].get<std::string>());
            if (!issuer) continue;
            for (const auto& as_url : authorization_server_metadata_urls(*issuer)) {
                const auto as = co_await get_json(as_url);
                if (as && as->contains("token_endpoint")) {
                    token_endpoint = (*as)["token_endpoint"].get<std::string>();
                    break;
                }
            }
            if (!token_endpoint.empty()) break;
        }
        const auto target = parse_url(token_endpoint);
        if (!target) {
            m.error = "no token endpoint found through the resource and authorization server metadata";
            co_return m;
        }
        fetch_request req;
        req.method = "POST";
        req.target = *target;
        req.headers = {{"Content-Type", "application/x-www-form-urlencoded"}, {"Accept", "application/json"}};
        const form_fields form{{"grant_type", "client_credentials"},
                               {"client_id", server.oauth->options().client_id},
                               {"client_secret", server.oauth->options().client_secret},
                               {"resource", resource}};
        req.body = form_encode(form);
        const fetch_response r = co_await http_fetch(context, std::move(req));
        if (!r.ok()) {
            m.error = "the token endpoint refused (status " + std::to_string(r.status) + ")";
            co_return m;
        }
        const json body = json::parse(r.body, nullptr, false);
        if (!body.is_object() || !body.contains("access_token") || !body["access_token"].is_string()) {
            m.error = "the token endpoint's answer holds no access_token";
            co_return m;
        }
        m.token = body["access_token"].get<std::string>();
        if (body.contains("expires_in") && body["expires_in"].is_number()) m.expires_in = body["expires_in"].get<double>();
        co_return m;
    }

    asio::awaitable<std::optional<json>> get_json(std::string text) {
        const auto target = parse_url(text);
        if (!target) co_return std::nullopt;
        fetch_request req;
        req.target = *target;
        req.headers = {{"Accept", "application/json"}};
        const fetch_response r = co_await http_fetch(context, std::move(req));
        if (!r.ok()) co_return std::nullopt;
        json j = json::parse(r.body, nullptr, false);
        if (j.is_discarded() || !j.is_object()) co_return std::nullopt;
        co_return j;
    }

    // A refused token probe: 401 with a Bearer challenge naming resource_metadata.
    static void judge_token_refusal(auth_check_item& item, const fetch_response& r, std::string_view what) {
        fill(item, r);
        if (r.status == 0) {
            item.verdict = auth_verdict::not_checked;
            return;
        }
        if (r.ok()) {
            item.verdict = auth_verdict::finding;
            item.detail = "a request with " + std::string(what) + " was served (" + std::to_string(r.status) + ")";
            return;
        }
        const std::string& w = item.www_authenticate;
        std::string lower;
        for (char ch : w) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        if (r.status != 401) {
            item.verdict = auth_verdict::finding;
            item.detail = "refused with " + std::to_string(r.status) + ", not 401";
        } else if (lower.rfind("bearer", 0) != 0) {
            item.verdict = auth_verdict::finding;
            item.detail = "401 without a `WWW-Authenticate: Bearer` challenge";
        } else if (lower.find("resource_metadata=") == std::string::npos) {
            item.verdict = auth_verdict::finding;
            item.detail = "the Bearer challenge names no resource_metadata (MCP authorization requires it)";
        } else {
            item.verdict = auth_verdict::passed;
        }
    }

    asio::awaitable<void> token_checks(const fetch_response& none, const std::string& valid, const std::string& why_not) {
        auth_check_item no_token = unchecked("no_token", "POST /mcp initialize, no Authorization");
        if (report.auth_expected || none.status == 401) judge_token_refusal(no_token, none, "no token");
        else {
            fill(no_token, none);
            no_token.detail = "the server served a request without a token and the description holds no credentials: "
                              "it has no authorization to check";
        }
        report.checks.push_back(std::move(no_token));

        auth_check_item malformed = unchecked("malformed_token",
                                              "POST /mcp initialize, Authorization: Bearer <malformed: not a token this server issued>");
        auth_check_item expired = unchecked("expired_token",
                                            "POST /mcp initialize, Authorization: Bearer <expired token>");
        auth_check_item audience = unchecked("wrong_audience",
                                             "POST /mcp initialize, Authorization: Bearer <token for another resource>");
        if (!why_not.empty()) {
            malformed.detail = expired.detail = audience.detail = why_not;
            report.checks.push_back(std::move(malformed));
            report.checks.push_back(std::move(expired));
            report.checks.push_back(std::move(audience));
            co_return;
        }
        {
            auth_probe p;
            p.raw_authorization = "Bearer mcp-loadtest.not-a-token%%";
            const fetch_response r = co_await send(std::move(p));
            judge_token_refusal(malformed, r, "a malformed token");
        }
        report.checks.push_back(std::move(malformed));

        std::string expired_token = options.expired_token;
        if (expired_token.empty()) {
            const std::string resource = resource_identifier(endpoint);
            const minted m = co_await mint(resource);
            if (m.token.empty()) expired.detail = m.error + "; supply options.expired_token";
            else if (m.expires_in < 0 || m.expires_in * 1000 > static_cast<double>(options.max_expiry_wait.count()))
                expired.detail = "tokens live " + (m.expires_in < 0 ? std::string("without a stated lifetime")
                                                                    : one_decimal(m.expires_in) + " s") +
                                 ", longer than options.max_expiry_wait; supply options.expired_token";
            else {
                asio::steady_timer timer(context.executor);
                timer.expires_after(std::chrono::milliseconds(static_cast<long>(m.expires_in * 1000)) +
                                    std::chrono::milliseconds(300));
                co_await timer.async_wait(asio::use_awaitable);
                expired_token = m.token;
                expired.detail = "minted with a " + one_decimal(m.expires_in) + " s lifetime, sent after it ran out";
            }
        }
        if (!expired_token.empty()) {
            const std::string note = expired.detail;
            auth_probe p;
            p.token = expired_token;
            const fetch_response r = co_await send(std::move(p));
            judge_token_refusal(expired, r, "an expired token");
            if (expired.verdict == auth_verdict::passed) expired.detail = note;
        }
        report.checks.push_back(std::move(expired));

        std::string other = options.wrong_audience_token;
        if (other.empty()) {
            const std::string resource = endpoint.origin() + "/mcp-loadtest-other-resource";
            const minted m = co_await mint(resource);
            if (m.token.empty()) audience.detail = m.error + "; supply options.wrong_audience_token";
            else {
                other = m.token;
                audience.request += " (minted for " + resource + ")";
            }
        }
        if (!other.empty()) {
            auth_probe p;
            p.token = other;
            const fetch_response r = co_await send(std::move(p));
            judge_token_refusal(audience, r, "a token minted for another resource (token passthrough)");
        }
        report.checks.push_back(std::move(audience));
    }

    asio::awaitable<void> session_checks(const std::string& valid, const std::string& why_not) {
        auth_check_item without = unchecked("session_without_token",
                                            "POST /mcp ping, Mcp-Session-Id of a session created with a valid token, no Authorization");
        auth_check_item other = unchecked("session_other_client",
                                          "POST /mcp ping, Mcp-Session-Id of a session created with a valid token, "
                                          "Authorization: Bearer <another client's valid token>");
        auth_check_item ids = unchecked("session_id_entropy",
                                        "POST /mcp initialize × " + std::to_string(options.session_samples) +
                                            ", the Mcp-Session-Id of each answer");
        std::vector<std::string> collected;
        for (std::size_t i = 0; i < options.session_samples; ++i) {
            auth_probe p;
            p.token = valid;
            const fetch_response r = co_await send(std::move(p));
            const auto sid = r.header("Mcp-Session-Id");
            if (!r.ok()) {
                ids.status = r.status;
                ids.detail = "initialize failed (" + (r.status ? std::to_string(r.status) : r.error) + ")";
                break;
            }
            if (!sid) {
                ids.detail = "the server gives no Mcp-Session-Id (stateless): no session to check";
                break;
            }
            collected.push_back(*sid);
        }
        if (collected.size() == options.session_samples && !collected.empty()) {
            ids.status = 200;
            const auto j = judge_session_ids(collected, options.min_session_id_length, options.min_session_id_bits);
            ids.verdict = j.finding ? auth_verdict::finding : auth_verdict::passed;
            ids.detail = j.evidence;
        }
        const bool have_session = collected.size() == options.session_samples && !collected.empty();
        if (!have_session) without.detail = other.detail = ids.detail.empty() ? "no session" : ids.detail;
        else if (!why_not.empty()) without.detail = other.detail = why_not;
        else {
            {
                auth_probe p;
                p.session_id = collected.front();
                p.ping = true;
                const fetch_response r = co_await send(std::move(p));
                fill(without, r);
                if (r.status != 0) {
                    without.verdict = r.ok() ? auth_verdict::finding : auth_verdict::passed;
                    if (r.ok()) without.detail = "the session id alone was enough: a request with no token was served";
                }
            }
            if (!options.other_client) other.detail = "no other client identity (options.other_client)";
            else {
                const std::string foreign = co_await token_of(options.other_client);
                if (foreign.empty()) other.detail = "the other client got no token";
                else if (foreign == valid) other.detail = "the other client got the same token (not another identity)";
                else {
                    auth_probe p;
                    p.session_id = collected.front();
                    p.token = foreign;
                    p.ping = true;
                    const fetch_response r = co_await send(std::move(p));
                    fill(other, r);
                    if (r.status != 0) {
                        other.verdict = r.ok() ? auth_verdict::finding : auth_verdict::passed;
                        if (r.ok()) other.detail = "session hijacking: another client's token was served in this session";
                    }
                }
            }
        }
        report.checks.push_back(std::move(without));
        report.checks.push_back(std::move(other));
        report.checks.push_back(std::move(ids));
    }

    asio::awaitable<void> rebinding_checks(const std::string& valid) {
        auth_check_item origin = unchecked("foreign_origin",
                                           "POST /mcp initialize" + std::string(valid.empty() ? "" : " with a valid token") +
                                               ", Origin: " + options.foreign_origin);
        auth_check_item host = unchecked("foreign_host",
                                         "POST /mcp initialize" + std::string(valid.empty() ? "" : " with a valid token") +
                                             ", Host: " + options.foreign_host);
        for (int which = 0; which < 2; ++which) {
            auth_check_item& item = which == 0 ? origin : host;
            auth_probe p;
            p.token = valid;
            if (which == 0) p.origin = options.foreign_origin;
            else p.host = options.foreign_host;
            const fetch_response r = co_await send(std::move(p));
            fill(item, r);
            if (r.status == 0) continue;
            if (r.ok()) {
                item.verdict = auth_verdict::finding;
                item.detail = std::string("served a request with a foreign ") + (which == 0 ? "Origin" : "Host") +
                              " (DNS rebinding): 403 expected";
            } else if (r.status == 401) {
                item.detail = std::string(valid.empty() ? "refused with 401 for want of a token"
                                                        : "refused with 401: the token was not accepted") +
                              ", before the " + std::string(which == 0 ? "Origin" : "Host") + " could be judged";
            } else {
                item.verdict = auth_verdict::passed;
                if (r.status != 403 && !(which == 1 && (r.status == 421 || r.status == 400)))
                    item.detail = "refused with " + std::to_string(r.status) + " (403 expected)";
            }
        }
        report.checks.push_back(std::move(origin));
        report.checks.push_back(std::move(host));
    }

    asio::awaitable<auth_check_report> run() {
        const auto started = std::chrono::steady_clock::now();
        std::string parse_error;
        const auto parsed = parse_url(server.url, &parse_error);
        report.server = url_detail::redact_text(server.url);
        report.auth_expected = server.oauth != nullptr || !server.bearer_token.empty();
        context.executor = co_await asio::this_coro::executor;
        context.proxy = server.proxy;
        context.tls = server.tls;
        context.timeout = options.request_timeout;
        if (!parsed) {
            auth_check_item bad = unchecked("server_url", "");
            bad.detail = "bad server URL: " + parse_error;
            report.checks.push_back(std::move(bad));
            co_return report;
        }
        endpoint = *parsed;
        report.server = endpoint.redacted();

        auth_probe bare;  // named: GCC 12 mishandles a temporary argument inside co_await
        const fetch_response none = co_await send(std::move(bare));
        report.unauthenticated_status = none.status;
        challenge = none.header("WWW-Authenticate").value_or("");
        std::string valid;
        std::string why_not;
        if (none.status == 0) why_not = "the server did not answer: " + none.error;
        else if (!report.auth_expected && none.status != 401)
            why_not = "the server asks for no token (" + std::to_string(none.status) +
                      " without one) and the description holds none: no authorization to check";
        else if (!report.auth_expected)
            why_not = "the server asks for a token (401) but the description holds no oauth client or bearer_token";
        else {
            valid = co_await valid_token();
            if (valid.empty()) why_not = "no valid token could be obtained through the description's credentials";
            else {
                auth_probe p;
                p.token = valid;
                const fetch_response control = co_await send(std::move(p));
                if (!control.ok()) {
                    why_not = "a request with a valid token was refused too (" +
                              (control.status ? std::to_string(control.status) : control.error) + ")";
                    valid.clear();
                }
            }
        }
        co_await token_checks(none, valid, why_not);
        if (!valid.empty()) valid = co_await valid_token();  // the expired-token check may have waited past its life
        co_await session_checks(valid, why_not);
        if (!valid.empty()) valid = co_await valid_token();
        co_await rebinding_checks(valid);
        report.took = std::chrono::steady_clock::now() - started;
        co_return report;
    }
};

}  // namespace detail

MCP_LOADTEST_DECL asio::awaitable<auth_check_report> auth_check(http_server server, auth_check_options options) {
    auto run = std::make_shared<detail::auth_check_run>();
    run->server = std::move(server);
    run->options = std::move(options);
    co_return co_await run->run();
}

MCP_LOADTEST_DECL asio::awaitable<auth_check_report> auth_check(http_server server) {
    auth_check_options defaults;
    co_return co_await auth_check(std::move(server), std::move(defaults));
}

}  // namespace mcp_loadtest
