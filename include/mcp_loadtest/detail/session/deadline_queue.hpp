// The deadlines of a session's calls, earliest first. Calls of one timeout are
// sent in time order, so their deadlines come in order too: those go to the back
// of a ring in a few instructions, where a binary heap sifts every one. Only a
// deadline earlier than the last one queued (a call with a shorter timeout, a
// grace period) goes to a heap beside the ring; the earliest is at the front of
// one of the two.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace mcp_loadtest::detail {

template <class TimePoint>
class deadline_queue {
public:
    struct entry {
        TimePoint at;
        std::uint64_t id;
    };

    [[nodiscard]] bool empty() const noexcept { return count_ == 0 && heap_.empty(); }
    [[nodiscard]] std::size_t size() const noexcept { return count_ + heap_.size(); }

    // The common case inline (a call's deadline, once per request); the rest out of line.
    MCP_LOADTEST_ALWAYS_INLINE void push(const entry& e) {
        if (count_ != 0 && count_ != ring_.size() && !(e.at < back().at)) {
            ring_[(head_ + count_) & (ring_.size() - 1)] = e;
            ++count_;
            return;
        }
        push_slow(e);
    }

    /// The earliest entry (of equal deadlines, the ring's first). Not empty().
    [[nodiscard]] const entry& top() const noexcept {
        if (ring_first()) return ring_[head_];
        return heap_.front();
    }

    void pop() noexcept {
        if (ring_first()) {
            head_ = (head_ + 1) & (ring_.size() - 1);
            --count_;
        } else {
            std::pop_heap(heap_.begin(), heap_.end(), later);
            heap_.pop_back();
        }
    }

    /// Replaces every entry with `live`, in any order. The ring keeps its size (it
    /// fills up again between two compactions) unless it is far larger than needed.
    void assign(std::vector<entry> live) {
        std::sort(live.begin(), live.end(), [](const entry& a, const entry& b) { return a.at < b.at; });
        heap_.clear();
        std::size_t capacity = 16;
        while (capacity < live.size()) capacity *= 2;
        if (ring_.size() < capacity || ring_.size() > 64 * capacity) ring_.assign(capacity, entry{});
        std::copy(live.begin(), live.end(), ring_.begin());
        head_ = 0;
        count_ = live.size();
    }

private:
    MCP_LOADTEST_NOINLINE void push_slow(const entry& e) {
        if (count_ == 0 || !(e.at < back().at)) {
            if (count_ == ring_.size()) grow();
            ring_[(head_ + count_) & (ring_.size() - 1)] = e;
            ++count_;
        } else {
            heap_.push_back(e);
            std::push_heap(heap_.begin(), heap_.end(), later);
        }
    }

    // Whether the earliest entry is the ring's front: of equal deadlines, the ring's wins.
    [[nodiscard]] bool ring_first() const noexcept {
        return heap_.empty() || (count_ != 0 && !(heap_.front().at < ring_[head_].at));
    }

    static bool later(const entry& a, const entry& b) noexcept { return b.at < a.at; }

    [[nodiscard]] const entry& back() const noexcept { return ring_[(head_ + count_ - 1) & (ring_.size() - 1)]; }

    void grow() {
        std::vector<entry> bigger(ring_.empty() ? 16 : 2 * ring_.size());
        for (std::size_t i = 0; i < count_; ++i) bigger[i] = ring_[(head_ + i) & (ring_.size() - 1)];
        ring_ = std::move(bigger);
        head_ = 0;
    }

    std::vector<entry> ring_;  // a power of two long, once used; [head_, head_ + count_) in deadline order
    std::size_t head_ = 0;
    std::size_t count_ = 0;
    std::vector<entry> heap_;  // a min-heap by deadline
};

}  // namespace mcp_loadtest::detail
