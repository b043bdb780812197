// A call awaited in the awaiting coroutine's own frame: the load engine's hot path.
//
// `co_await session.call_tool(...)` returns an asio::awaitable<call_result>, and with
// Asio's use_awaitable every such awaitable is a coroutine frame of its own (Asio 1.22
// has no frameless awaiting of an operation): created, pushed, popped and destroyed
// per call, the result moved into it and out again (~630 instructions a call, measured
// by bench_throughput --floor). The engine awaits its own calls through the hook Asio's
// use_awaitable is built on instead (awaitable_frame_base::await_transform of a function
// taking the frame): the engine's coroutine is suspended, the call's completion holds
// its awaitable thread (Asio's own detail::awaitable_handler_base, the same from 1.22
// to 1.3x), and on completion the coroutine is resumed with a pointer to the result,
// read in place while the completion runs. Nothing is allocated and nothing is moved.
//
// Only for coroutines returning asio::awaitable<void> (the handler names the frame so),
// and the pointer is valid until the coroutine next suspends.
#pragma once

#include <mcp_loadtest/call_result.hpp>
#include <mcp_loadtest/detail/asio_compat.hpp>
#include <mcp_loadtest/detail/session/completion.hpp>
#include <mcp_loadtest/detail/session/session_core.hpp>

#include <utility>

namespace mcp_loadtest::detail {

using awaitable_thread_type = asio::detail::awaitable_thread<asio::any_io_executor>;
using awaitable_frame_type = asio::detail::awaitable_frame_base<asio::any_io_executor>;

/// The completion: resumes the suspended coroutine (as Asio's awaitable_handler does)
/// after pointing it at the result.
class resume_in_place final : public asio::detail::awaitable_handler_base<asio::any_io_executor, void> {
public:
    resume_in_place(awaitable_thread_type* thread, const call_result** out) noexcept
        : awaitable_handler_base(thread), out_(out) {}

    void operator()(call_result&& r) {
        *out_ = &r;
        this->frame()->attach_thread(this);
        this->frame()->clear_cancellation_slot();
        this->pump();
    }

private:
    const call_result** out_;
};

/// `co_await call_in_place{core, &request, &result}` in an asio::awaitable<void>
/// coroutine sends `request` (prepared, e.g. by fill_tool_call) and resumes with
/// `result` pointing at its call_result. Name it before the co_await (GCC 12
/// mishandles braced temporaries inside one).
struct call_in_place {
    session_core* core;
    session_core::request_line* request;
    const call_result** result;

    // Runs once the coroutine is suspended; start_request never completes inline
    // (a call it refuses is posted), so the coroutine cannot be resumed in here.
    awaitable_thread_type* operator()(awaitable_frame_type* frame) const {
        core->start_request(std::move(*request), call_completion(resume_in_place(frame->detach_thread(), result)));
        return nullptr;
    }
};

}  // namespace mcp_loadtest::detail
