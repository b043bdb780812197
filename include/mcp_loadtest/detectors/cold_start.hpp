// Cold start (docs/load-testing.md#cold-start): spawn → initialize → first
// call, `iterations` times through repeat(), a histogram of each phase.
#pragma once
#include <mcp_loadtest/detail/config.hpp>

#include <mcp_loadtest/combinators.hpp>
#include <mcp_loadtest/histogram.hpp>
#include <mcp_loadtest/session.hpp>

#include <chrono>
#include <string>
#include <type_traits>
#include <vector>

namespace mcp_loadtest {

struct cold_start_options {
    std::size_t iterations = 5;
    bool discard_first = true;  ///< the first start warms disk caches and interpreters
    call_options call{.timeout = std::chrono::seconds(30)};
};
// Written inline inside co_await: must stay trivially copyable (docs/index.md#compiler-notes).
static_assert(std::is_trivially_copyable_v<cold_start_options>);

struct cold_start_sample {
    std::chrono::nanoseconds spawn{0};       ///< process creation
    std::chrono::nanoseconds initialize{0};  ///< spawn done → initialize answered
    std::chrono::nanoseconds first_call{0};  ///< the first tools/call
    std::chrono::nanoseconds total{0};
    mcp_loadtest::outcome outcome = outcome::ok;  ///< of the first call (or of initialize when it failed)
    std::string message;
};

struct cold_start_report {
    std::string tool;
    std::vector<cold_start_sample> samples;  ///< every iteration, including a discarded first one
    std::size_t discarded = 0;
    std::size_t failures = 0;
    latency_histogram spawn, initialize, first_call, total;
    latency_summary spawn_summary, initialize_summary, first_call_summary, total_summary;
};

// The client options take an overload, not a default: a defaulted client_options{}
// would be a temporary inside the caller's co_await (docs/index.md#compiler-notes).
/// spawn → initialize → first call, `iterations` times: a histogram of each phase.
MCP_LOADTEST_DECL asio::awaitable<cold_start_report> cold_start(any_server server, std::string tool, const json& arguments,
                                                     cold_start_options options, client_options client);
MCP_LOADTEST_DECL asio::awaitable<cold_start_report> cold_start(any_server server, std::string tool, const json& arguments,
                                                     cold_start_options options = {});

}  // namespace mcp_loadtest

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detectors/impl/cold_start.ipp>
#endif
