// The JSON-RPC side of a session: ids, many requests in flight correlated by
// id, per-call deadlines (hang / grace / deadlock), server→client requests and
// notifications, protocol violations. The bytes travel through a transport
// (transport.hpp): stdio, sockets, HTTP or WebSocket, all with the same
// semantics.
//
// Threading: a core is used from one executor (one thread at a time), like
// every Asio I/O object. The public session handle owns its life and aborts
// the transport (killing a spawned child) when dropped without close().
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/client_options.hpp>
#include <mcp_loadtest/coverage.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/clock.hpp>
#include <mcp_loadtest/detail/session/completion.hpp>
#include <mcp_loadtest/detail/session/deadline_queue.hpp>
#include <mcp_loadtest/detail/session/id_table.hpp>
#include <mcp_loadtest/detail/session/traffic_recorder.hpp>
#include <mcp_loadtest/detail/loop_registry.hpp>
#include <mcp_loadtest/detail/transport/transport.hpp>
#include <mcp_loadtest/session_info.hpp>

#include <deque>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mcp_loadtest::detail {

struct envelope;  // detail/wire/json_scan.hpp
struct span;

class session_core final : public std::enable_shared_from_this<session_core>,
                           public loop_bound,
                           private transport_events {
public:
    MCP_LOADTEST_DECL session_core(asio::any_io_executor ex, std::shared_ptr<transport> wire, client_options options);

    session_core(const session_core&) = delete;
    session_core& operator=(const session_core&) = delete;

    MCP_LOADTEST_DECL ~session_core();

    // ---- lifecycle -------------------------------------------------------

    /// Starts the transport (spawn, connect). Throws spawn_error / connect_error.
    MCP_LOADTEST_DECL asio::awaitable<void> open();

    /// Graceful shutdown: pending calls end as cancelled, then the transport's
    /// own bounded shutdown (stdio: close stdin, SIGTERM, SIGKILL, reap).
    MCP_LOADTEST_DECL asio::awaitable<shutdown_result> close();

    /// Synchronous last resort (session dropped without close(), or the test
    /// was abandoned): pending calls end as cancelled and the transport is
    /// torn down (a spawned server is SIGKILLed and reaped) before this returns.
    MCP_LOADTEST_DECL void abort_now() noexcept;

    /// The io_context is being destroyed with calls possibly suspended here
    /// (loop_registry.hpp): kill and reap the server, then drop the pending
    /// handlers uninvoked; destroying them lets Asio destroy the waiting frames
    /// (and with them, the session handles that own this core).
    MCP_LOADTEST_DECL void event_loop_ending() noexcept override;

    // ---- requests --------------------------------------------------------

    std::uint64_t next_id() noexcept { return ++last_id_; }
    [[nodiscard]] std::uint64_t last_id() const noexcept { return last_id_; }

    /// A prepared request: the complete line to send and what to call it. Its owner
    /// fills it again for the next call (a request box, the load engine's call):
    /// start_request reads the line and leaves its buffer, and the names unless they
    /// differ from the entry's, with it.
    struct request_line {
        std::uint64_t id = 0;
        std::string line;  // ends with '\n'
        std::string method;
        std::string tool;
        call_options options;
        /// Modern HTTP: Mcp-Param-<name> headers (name, value) for x-mcp-header arguments.
        std::vector<std::pair<std::string, std::string>> param_headers;
        /// Where the params object's members start in `line` (after `"params":{`);
        /// a modern-era retry with inputResponses is built from there. 0: unknown.
        std::uint32_t params_members_at = 0;
        bool raw = false;  ///< session::send_raw (see prepare_raw)
        /// False when the caller reads only the result's outcome and names (the load
        /// engine's own calls): the reply is validated as ever, not copied into call_result::raw.
        bool keep_reply = true;
    };

    /// A request on its way through an awaitable: Asio moves an operation's arguments
    /// twice before they reach the initiation, a box is a pointer.
    using request_box = std::unique_ptr<request_line>;

    /// A request to fill (every member: it holds an earlier call's, buffers and
    /// names included, so they go round without a malloc per request).
    [[nodiscard]] MCP_LOADTEST_DECL request_box take_request();

    /// Keeps a sent request's box for take_request(), up to a bound.
    MCP_LOADTEST_DECL void recycle_request(request_box box);

    /// Registers and sends a request; `completion` gets exactly one call_result.
    /// Leaves `req` as it was (its line and names): refill_tool_call writes the next
    /// call of the same kind over it.
    MCP_LOADTEST_DECL void start_request(request_line&& req, call_completion&& completion);

    /// A raw exchange (session::send_raw): `bytes` go out as one message (line
    /// transports add the newline) under a private token id. Whatever comes
    /// back that no call of ours claims answers it: a response carrying the
    /// raw message's own id, or id null (JSON-RPC's answer to unparseable or
    /// invalid requests), or for a batch an array. A raw message that expects
    /// no reply (a notification, a response) is watched for `quiet`; anything
    /// answering it is a protocol violation. One at a time per session.
    MCP_LOADTEST_DECL request_line prepare_raw(std::string_view bytes, std::chrono::milliseconds timeout,
                                               std::chrono::milliseconds quiet);

    /// Strict mode: throws invalid_arguments (naming each path) when the
    /// arguments break the tool's inputSchema: the test's bug, caught before sending.
    MCP_LOADTEST_DECL void check_arguments(std::string_view tool, std::string_view arguments_json);
    [[nodiscard]] bool strict() const noexcept { return validator_ != nullptr; }
    [[nodiscard]] const std::vector<schema_violation>& schema_violations() const noexcept { return schema_violations_; }
    [[nodiscard]] coverage_report coverage() const { return coverage_.report(); }

    /// Sends a notification (no reply expected).
    MCP_LOADTEST_DECL void send_notification(std::string_view method, std::string_view params_json);

    /// Ends an in-flight call as cancelled and tells the server. False if not in flight.
    MCP_LOADTEST_DECL bool cancel(std::uint64_t id, std::string_view reason, bool deferred);

    // ---- protocol era ----------------------------------------------------

    /// From now on every request carries the modern _meta (protocol version,
    /// client capabilities, client info) and the transport labels requests
    /// the modern way.
    MCP_LOADTEST_DECL void use_modern_era(const std::string& version, const json& capabilities);

    MCP_LOADTEST_DECL void use_legacy_era();

    [[nodiscard]] protocol_era era() const noexcept { return era_; }

    /// 2026-07-28: tool arguments whose schema says "x-mcp-header": "Name" travel
    /// as Mcp-Param-Name headers too. Learnt from tools/list.
    MCP_LOADTEST_DECL void learn_param_headers(const std::string& tool, const json& input_schema);

    /// The Mcp-Param headers for a call of `tool` with these arguments (none when
    /// the tool has no x-mcp-header arguments: the common case costs one lookup).
    MCP_LOADTEST_DECL void param_headers_for(std::string_view tool, std::string_view arguments_json,
                                             std::vector<std::pair<std::string, std::string>>& out) const;
    /// Modern era: the members of every request's _meta, without braces.
    [[nodiscard]] const std::string& meta_members() const noexcept { return meta_members_; }
    [[nodiscard]] const json& modern_meta() const noexcept { return modern_meta_; }

    // ---- state -----------------------------------------------------------

    [[nodiscard]] pid_t pid() const noexcept { return wire_->pid(); }
    [[nodiscard]] bool alive() const noexcept { return wire_->alive(); }
    [[nodiscard]] bool closed() const noexcept { return closed_; }
    [[nodiscard]] const exit_status& exit() const noexcept { return wire_->exit(); }
    [[nodiscard]] const session_stats& stats() const noexcept { return stats_; }
    [[nodiscard]] transport& wire() const noexcept { return *wire_; }
    [[nodiscard]] const client_options& options() const noexcept { return options_; }
    [[nodiscard]] const std::deque<notification>& notifications() const noexcept { return notifications_; }
    [[nodiscard]] const std::vector<protocol_violation>& violations() const noexcept { return violations_; }
    [[nodiscard]] const std::vector<late_reply>& late_replies() const noexcept { return late_replies_; }
    [[nodiscard]] asio::any_io_executor executor() const noexcept { return ex_; }
    server_identity identity;

    [[nodiscard]] MCP_LOADTEST_DECL std::vector<in_flight_call> in_flight() const;

    /// The end of the server's stderr, when captured (stdio capture/tee modes).
    [[nodiscard]] std::string stderr_tail(std::size_t max = 4096) const { return wire_->stderr_tail(max); }
    /// Context for failure messages (e.g. the server's stderr tail).
    [[nodiscard]] std::string failure_hint() const { return wire_->failure_hint(); }

    // ---- recording (client_options::record) ---------------------------------

    /// Names what the recording is of (transport_name(), describe()); no-op when not recording.
    void label_recording(std::string transport, std::string server) {
        if (recorder_) recorder_->label(std::move(transport), std::move(server));
    }
    [[nodiscard]] bool recording() const noexcept { return recorder_ != nullptr; }
    /// The traffic so far; empty (no messages) when not recording.
    [[nodiscard]] MCP_LOADTEST_DECL recorded_session recorded() const;

private:
    void record_message(message_direction direction, std::string_view bytes) {
        if (recorder_) recorder_->add(direction, bytes, clock::now());
    }
    void record_message(message_direction direction, std::string_view bytes, clock::time_point now) {
        if (recorder_) recorder_->add(direction, bytes, now);
    }
    /// When recording: the clock read once for the message on_message() handles, which the
    /// recording and the call's duration share (a clock read is dear on some virtual machines).
    [[nodiscard]] clock::time_point message_time() const { return message_at_ ? *message_at_ : clock::now(); }

    struct pending_call {
        call_completion completion;
        /// Completed in place (result_of): its method and tool are set when the request
        /// is sent and never move again; the rest is filled when the call ends.
        call_result result;
        clock::time_point sent_at;
        clock::time_point deadline;
        std::chrono::milliseconds timeout{0};
        std::chrono::milliseconds grace{0};
        bool in_grace = false;
        bool deadline_is_session = false;
        bool cancel_on_timeout = true;
        std::uint32_t progress = 0;
        std::uint32_t progress_violations = 0;
        std::uint64_t progress_token = 0;  // asked for progress: its token (its first id); else 0
        clock::time_point first_progress_at{};
        double last_progress = 0;  // the last value (meaningful once progress > 0)
        std::uint32_t input_rounds = 0;
        std::uint16_t redirects = 0;
        bool keep_reply = true;
        std::chrono::nanoseconds token_wait{0};  // held back for an OAuth token: not latency
        std::string retry_tail;  // modern era: params members after inputResponses/requestState
    };
    using pending_entry = id_table<pending_call>::entry;

    struct raw_state {
        std::uint64_t token = 0;             // the pending entry's private id
        std::optional<std::string> id_text;  // the raw message's own id, as compact JSON
        bool expects_reply = true;
        bool batch = false;
        bool answered = false;
    };

    [[nodiscard]] bool is_raw(std::uint64_t id) const noexcept { return raw_ && raw_->token == id; }
    [[nodiscard]] bool raw_active() const noexcept { return raw_ && pending_.contains(raw_->token); }

    MCP_LOADTEST_DECL static std::string canonical_id(const envelope& env, std::string_view line);

    /// A response no call of ours claimed: does it answer the raw message in flight?
    /// Its own id, or id null (what a server answering unreadable input, or a
    /// notification, has to use); other ids are judged by the usual rules.
    MCP_LOADTEST_DECL bool answers_raw(const envelope& env, std::string_view line) const;

    using deadline_entry = deadline_queue<clock::time_point>::entry;

    struct expired_call {
        std::string method, tool;
        clock::time_point sent_at;
    };

    /// `p`'s result, every member but method and tool reset for the call's end now.
    MCP_LOADTEST_DECL call_result& result_of(std::uint64_t id, pending_call& p);

    MCP_LOADTEST_DECL static call_result make_result(std::uint64_t id, std::string&& method, std::string&& tool,
                                                     clock::time_point sent_at);

    // ---- deadlines -------------------------------------------------------

    [[nodiscard]] MCP_LOADTEST_DECL bool past_session_deadline() const noexcept;

    [[nodiscard]] MCP_LOADTEST_DECL std::string session_deadline_message() const;

    MCP_LOADTEST_DECL void schedule_deadline(clock::time_point at, std::uint64_t id);

    MCP_LOADTEST_DECL void compact_deadlines();

    MCP_LOADTEST_DECL void arm_deadline_timer(clock::time_point at);

    MCP_LOADTEST_DECL void on_deadline();

    MCP_LOADTEST_DECL void expire(pending_entry& entry);

    // What the server's threads are doing, once per second at most: a burst of
    // deadlocked calls shares one reading.
    MCP_LOADTEST_DECL std::string deadlock_evidence();

    MCP_LOADTEST_DECL void remember_expired(std::uint64_t id, const pending_call& p);

    MCP_LOADTEST_DECL void send_cancelled(std::uint64_t id, std::string_view reason);

    // ---- transport events ------------------------------------------------

    MCP_LOADTEST_DECL void on_oversized(std::string_view prefix, std::size_t size, bool complete, std::string_view tail) override;

    /// The id of a message whose last member is `"id":<integer>` (as the
    /// TypeScript SDK writes replies): the final `}` then closes the top level.
    MCP_LOADTEST_DECL static bool trailing_id(std::string_view tail, std::uint64_t& id) noexcept;

    MCP_LOADTEST_DECL void on_violation(protocol_violation::kind k, std::string_view text, std::size_t size) override;

    MCP_LOADTEST_DECL void on_request_failed(std::uint64_t id, outcome o, const std::string& message, int http_status) override;

    [[nodiscard]] bool is_pending(std::uint64_t id) const override { return pending_.contains(id); }
    MCP_LOADTEST_DECL void on_redirect(std::uint64_t id) override;
    MCP_LOADTEST_DECL void on_token_wait(std::uint64_t id, std::chrono::nanoseconds waited) override;

    MCP_LOADTEST_DECL void on_transport_down(outcome o, const std::string& message) override;

    MCP_LOADTEST_DECL void on_message(std::string_view line, int http_status) override;

    /// Why a reply attributed to a call is not valid JSON, at which byte, and what to do.
    MCP_LOADTEST_DECL static std::string describe_invalid_reply(const envelope& env, std::string_view line);

    // A well-formed JSON-RPC response: "jsonrpc":"2.0", an id of a type JSON-RPC
    // allows (string, number or null), and exactly one of result and error.
    MCP_LOADTEST_DECL static bool is_response(const envelope& env, std::string_view line) noexcept;

    /// A message with a member it is read by given twice. Parsers disagree on
    /// which one counts (the scanner keeps the first, nlohmann::json the last),
    /// so acting on it could complete a call with a reply meant for another, or
    /// with the other of two results. It is recorded and never acted on; a call
    /// it names (an integer id, first of two ids that is one) ends at once as
    /// malformed: the server did answer that call, and a wait for the timeout
    /// would only turn this into a misleading hang.
    MCP_LOADTEST_DECL void handle_duplicate_member(const envelope& env, std::string_view line);

    MCP_LOADTEST_DECL void finish_pending(pending_entry& entry, outcome o,
                                          std::string message, std::string_view line, span payload, std::int64_t code);

    MCP_LOADTEST_DECL void handle_notification(const envelope& env, std::string_view line);

    // ---- progress (MCP basic/utilities/progress) ----------------------------

    /// The call in flight that asked for progress under `token`, or null; `id` gets its id.
    MCP_LOADTEST_DECL pending_call* progress_call(std::uint64_t token, std::uint64_t& id);

    /// Counts a notifications/progress for its call and judges it by the spec's rules.
    MCP_LOADTEST_DECL void handle_progress(const json& params, std::string_view line);

    MCP_LOADTEST_DECL void progress_violation(protocol_violation::kind k, std::uint64_t id, std::string_view line);

    /// A call that asked for progress has ended (answered: with a reply): later
    /// notifications for its token are judged by it.
    MCP_LOADTEST_DECL void progress_ended(std::uint64_t token, bool answered);

    MCP_LOADTEST_DECL static bool may_need_input(std::string_view method) noexcept;

    /// Answers a server→client request (legacy) or an input request (modern
    /// InputRequiredResult) with the user's handlers. Throws rpc_error when
    /// there is no way to answer.
    MCP_LOADTEST_DECL json answer_for_server(const std::string& method, const json& params);

    /// Modern era: the result asks for input (elicitation, sampling, roots).
    /// Answers each input request with the same handlers that answer legacy
    /// server→client requests and retries under a new id, echoing requestState.
    /// Returns false when the result is not an InputRequiredResult after all.
    MCP_LOADTEST_DECL bool answer_input_required(pending_entry& entry, std::string_view result_text);

    MCP_LOADTEST_DECL void handle_server_request(const envelope& env, std::string_view line);

    // ---- strict mode -------------------------------------------------------

    // ---- coverage ----------------------------------------------------------

    /// Counts a finished call of a tool, resource or prompt; learns what a
    /// list result names (only list results are parsed: no cost per call).
    MCP_LOADTEST_DECL void note_call(const call_result& r, std::string_view result_text);

    MCP_LOADTEST_DECL void learn_listing(std::string_view method, std::string_view result_text);

    MCP_LOADTEST_DECL void sync_validator();

    MCP_LOADTEST_DECL void keep(std::vector<schema_violation>& found);

    MCP_LOADTEST_DECL void validate_reply(const call_result& r, std::string_view line, std::string_view payload);

    MCP_LOADTEST_DECL void validate_incoming(std::string_view line);

    MCP_LOADTEST_DECL void record_violation(protocol_violation::kind k, std::string_view text, std::size_t size,
                                            std::uint64_t request_id = 0);

    MCP_LOADTEST_DECL void fail_all_pending(outcome o, const std::string& message, bool deferred);

    asio::any_io_executor ex_;
    std::shared_ptr<transport> wire_;
    loop_registry* registry_ = nullptr;  // set by open()
    client_options options_;
    asio::steady_timer deadline_timer_;
    clock::time_point started_at_;
    std::optional<clock::time_point> session_deadline_;

    bool dead_ = false, closing_ = false, closed_ = false;
    protocol_era era_ = protocol_era::legacy;
    int http_status_ = 0;  // set while a failed HTTP exchange finishes its call
    std::string meta_members_;
    json modern_meta_ = json::object();
    std::unordered_map<std::string, std::vector<std::pair<std::string, std::string>>> param_headers_;
    outcome dead_outcome_ = outcome::crash;
    std::string dead_message_;
    std::string deadlock_evidence_;               // describe_deadlocked_server's last text
    clock::time_point deadlock_evidence_at_{};

    std::uint64_t last_id_ = 0;
    id_table<pending_call> pending_;
    std::vector<request_box> spare_requests_;  // see take_request()
    deadline_queue<clock::time_point> deadlines_;
    clock::time_point armed_for_ = clock::time_point::max();
    std::uint64_t deadline_generation_ = 0;
    std::unordered_map<std::uint64_t, expired_call> expired_;
    std::deque<std::uint64_t> expired_order_;
    std::optional<raw_state> raw_;  // the last send_raw (active while its token is pending)
    std::size_t progress_in_flight_ = 0;  // calls in flight that asked for progress
    std::unordered_map<std::uint64_t, std::uint64_t> progress_moved_;  // token -> id its call goes on under (input rounds)
    std::unordered_map<std::uint64_t, bool> progress_ended_;  // tokens of ended calls -> answered with a reply
    std::deque<std::uint64_t> progress_ended_order_;          // the oldest forgotten first (4096 kept)
    std::unique_ptr<message_validator> validator_;  // strict mode, else null
    std::string validator_version_;
    std::vector<schema_violation> schema_violations_;
    coverage_tracker coverage_;

    session_stats stats_;
    std::deque<notification> notifications_;
    std::vector<protocol_violation> violations_;
    std::vector<late_reply> late_replies_;
    std::unique_ptr<traffic_recorder> recorder_;  // client_options::record, else null
    std::optional<clock::time_point> message_at_;  // see message_time()
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/session/impl/session_core.ipp>
#endif
