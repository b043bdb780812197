// Conformance client: the program the official MCP conformance suite
// (@modelcontextprotocol/conformance, client mode) drives to grade this
// library as an MCP client over Streamable HTTP.
//
//     MCP_CONFORMANCE_SCENARIO=tools_call example_conformance_client http://localhost:PORT/mcp
//
// The suite starts a test server per scenario, then runs this program with the
// server's URL as the last argument and the scenario's name in the
// environment; the server records what the client did and grades it.
// tests/conformance/run.sh runs it in CI. It is also the shortest complete
// example of using mcp-loadtest without a test framework: an io_context, one
// coroutine, an exit code.
//
// The auth/* scenarios grade the OAuth client (docs/authentication.md): the
// server answers 401, and the library discovers, registers, authorizes and
// sends the request again. Scenarios that pre-register a client pass its
// credentials in MCP_CONFORMANCE_CONTEXT (JSON).
#include <mcp_loadtest/auth.hpp>
#include <mcp_loadtest/http.hpp>
#include <mcp_loadtest/session.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>

namespace mlt = mcp_loadtest;
using namespace std::chrono_literals;

namespace {

// Every wait is bounded, and the whole run ends well inside the suite's own
// per-client timeout (30 s by default), so a failure is reported by us with a
// reason rather than by the suite as a bare timeout.
constexpr auto call_timeout = 10s;
constexpr auto session_deadline = 20s;
constexpr auto overall_deadline = 25s;

struct invocation {
    std::string scenario;
    std::string url;
    mlt::json context = mlt::json::object();  // MCP_CONFORMANCE_CONTEXT
};

// The suite's client ID metadata document URL: used as client_id where the
// authorization server accepts such documents (it never fetches it).
constexpr const char* metadata_document = "https://conformance-test.local/client-metadata.json";

bool is_auth(const std::string& scenario) { return scenario.rfind("auth/", 0) == 0; }

// The OAuth client each auth scenario's server expects.
std::shared_ptr<mlt::oauth_client> oauth_for(const invocation& in) {
    mlt::oauth_options auth;
    auth.client_metadata_url = metadata_document;
    auth.client_name = "mcp-loadtest-conformance-client";
    auth.request_timeout = 5s;
    const auto text = [&](const char* field) { return in.context.value(field, std::string()); };
    auth.client_id = text("client_id");
    auth.client_secret = text("client_secret");
    if (in.scenario == "auth/client-credentials-basic" || in.scenario == "auth/client-credentials-jwt")
        auth.grant = mlt::oauth_grant::client_credentials;
    auth.private_key_pem = text("private_key_pem");
    if (!text("signing_algorithm").empty()) auth.signing_algorithm = text("signing_algorithm");
    if (in.scenario == "auth/cross-app-access-complete-flow") {
        auth.grant = mlt::oauth_grant::cross_app_access;
        auth.idp_token_endpoint = text("idp_token_endpoint");
        auth.idp_client_id = text("idp_client_id");
        auth.idp_id_token = text("idp_id_token");
    }
    return mlt::make_oauth(std::move(auth));
}

// SEP-1034: accept the elicitation, filling every field of the requested form
// with its schema's `default` (what a client does when the user just confirms).
mlt::json accept_with_defaults(const mlt::json& params) {
    mlt::json content = mlt::json::object();
    const mlt::json schema = params.value("requestedSchema", mlt::json::object());
    const mlt::json properties = schema.value("properties", mlt::json::object());
    for (const auto& [name, property] : properties.items())
        if (property.is_object() && property.contains("default")) content[name] = property["default"];
    return mlt::json{{"action", "accept"}, {"content", content}};
}

// The tool each scenario's server offers (none: the handshake is what is graded).
std::string tool_for(const std::string& scenario) {
    if (scenario == "initialize") return "";
    if (is_auth(scenario)) return "test-tool";  // called when listed; tools/list comes first
    if (scenario == "tools_call") return "add_numbers";
    if (scenario == "elicitation-sep1034-client-defaults") return "test_client_elicitation_defaults";
    // SEP-1699: the server ends the reply's SSE stream early; a conforming
    // client waits `retry` ms and resumes with GET + Last-Event-ID.
    if (scenario == "sse-retry") return "test_reconnection";
    throw std::runtime_error("unknown scenario \"" + scenario + "\" (this client knows initialize, tools_call, "
                             "elicitation-sep1034-client-defaults, sse-retry and auth/*)");
}

// Coroutines take one shared_ptr parameter (GCC 12 mis-copies some by-value
// class-type coroutine parameters; see the README).
asio::awaitable<void> run_scenario(std::shared_ptr<const invocation> in) {
    const std::string tool = tool_for(in->scenario);

    mlt::http_server server;
    server.url = in->url;
    if (is_auth(in->scenario)) server.oauth = oauth_for(*in);
    server.limits.connect_timeout = 5s;
    server.limits.startup_timeout = call_timeout;

    mlt::client_options options;
    // The conformance servers speak the legacy (initialize-handshake) era,
    // 2025-06-18 and 2025-11-25. Pinning it skips the server/discover probe
    // that era detection would send first, so each server sees exactly the
    // traffic its scenario grades.
    options.era = mlt::era_selection::legacy;
    options.client_name = "mcp-loadtest-conformance-client";
    options.default_timeout = call_timeout;
    options.session_deadline = session_deadline;
    // A handler for elicitation/create also declares the capability in
    // initialize, without which the server refuses to elicit.
    if (in->scenario == "elicitation-sep1034-client-defaults")
        options.request_handlers["elicitation/create"] = accept_with_defaults;

    auto session = co_await mlt::connect(server, options);  // throws connect_error with the reason
    if (is_auth(in->scenario)) {
        // Requests past initialize are what protected servers refuse first.
        auto tools = co_await session.list_tools({.timeout = call_timeout});
        if (!tools.ok()) throw std::runtime_error("tools/list: " + tools.status.describe());
        if (!tools.find(tool)) {
            co_await session.close();
            co_return;
        }
    }
    if (!tool.empty()) {
        // add_numbers needs {a, b}; the other scenarios' tools take no arguments.
        const mlt::json arguments = tool == "add_numbers" ? mlt::args("a", 2, "b", 3) : mlt::json::object();
        auto reply = co_await session.call_tool(tool, arguments, {.timeout = call_timeout});
        if (!reply.ok()) throw std::runtime_error(reply.describe_call() + ": " + reply.describe());
        std::printf("%s: %s\n", tool.c_str(), reply.text().c_str());
    }
    co_await session.close();  // DELETEs the session, if the server gave one (bounded)
}

}  // namespace

