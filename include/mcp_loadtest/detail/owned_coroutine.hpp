// The library's one workaround for GCC 12's coroutine-parameter bug.
//
// GCC 12 copies some by-value class-type coroutine parameters into the frame
// without their copy constructor (seen as double frees of strings and
// std::function). So no library coroutine takes such a parameter: a public
// entry point is an ordinary function that moves its arguments into a job (a
// struct with a `run()` member coroutine) and starts it here. The frame then
// holds only a shared_ptr, and `run()` only its `this` pointer.
//
//     struct echo_job {
//         session* s; std::string text;
//         asio::awaitable<call_result> run() { co_return co_await s->call_tool("echo", args("message", text)); }
//     };
//     asio::awaitable<call_result> echo(session& s, std::string text) {
//         return detail::start_owned(echo_job{&s, std::move(text)});
//     }
#pragma once

#include <mcp_loadtest/detail/asio_compat.hpp>

#include <memory>
#include <utility>

namespace mcp_loadtest::detail {

template <class Job>
auto run_owned(std::shared_ptr<Job> job) -> decltype(job->run()) {
    co_return co_await job->run();
}

/// Starts `job.run()` with the job kept alive (and in one place) until it ends.
template <class Job>
auto start_owned(Job job) -> decltype(job.run()) {
    return run_owned(std::make_shared<Job>(std::move(job)));
}

}  // namespace mcp_loadtest::detail
