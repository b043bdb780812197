// A type-erased, move-only holder for an Asio completion handler of
// signature void(call_result). (Asio 1.22 predates any_completion_handler.)
// Small handlers (use_awaitable's is one pointer) are stored inline: no
// allocation per call.
#pragma once

#include <mcp_loadtest/detail/config.hpp>
#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace mcp_loadtest::detail {

class call_completion {
public:
    call_completion() = default;

    template <class Handler>
    explicit call_completion(Handler&& h) {
        using M = model<std::decay_t<Handler>>;
        if constexpr (fits_inline<M>()) impl_ = ::new (static_cast<void*>(storage_)) M(std::forward<Handler>(h));
        else impl_ = new M(std::forward<Handler>(h));
    }

    call_completion(call_completion&& o) noexcept { take(o); }
    MCP_LOADTEST_DECL call_completion& operator=(call_completion&& o) noexcept;
    call_completion(const call_completion&) = delete;
    call_completion& operator=(const call_completion&) = delete;
    ~call_completion() { reset(); }

    [[nodiscard]] explicit operator bool() const noexcept { return impl_ != nullptr; }

    /// The handler's cancellation slot (disconnected when it has none).
    [[nodiscard]] MCP_LOADTEST_DECL asio::cancellation_slot slot() const noexcept;

    /// Invokes the handler now, on the calling thread. Consumes *this.
    MCP_LOADTEST_DECL void complete(call_result&& r);

    /// Invokes the handler later, through its associated executor. Consumes *this.
    MCP_LOADTEST_DECL void post(call_result&& r);

private:
    struct concept_t {
        virtual asio::cancellation_slot slot() const noexcept = 0;
        virtual void invoke(call_result&& r) = 0;
        virtual void post(call_result&& r) = 0;          // moves the handler into a posted function
        virtual concept_t* move_to(void* storage) noexcept = 0;  // inline models only
        virtual void destroy() noexcept = 0;             // destructor, and delete if on the heap

    protected:
        ~concept_t() = default;
    };

    static constexpr std::size_t inline_size = 3 * sizeof(void*);

    template <class M>
    static constexpr bool fits_inline() {
        return sizeof(M) <= inline_size && alignof(M) <= alignof(std::max_align_t) &&
               std::is_nothrow_move_constructible_v<M>;
    }

    template <class Handler>
    struct model final : concept_t {
        explicit model(Handler&& h) : handler(std::move(h)) {}
        explicit model(const Handler& h) : handler(h) {}
        model(model&&) noexcept(std::is_nothrow_move_constructible_v<Handler>) = default;
        Handler handler;

        asio::cancellation_slot slot() const noexcept override {
            return asio::get_associated_cancellation_slot(handler);
        }
        void invoke(call_result&& r) override {
            auto s = asio::get_associated_cancellation_slot(handler);
            if (s.is_connected()) s.clear();
            std::move(handler)(std::move(r));
        }
        void post(call_result&& r) override {
            auto s = asio::get_associated_cancellation_slot(handler);
            if (s.is_connected()) s.clear();
            auto ex = asio::get_associated_executor(handler);
            asio::post(ex, [h = std::move(handler), r = std::move(r)]() mutable { std::move(h)(std::move(r)); });
        }
        concept_t* move_to(void* storage) noexcept override {
            if constexpr (fits_inline<model>()) return ::new (storage) model(std::move(*this));
            else return nullptr;  // heap models move by pointer
        }
        void destroy() noexcept override {
            if constexpr (fits_inline<model>()) this->~model();
            else delete this;
        }
    };

    [[nodiscard]] MCP_LOADTEST_DECL bool is_inline() const noexcept;

    MCP_LOADTEST_DECL void take(call_completion& o) noexcept;

    MCP_LOADTEST_DECL void reset() noexcept;

    alignas(std::max_align_t) unsigned char storage_[inline_size];
    concept_t* impl_ = nullptr;
};

}  // namespace mcp_loadtest::detail

#if defined(MCP_LOADTEST_INCLUDE_IMPL)
#include <mcp_loadtest/detail/session/impl/completion.ipp>
#endif
