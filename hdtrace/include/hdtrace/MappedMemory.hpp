// Anonymous memory straight from the kernel, for buffers that are written
// at a high rate and kept: the compact writer's frames, the XML writer's
// halves (OutputBuffer), the reader's columns.
//
// On the development VM a fresh 4 KiB page costs about 12 us when first
// written, and a 2 MB huge page as much as 17 to 42 small ones
// (reader_bench_fresh_memory: faulted in by one call, or as written). A buffer
// that fills page by page during a run pays that inside the traced calls;
// mapped at a 2 MB boundary, advised for transparent huge pages and faulted
// in by one call, it pays a fraction of it once.
#pragma once

#include <cstddef>
#include <memory>

namespace hdtrace {

constexpr size_t kHugePageBytes = size_t{2} << 20;
constexpr size_t kSmallPageBytes = 4096;

// bytes (rounded up to whole 4 KiB pages) of zeroed memory that starts at a
// 2 MB boundary, advised for transparent huge pages (MADV_HUGEPAGE): the
// kernel backs each whole 2 MB piece of it with one huge page where it can.
// Less than 2 MB, which no huge page backs, starts at a page boundary.
// Null when the kernel has no memory for it. Give it back with
// unmapMemory(pointer, bytes).
void *mapAtHugePageBoundary(size_t bytes);
void unmapMemory(void *pointer, size_t bytes) noexcept;

// Faults in the pages of [pointer, pointer + bytes) by one call
// (MADV_POPULATE_WRITE, Linux 5.14) instead of one fault each as they are
// first written; pages already resident are passed over. pointer must be
// at a page boundary. False where the kernel lacks the call or has no
// memory now: the pages are then faulted in as they are written.
bool faultInPages(void *pointer, size_t bytes) noexcept;

// Gives memory from mapAtHugePageBoundary back, as a unique_ptr's deleter.
struct UnmapMemory {
    size_t bytes = 0;
    void operator()(void *pointer) const noexcept { unmapMemory(pointer, bytes); }
};
template <typename T>
using MappedArray = std::unique_ptr<T[], UnmapMemory>;

// bytes at a huge page's boundary with their pages faulted in now, for a
// buffer a traced call writes; null when the kernel has no memory for it.
template <typename T>
MappedArray<T> mapResident(size_t bytes) {
    T *data = static_cast<T *>(mapAtHugePageBoundary(bytes));
    if (data) faultInPages(data, bytes);
    return MappedArray<T>(data, UnmapMemory{bytes});
}

}  // namespace hdtrace
