#include <sys/mman.h>

#include <cstdint>

#include <hdtrace/reader/ColumnMemory.hpp>

namespace hdtrace::reader {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kPage = 4096;

size_t mappedBytes(size_t bytes) {
    return (bytes + kPage - 1) & ~(kPage - 1);
}

}  // namespace

void *allocateColumnBytes(size_t bytes) {
    if (bytes < kHugePage) return ::operator new(bytes);
    const size_t length = mappedBytes(bytes);
    // Over-map by a huge page, then cut to the first 2 MB boundary: the
    // kernel backs with huge pages only the aligned 2 MB pieces of a mapping.
    void *mapped = mmap(nullptr, length + kHugePage, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<uintptr_t>(mapped);
    const uintptr_t aligned = (start + kHugePage - 1) & ~uintptr_t{kHugePage - 1};
    if (aligned > start) munmap(mapped, aligned - start);
    const uintptr_t tail = aligned + length, mappedEnd = start + length + kHugePage;
    if (mappedEnd > tail) munmap(reinterpret_cast<void *>(tail), mappedEnd - tail);
#ifdef MADV_HUGEPAGE
    // Only whole huge pages are backed by them: the memory used stays what
    // the writes touch, rounded up to 2 MB at the end of what was written.
    madvise(reinterpret_cast<void *>(aligned), length, MADV_HUGEPAGE);
#endif
    return reinterpret_cast<void *>(aligned);
}

void freeColumnBytes(void *pointer, size_t bytes) noexcept {
    if (!pointer) return;
    if (bytes < kHugePage) {
        ::operator delete(pointer);
        return;
    }
    munmap(pointer, mappedBytes(bytes));
}

}  // namespace hdtrace::reader
