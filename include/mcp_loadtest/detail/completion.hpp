// A type-erased, move-only holder for an Asio completion handler of
// signature void(call_result). (Asio 1.22 predates any_completion_handler.)
#pragma once

#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>

#include <memory>
#include <utility>

namespace mcp_loadtest::detail {

class call_completion {
public:
    call_completion() = default;

    template <class Handler>
    explicit call_completion(Handler&& h)
        : impl_(std::make_unique<model<std::decay_t<Handler>>>(std::forward<Handler>(h))) {}

    [[nodiscard]] explicit operator bool() const noexcept { return impl_ != nullptr; }

    /// The handler's cancellation slot (disconnected when it has none).
    [[nodiscard]] asio::cancellation_slot slot() const noexcept {
        return impl_ ? impl_->slot() : asio::cancellation_slot();
    }

    /// Invokes the handler now, on the calling thread. Consumes *this.
    void complete(call_result&& r) {
        auto impl = std::move(impl_);
        impl->invoke(std::move(r));
    }

    /// Invokes the handler later, through its associated executor.
    void post(call_result&& r) {
        auto impl = std::move(impl_);
        impl->post(std::move(impl), std::move(r));
    }

private:
    struct concept_t {
        virtual ~concept_t() = default;
        virtual asio::cancellation_slot slot() const noexcept = 0;
        virtual void invoke(call_result&& r) = 0;
        virtual void post(std::unique_ptr<concept_t> self, call_result&& r) = 0;
    };

    template <class Handler>
    struct model final : concept_t {
        explicit model(Handler&& h) : handler(std::move(h)) {}
        explicit model(const Handler& h) : handler(h) {}
        Handler handler;

        asio::cancellation_slot slot() const noexcept override {
            return asio::get_associated_cancellation_slot(handler);
        }
        void invoke(call_result&& r) override {
            auto s = asio::get_associated_cancellation_slot(handler);
            if (s.is_connected()) s.clear();
            std::move(handler)(std::move(r));
        }
        void post(std::unique_ptr<concept_t> self, call_result&& r) override {
            auto s = asio::get_associated_cancellation_slot(handler);
            if (s.is_connected()) s.clear();
            auto ex = asio::get_associated_executor(handler);
            asio::post(ex, [self = std::move(self), r = std::move(r)]() mutable {
                auto* m = static_cast<model*>(self.get());
                std::move(m->handler)(std::move(r));
            });
        }
    };

    std::unique_ptr<concept_t> impl_;
};

}  // namespace mcp_loadtest::detail
