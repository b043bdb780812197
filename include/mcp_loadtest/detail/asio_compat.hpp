// The one place that knows about differences between Asio releases.
//
// Supported: standalone Asio 1.22.1 (Debian 12) through current releases
// (vcpkg/Conan 1.3x). The library uses only facilities present in all of
// them; anything version-dependent is aliased here.
#pragma once

#ifndef ASIO_STANDALONE
#define ASIO_STANDALONE
#endif

#include <asio/version.hpp>

#if ASIO_VERSION < 102201
#error "mcp-loadtest needs standalone Asio 1.22.1 or newer (apt install libasio-dev, vcpkg install asio)"
#endif

// Asio 1.22 recognises Clang's C++20 coroutines only through
// <experimental/coroutine>, which libstdc++ does not have (and libc++ 17
// removed): tell it what its own detection misses.
#if defined(__clang__) && !defined(ASIO_HAS_CO_AWAIT) && defined(__cpp_impl_coroutine) && __has_include(<coroutine>)
#if defined(ASIO_DETAIL_CONFIG_HPP)
#error "Asio was included before mcp-loadtest and did not detect Clang's coroutines: include the mcp_loadtest headers before <asio.hpp>, or define ASIO_HAS_CO_AWAIT=1"
#endif
#define ASIO_HAS_CO_AWAIT 1
#endif

#include <asio/any_io_executor.hpp>
#include <asio/associated_cancellation_slot.hpp>
#include <asio/async_result.hpp>
#include <asio/awaitable.hpp>
#include <asio/bind_cancellation_slot.hpp>
#include <asio/cancellation_signal.hpp>
#include <asio/co_spawn.hpp>
#include <asio/detached.hpp>
#include <asio/io_context.hpp>
#include <asio/post.hpp>
#include <asio/posix/stream_descriptor.hpp>
#include <asio/read.hpp>
#include <asio/redirect_error.hpp>
#include <asio/steady_timer.hpp>
#include <asio/this_coro.hpp>
#include <asio/use_awaitable.hpp>
#include <asio/write.hpp>

// `as_tuple` moved out of experimental in 1.23 and the experimental alias was
// removed in 1.33; name it once here for code that needs it.
#if ASIO_VERSION >= 102300
#include <asio/as_tuple.hpp>
namespace mcp_loadtest::detail {
using asio::as_tuple;
}
#else
#include <asio/experimental/as_tuple.hpp>
namespace mcp_loadtest::detail {
using asio::experimental::as_tuple;
}
#endif
