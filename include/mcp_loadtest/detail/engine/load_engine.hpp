// The load engine behind run(): drives a workload over N sessions, runs one
// scenario body per iteration (a mix is one such body), records what the
// bodies measure, samples the servers, and builds the report.
//
// Everything runs on the caller's executor (one thread): an open load spawns a
// coroutine per iteration, a closed load runs each user's iterations in that
// user's coroutine; the drivers only decide *when* iterations start. A mix's
// calls are awaited in those frames, without one of their own (call_in_place.hpp).
//
// The engine's members are defined in detail/engine/impl/load_engine.ipp, its private driver templates
// (drive_rate, drive_users, user_loop: templates over execute()'s lambdas only) too: only
// execute() instantiates them.
#pragma once

#include <mcp_loadtest/call_mix.hpp>
#include <mcp_loadtest/detail/session/call_in_place.hpp>
#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/engine/evaluate_thresholds.hpp>
#include <mcp_loadtest/detail/engine/live_progress.hpp>
#include <mcp_loadtest/detail/engine/interval_recorder.hpp>
#include <mcp_loadtest/detail/engine/mix_scenario.hpp>
#include <mcp_loadtest/detail/engine/report_assembly.hpp>
#include <mcp_loadtest/detail/session/session_stderr.hpp>
#include <mcp_loadtest/detail/engine/trace_writer.hpp>
#include <mcp_loadtest/iteration.hpp>
#include <mcp_loadtest/load_report.hpp>
#include <mcp_loadtest/oauth_stats.hpp>
#include <mcp_loadtest/process_sampling.hpp>
#include <mcp_loadtest/run_options.hpp>
#include <mcp_loadtest/session.hpp>
#include <mcp_loadtest/thresholds.hpp>
#include <mcp_loadtest/when_all.hpp>
#include <mcp_loadtest/workload.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp_loadtest::detail {

/// A one-shot wake-up for a coroutine waiting on a condition other handlers change.
class wake_event {
public:
    explicit wake_event(asio::any_io_executor ex) : timer_(ex, clock::time_point::max()) {}
    void notify() { timer_.cancel(); }
    MCP_LOADTEST_DECL asio::awaitable<void> wait_until(clock::time_point deadline);

private:
    asio::steady_timer timer_;
};

class load_engine final : public std::enable_shared_from_this<load_engine>, private step_recorder {
public:
    MCP_LOADTEST_DECL load_engine(asio::any_io_executor ex, any_server server, workload load, scenario body, thresholds objectives,
                                  run_options options);

    MCP_LOADTEST_DECL asio::awaitable<load_report> execute();

private:
    using iteration_ctx = iteration_origin;

    // ---- sessions ----------------------------------------------------------

    MCP_LOADTEST_DECL asio::awaitable<void> connect_sessions();

    /// What the server lists, once, on the first session and outside the
    /// measurement: the denominator of the report's coverage, and in strict
    /// mode the tools' schemas. A failing list is only a smaller denominator.
    MCP_LOADTEST_DECL asio::awaitable<void> list_what_the_server_offers();

    MCP_LOADTEST_DECL asio::awaitable<void> close_sessions();
    /// client_options::record: every session's messages to recording_path and record_into.
    MCP_LOADTEST_DECL void keep_recording();

    MCP_LOADTEST_DECL session* pick_session();

    // ---- drivers -----------------------------------------------------------

    /// Open model: iterations start at the intended times of an arrival process
    /// with rate rate_at(t); overdue ones start at once, late, and are counted.
    template <class RateAt>
    asio::awaitable<void> drive_rate(RateAt rate_at, std::chrono::nanoseconds duration, std::size_t max_in_flight,
                                     arrival_process arrivals);

    MCP_LOADTEST_DECL void launch_open(clock::time_point intended, std::size_t max_in_flight, std::chrono::nanoseconds interval);

    /// Closed model: `users_at(t)` virtual users, each a loop of iteration → think time.
    template <class UsersAt>
    asio::awaitable<void> drive_users(UsersAt users_at, std::chrono::nanoseconds duration,
                                      std::chrono::nanoseconds think, std::uint64_t max_iterations);

    template <class UsersAt>
    asio::awaitable<void> user_loop(std::size_t user, UsersAt users_at, std::chrono::nanoseconds duration,
                                    std::chrono::nanoseconds think, std::uint64_t max_iterations);

