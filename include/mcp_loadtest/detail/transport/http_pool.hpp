// What both MCP-over-HTTP transports share: a bounded pool of keep-alive
// connections, one exchange per message, and the life of each exchange (its
// response head, body, SSE events, failure). Streamable HTTP and the legacy
// HTTP+SSE transport derive from it and fill in the hooks where they differ.
//
// Every message is one POST on a keep-alive connection from the pool;
// concurrent calls spread over the pool and queue when it is full. A reply is
// a JSON body or an SSE stream (notifications, then the response). Failures
// of an exchange (status, dropped connection, a stream ending without the
// reply, a reply neither JSON nor SSE, anything oversized) end that one call
// with a classified outcome; the core's deadlines bound calls. Messages no
// call waits for (notifications, replies to the server's requests) are bounded
// here: connect_timeout for their answer, and a cap on how many may wait for
// a connection.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/any_server.hpp>
#include <mcp_loadtest/detail/transport/http_auth.hpp>
#include <mcp_loadtest/detail/transport/http_exchange.hpp>
#include <mcp_loadtest/detail/session/id_table.hpp>
#include <mcp_loadtest/detail/wire/json_scan.hpp>
#include <mcp_loadtest/detail/wire/proxy.hpp>
#include <mcp_loadtest/detail/wire/url.hpp>

#include <algorithm>
#include <deque>
#include <memory>
#include <string>
#include <vector>

namespace mcp_loadtest::detail {

class http_pool_transport : public transport {
public:
    /// The longest response head (status line and headers) accepted; over it is `malformed`.
    static constexpr std::size_t max_head_bytes = 64 * 1024;

    ~http_pool_transport() override { abort_now(); }

    MCP_LOADTEST_DECL asio::awaitable<void> open(transport_events& events, session_stats& stats) override;

    MCP_LOADTEST_DECL void send(std::string_view line, const outgoing& info) override;

    MCP_LOADTEST_DECL void forget(std::uint64_t id) override;

    void set_era(protocol_era era) override { era_ = era; }

    MCP_LOADTEST_DECL asio::awaitable<shutdown_result> close() override;

    MCP_LOADTEST_DECL void abort_now() noexcept override;

    [[nodiscard]] std::string describe() const override { return "server at " + redact_url(url_text_); }
    [[nodiscard]] std::chrono::milliseconds startup_timeout() const override { return limits_.startup_timeout; }
    [[nodiscard]] bool is_http() const noexcept override { return true; }

    /// Waits (bounded) until the `initialized` notification was answered and
    /// any stream the transport opened has its response head, so
    /// server-initiated requests sent right after initialize are not lost.
    MCP_LOADTEST_DECL asio::awaitable<void> after_handshake() override;

protected:
    using exchange = http_exchange;
    using connection = http_connection;

    // From what http_server and sse_server have in common (moved out of `server`).
    template <class Server>
    http_pool_transport(asio::any_io_executor ex, Server& server)
        : ex_(std::move(ex)), url_text_(std::move(server.url)), headers_(std::move(server.headers)),
          bearer_(std::move(server.bearer_token)), pool_size_(std::max<std::size_t>(server.connections, 1)),
          max_redirects_(server.max_redirects), honour_retry_after_(server.honour_retry_after),
          max_retry_after_(server.max_retry_after), proxy_(std::move(server.proxy)), tls_(std::move(server.tls)),
          limits_(server.limits), ready_event_(ex_), refresh_timer_(ex_) {
        if (server.oauth) {
            oauth_set_ = true;
            if (const auto make = get_http_authorizer_factory()) authorizer_ = make(std::move(server.oauth));
        }
    }

    // ---- where the two transports differ ----------------------------------------

