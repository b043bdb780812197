// Storage an I/O object keeps for the one operation of a kind (its write, its
// read) it has in flight at a time, handed to Asio through the handler's
// associated allocator (handler_using_memory). Asio's own per-thread cache
// keeps two freed blocks; an HTTP connection's write operation is larger than
// the reads that free them, so without this every request went to memalign
// and free. A second operation while the first is in flight, or one larger
// than the storage, gets the heap as before.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

namespace mcp_loadtest::detail {

class handler_memory {
public:
    handler_memory() = default;
    handler_memory(const handler_memory&) = delete;
    handler_memory& operator=(const handler_memory&) = delete;

    void* allocate(std::size_t size, std::size_t align) {
        if (!in_use_ && size <= sizeof storage_ && align <= alignof(std::max_align_t)) {
            in_use_ = true;
            return storage_;
        }
        if (align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) return ::operator new(size, std::align_val_t(align));
        return ::operator new(size);
    }

    void deallocate(void* p, std::size_t align) noexcept {
        if (p == storage_) in_use_ = false;
        else if (align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) ::operator delete(p, std::align_val_t(align));
        else ::operator delete(p);
    }

private:
    alignas(std::max_align_t) unsigned char storage_[512];
    bool in_use_ = false;
};

/// The allocator bound to a handler: every rebinding draws on the same handler_memory.
template <class T>
class handler_allocator {
public:
    using value_type = T;

    explicit handler_allocator(handler_memory& memory) noexcept : memory_(&memory) {}
    template <class U>
    handler_allocator(const handler_allocator<U>& other) noexcept : memory_(other.memory_) {}  // NOLINT: rebinding

    T* allocate(std::size_t n) { return static_cast<T*>(memory_->allocate(sizeof(T) * n, alignof(T))); }
    void deallocate(T* p, std::size_t) noexcept { memory_->deallocate(p, alignof(T)); }

    friend bool operator==(const handler_allocator& a, const handler_allocator& b) noexcept {
        return a.memory_ == b.memory_;
    }

private:
    template <class>
    friend class handler_allocator;
    handler_memory* memory_;
};

/// A completion handler drawing on `memory`. A nested allocator_type, rather than
/// asio::bind_allocator: a binder also specialises the associated executor, and Asio then
/// tracks work on the handler's executor apart from the I/O object's, for nothing.
template <class F>
struct handler_using_memory {
    using allocator_type = handler_allocator<char>;
    handler_memory* memory;
    F f;
    [[nodiscard]] allocator_type get_allocator() const noexcept { return allocator_type(*memory); }
    template <class... Args>
    void operator()(Args&&... args) {
        f(std::forward<Args>(args)...);
    }
};

template <class F>
handler_using_memory<std::decay_t<F>> using_memory(handler_memory& memory, F&& f) {
    return {&memory, std::forward<F>(f)};
}

}  // namespace mcp_loadtest::detail
