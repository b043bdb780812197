// The one clock of sessions and transports: deadlines and latencies are
// monotonic, unaffected by changes to the wall clock.
#pragma once

#include <chrono>

namespace mcp_loadtest::detail {

using clock = std::chrono::steady_clock;

}  // namespace mcp_loadtest::detail