    /// The end of open(): the legacy transport opens its SSE stream here.
    virtual asio::awaitable<void> after_open() { co_return; }
    /// The start of close(), before every connection is released.
    virtual asio::awaitable<void> before_release() { co_return; }
    /// send(): keep what a re-initialised session would have to send again.
    virtual void keep_for_replay(exchange& /*ex*/, std::string_view /*body*/) {}
    /// Headers of a POST after the static ones (session, protocol version, Mcp-Method).
    virtual void append_message_headers(std::string& /*out*/, const outgoing& /*info*/) const {}
    /// A final response head arrived (is_sse and status already set; `content_type` is its
    /// Content-Type, looked up once).
    virtual void on_head(exchange& /*ex*/, const http1::response_head& /*head*/,
                         std::optional<std::string_view> /*content_type*/) {}
    /// An SSE event the transport consumes itself (true), not a message for the core.
    virtual bool on_control_event(exchange& /*ex*/, const sse::event& /*e*/) { return false; }
    /// A 2xx answer to a request was delivered (`body` may be empty) and the call is still pending.
    virtual void answer_left_call_pending(exchange& /*ex*/, std::string_view /*body*/) {}
    /// The reply's SSE stream ended early: try to get the rest (true when under way).
    virtual bool try_resume(exchange& /*ex*/) { return false; }
    /// An error status says the server lost the session (and, then, whether the
    /// request is being sent again on a new one).
    [[nodiscard]] virtual bool session_gone(const exchange& /*ex*/, int /*status*/) const { return false; }
    virtual bool resend_on_new_session(exchange& /*ex*/) { return false; }
    /// Exchanges carrying no message of the core (streams, DELETE, our own
    /// re-initialisation) ended, well or not.
    virtual void own_exchange_done(exchange& /*ex*/) {}
    virtual void own_exchange_failed(exchange& /*ex*/, outcome /*o*/, const std::string& /*message*/) {}
    /// Streams opened by the transport have settled (after_handshake()).
    [[nodiscard]] virtual bool streams_settled() const { return true; }

    // Waits at most `limit` until `settled()` holds or the transport is down;
    // whatever settles it cancels ready_event_ to wake this. (`settled` captures
    // only `this`: GCC 12 coroutines want trivially copyable parameters.)
    template <class Settled>
    asio::awaitable<void> wait_until(Settled settled, std::chrono::milliseconds limit) {
        if (settled()) co_return;
        ready_event_.expires_after(limit);
        asio::error_code ec;
        while (!settled() && !down_) {
            co_await ready_event_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
            if (!ec) break;  // the limit passed
        }
    }

    // ---- requests -----------------------------------------------------------------

    MCP_LOADTEST_DECL std::shared_ptr<http_pool_transport> self();

    // credentials false: without bearer_token and the secret headers (another origin).
    MCP_LOADTEST_DECL void build_static_headers(bool credentials = true);

    // Where POSTs go; rebuilds post_prefix_ (call build_static_headers() first).
    MCP_LOADTEST_DECL void set_post_url(const url& u);

    MCP_LOADTEST_DECL void write_post(std::string& out, std::string_view body, const outgoing& info);

    // The start of a GET for a stream of server messages: callers add their
    // headers and the blank line.
    [[nodiscard]] MCP_LOADTEST_DECL std::string stream_request() const;

    // ---- proxies and redirects -------------------------------------------------------

    [[nodiscard]] connect_route route_for(const url& u) const { return route_to(u, choose_proxy(u, proxy_, proxy_env_)); }
    // The request target for `u` on `route`: absolute form through a forwarding proxy.
    [[nodiscard]] static std::string target_for(const url& u, const connect_route& route) {
        return route.forwards() ? u.origin() + u.target : u.target;
    }
    // The Proxy-Authorization header line a forwarding proxy gets with every request (or nothing).
    [[nodiscard]] MCP_LOADTEST_DECL static std::string proxy_header(const connect_route& route);
    // The start of a request line and Host for `u` on `route` ("GET /x HTTP/1.1\r\nHost: h\r\n").
    [[nodiscard]] MCP_LOADTEST_DECL static std::string request_start(std::string_view method, const url& u,
                                                                     const connect_route& route);
    // Where an exchange's request goes, and how it gets there.
    [[nodiscard]] MCP_LOADTEST_DECL const url& destination(const exchange& ex) const noexcept;
    [[nodiscard]] MCP_LOADTEST_DECL const connect_route& route_of(const exchange& ex) const noexcept;
    // "the POST of request 7", "the GET of the SSE stream": for messages.
    [[nodiscard]] MCP_LOADTEST_DECL static std::string describe_exchange(const exchange& ex);
    // A 3xx with a Location ended: send the request again there, or fail the exchange saying why
    // (a POST turned into GET, a loop, too many hops, not http(s)). Each hop is told to the core.
    MCP_LOADTEST_DECL void follow_redirect(const std::shared_ptr<exchange>& ex);

