// A mix as a scenario body: each iteration draws one weighted call or pattern
// from the run's generator and measures its calls like any body would.
#pragma once

#include <mcp_loadtest/call_mix.hpp>
#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/iteration.hpp>
#include <mcp_loadtest/session.hpp>

#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

namespace mcp_loadtest::detail {

struct mix_state {
    mix calls;
    std::vector<raw_json> fixed_args;  // serialized once, not per call (a request's params)
    std::vector<std::string> names;    // a request's name for reports (request_name()); tool calls: unused
};

struct mix_iteration_job {
    std::shared_ptr<const mix_state> state;
    session* s;
    iteration* it;

    MCP_LOADTEST_DECL asio::awaitable<void> run();
    call_options options;
    std::size_t choice = static_cast<std::size_t>(-1);  ///< drawn already (the load engine's fast path), else drawn by run()
};

/// A request of the mix that is not a tools/call, named for reports (request_name()).
MCP_LOADTEST_DECL asio::awaitable<call_result> send_mix_request(session& s, const std::string& method,
                                                                 const std::string& tool, const json& params,
                                                                 call_options options);

/// The body run() uses for a mix; `options` bound every call.
struct mix_body {
    std::shared_ptr<const mix_state> state;
    call_options options;
    MCP_LOADTEST_DECL asio::awaitable<void> operator()(session& s, iteration& it) const;
};

MCP_LOADTEST_DECL scenario make_mix_scenario(mix calls, call_options options);

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/engine/impl/mix_scenario.ipp>
#endif
