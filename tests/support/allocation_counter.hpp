// Counts allocations made through operator new while `counting` is set, to
// check that a steady state does not allocate. Include it in one file of a
// test binary: it replaces the global operator new and delete (together, with
// malloc/free, so the sanitizers see matching pairs).
//
// Clang links its ASan/TSan/MSan runtimes statically, with their own operator
// new: replacing it there is a link error, so those builds count nothing and
// the cases that need it are skipped (`doctest::skip(!counts_allocations)`).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <new>

#if defined(__clang__) && defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define MLT_TEST_NO_NEW_REPLACEMENT 1
#endif
#endif

namespace mlt_test {
#ifdef MLT_TEST_NO_NEW_REPLACEMENT
inline constexpr bool counts_allocations = false;
#else
inline constexpr bool counts_allocations = true;
#endif
inline std::atomic<bool> counting{false};
inline std::atomic<std::uint64_t> allocations{0};
}  // namespace mlt_test

#ifndef MLT_TEST_NO_NEW_REPLACEMENT
void* operator new(std::size_t size) {
    if (mlt_test::counting.load(std::memory_order_relaxed)) mlt_test::allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#endif
