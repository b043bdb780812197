// The calls a session has in flight, by request id. A session issues its ids in
// order, so the calls in flight at any moment hold a narrow band of ids: a ring
// indexed by an id's low bits finds a call in one load and one compare, where a
// hash map hashes, walks a bucket, and allocates and links a node per call.
//
// An id whose slot is still held by an older call (one left hanging while
// thousands of ids went by) does not make the ring grow without bound: the
// older call moves to a small hash map beside it, looked in only when the
// ring misses. The ring grows while it is more than half full, so that stays
// rare, and shrinks back when it is less than an eighth full, so that a burst
// of calls does not leave every later walk over it (the deadline compaction,
// in_flight()) that long. Entries live in heap blocks of their own, recycled:
// a reference to one stays valid while the table changes around it, and after
// take() for as long as its handle lives.
#pragma once

#include <mcp_loadtest/detail/config.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mcp_loadtest::detail {

template <class T>
class id_table {
public:
    struct entry {
        std::uint64_t id = 0;
        T value{};
    };
    using handle = std::unique_ptr<entry>;

    [[nodiscard]] entry* find(std::uint64_t id) const noexcept {
        if (!slots_.empty()) {
            entry* e = slots_[id & mask_].get();
            if (e && e->id == id) return e;
        }
        if (overflow_.empty()) return nullptr;
        const auto it = overflow_.find(id);
        return it == overflow_.end() ? nullptr : it->second.get();
    }

    [[nodiscard]] bool contains(std::uint64_t id) const noexcept { return find(id) != nullptr; }
    [[nodiscard]] std::size_t size() const noexcept { return size_; }
    [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
    /// The ring's length (a power of two, or 0): what a walk over the table visits.
    [[nodiscard]] std::size_t slot_count() const noexcept { return slots_.size(); }

    /// An entry to fill and insert: a finished one (its value as it was left:
    /// the caller sets every member it reads) or a new one.
    [[nodiscard]] handle spare() {
        if (spares_.empty()) return std::make_unique<entry>();
        handle h = std::move(spares_.back());
        spares_.pop_back();
        return h;
    }

    /// Files `h` under `id`, which must not be in the table. Returns it.
    entry& insert(std::uint64_t id, handle h) {
        if (2 * (size_ + 1) > slots_.size())
            resize(std::max(min_slots, 2 * slots_.size()));
        else if (slots_.size() > min_slots && 8 * (size_ + 1) < slots_.size())
            resize(std::max(min_slots, slots_.size() / 4));
        h->id = id;
        entry& e = *h;
        place(std::move(h));
        ++size_;
        return e;
    }

    /// Removes `e` (an entry of this table) and hands it over: it lives while its handle does.
    /// (Inline: once per call. The overflow's map lookup stays out of line, so that GCC still
    /// inlines this in the library's large translation units.)
    [[nodiscard]] MCP_LOADTEST_ALWAYS_INLINE handle take(entry& e) noexcept {
        handle& s = slots_[e.id & mask_];
        if (s.get() != &e) return take_from_overflow(e);
        --size_;
        return std::move(s);
    }

    /// Keeps a taken entry for spare(), up to a bound; its value is not reset.
    void recycle(handle h) {
        if (h && spares_.size() < max_spares) spares_.push_back(std::move(h));
    }

    /// Empties the table: every entry, in id order.
    [[nodiscard]] std::vector<handle> take_all() {
        std::vector<handle> all;
        all.reserve(size_);
        for (auto& s : slots_)
            if (s) all.push_back(std::move(s));
        for (auto& [id, h] : overflow_) all.push_back(std::move(h));
        overflow_.clear();
        size_ = 0;
        std::sort(all.begin(), all.end(), [](const handle& a, const handle& b) { return a->id < b->id; });
        return all;
    }

    /// Calls f(const entry&) for each entry, in no particular order.
    template <class F>
    void for_each(F&& f) const {
        for (const auto& s : slots_)
            if (s) f(*s);
        for (const auto& [id, h] : overflow_) f(*h);
    }

    /// Destroys every entry and spare.
    void clear() noexcept {
        slots_.clear();
        overflow_.clear();
        spares_.clear();
        mask_ = 0;
        size_ = 0;
    }

private:
    [[nodiscard]] MCP_LOADTEST_NOINLINE handle take_from_overflow(entry& e) noexcept {
        const auto it = overflow_.find(e.id);
        handle h = std::move(it->second);
        overflow_.erase(it);
        --size_;
        return h;
    }

    static constexpr std::size_t min_slots = 64;
    static constexpr std::size_t max_spares = 256;

    void place(handle h) {
        handle& s = slots_[h->id & mask_];
        if (s) {  // held by another id, mostly an old call: it steps aside
            const std::uint64_t older = std::min(s->id, h->id);
            if (older == s->id) std::swap(s, h);
            overflow_.emplace(h->id, std::move(h));
        } else {
            s = std::move(h);
        }
    }

    void resize(std::size_t slots) {
        std::vector<handle> old = std::move(slots_);
        slots_.clear();
        slots_.resize(slots);
        mask_ = slots_.size() - 1;
        auto stepped_aside = std::move(overflow_);
        overflow_.clear();
        for (auto& s : old)
            if (s) place(std::move(s));
        for (auto& [id, h] : stepped_aside) place(std::move(h));
    }

    std::vector<handle> slots_;  // a power of two long, or empty
    std::size_t mask_ = 0;
    std::size_t size_ = 0;
    std::unordered_map<std::uint64_t, handle> overflow_;
    std::vector<handle> spares_;
};

}  // namespace mcp_loadtest::detail