    MCP_LOADTEST_DECL void spawn_iteration(iteration_ctx ctx);

    // ---- one iteration -----------------------------------------------------

    /// Runs the body once on the next live session. What it throws is counted
    /// and reported with its text; the run goes on.
    MCP_LOADTEST_DECL asio::awaitable<void> run_iteration(iteration_ctx ctx);

    /// A single call of run()'s mix, awaited in the engine's own frame (call_in_place.hpp).
    struct direct_call {
        session_core* core = nullptr;
        session_core::request_line request;  // reused by a user's loop: its buffers go round
        const call_result* result = nullptr;
        // The fixed call `request` holds, on `core`: the same one again is written by
        // refill_tool_call (a new id), not all over. npos: none, or generated arguments.
        std::size_t written_choice = static_cast<std::size_t>(-1);
    };

    /// Writes the call `choice` of run()'s mix (arguments generated or fixed) into `call`.
    MCP_LOADTEST_DECL void prepare_mix_call(const mix_body& body, std::size_t choice, iteration& it, session& s,
                                            direct_call& call);

    /// An iteration of calls_only_ in a user's loop, without a frame of its own: picks
    /// the session, draws the call and prepares it. False when there is nothing to
    /// await: no live session (the run aborts), or preparing the call threw (counted,
    /// as run_iteration counts it).
    MCP_LOADTEST_DECL bool begin_direct_call(iteration_ctx ctx, std::optional<iteration>& it, direct_call& call);

    std::size_t session_index(const session* s) const noexcept {
        return static_cast<std::size_t>(s - sessions_.data());
    }

    // ---- what bodies record (step_recorder) -------------------------------------

    MCP_LOADTEST_DECL void record_call(const iteration& it, const call_result& r, std::string_view step,
                                       std::chrono::nanoseconds latency) override;

    MCP_LOADTEST_DECL void record_step(const iteration&, std::string_view step, std::chrono::nanoseconds latency) override;

    MCP_LOADTEST_DECL void record_check(const iteration& it, std::string_view what, std::string_view detail) override;

    MCP_LOADTEST_DECL call_stats& step_stats(std::string_view step);

    MCP_LOADTEST_DECL timeline_point& timeline_at(clock::time_point t);

    MCP_LOADTEST_DECL void abort(std::string reason);

    // ---- thresholds::abort_on_breach_after ------------------------------------

    /// From `delay` after the start, every timeline bucket until the load ends: judge_breach().
    MCP_LOADTEST_DECL asio::awaitable<void> watch_for_breach(std::chrono::nanoseconds delay);

    /// The latency, error-rate and count objectives on everything measured so far; the first one
    /// breached aborts the run, with report_.breach. Objectives without evidence yet wait.
    MCP_LOADTEST_DECL void judge_breach(clock::time_point now, std::chrono::nanoseconds delay);

    // ---- stages --------------------------------------------------------------

    MCP_LOADTEST_DECL std::size_t stage_of(std::chrono::nanoseconds t);

    void stage_dropped(std::size_t stage) {
        if (!stages_.empty()) ++stages_[std::min(stage, stages_.size() - 1)].dropped;
    }

    // ---- cancellation injection (run_options::cancel) -------------------------

    struct injected_cancel {
        std::chrono::nanoseconds expected{0};      // the median latency it was timed by
        std::chrono::nanoseconds cancel_after{0};  // from the send (the measured call's duration; else the delay)
    };

    /// `fraction` of the iterations, evenly spread: iteration i when floor((i+1)f) > floor(i f).
    MCP_LOADTEST_DECL bool cancel_this_iteration(std::uint64_t i) const noexcept;

    /// The median latency of the calls completed so far (refreshed every 20 ms: a histogram scan).
    MCP_LOADTEST_DECL std::chrono::nanoseconds latency_estimate();

    /// Cancels request `first_id` of session `si` (the iteration's first request) at the moment asked.
    MCP_LOADTEST_DECL void arm_cancel(std::size_t si, std::uint64_t first_id);

    // Started before the iteration's body, so it runs once the body has sent its first request.
    MCP_LOADTEST_DECL asio::awaitable<void> inject_cancel(std::size_t si, std::uint64_t id, std::chrono::nanoseconds delay,
                                                          std::chrono::nanoseconds expected);

    /// Each injected cancel's fate from the replies that came after it, and
    /// which servers exited after receiving one; before the sessions close.
    MCP_LOADTEST_DECL void judge_injected_cancels();

