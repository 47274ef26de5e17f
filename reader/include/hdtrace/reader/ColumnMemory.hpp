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

// Whether fresh memory of 1 MB or more is advised for huge pages. Small
// pages are for a large block that is written in full right away, such as
// Python's table: asking for a hundred MB or more of huge pages at once
// makes the kernel compact memory on the spot where free 2 MB blocks are
// scarce (the default "madvise" defrag policy), which stalled first reads
// for 0.3-0.5 s on the development machine.
enum class ColumnPages { Huge, Small };

// bytes of column memory, aligned for any column element; never null (throws
// std::bad_alloc). Give it back with freeColumnBytes(pointer, bytes). Memory
// freed before may serve it, whatever pages it had.
void *allocateColumnBytes(size_t bytes, ColumnPages pages = ColumnPages::Huge);
// pages: as it was allocated. Freed memory of 1 MB or more is kept,
// resident, for later allocations (up to 256 MB in all): a process that
// read a large trace holds that much until it exits.
void freeColumnBytes(void *pointer, size_t bytes, ColumnPages pages = ColumnPages::Huge) noexcept;

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
