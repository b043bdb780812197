// Definitions of detail/session/completion.hpp (header-only: included by it; separate
// compilation: compiled once by impl/src.hpp).
#pragma once

#include <mcp_loadtest/detail/session/completion.hpp>

namespace mcp_loadtest::detail {

MCP_LOADTEST_DECL call_completion& call_completion::operator=(call_completion&& o) noexcept {
    if (this != &o) {
        reset();
        take(o);
    }
    return *this;
}

MCP_LOADTEST_DECL asio::cancellation_slot call_completion::slot() const noexcept {
    return impl_ ? impl_->slot() : asio::cancellation_slot();
}

MCP_LOADTEST_DECL void call_completion::complete(call_result&& r) {
    concept_t* impl = std::exchange(impl_, nullptr);
    struct destroy_after {
        concept_t* i;
        ~destroy_after() { i->destroy(); }
    } guard{impl};
    impl->invoke(std::move(r));
}

MCP_LOADTEST_DECL void call_completion::post(call_result&& r) {
    concept_t* impl = std::exchange(impl_, nullptr);
    struct destroy_after {
        concept_t* i;
        ~destroy_after() { i->destroy(); }
    } guard{impl};
    impl->post(std::move(r));
}

MCP_LOADTEST_DECL bool call_completion::is_inline() const noexcept {
    return impl_ == static_cast<const void*>(storage_);
}

MCP_LOADTEST_DECL void call_completion::take(call_completion& o) noexcept {
    if (!o.impl_) return;
    if (o.is_inline()) {
        impl_ = o.impl_->move_to(storage_);
        o.impl_->destroy();
    } else {
        impl_ = o.impl_;
    }
    o.impl_ = nullptr;
}

MCP_LOADTEST_DECL void call_completion::reset() noexcept {
    if (impl_) std::exchange(impl_, nullptr)->destroy();
}

}  // namespace mcp_loadtest::detail
