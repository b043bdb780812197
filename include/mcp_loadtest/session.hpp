// An MCP client session with one server, driven with co_await.
//
//     auto s = co_await mcp_loadtest::connect(mcp_loadtest::stdio_server{"python3", {"server.py"}});
//     auto reply = co_await s.call_tool("echo", {{"message", "hi"}}, {.timeout = 5s});
//
// Every operation is bounded (per-call timeout, optional session deadline) and
// ends in exactly one outcome of the taxonomy (outcome.hpp). Any number of calls
// may be in flight at once on one session: they are pipelined on one pipe and
// correlated by id. A session is used from the executor it was created on.
#pragma once

#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/client_options.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/detail/make_transport.hpp>
#include <mcp_loadtest/detail/session_core.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/process_audit.hpp>
#include <mcp_loadtest/server.hpp>
#include <mcp_loadtest/session_info.hpp>

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <variant>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp_loadtest {

namespace detail {
/// Which era each server spoke, keyed by transport and server description
/// (the spec asks clients to cache it per server process or origin).
struct era_cache {
    static std::optional<protocol_era> find(const std::string& key) {
        std::lock_guard<std::mutex> lock(mutex());
        auto it = map().find(key);
        if (it == map().end()) return std::nullopt;
        return it->second;
    }
    static void store(const std::string& key, protocol_era era) {
        std::lock_guard<std::mutex> lock(mutex());
        map()[key] = era;
    }
    static void clear() {
        std::lock_guard<std::mutex> lock(mutex());
        map().clear();
    }

private:
    static std::map<std::string, protocol_era>& map() {
        static std::map<std::string, protocol_era> m;
        return m;
    }
    static std::mutex& mutex() {
        static std::mutex m;
        return m;
    }
};

/// handshake() ended a stdio server by probing it (it died on server/discover):
/// connect() starts a fresh process for the legacy handshake.
struct restart_needed {};

/// The opening's time: startup_timeout bounds all of it (the era probe, a
/// restart, a fallback, initialize), not each step anew.
struct opening_budget {
    using clock = std::chrono::steady_clock;
    clock::time_point deadline;
    std::chrono::milliseconds total{0};
    std::string spent_on;  // what used part of it before initialize, for messages

    static opening_budget starting_now(std::chrono::milliseconds startup_timeout) {
        return {clock::now() + startup_timeout, startup_timeout, {}};
    }
    /// What is left, at least 1 ms (a call timeout of 0 would mean "the default").
    [[nodiscard]] std::chrono::milliseconds left() const {
        const auto rest = std::chrono::ceil<std::chrono::milliseconds>(deadline - clock::now());
        return std::max(rest, std::chrono::milliseconds(1));
    }
};
struct session_opener;

struct start_request_initiation {
    std::shared_ptr<session_core> core;
    template <class Handler>
    void operator()(Handler&& handler, session_core::request_line req) const {
        core->start_request(std::move(req), call_completion(std::forward<Handler>(handler)));
    }
};
}  // namespace detail

struct tool_info {
    std::string name;
    std::string title;
    std::string description;
    json input_schema = json::object();
    json raw = json::object();  ///< the tool object as the server sent it
};

struct resource_info {
    std::string uri;
    std::string name;
    std::string mime_type;
    json raw = json::object();
};

struct prompt_info {
    std::string name;
    std::string description;
    json raw = json::object();
};

/// A paginated list, with every page fetched. `status` is the last page's call
/// (the failing one, if a page failed; the items fetched before it are kept).
template <class Item>
struct listing {
    std::vector<Item> items;
    std::size_t pages = 0;
    call_result status;

    [[nodiscard]] bool ok() const noexcept { return status.ok(); }
    [[nodiscard]] std::size_t size() const noexcept { return items.size(); }
    [[nodiscard]] bool empty() const noexcept { return items.empty(); }
    [[nodiscard]] auto begin() const noexcept { return items.begin(); }
    [[nodiscard]] auto end() const noexcept { return items.end(); }
    [[nodiscard]] const Item& operator[](std::size_t i) const { return items[i]; }
    /// The item with this name (tools, prompts) or uri (resources), or nullptr.
    [[nodiscard]] const Item* find(std::string_view key) const noexcept {
        for (const auto& i : items) {
            if constexpr (requires { i.uri; }) {
                if (i.uri == key) return &i;
            } else {
                if (i.name == key) return &i;
            }
        }
        return nullptr;
    }
};

class session {
public:
    session() = default;
    explicit session(std::shared_ptr<detail::session_core> core) : core_(std::move(core)) {}
    session(session&&) noexcept = default;
    session& operator=(session&& o) noexcept {
        if (this != &o) {
            abandon();
            core_ = std::move(o.core_);
        }
        return *this;
    }
    session(const session&) = delete;
    session& operator=(const session&) = delete;
    /// Without close(), the server's process group is SIGKILLed and reaped here.
    ~session() { abandon(); }

    // ---- requests --------------------------------------------------------

    /// tools/call. Ends in ok, tool_error (isError: true) or a failure outcome.
    /// `args`: a json object, `{{"key", value}}`, or raw_json serialized once.
    asio::awaitable<call_result> call_tool(std::string_view name, const arguments& args,
                                           call_options options = {}) {
        auto& c = core();
        detail::session_core::request_line req;
        req.id = c.next_id();
        req.line = c.take_line_buffer();
        req.method.assign("tools/call");
        req.tool.assign(name);
        req.options = options;
        using namespace std::string_view_literals;
        std::string& line = req.line;
        const bool modern = c.era() == protocol_era::modern;
        line.reserve(96 + name.size() + args.text().size() + (modern ? c.meta_members().size() + 16 : 0));
        line += R"({"jsonrpc":"2.0","id":)"sv;
        detail::append_uint(line, req.id);
        if (modern) {
            line += R"(,"method":"tools/call","params":{)"sv;
            req.params_members_at = static_cast<std::uint32_t>(line.size());
            append_modern_meta(line, c, req);
            line += R"("name":)"sv;
        } else {
            line += R"(,"method":"tools/call","params":{"name":)"sv;  // one append on the hot path
            req.params_members_at = static_cast<std::uint32_t>(line.size() - 7);  // before "name":
        }
        detail::append_json_string(line, name);
        line += R"(,"arguments":)"sv;
        line += args.text();
        if (!modern) append_progress_meta(line, req);
        line += "}}\n"sv;
        if (modern) c.param_headers_for(name, args.text(), req.param_headers);
        return start(std::move(req));
    }

    /// tools/call with no arguments (`{}`).
    asio::awaitable<call_result> call_tool(std::string_view name) { return call_tool(name, arguments{}, {}); }

    /// Any request by method name, e.g. request("completion/complete", params).
    asio::awaitable<call_result> request(std::string_view method, const json& params,
                                         call_options options = {}) {
        return request_named(method, params, {}, options);
    }
    asio::awaitable<call_result> request(std::string_view method) {
        return request_named(method, json::object(), {}, {});
    }

    asio::awaitable<call_result> ping(call_options options = {}) { return request_named("ping", json::object(), {}, options); }

    asio::awaitable<call_result> read_resource(std::string_view uri, call_options options = {}) {
        return request_named("resources/read", json{{"uri", uri}}, std::string(uri), options);
    }

    asio::awaitable<call_result> get_prompt(std::string_view name, const json& prompt_arguments,
                                            call_options options = {}) {
        return request_named("prompts/get", json{{"name", name}, {"arguments", prompt_arguments}},
                             std::string(name), options);
    }
    asio::awaitable<call_result> get_prompt(std::string_view name) { return get_prompt(name, json::object()); }

    /// tools/list, following nextCursor through every page.
    asio::awaitable<listing<tool_info>> list_tools(call_options options = {}) {
        // A raw pointer: the lambda is a coroutine parameter (GCC 12, see below); the core outlives the call.
        detail::session_core* c = &core();
        return list<tool_info>("tools/list", "tools", options, [c](const json& t) {
            tool_info i;
            i.name = t.value("name", "");
            i.title = t.value("title", "");
            i.description = t.value("description", "");
            if (auto s = t.find("inputSchema"); s != t.end()) i.input_schema = *s;
            i.raw = t;
            c->learn_param_headers(i.name, i.input_schema);
            return i;
        });
    }

    asio::awaitable<listing<resource_info>> list_resources(call_options options = {}) {
        return list<resource_info>("resources/list", "resources", options, [](const json& r) {
            resource_info i;
            i.uri = r.value("uri", "");
            i.name = r.value("name", "");
            i.mime_type = r.value("mimeType", "");
            i.raw = r;
            return i;
        });
    }

    asio::awaitable<listing<prompt_info>> list_prompts(call_options options = {}) {
        return list<prompt_info>("prompts/list", "prompts", options, [](const json& p) {
            prompt_info i;
            i.name = p.value("name", "");
            i.description = p.value("description", "");
            i.raw = p;
            return i;
        });
    }

    /// Sends a notification (fire and forget).
    void notify(std::string_view method, const json& params) {
        const std::string text = params.is_null() ? std::string() : params.dump();
        core().send_notification(method, text);
    }
    void notify(std::string_view method) { core().send_notification(method, {}); }

    /// Cancels an in-flight request: it ends as `cancelled`, and the server is
    /// sent notifications/cancelled. Returns false if it was not in flight.
    /// (Cancelling the awaiting coroutine through Asio's cancellation slots
    /// does the same.)
    bool cancel(std::uint64_t request_id, std::string_view reason = "cancelled by the test") {
        return core().cancel(request_id, reason, true);
    }

    /// The id the most recent request was given.
    [[nodiscard]] std::uint64_t last_request_id() const noexcept { return core_ ? peek_last_id() : 0; }

    // ---- lifecycle -------------------------------------------------------

    /// The initialize handshake: offers the newest version (or the pinned one),
    /// accepts what the server picks among accepted_versions, then sends
    /// notifications/initialized. Throws connect_error, with a message saying
    /// what went wrong and what to try, when it fails.
    asio::awaitable<server_identity> initialize() {
        auto budget = detail::opening_budget::starting_now(core().wire().startup_timeout());
        co_return co_await initialize_within(budget);
    }

    /// The modern (2026-07-28) opening: server/discover carrying the per-request
    /// _meta. An UnsupportedProtocolVersionError (-32022) is answered by
    /// retrying once with a mutually supported version. Throws connect_error.
    asio::awaitable<server_identity> discover() {
        auto budget = detail::opening_budget::starting_now(core().wire().startup_timeout());
        auto outcome_of = co_await probe_modern(false, budget);
        co_return std::move(outcome_of.identity);
    }

    /// Opens the session in the era client_options::era asks for. `automatic`
    /// follows the spec's backward-compatibility rules: probe with
    /// server/discover; a DiscoverResult or a modern error (-32020..-32022)
    /// means modern; anything else (another error, no answer within
    /// discover_timeout, an HTTP 4xx without a modern error) means legacy, and
    /// the initialize handshake follows. startup_timeout bounds the whole
    /// opening: the probe gets at most half of it. The verdict is cached per
    /// server for the life of the test process.
    asio::awaitable<server_identity> handshake() {
        auto budget = detail::opening_budget::starting_now(core().wire().startup_timeout());
        co_return co_await handshake_impl(false, budget);
    }

private:
    friend struct detail::session_opener;

    asio::awaitable<server_identity> initialize_within(detail::opening_budget& budget) {
        auto& c = core();
        c.use_legacy_era();
        const client_options& o = c.options();
        const std::string offered = o.protocol_version.empty() || is_modern_version(o.protocol_version)
                                        ? supported_protocol_versions().back()
                                        : o.protocol_version;
        json capabilities = declared_capabilities(o);
        const json params{{"protocolVersion", offered},
                          {"capabilities", capabilities},
                          {"clientInfo", {{"name", o.client_name}, {"version", o.client_version}}}};
        call_options opts;
        opts.timeout = budget.left();
        call_result r = co_await request("initialize", params, opts);
        const std::string who = c.wire().describe();
        if (!r.ok()) {
            std::string why;
            switch (r.outcome) {
                case outcome::hang:
                    why = who + " did not answer initialize within " + std::to_string(opts.timeout.count()) +
                          (budget.spent_on.empty()
                               ? std::string(" ms (the server description's startup_timeout)")
                               : " ms, what was left of the server description's startup_timeout (" +
                                     std::to_string(budget.total.count()) + " ms) after " + budget.spent_on) +
                          ". Hint: if it starts slowly, raise startup_timeout; " +
                          (c.wire().kind() == "stdio"
                               ? std::string("check that it reads newline-delimited JSON-RPC on stdin and "
                                             "writes replies to stdout.")
                               : std::string("check that the URL is the server's MCP endpoint.")) +
                          c.failure_hint();
                    break;
                case outcome::crash:
                case outcome::disconnected:
                    why = who + " failed during initialize: " + r.message;
                    if (r.message.find("Hint:") == std::string::npos)
                        why += c.wire().kind() == "stdio" ? " Hint: run the command by hand to see why it exits."
                                                          : " Hint: check that the server is running and the URL, "
                                                            "host and port are right.";
                    break;
                default: why = who + " rejected initialize: " + r.describe(); break;
            }
            throw connect_error(why, std::move(r));
        }
        server_identity id;
        try {
            id.raw_result = r.result();
            id.protocol_version = id.raw_result.value("protocolVersion", "");
            if (auto caps = id.raw_result.find("capabilities"); caps != id.raw_result.end() && caps->is_object())
                id.capabilities = *caps;
            if (auto info = id.raw_result.find("serverInfo"); info != id.raw_result.end() && info->is_object()) {
                id.name = info->value("name", "");
                id.version = info->value("version", "");
            }
            id.instructions = id.raw_result.value("instructions", "");
        } catch (const std::exception& e) {
            throw connect_error(who + " sent an initialize result this client cannot read: " + e.what(), r);
        }
        const auto& ok = o.accepted_versions;
        if (std::find(ok.begin(), ok.end(), id.protocol_version) == ok.end()) {
            std::string list;
            for (const auto& v : ok) list += (list.empty() ? "" : ", ") + v;
            throw connect_error(who + " chose protocol version \"" + id.protocol_version +
                                    "\", which this client does not accept (offered " + offered +
                                    "; accepts " + list +
                                    "). Hint: pin client_options.protocol_version to one the server supports, "
                                    "or add its version to client_options.accepted_versions.",
                                std::move(r));
        }
        c.wire().set_protocol_version(id.protocol_version);
        c.identity = id;
        notify("notifications/initialized");
        auto wire = c.wire().shared_from_this();
        co_await wire->after_handshake();
        co_return id;
    }

    asio::awaitable<server_identity> handshake_impl(bool may_restart, detail::opening_budget& budget) {
        auto& c = core();
        const client_options& o = c.options();
        era_selection want = o.era;
        if (!o.protocol_version.empty())
            want = is_modern_version(o.protocol_version) ? era_selection::modern : era_selection::legacy;
        if (want == era_selection::legacy) co_return co_await initialize_within(budget);
        if (want == era_selection::modern) co_return (co_await probe_modern(false, budget)).identity;
        const std::string key = std::string(c.wire().kind()) + " " + c.wire().describe();
        if (auto cached = detail::era_cache::find(key)) {
            if (*cached == protocol_era::legacy) co_return co_await initialize_within(budget);
            co_return (co_await probe_modern(false, budget)).identity;
        }
        auto probe = co_await probe_modern(true, budget);
        if (probe.modern) {
            detail::era_cache::store(key, protocol_era::modern);
            co_return std::move(probe.identity);
        }
        detail::era_cache::store(key, protocol_era::legacy);
        if (probe.restart) {
            if (may_restart) throw detail::restart_needed{};
            throw connect_error(c.wire().describe() + " exited when probed with server/discover, so it cannot be "
                                "given the legacy handshake now. Hint: connect() restarts it automatically; or set "
                                "client_options.era = era_selection::legacy.",
                                call_result{});
        }
        co_return co_await initialize_within(budget);
    }

public:

    /// Ends the session: pending calls end as `cancelled`; the server's stdin
    /// is closed, then SIGTERM, then SIGKILL, each bounded by stdio_server::shutdown;
    /// the process group is reaped. Safe to call twice.
    asio::awaitable<shutdown_result> close() {
        if (!core_) co_return shutdown_result{};
        auto keep = core_;
        co_return co_await keep->close();
    }

    // ---- state -----------------------------------------------------------

    [[nodiscard]] bool valid() const noexcept { return core_ != nullptr; }
    /// The server's pid (also its process group id).
    [[nodiscard]] pid_t pid() const { return core().pid(); }
    /// The process is running (it may still be unresponsive).
    [[nodiscard]] bool alive() const { return core().alive(); }
    [[nodiscard]] const exit_status& exit() const { return core().exit(); }
    [[nodiscard]] const mcp_loadtest::server_identity& identity() const { return core().identity; }
    [[nodiscard]] const std::string& protocol_version() const { return core().identity.protocol_version; }
    [[nodiscard]] const session_stats& stats() const { return core().stats(); }
    [[nodiscard]] const std::deque<notification>& notifications() const { return core().notifications(); }
    /// The first 100 violations (stats().protocol_violations counts all).
    [[nodiscard]] const std::vector<protocol_violation>& protocol_violations() const {
        return core().violations();
    }
    [[nodiscard]] const std::vector<late_reply>& late_replies() const { return core().late_replies(); }
    [[nodiscard]] std::vector<in_flight_call> in_flight() const { return core().in_flight(); }
    /// The end of the server's stderr (capture or tee modes).
    [[nodiscard]] std::string stderr_tail(std::size_t max_bytes = 4096) const {
        return core().stderr_tail(max_bytes);
    }

private:
    detail::session_core& core() const {
        if (!core_)
            throw std::logic_error("mcp_loadtest::session used after being moved from or default-constructed; "
                                   "obtain one from co_await connect(server)");
        return *core_;
    }
    std::uint64_t peek_last_id() const noexcept { return core_->last_id(); }

    void abandon() noexcept {
        if (core_) core_->abort_now();
        core_.reset();
    }

    static json declared_capabilities(const client_options& o) {
        json capabilities = json::object();
        if (o.declare_roots || !o.roots.empty()) capabilities["roots"] = json{{"listChanged", false}};
        if (o.request_handlers.count("sampling/createMessage")) capabilities["sampling"] = json::object();
        if (o.request_handlers.count("elicitation/create")) capabilities["elicitation"] = json::object();
        if (o.extra_capabilities.is_object()) capabilities.update(o.extra_capabilities);
        return capabilities;
    }

    struct modern_probe {
        bool modern = false;
        bool restart = false;  // the probe ended the (stdio) server: start a fresh one
        server_identity identity;
    };

    // Modern opening. With `fall_back`, answers that do not identify a modern
    // server return {modern = false} (the caller goes legacy); without it they
    // throw. Falling back, the probe takes at most half the budget, so
    // initialize keeps the other half.
    asio::awaitable<modern_probe> probe_modern(bool fall_back, detail::opening_budget& budget) {
        auto& c = core();
        const client_options& o = c.options();
        const std::string who = c.wire().describe();
        std::string version = is_modern_version(o.protocol_version) ? o.protocol_version
                                                                     : supported_modern_versions().back();
        const json capabilities = declared_capabilities(o);
        modern_probe out;
        for (int attempt = 0; attempt < 2; ++attempt) {
            c.use_modern_era(version, capabilities);
            call_options opts;
            opts.timeout = fall_back ? std::max(std::min({o.discover_timeout, budget.total / 2, budget.left()}),
                                                std::chrono::milliseconds(1))
                                     : budget.left();
            opts.cancel_on_timeout = false;
            const auto probe_started = detail::opening_budget::clock::now();
            call_result r = co_await request("server/discover", json::object(), opts);
            budget.spent_on = "the era-detection probe (server/discover: " +
                              (r.outcome == outcome::hang ? std::string("no answer") : std::string(to_string(r.outcome))) +
                              " in " +
                              std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                 detail::opening_budget::clock::now() - probe_started)
                                                 .count()) +
                              " ms)";
            if (r.ok()) {
                json result;
                try {
                    result = r.result();
                } catch (const std::exception&) {
                }
                if (result.is_object() && (result.contains("supportedVersions") || result.contains("resultType"))) {
                    out.modern = true;
                    out.identity = identity_from_discover(result, version);
                    c.identity = out.identity;
                    co_return out;
                }
                if (fall_back) break;
                throw connect_error(who + " answered server/discover with something that is not a DiscoverResult: " +
                                        detail::truncate_for_message(r.payload_text(), 300),
                                    std::move(r));
            }
            const bool modern_error = r.error_code >= -32022 && r.error_code <= -32020;
            if (r.error_code == -32022) {
                std::vector<std::string> theirs;
                try {
                    const json e = r.error();
                    if (auto d = e.find("data"); d != e.end() && d->is_object())
                        if (auto sv = d->find("supported"); sv != d->end() && sv->is_array())
                            for (const auto& v : *sv)
                                if (v.is_string()) theirs.push_back(v.get<std::string>());
                } catch (const std::exception&) {
                }
                std::string mutual;
                for (const auto& v : supported_modern_versions())
                    if (std::find(theirs.begin(), theirs.end(), v) != theirs.end()) mutual = v;
                if (!mutual.empty() && mutual != version && attempt == 0) {
                    version = mutual;
                    continue;
                }
                const bool legacy_offered = std::any_of(theirs.begin(), theirs.end(),
                                                        [](const std::string& v) { return !is_modern_version(v); });
                if (fall_back && legacy_offered && mutual.empty()) break;
                std::string list;
                for (const auto& v : theirs) list += (list.empty() ? "" : ", ") + v;
                throw connect_error(who + " does not support protocol version " + version + " (it supports: " +
                                        (list.empty() ? std::string("none listed") : list) +
                                        "). Hint: pin client_options.protocol_version to one both sides support.",
                                    std::move(r));
            }
            if (modern_error || (!fall_back)) {
                std::string why = r.describe();
                if (r.outcome == outcome::hang)
                    why = "no answer to server/discover within " + std::to_string(opts.timeout.count()) + " ms";
                throw connect_error(who + " did not complete the modern (2026-07-28) opening: " + why +
                                        (modern_error ? ". It speaks the modern era but rejected the request."
                                                      : ". Hint: if it is a legacy server, use "
                                                        "era_selection::legacy or automatic.") +
                                        c.failure_hint(),
                                    std::move(r));
            }
            if (r.outcome == outcome::crash || (r.outcome == outcome::disconnected && r.http_status == 0)) {
                // Some legacy stdio servers die on any first message but
                // initialize; a fresh process gets the legacy handshake.
                if (c.wire().kind() == "stdio") {
                    out.restart = true;
                    break;
                }
                throw connect_error(who + " failed while being probed with server/discover: " + r.message, std::move(r));
            }
            break;  // legacy: any other error, or no answer in time
        }
        c.use_legacy_era();
        co_return out;
    }

    static server_identity identity_from_discover(const json& result, const std::string& version) {
        server_identity id;
        id.era = protocol_era::modern;
        id.protocol_version = version;
        id.raw_result = result;
        if (auto caps = result.find("capabilities"); caps != result.end() && caps->is_object()) id.capabilities = *caps;
        const json* info = nullptr;
        if (auto meta = result.find("_meta"); meta != result.end() && meta->is_object())
            if (auto si = meta->find("io.modelcontextprotocol/serverInfo"); si != meta->end() && si->is_object())
                info = &*si;
        if (!info)
            if (auto si = result.find("serverInfo"); si != result.end() && si->is_object()) info = &*si;
        if (info) {
            id.name = info->value("name", "");
            id.version = info->value("version", "");
        }
        id.instructions = result.value("instructions", "");
        return id;
    }

    static void append_modern_meta(std::string& line, const detail::session_core& c,
                                   const detail::session_core::request_line& req) {
        line += R"("_meta":{)";
        line += c.meta_members();
        if (req.options.progress) {
            line += R"(,"progressToken":)";
            detail::append_uint(line, req.id);
        }
        line += "},";
    }

    static void append_progress_meta(std::string& line, const detail::session_core::request_line& req) {
        if (!req.options.progress) return;
        line += R"(,"_meta":{"progressToken":)";
        detail::append_uint(line, req.id);
        line += '}';
    }

    asio::awaitable<call_result> request_named(std::string_view method, const json& params, std::string tool,
                                               call_options options) {
        auto& c = core();
        detail::session_core::request_line req;
        req.id = c.next_id();
        req.line = c.take_line_buffer();
        req.method.assign(method);
        req.tool = std::move(tool);
        req.options = options;
        detail::begin_request(req.line, req.id, method);
        if (c.era() == protocol_era::modern) {
            // Every modern request carries the protocol version, capabilities
            // and client info in params._meta (the caller's _meta members kept).
            json p = params.is_object() ? params : json::object();
            json meta = c.modern_meta();
            if (auto own = p.find("_meta"); own != p.end() && own->is_object()) meta.update(*own);
            if (options.progress) meta["progressToken"] = req.id;
            p["_meta"] = std::move(meta);
            req.line += R"(,"params":)";
            req.params_members_at = static_cast<std::uint32_t>(req.line.size() + 1);
            req.line += p.dump();
        } else if (options.progress) {
            json p = params.is_object() ? params : json::object();
            p["_meta"]["progressToken"] = req.id;
            req.line += R"(,"params":)";
            req.line += p.dump();
        } else if (!params.is_null()) {
            req.line += R"(,"params":)";
            req.line += params.dump();
        }
        req.line += "}\n";
        return start(std::move(req));
    }

    asio::awaitable<call_result> start(detail::session_core::request_line&& req) {
        return asio::async_initiate<const asio::use_awaitable_t<>&, void(call_result)>(
            detail::start_request_initiation{core_}, asio::use_awaitable, std::move(req));
    }

    template <class Item, class Convert>
    // String literals only: coroutine parameters stay trivially copyable (GCC 12).
    asio::awaitable<listing<Item>> list(const char* method_name, const char* member_name, call_options options,
                                        Convert convert) {
        const std::string method = method_name;
        const std::string member = member_name;
        listing<Item> out;
        std::set<std::string> cursors_seen;
        json params = json::object();
        for (;;) {
            out.status = co_await request(method, params, options);
            ++out.pages;
            if (!out.status.ok()) co_return out;
            std::string next;
            try {
                const json page = out.status.result();
                if (auto items = page.find(member); items != page.end() && items->is_array())
                    for (const auto& item : *items) out.items.push_back(convert(item));
                next = page.value("nextCursor", "");
            } catch (const std::exception& e) {
                out.status.outcome = outcome::malformed;
                out.status.message = method + " page " + std::to_string(out.pages) + " is not shaped as the spec says: " + e.what();
                co_return out;
            }
            if (next.empty()) co_return out;
            if (!cursors_seen.insert(next).second) {
                out.status.outcome = outcome::malformed;
                out.status.message = method + " returned the cursor \"" + next +
                                     "\" twice; following it would loop forever. The server's pagination is broken.";
                co_return out;
            }
            params["cursor"] = next;
        }
    }

    std::shared_ptr<detail::session_core> core_;
};

