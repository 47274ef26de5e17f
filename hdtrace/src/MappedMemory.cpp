#include <sys/mman.h>

#include <cstdint>

#include <hdtrace/MappedMemory.hpp>

namespace hdtrace {
namespace {

size_t wholeSmallPages(size_t bytes) {
    return (bytes + kSmallPageBytes - 1) & ~(kSmallPageBytes - 1);
}

}  // namespace

void *mapAtHugePageBoundary(size_t bytes) {
    const size_t length = wholeSmallPages(bytes);
    if (length < kHugePageBytes) {
        // No huge page fits: one mapping as it comes, without the trims,
        // each of which makes the kernel interrupt every other CPU that
        // runs a thread of the process (a conversion per trace paid three).
        void *mapped =
            mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return mapped == MAP_FAILED ? nullptr : mapped;
    }
    // Over-map by a huge page, then cut to the first 2 MB boundary: the
    // kernel backs with huge pages only the aligned 2 MB pieces of a mapping.
    void *mapped = mmap(nullptr, length + kHugePageBytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) return nullptr;
    const auto start = reinterpret_cast<uintptr_t>(mapped);
    const uintptr_t aligned = (start + kHugePageBytes - 1) & ~uintptr_t{kHugePageBytes - 1};
    if (aligned > start) munmap(mapped, aligned - start);
    const uintptr_t tail = aligned + length, mappedEnd = start + length + kHugePageBytes;
    if (mappedEnd > tail) munmap(reinterpret_cast<void *>(tail), mappedEnd - tail);
#ifdef MADV_HUGEPAGE
    // Advice only: without transparent huge pages the memory is small pages.
    madvise(reinterpret_cast<void *>(aligned), length, MADV_HUGEPAGE);
#endif
    return reinterpret_cast<void *>(aligned);
}

void unmapMemory(void *pointer, size_t bytes) noexcept {
    if (pointer) munmap(pointer, wholeSmallPages(bytes));
}

bool faultInPages(void *pointer, size_t bytes) noexcept {
#ifdef MADV_POPULATE_WRITE
    return pointer && madvise(pointer, wholeSmallPages(bytes), MADV_POPULATE_WRITE) == 0;
#else
    (void)pointer;
    (void)bytes;
    return false;
#endif
}

}  // namespace hdtrace
