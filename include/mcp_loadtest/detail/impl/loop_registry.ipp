// Definitions of detail/loop_registry.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/loop_registry.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL loop_registry& loop_registry::of(const asio::any_io_executor& ex) {
    return asio::use_service<loop_registry>(asio::query(ex, asio::execution::context));
}

MCP_LOADTEST_DECL void loop_registry::add(loop_bound* key, std::weak_ptr<loop_bound> member) {
    std::lock_guard<std::mutex> lock(mutex_);
    members_.emplace(key, std::move(member));
}

MCP_LOADTEST_DECL void loop_registry::remove(loop_bound* key) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    members_.erase(key);
}

MCP_LOADTEST_DECL void loop_registry::shutdown() {
    std::vector<std::shared_ptr<loop_bound>> alive;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        alive.reserve(members_.size());
        for (auto& [key, weak] : members_)
            if (auto strong = weak.lock()) alive.push_back(std::move(strong));
        members_.clear();
    }
    // Held strongly until every member has let go: dropping one member's
    // frames may destroy another member that is still on this list.
    for (auto& m : alive) m->event_loop_ending();
}

}  // namespace mcp_loadtest::detail
