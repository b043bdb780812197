// What a load test calls: a weighted mix of tool calls, other requests
// (resources/read, prompts/get, completion/complete, any method by name) and
// multi-step patterns, with fixed or generated arguments. Selection and
// generated arguments draw from one seeded generator, so a run is reproducible.
#pragma once

#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/json.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mcp_loadtest {

/// The run's pseudo-random generator (seeded by run_options::seed).
using load_rng = std::mt19937_64;

/// Generates the arguments of one call: `iteration` counts from 0 across the run.
using argument_generator = std::function<json(std::uint64_t iteration, load_rng& rng)>;

/// A uniform integer in [lo, hi] from the run's generator, identical on every platform
/// (std::uniform_int_distribution is not).
[[nodiscard]] MCP_LOADTEST_DECL std::int64_t uniform(load_rng& rng, std::int64_t lo, std::int64_t hi);

/// One request in the mix: a tool call, `{"get_market_data", {{"ticker", "AAPL"}}, 1.0}`, or,
/// with `method` set, any other request (made by resource_read(), prompt_get(),
/// completion_complete() and method_call() below).
struct weighted_call {
    /// tools/call: the tool. Another method: the name its figures are reported under, after the
    /// method ("resources/read fixture://r/1"); empty: the resource's uri (resources/read) or the
    /// prompt's name (prompts/get) from the params, else the method alone.
    std::string tool{};
    /// tools/call: the tool's arguments. Another method: the request's whole params object.
    json arguments = json::object();
    double weight = 1.0;
    argument_generator generate = {};  ///< when set, replaces `arguments` for every call
    /// The request's method; empty means "tools/call".
    std::string method{};
    /// Ask for progress (params._meta.progressToken): the report counts the notifications, the
    /// time to the first one, and the progress rules the server breaks (load_report::progress).
    bool progress = false;

    /// True for a tools/call (method empty or "tools/call").
    [[nodiscard]] bool is_tool_call() const noexcept { return method.empty() || method == "tools/call"; }
};

/// resources/read of `uri`, reported as "resources/read <uri>".
[[nodiscard]] MCP_LOADTEST_DECL weighted_call resource_read(std::string uri, double weight = 1.0);

/// prompts/get of prompt `name` with its arguments (strings), reported as "prompts/get <name>".
[[nodiscard]] MCP_LOADTEST_DECL weighted_call prompt_get(std::string name, json prompt_arguments = json::object(),
                                                         double weight = 1.0);

/// completion/complete of argument `argument` (typed so far: `value`) of `ref`, a prompt
/// (`{"type": "ref/prompt", "name": ...}`) or a resource template (`{"type": "ref/resource",
/// "uri": ...}`); reported as "completion/complete <prompt name or template uri>".
[[nodiscard]] MCP_LOADTEST_DECL weighted_call completion_complete(json ref, std::string argument, std::string value,
                                                                  double weight = 1.0);

/// Any request by method name with its params object, reported under the method (or
/// "<method> <name>" when `name` is given), e.g. method_call("resources/list").
[[nodiscard]] MCP_LOADTEST_DECL weighted_call method_call(std::string method, json params = json::object(),
                                                          double weight = 1.0, std::string name = {});

/// What a pattern step does when its call fails.
enum class on_step_error : std::uint8_t { continue_pattern, abort_pattern };

/// One step of a multi-step pattern.
struct step {
    std::string tool{};  ///< as weighted_call::tool
    json arguments = json::object();  ///< as weighted_call::arguments
    std::chrono::nanoseconds think_time{0};  ///< pause after this step
    on_step_error on_error = on_step_error::continue_pattern;
    /// Builds this step's arguments from the previous step's result (e.g. an id it returned).
    std::function<json(const call_result& previous, std::uint64_t iteration, load_rng& rng)> from_previous = {};
    std::string method{};   ///< as weighted_call::method (empty: tools/call)
    bool progress = false;  ///< as weighted_call::progress
};

/// A sequence of calls made by one virtual user in one iteration
/// (explore-then-act, read-then-write, ...).
struct pattern {
    std::string name{};
    std::vector<step> steps{};
    double weight = 1.0;
};

namespace detail {
/// The name a request of the mix is reported under: `tool` when given, else the uri
/// (resources/read) or name (prompts/get) in its params, else nothing.
[[nodiscard]] MCP_LOADTEST_DECL std::string request_name(std::string_view method, const std::string& tool,
                                                         const json& params);
}  // namespace detail

/// The weighted choice a load test draws each iteration from.
class mix {
public:
    mix() = default;
    mix(std::initializer_list<weighted_call> calls) : calls_(calls) { validate(); }
    explicit MCP_LOADTEST_DECL mix(std::vector<weighted_call> calls, std::vector<pattern> patterns = {});
    // Defined out of line: a test file that copies or holds a mix calls them
    // instead of compiling the vectors' copies and destructors.
    MCP_LOADTEST_DECL mix(const mix&);
    MCP_LOADTEST_DECL mix(mix&&) noexcept;
    MCP_LOADTEST_DECL mix& operator=(const mix&);
    MCP_LOADTEST_DECL mix& operator=(mix&&) noexcept;
    MCP_LOADTEST_DECL ~mix();
    /// A single tool with fixed arguments.
    static MCP_LOADTEST_DECL mix single(std::string tool, json arguments = json::object());

    MCP_LOADTEST_DECL mix& add(weighted_call c);
    MCP_LOADTEST_DECL mix& add(pattern p);

    [[nodiscard]] const std::vector<weighted_call>& calls() const noexcept { return calls_; }
    [[nodiscard]] const std::vector<pattern>& patterns() const noexcept { return patterns_; }
    [[nodiscard]] bool empty() const noexcept { return calls_.empty() && patterns_.empty(); }

    /// Index into calls() (< calls().size()) or, past it, into patterns().
    [[nodiscard]] MCP_LOADTEST_DECL std::size_t pick(load_rng& rng) const;

private:
    MCP_LOADTEST_DECL void validate();
    MCP_LOADTEST_DECL static void check_method(const std::string& method);

    std::vector<weighted_call> calls_;
    std::vector<pattern> patterns_;
    double total_weight_ = 0;
};

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/impl/call_mix.ipp>
#endif