    // ---- the pool ------------------------------------------------------------------

    MCP_LOADTEST_DECL void dispatch(std::shared_ptr<exchange> ex, bool front = false);

    // Requests wait for a connection at most until their call's deadline.
    // Messages no call waits for are bounded here instead: a server that stops
    // answering POSTs but keeps sending requests (each needing a reply) would
    // otherwise grow this queue for as long as the session lasts.
    static constexpr std::size_t max_unowned_waiting = 1024;

    MCP_LOADTEST_DECL bool admit_unowned(const exchange& ex);

    MCP_LOADTEST_DECL std::shared_ptr<exchange> take_waiting();

    MCP_LOADTEST_DECL void remove_waiting(const std::shared_ptr<exchange>& ex);

    // Every open connection, so release_all() reaches those busy with an
    // exchange no call owns (nothing else here refers to them).
    MCP_LOADTEST_DECL void track(const std::shared_ptr<connection>& c);

    // A POST no call waits for gets limits.connect_timeout to be answered;
    // then its connection is closed, so it cannot hold a pool slot forever.
    MCP_LOADTEST_DECL void arm_answer_deadline(const std::shared_ptr<connection>& c, const std::shared_ptr<exchange>& ex);

    // A new connection for `ex`. Streams (GET) do not count against the pool:
    // they stay open for the session; after closing began only a DELETE may connect.
    MCP_LOADTEST_DECL void connect_for(std::shared_ptr<exchange> ex, bool pooled);

    MCP_LOADTEST_DECL void open_connection(std::shared_ptr<exchange> ex);

    void open_stream(std::shared_ptr<exchange> ex) { connect_for(std::move(ex), false); }

    // https: the TLS handshake (SNI, certificate and host name checked) before the first request.
    MCP_LOADTEST_DECL void secure_then_start(const std::shared_ptr<connection>& c, std::shared_ptr<exchange> ex);

    MCP_LOADTEST_DECL void start_exchange(const std::shared_ptr<connection>& c, std::shared_ptr<exchange> ex);

    MCP_LOADTEST_DECL void read_more(const std::shared_ptr<connection>& c);

    MCP_LOADTEST_DECL void release_connection(const std::shared_ptr<connection>& c);

    MCP_LOADTEST_DECL void drop_connection(const std::shared_ptr<connection>& c);

    MCP_LOADTEST_DECL void next_waiting();

    MCP_LOADTEST_DECL void release_all() noexcept;

    // by_id_: files `ex` under its id (replacing what was there: a resumption or a replay
    // carries the same request on), and forgets an id.
    MCP_LOADTEST_DECL void file_by_id(const std::shared_ptr<exchange>& ex);
    MCP_LOADTEST_DECL void unfile_id(std::uint64_t id) noexcept;

    // ---- responses -----------------------------------------------------------------

    MCP_LOADTEST_DECL void on_read(const std::shared_ptr<connection>& c, const asio::error_code& ec, std::size_t n);

    // Returns false when the connection is finished with (closed or handed back).
    MCP_LOADTEST_DECL bool handle_step(const std::shared_ptr<connection>& c, const http1::step& st);

    // Oversized anywhere (head, body, one SSE event) is `malformed`, with an
    // oversized_message violation; the connection is dropped, the session goes on.
    MCP_LOADTEST_DECL void fail_oversized(const std::shared_ptr<connection>& c, exchange& ex, std::string_view violation,
                                          std::size_t size, const std::string& message);

    MCP_LOADTEST_DECL void on_headers(connection& c, exchange& ex);

    MCP_LOADTEST_DECL void fail_unexpected_type(exchange& ex, std::string_view body_start);

    MCP_LOADTEST_DECL void on_body(const std::shared_ptr<connection>& c, exchange& ex, std::string_view piece);

    MCP_LOADTEST_DECL void on_done(const std::shared_ptr<connection>& c, const std::shared_ptr<exchange>& ex);

    MCP_LOADTEST_DECL void initialized_settled(const exchange& ex);

    // A complete response.
    MCP_LOADTEST_DECL void finish_exchange(exchange& ex);

    MCP_LOADTEST_DECL void describe_status_failure(exchange& ex, std::string_view body, const envelope& env);