    MCP_LOADTEST_DECL void add_cancellation_violations(load_report& r) const;

    // ---- sharded runs (run_options::shard) ------------------------------------

    /// Runs this shard's part of the workload, with its own seed; refuses a start too far ahead.
    MCP_LOADTEST_DECL void apply_shard();

    /// Every shard starts its load at the agreed time (its sessions already connected); a time
    /// already past means at once. Bounded by max_start_wait (checked in apply_shard()).
    MCP_LOADTEST_DECL asio::awaitable<void> wait_for_shard_start();

    // ---- the report ------------------------------------------------------

    MCP_LOADTEST_DECL void finish_report(clock::duration elapsed, std::chrono::nanoseconds cpu);

    // OAuth: each client a session uses, once, with its counters before the run.
    MCP_LOADTEST_DECL void note_oauth_client(const std::shared_ptr<oauth_client>& client);
    /// The run's authorization_report: the clients' counters since the start, and the time
    /// calls waited for tokens under load.
    MCP_LOADTEST_DECL void finish_authorization_report();

    // Every server process the run spawned, then the ones the caller named
    // (network servers it started itself); session index -1 for the latter.
    MCP_LOADTEST_DECL std::vector<std::pair<std::size_t, pid_t>> sampled_processes() const;

    asio::any_io_executor ex_;
    any_server server_;
    workload load_;
    scenario body_;
    const mix_body* calls_only_ = nullptr;  // body_ when it is a mix of single calls only (direct_call)
    thresholds objectives_;
    run_options options_;
    load_rng rng_;
    interval_recorder intervals_{options_.timeline_bucket};
    json whole_parameters_;  // sharded runs: the whole workload, and this shard's part as "this_shard"

    std::vector<session> sessions_;
    std::size_t next_session_ = 0;
    clock::time_point start_;
    std::uint64_t iterations_ = 0;
    std::size_t in_flight_ = 0;
    bool stop_ = false;
    std::exception_ptr failure_;
    wake_event idle_;
    std::chrono::nanoseconds interval_hint_{0};
    asio::steady_timer* driver_timer_ = nullptr;  // the users driver's wait, while it waits
    bool load_over_ = false;                      // the drivers returned: no breach is judged after
    asio::steady_timer* breach_timer_ = nullptr;  // watch_for_breach's wait, while it waits

    load_report report_;
    // Each call is recorded once, in the cell of its (tool, method), and the cells are
    // merged into per_tool and per_method when the run ends (merge_cells): one record per
    // call rather than two. `overall` is still recorded per call: live progress and the
    // cancel estimator read it during the run. The last cell is kept at hand: a mix of
    // one tool (the common case) looks it up once per run.
    using method_cells = std::map<std::string, call_stats, std::less<>>;
    std::map<std::string, method_cells, std::less<>> cells_;  // tool (may be empty), then method: per_tool_key() at the end
    struct last_cell {
        std::string tool_key, method;
        call_stats* stats = nullptr;
    } last_cell_;
    MCP_LOADTEST_DECL call_stats& cell_of(std::string_view tool_key, std::string_view method);
    MCP_LOADTEST_DECL void merge_cells();
    std::vector<stage_report> stages_;
    // run_options::cancel
    std::map<std::pair<std::size_t, std::uint64_t>, injected_cancel> injected_;  // (session, request id)
    std::size_t cancels_armed_ = 0;
    std::uint64_t cancels_timed_ = 0;
    std::chrono::nanoseconds estimate_{0};
    clock::time_point estimate_at_{};
    clock::time_point settle_until_{};
    latency_histogram cancel_after_;
    latency_histogram send_lag_;
    process_sampler sampler_;
    std::unique_ptr<trace_writer> trace_;
    std::vector<std::pair<std::shared_ptr<oauth_client>, oauth_stats>> oauth_clients_;
    std::uint64_t token_waits_at_start_ = 0;  // the sessions' token waits during the handshakes
    std::chrono::nanoseconds token_wait_at_start_{0};
    std::chrono::nanoseconds token_blocked_at_start_{0};
};

struct load_job {
    any_server server;
    workload load;
    scenario body;
    thresholds objectives;
    run_options options;

    MCP_LOADTEST_DECL asio::awaitable<load_report> run();
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/engine/impl/load_engine.ipp>
#endif