namespace detail {
struct session_job {
    any_server server;
    client_options options;
    std::optional<opening_budget> budget;  // set when this job continues an opening (a fallback)
};


// Coroutines take one shared_ptr parameter: GCC 12 mis-copies some by-value
// class-type coroutine parameters into the frame (seen as double frees).
inline asio::awaitable<session> spawn_session(std::shared_ptr<session_job> job) {
    auto ex = co_await asio::this_coro::executor;
    auto wire = make_transport(ex, std::move(job->server));
    auto core = std::make_shared<session_core>(ex, std::move(wire), std::move(job->options));
    co_await core->open();
    co_return session(std::move(core));
}

struct session_opener {
    static asio::awaitable<server_identity> handshake(session& s, opening_budget& budget) {
        return s.handshake_impl(true, budget);
    }
    static asio::awaitable<server_identity> initialize(session& s, opening_budget& budget) {
        return s.initialize_within(budget);
    }
    static std::chrono::milliseconds startup_timeout(const session& s) { return s.core().wire().startup_timeout(); }
};

// The spec's last HTTP fallback: a legacy HTTP+SSE server answers the
// Streamable HTTP POSTs with 400, 404 or 405; GET the same URL for its endpoint.
inline std::shared_ptr<session_job> sse_fallback(const session_job& job, const connect_error& failure) {
    const auto* http = std::get_if<http_server>(&job.server);
    if (!http || job.options.era != era_selection::automatic || !job.options.protocol_version.empty()) return nullptr;
    const int status = failure.result.http_status;
    if (status != 400 && status != 404 && status != 405) return nullptr;
    sse_server sse;
    sse.url = http->url;
    sse.headers = http->headers;
    sse.bearer_token = http->bearer_token;
    sse.connections = http->connections;
    sse.limits = http->limits;
    auto fallback = std::make_shared<session_job>();
    fallback->server = std::move(sse);
    fallback->options = job.options;
    return fallback;
}

inline asio::awaitable<session> connect_session(std::shared_ptr<session_job> job) {
    auto again = std::make_shared<session_job>(*job);
    session s = co_await spawn_session(std::move(job));
    // A fallback continues the first attempt's budget.
    opening_budget budget = again->budget ? *again->budget
                                          : opening_budget::starting_now(session_opener::startup_timeout(s));
    bool restart = false;
    std::shared_ptr<session_job> fallback;
    std::string first_failure;
    try {
        co_await session_opener::handshake(s, budget);
    } catch (const restart_needed&) {
        restart = true;
    } catch (const connect_error& e) {
        fallback = sse_fallback(*again, e);
        if (!fallback) throw;
        first_failure = e.what();
    }
    if (fallback) {
        co_await s.close();
        fallback->budget = budget;
        try {
            co_return co_await connect_session(std::move(fallback));
        } catch (const connect_error& e) {
            throw connect_error(first_failure + " Falling back to legacy HTTP+SSE at the same URL failed too: " +
                                    e.what(),
                                e.result);
        }
    }
    if (restart) {
        co_await s.close();
        s = co_await spawn_session(std::move(again));
        budget.spent_on += " and a restart of the server, which exited when probed";
        co_await session_opener::initialize(s, budget);
    }
    // Helpers a server starts at once (a daemon, a browser) may leave its
    // process group: note them now, while the server lives (process_audit).
    if (s.pid() > 0) process_audit::note_descendants(s.pid());
    co_return s;
}
}  // namespace detail

// Public entry points take no defaulted class-type arguments: GCC 12
// miscompiles such a default when the call sits inside a co_await expression
// (the temporary is destroyed while the callee still owns its contents).
// Overloads give the same convenience safely.

/// Forgets which era each server spoke (the cache handshake() keeps).
inline void forget_detected_eras() { detail::era_cache::clear(); }

/// Starts the server (spawns a stdio server, connects to a network one)
/// without the initialize handshake, for handshake timing or raw protocol
/// tests. Throws spawn_error or connect_error when it cannot.
inline asio::awaitable<session> spawn(any_server server, client_options options) {
    return detail::spawn_session(std::make_shared<detail::session_job>(std::move(server), std::move(options)));
}
inline asio::awaitable<session> spawn(any_server server) {
    return spawn(std::move(server), client_options{});
}

/// Starts or connects to the server and completes the handshake. Throws
/// spawn_error or connect_error with an actionable message.
inline asio::awaitable<session> connect(any_server server, client_options options) {
    return detail::connect_session(std::make_shared<detail::session_job>(std::move(server), std::move(options)));
}
inline asio::awaitable<session> connect(any_server server) {
    return connect(std::move(server), client_options{});
}

}  // namespace mcp_loadtest
