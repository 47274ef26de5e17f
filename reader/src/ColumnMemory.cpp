#include <sys/mman.h>

#include <cstdint>
#include <mutex>

#include <hdtrace/reader/ColumnMemory.hpp>

namespace hdtrace::reader {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kPage = 4096;

size_t mappedBytes(size_t bytes) {
    return (bytes + kPage - 1) & ~(kPage - 1);
}

// Mappings of freed columns, for the columns of the next trace: the kernel
// zeroes every fresh page, which costs as much as a fifth of a read on the
// development machine. They are handed back with MADV_FREE, so that the
// kernel may take their pages whenever it needs memory (a page it took comes
// back zeroed on the next write); at most kCachedBytes, in kCachedBlocks.
class BlockCache {
  public:
    static constexpr size_t kCachedBytes = size_t{256} << 20;
    static constexpr int kCachedBlocks = 48;

    // A cached mapping of length bytes (cut from one of at most twice that),
    // or null.
    void *take(size_t length) {
        std::lock_guard<std::mutex> lock(mutex_);
        int best = -1;
        for (int index = 0; index < count_; ++index)
            if (blocks_[index].length >= length && blocks_[index].length <= 2 * length &&
                (best < 0 || blocks_[index].length < blocks_[best].length))
                best = index;
        if (best < 0) return nullptr;
        const Block block = blocks_[best];
        blocks_[best] = blocks_[--count_];
        bytes_ -= block.length;
        if (block.length > length)
            munmap(static_cast<char *>(block.address) + length, block.length - length);
        return block.address;
    }

    // Keeps the mapping if there is room; false if the caller must unmap it.
    bool keep(void *address, size_t length) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (count_ == kCachedBlocks || bytes_ + length > kCachedBytes) return false;
        }
#ifdef MADV_FREE
        // Before the block can be taken: pages written after this stay.
        madvise(address, length, MADV_FREE);
#endif
        std::lock_guard<std::mutex> lock(mutex_);
        if (count_ == kCachedBlocks || bytes_ + length > kCachedBytes) return false;
        blocks_[count_++] = {address, length};
        bytes_ += length;
        return true;
    }

  private:
    struct Block {
        void *address;
        size_t length;
    };
    std::mutex mutex_;
    Block blocks_[kCachedBlocks];
    int count_ = 0;
    size_t bytes_ = 0;
};

BlockCache &blockCache() {
    static BlockCache *cache = new BlockCache;  // never destroyed: freed columns may outlive exit
    return *cache;
}

}  // namespace

void *allocateColumnBytes(size_t bytes, ColumnPages pages) {
    if (bytes < kHugePage) return ::operator new(bytes);
    const size_t length = mappedBytes(bytes);
    if (void *cached = blockCache().take(length)) return cached;
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
    if (pages == ColumnPages::Huge)
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
    if (!blockCache().keep(pointer, mappedBytes(bytes))) munmap(pointer, mappedBytes(bytes));
}

}  // namespace hdtrace::reader