int main(int argc, char** argv) {
    const char* scenario = std::getenv("MCP_CONFORMANCE_SCENARIO");
    if (argc < 2 || !scenario) {
        std::fprintf(stderr, "usage: MCP_CONFORMANCE_SCENARIO=<scenario> %s [...] <server-url>\n", argv[0]);
        return 1;
    }
    invocation parsed{scenario, argv[argc - 1]};
    if (const char* context = std::getenv("MCP_CONFORMANCE_CONTEXT")) {
        try {
            parsed.context = mlt::json::parse(context);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "conformance client: MCP_CONFORMANCE_CONTEXT is not JSON: %s\n", e.what());
            return 1;
        }
    }
    auto in = std::make_shared<const invocation>(std::move(parsed));

    asio::io_context io;
    bool finished = false;
    std::exception_ptr failure;
    asio::co_spawn(io, run_scenario(in), [&](std::exception_ptr e) {
        finished = true;
        failure = e;
        io.stop();  // done: do not wait for stray background work
    });
    io.run_for(overall_deadline);  // the backstop: nothing above may outlast it

    if (!finished) {
        std::fprintf(stderr, "conformance client: scenario %s did not finish within %lld s\n", scenario,
                     static_cast<long long>(std::chrono::seconds(overall_deadline).count()));
        return 1;
    }
    if (failure) {
        try {
            std::rethrow_exception(failure);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "conformance client: scenario %s failed: %s\n", scenario, e.what());
        } catch (...) {
            std::fprintf(stderr, "conformance client: scenario %s failed with a non-standard exception\n", scenario);
        }
        return 1;
    }
    return 0;
}
