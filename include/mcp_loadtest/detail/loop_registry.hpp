// Objects that must be torn down when their event loop ends, however it ends.
//
// A session keeps the completion handler of every call in flight, and that
// handler owns the suspended coroutine frame, which may own the session: a
// cycle Asio cannot see. When an io_context is destroyed with such a call
// suspended, Asio destroys the operations it knows of, never ours, so the
// session (and its server process) would live on. This execution_context
// service is shut down with the context, before its scheduler drains, and
// tells each registered object to let go: a session kills and reaps its
// server and drops (without invoking) the handlers it holds, which lets Asio
// destroy the frames in its own shutdown phase.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>

#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mcp_loadtest::detail {

/// Something that holds handlers the event loop cannot see.
class loop_bound {
public:
    /// The event loop is being destroyed: release external resources now and
    /// drop held handlers without invoking them. Never called twice.
    virtual void event_loop_ending() noexcept = 0;

protected:
    ~loop_bound() = default;
};

class loop_registry final : public asio::execution_context::service {
public:
    using key_type = loop_registry;
    static inline asio::execution_context::id id;

    explicit loop_registry(asio::execution_context& ctx) : asio::execution_context::service(ctx) {}

    /// The registry of the context `ex` runs on.
    MCP_LOADTEST_DECL static loop_registry& of(const asio::any_io_executor& ex);

    MCP_LOADTEST_DECL void add(loop_bound* key, std::weak_ptr<loop_bound> member);
    MCP_LOADTEST_DECL void remove(loop_bound* key) noexcept;

private:
    MCP_LOADTEST_DECL void shutdown() override;

    std::mutex mutex_;
    std::unordered_map<loop_bound*, std::weak_ptr<loop_bound>> members_;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/impl/loop_registry.ipp>
#endif
