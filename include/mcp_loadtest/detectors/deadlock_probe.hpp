// The deadlock probe (docs/load-testing.md#the-deadlock-probe), composed from
// the public combinators: open_sessions → tools/list with a short timeout →
// `concurrent` tools/call per session through release_together(), each with a
// hang threshold and a grace period; critical if any call never answers.
// Then, while the wedged servers still live, hang evidence (hang_evidence.hpp):
// what each of their threads is blocked in.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/combinators.hpp>
#include <mcp_loadtest/hang_evidence.hpp>
#include <mcp_loadtest/json.hpp>
#include <mcp_loadtest/sessions.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <type_traits>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace mcp_loadtest {

struct probe_options {
    std::size_t concurrent = 20;  ///< tools/call fired at once, per session
    std::chrono::milliseconds hang_threshold{5000};
    /// Extra wait after the threshold before a call counts as deadlocked
    /// (0: half the threshold, so a deadlock is reported within 1.5× it).
    std::chrono::milliseconds grace{0};
    std::chrono::milliseconds tools_list_timeout{1000};
    std::size_t sessions = 1;  ///< server processes probed at once
    std::size_t rounds = 1;    ///< repeat the burst; stops after the first round with a deadlock
    /// On a deadlock (or tools/list stuck), snapshot the wedged servers' process
    /// trees: threads' states, wchan, system calls (a few ms), and native stacks
    /// when gdb is installed (evidence.native_stacks: automatic; gdb adds about a
    /// second; set it to off for /proc readings only).
    bool collect_evidence = true;
    evidence_options evidence{};
};
// Written inline inside co_await: must stay trivially copyable (docs/index.md#compiler-notes).
static_assert(std::is_trivially_copyable_v<probe_options>);

enum class probe_verdict : std::uint8_t { pass, warning, critical };

[[nodiscard]] constexpr std::string_view to_string(probe_verdict v) noexcept {
    switch (v) {
        case probe_verdict::pass: return "pass";
        case probe_verdict::warning: return "warning";
        case probe_verdict::critical: return "critical";
    }
    return "unknown";
}

struct probe_call {
    std::size_t session = 0;
    std::size_t round = 0;
    std::uint64_t request_id = 0;
    mcp_loadtest::outcome outcome = outcome::ok;
    std::chrono::nanoseconds duration{0};
    std::string message;
};

struct deadlock_report {
    probe_verdict verdict = probe_verdict::pass;
    std::string tool;
    std::string method = "tools/call";
    std::string failed_stage;  ///< "initialize" or "tools/list" when the probe could not get to the calls
    std::string explanation;   ///< what happened and what it means
    std::vector<probe_call> calls;
    std::size_t ok = 0, slow = 0, deadlocked = 0, failed = 0;
    std::vector<std::uint64_t> deadlocked_ids;
    std::size_t rounds_run = 0;
    std::chrono::nanoseconds write_spread{0};  ///< the last round: first to last request written
    std::chrono::nanoseconds took{0};
    /// Where the wedged servers' threads were stuck, taken before they were
    /// killed; empty (taken() false) when nothing was wedged.
    hang_evidence evidence;

    [[nodiscard]] bool passed() const noexcept { return verdict == probe_verdict::pass; }
    [[nodiscard]] bool has_deadlock() const noexcept { return deadlocked > 0 || !failed_stage.empty(); }
    /// What happened and what it means (the report forms' headline, docs/reports.md).
    [[nodiscard]] std::string verdict_sentence() const { return explanation; }
};

// The client options take an overload, not a default: a defaulted client_options{}
// would be a temporary inside the caller's co_await (docs/index.md#compiler-notes).
/// initialize → tools/list (short timeout) → `concurrent` tools/call released
/// at once, each with a hang detector; critical if any never answers.
MCP_LOADTEST_DECL asio::awaitable<deadlock_report> deadlock_probe(any_server server, std::string tool, const json& arguments,
                                                       probe_options options, client_options client);
MCP_LOADTEST_DECL asio::awaitable<deadlock_report> deadlock_probe(any_server server, std::string tool, const json& arguments,
                                                       probe_options options = {});

// ---- JSON (durations as integer nanoseconds, enums as their names) ----------------

MCP_LOADTEST_DECL void to_json(json& j, const probe_call& c);
MCP_LOADTEST_DECL void from_json(const json& j, probe_call& c);

MCP_LOADTEST_DECL void to_json(json& j, const deadlock_report& r);
MCP_LOADTEST_DECL void from_json(const json& j, deadlock_report& r);

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detectors/impl/deadlock_probe.ipp>
#endif
