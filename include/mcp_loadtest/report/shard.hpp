// Sharded runs: N processes (CTest tests, Kubernetes pods) each run shard i of N of one workload
// from an agreed start time; merge_reports() (report/merge.hpp) joins their reports into one.
// run_options::shard says which shard this process runs; shard_from_environment() reads it from
// MCP_LOADTEST_SHARD=i/N and MCP_LOADTEST_SHARD_START=<unix seconds>.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/workload.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

namespace mcp_loadtest {

/// Which part of a workload this process runs. count 1 (the default): the whole, unsharded.
struct shard_spec {
    std::size_t index = 0;  ///< 0 .. count-1
    std::size_t count = 1;
    /// When every shard starts its load (after connecting its sessions); the epoch (the default):
    /// at once. A start already past also means at once.
    std::chrono::system_clock::time_point start{};
    /// A start further ahead than this is refused (a wrong clock or a typo must not hang a test).
    std::chrono::seconds max_start_wait{300};

    [[nodiscard]] bool sharded() const noexcept { return count > 1; }
};

namespace detail {

MCP_LOADTEST_DECL void check_shard(const shard_spec& s);

/// `whole` split into `count` integers differing by at most one that sum to `whole`; part `index`.
[[nodiscard]] MCP_LOADTEST_DECL std::uint64_t share_of(std::uint64_t whole, const shard_spec& s) noexcept;

[[nodiscard]] MCP_LOADTEST_DECL std::uint64_t parse_unsigned(std::string_view text, const char* what);

}  // namespace detail

/// The seed shard i uses: shard 0 keeps the run's seed (a 1-shard run is the unsharded run), the
/// others get distinct seeds far apart in the generator's sequence space.
[[nodiscard]] MCP_LOADTEST_DECL std::uint64_t shard_seed(std::uint64_t seed, const shard_spec& s) noexcept;

/// The part of `whole` that shard s runs: rates divided by the count (they sum to the whole
/// exactly); users, iteration limits and in-flight caps divided as integers, the remainder going
/// one each to the first shards (3 users over 2 shards: 2 and 1). Durations and shapes are kept.
[[nodiscard]] MCP_LOADTEST_DECL workload shard_workload(const workload& whole, const shard_spec& s);

/// Reads the shard from the environment: MCP_LOADTEST_SHARD=i/N (0 <= i < N) and, optionally,
/// MCP_LOADTEST_SHARD_START=<Unix seconds, may have a fraction> (when the load starts, in every
/// shard). Unset: shard 0/1 (the whole run, at once). Malformed: std::invalid_argument saying how.
[[nodiscard]] MCP_LOADTEST_DECL shard_spec shard_from_environment();

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/report/impl/shard.ipp>
#endif