    MCP_LOADTEST_DECL void fail_exchange(exchange& ex, outcome o, const std::string& message, int status);

    // ---- OAuth (http_server::oauth) --------------------------------------------------

    // A 401, or a 403 asking for more scopes: park the request, get a token (one flow for all
    // the requests refused meanwhile) and send it again. False: not ours to answer.
    MCP_LOADTEST_DECL bool authorize_and_resend(exchange& ex);
    MCP_LOADTEST_DECL void authorized(auth_answer answer);
    // A new token: every request from now on carries it; renewal is armed before it expires.
    MCP_LOADTEST_DECL void use_token(const std::string& token, std::chrono::steady_clock::time_point refresh_at);
    MCP_LOADTEST_DECL void arm_renewal(std::chrono::steady_clock::time_point refresh_at);
    MCP_LOADTEST_DECL void renew_token();
    [[nodiscard]] MCP_LOADTEST_DECL auth_target auth_target_now() const;
    // Puts the current Authorization line into a request written before the token changed.
    MCP_LOADTEST_DECL void reauthorize_request(exchange& ex) const;
    // A fresh exchange carrying the same message, to send again (the old one's response is spent).
    [[nodiscard]] MCP_LOADTEST_DECL std::shared_ptr<exchange> again(exchange& ex);
    // HTTP 429 with a Retry-After the request may wait: sent again then (true).
    MCP_LOADTEST_DECL bool resend_after_throttling(exchange& ex);

    MCP_LOADTEST_DECL void connection_failed(const std::shared_ptr<connection>& c, const std::string& why);

    asio::any_io_executor ex_;
    std::string url_text_;
    std::vector<http_header> headers_;
    std::string bearer_;
    std::size_t pool_size_;
    std::uint32_t max_redirects_;
    bool honour_retry_after_;
    std::chrono::milliseconds max_retry_after_;
    proxy_options proxy_;
    proxy_environment proxy_env_;  // read once, by open()
    connect_route route_;          // to post_url_: every pooled connection
    connect_route stream_route_;   // to url_: the streams (GET)
    tls_options tls_;
    network_limits limits_;
#if defined(MCP_LOADTEST_WITH_TLS)
    std::shared_ptr<asio::ssl::context> tls_context_;
#endif
    url url_, post_url_;  // post_url_: where POSTs go (the legacy transport learns it from the stream)
    std::string static_headers_;
    // What every POST's head starts with, made once per POST URL: the request line, Host,
    // Accept, Content-Type and static_headers_ (a request appends only what changes).
    std::string post_prefix_;
    protocol_era era_ = protocol_era::legacy;

    std::vector<std::shared_ptr<connection>> idle_;
    std::deque<std::shared_ptr<exchange>> waiting_;
    // The exchange carrying each request in flight, by its JSON-RPC id (for forget()).
    id_table<std::weak_ptr<exchange>> by_id_;
    std::vector<std::weak_ptr<connection>> live_;  // every connection opened (see track())
    std::size_t prune_live_at_ = 64;
    std::size_t unowned_waiting_ = 0, unowned_waiting_bytes_ = 0;  // in waiting_ (see admit_unowned())
    std::size_t open_ = 0;

    asio::steady_timer ready_event_;  // wakes open(), after_handshake() and close() when something settles
    // OAuth: the authorizer, the version of bearer_ (bumped per new token), the requests
    // waiting for a token and why they were refused, and the renewal timer.
    bool oauth_set_ = false;
    std::shared_ptr<http_authorizer> authorizer_;
    std::uint32_t token_version_ = 0;
    bool authorizing_ = false;
    struct parked_request {
        std::shared_ptr<exchange> ex;
        int status = 0;
        std::string www_authenticate;
        std::chrono::steady_clock::time_point since;  // held back since (kept out of its latency)
    };
    std::vector<parked_request> auth_parked_;
    std::chrono::steady_clock::time_point parked_since_{};  // auth_parked_ non-empty since
    std::vector<std::weak_ptr<asio::steady_timer>> throttle_waits_;  // requests waiting out a Retry-After
    asio::steady_timer refresh_timer_;
    bool closing_ = false;
    bool backlog_overflowed_ = false;
    bool initialized_in_flight_ = false;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/transport/impl/http_pool.ipp>
#endif
