// Memory for the per-call columns of EventColumns.
//
// A column of millions of rows is written once, front to back, into memory
// the kernel has to provide page by page. Columns of 1 MB or more are
// therefore mapped straight from the kernel at a 2 MB boundary, in whole
// 2 MB pieces, and advised for transparent huge pages (MADV_HUGEPAGE): one
// page fault and one zeroed 2 MB page instead of 512 faults, and no 4 KiB
// head before the first whole huge page, as memory from malloc has. Smaller
// columns come from operator new. Growing a column by resize leaves the new
// rows uninitialised (default initialisation), because the column builders
// write every row they add: the kernel's zeroed pages are not zeroed a
// second time.
#pragma once

#include <cstddef>
#include <new>
#include <utility>
#include <vector>

namespace hdtrace::reader {

// bytes of column memory, aligned for any column element; never null (throws
// std::bad_alloc). Give it back with freeColumnBytes(pointer, bytes). Memory
// freed before may serve it.
void *allocateColumnBytes(size_t bytes);
// Freed memory of 1 MB or more is kept, resident, for later allocations (up
// to 256 MB in all): a process that read a large trace holds that much until
// it exits.
void freeColumnBytes(void *pointer, size_t bytes) noexcept;

// For column memory about to be written in full (a table, columns of a
// known length, not rows reserved by an estimate): its fresh pages are
// faulted in by one call (MADV_POPULATE_WRITE) instead of one fault each
// as they are first written: on the development VM, 140 MB in a new process
// in 14 ms against 35 ms (medians, reader_bench_fresh_memory). A no-op for
// memory under 1 MB and where the kernel lacks the call.
void faultInColumnBytes(void *pointer, size_t bytes) noexcept;

template <typename T>
struct ColumnAllocator {
    using value_type = T;
    ColumnAllocator() = default;
    template <typename U>
    ColumnAllocator(const ColumnAllocator<U> &) noexcept {}

    T *allocate(size_t count) {
        if (count > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_alloc();
        return static_cast<T *>(allocateColumnBytes(count * sizeof(T)));
    }
    void deallocate(T *pointer, size_t count) noexcept {
        freeColumnBytes(pointer, count * sizeof(T));
    }
    // resize() without a value: default initialisation (numbers stay unset).
    template <typename U>
    void construct(U *pointer) noexcept {
        ::new (static_cast<void *>(pointer)) U;
    }
    template <typename U, typename... Arguments>
    void construct(U *pointer, Arguments &&...arguments) {
        ::new (static_cast<void *>(pointer)) U(std::forward<Arguments>(arguments)...);
    }
};

template <typename T, typename U>
bool operator==(const ColumnAllocator<T> &, const ColumnAllocator<U> &) noexcept {
    return true;
}
template <typename T, typename U>
bool operator!=(const ColumnAllocator<T> &, const ColumnAllocator<U> &) noexcept {
    return false;
}

template <typename T>
using Column = std::vector<T, ColumnAllocator<T>>;

}  // namespace hdtrace::reader
