// One iteration of a scenario: what a scenario body gets besides its session.
//
//     auto checkout = [](mlt::session& s, mlt::iteration& it) -> asio::awaitable<void> {
//         auto cart = co_await it.measure("create_cart", s.call_tool("create_cart", mlt::args("user", it.index())));
//         if (!it.check(cart.ok(), "create_cart failed", cart.describe())) co_return;
//         co_await it.think(50ms);
//     };
//
// Inside run() an iteration records into the run's report: measure() like a
// call of the mix (overall, per tool and per method) and, by its name, per
// step; check() as a failed check with its message. Outside run(), a
// standalone `mlt::iteration it;` records into its own tally().
#pragma once

#include <mcp_loadtest/call_mix.hpp>
#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/owned_coroutine.hpp>
#include <mcp_loadtest/load_report.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

namespace mcp_loadtest {

class session;
class iteration;

/// A scenario body: one iteration of a user's flow on one session.
using scenario = std::function<asio::awaitable<void>(session&, iteration&)>;

/// What a standalone iteration (or a detector) recorded.
struct scenario_tally {
    call_stats overall;                          ///< every measured call
    std::map<std::string, call_stats> per_tool;  ///< measured calls, keyed as report.per_tool (a tool; else "method name")
    std::map<std::string, call_stats, std::less<>> per_step;  ///< measured steps by name
    scenario_failures failures;
};

namespace detail {
/// Where an iteration's measurements go: the load engine, or a tally.
class step_recorder {
public:
    /// A measured call; `step` is empty for an unnamed measure().
    virtual void record_call(const iteration& it, const call_result& r, std::string_view step,
                             std::chrono::nanoseconds latency) = 0;
    /// A measured step that is not one call (a combinator, a sequence...).
    virtual void record_step(const iteration& it, std::string_view step, std::chrono::nanoseconds latency) = 0;
    virtual void record_check(const iteration& it, std::string_view what, std::string_view detail) = 0;

protected:
    ~step_recorder() = default;
};

/// Where an iteration came from, for the engine's bookkeeping.
struct iteration_origin {
    std::uint64_t index = 0;
    std::chrono::steady_clock::time_point intended{};  ///< open models: when it should have started
    bool from_intended = false;  ///< the first measured call's latency runs from `intended`
    std::size_t stage = 0;
    std::size_t session = 0;
};

class load_engine;

class tally_recorder final : public step_recorder {
public:
    scenario_tally tally;
    MCP_LOADTEST_DECL void record_call(const iteration&, const call_result& r, std::string_view step,
                                       std::chrono::nanoseconds latency) override;
    MCP_LOADTEST_DECL void record_step(const iteration&, std::string_view step, std::chrono::nanoseconds latency) override;
    MCP_LOADTEST_DECL void record_check(const iteration& it, std::string_view what, std::string_view detail) override;
};
}  // namespace detail

class iteration {
public:
    using clock = std::chrono::steady_clock;

    /// A standalone iteration (outside run()): index 0, its own generator and tally.
    explicit MCP_LOADTEST_DECL iteration(std::uint64_t seed = 20260728);
    /// The engine's constructor.
    iteration(detail::iteration_origin origin, load_rng& rng, detail::step_recorder& to)
        : origin_(origin), rng_(&rng), to_(&to) {}
    iteration(iteration&&) noexcept = default;
    iteration& operator=(iteration&&) noexcept = default;

    /// Counts from 0 across the run, in start order.
    [[nodiscard]] std::uint64_t index() const noexcept { return origin_.index; }
    /// The run's seeded generator (shared by all iterations: a run is reproducible).
    [[nodiscard]] load_rng& rng() noexcept { return *rng_; }
    /// A uniform integer in [lo, hi] from the run's generator.
    [[nodiscard]] std::int64_t uniform(std::int64_t lo, std::int64_t hi) { return mcp_loadtest::uniform(*rng_, lo, hi); }

    /// Pauses this iteration (a user's think time); other iterations go on.
    MCP_LOADTEST_DECL asio::awaitable<void> think(std::chrono::nanoseconds d);

    /// Awaits a call and records it by its tool (or method), like a call of a mix.
    MCP_LOADTEST_DECL asio::awaitable<call_result> measure(asio::awaitable<call_result> call);
    /// The same, also recorded as step `name` (report.per_step, thresholds::per_step).
    MCP_LOADTEST_DECL asio::awaitable<call_result> measure(std::string_view name, asio::awaitable<call_result> call);
    /// Any other awaitable (several calls, a combinator): its time is recorded as
    /// step `name`. An exception propagates unrecorded (run() counts it).
    template <class T>
    asio::awaitable<T> measure(std::string_view name, asio::awaitable<T> step) {
        return detail::start_owned(measure_step_job<T>{this, std::string(name), std::move(step)});
    }

    /// Records a failed check with its message (and a sample: `detail`, e.g. the
    /// reply) unless `ok`; returns `ok`. Never throws: the iteration decides.
    MCP_LOADTEST_DECL bool check(bool ok, std::string_view what, std::string_view detail = {});

    /// A standalone iteration's records (empty inside run(): those go to the report).
    [[nodiscard]] MCP_LOADTEST_DECL const scenario_tally& tally() const noexcept;
    [[nodiscard]] const detail::iteration_origin& origin() const noexcept { return origin_; }

private:
    friend class detail::load_engine;  // its fast path for a mix measures calls as measure() does

    struct owned {
        explicit owned(std::uint64_t seed) : rng(seed) {}
        load_rng rng;
        detail::tally_recorder recorder;
    };

    MCP_LOADTEST_DECL std::chrono::nanoseconds latency_of(const call_result& r);

    struct measure_call_job {
        iteration* it;
        std::string name;
        asio::awaitable<call_result> call;
        MCP_LOADTEST_DECL asio::awaitable<call_result> run();
    };
    template <class T>
    struct measure_step_job {
        iteration* it;
        std::string name;
        asio::awaitable<T> step;
        asio::awaitable<T> run() {
            const auto t0 = clock::now();
            if constexpr (std::is_void_v<T>) {
                co_await std::move(step);
                it->to_->record_step(*it, name, clock::now() - t0);
            } else {
                T value = co_await std::move(step);
                it->to_->record_step(*it, name, clock::now() - t0);
                co_return value;
            }
        }
    };

    std::unique_ptr<owned> own_;
    detail::iteration_origin origin_{};
    load_rng* rng_ = nullptr;
    detail::step_recorder* to_ = nullptr;
    bool measured_any_ = false;
};

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/iteration.ipp>
#endif
