#include <sys/mman.h>

#include <cstdint>
#include <mutex>

#include <hdtrace/reader/ColumnMemory.hpp>

namespace hdtrace::reader {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;
constexpr size_t kPage = 4096;
// Columns from this size on are mapped and kept when freed (BlockCache).
// Below a huge page, malloc gave them back to the kernel when freed (its
// heap trimmed), and each trace read of a few hundred thousand calls
// faulted its 32-bit columns in again page by page.
constexpr size_t kMappedBytes = size_t{1} << 20;

// A mapping of bytes: whole huge pages, so that the last part of a column
// is not left on 4 KiB pages (up to 2 MB more resident per column).
size_t mappedBytes(size_t bytes) {
    return (bytes + kHugePage - 1) & ~(kHugePage - 1);
}

// Mappings of freed columns, for the columns of the next trace: the kernel
// zeroes every fresh page, which costs as much as a fifth of a read on the
// development machine. They stay as they are, resident, at most
// kCachedBytes in kCachedBlocks: handing their pages back with MADV_FREE
// split every huge page into 4 KiB ones, and a compact trace's columns
// then went in at half the rate (12.9 against 24.8 M calls/s per core).
// A block freed last is the likeliest to fit the next request (the same
// trace or table read again), so it displaces the oldest.
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

    // Keeps the mapping, unmapping the oldest kept ones where it needs their
    // room; false if the caller must unmap it (larger than the whole cache).
    bool keep(void *address, size_t length) {
        if (length > kCachedBytes) return false;
        Block displaced[kCachedBlocks];
        int displacedCount = 0;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            while (count_ == kCachedBlocks || bytes_ + length > kCachedBytes) {
                int oldest = 0;
                for (int index = 1; index < count_; ++index)
                    if (blocks_[index].freedAt < blocks_[oldest].freedAt) oldest = index;
                displaced[displacedCount++] = blocks_[oldest];
                bytes_ -= blocks_[oldest].length;
                blocks_[oldest] = blocks_[--count_];
            }
            blocks_[count_++] = {address, length, ++freed_};
            bytes_ += length;
        }
        for (int index = 0; index < displacedCount; ++index)
            munmap(displaced[index].address, displaced[index].length);
        return true;
    }

  private:
    struct Block {
        void *address;
        size_t length;
        uint64_t freedAt;  // the order in which blocks were kept
    };
    std::mutex mutex_;
    Block blocks_[kCachedBlocks];
    int count_ = 0;
    size_t bytes_ = 0;
    uint64_t freed_ = 0;
};

BlockCache &blockCache() {
    static BlockCache *cache = new BlockCache;  // never destroyed: freed columns may outlive exit
    return *cache;
}

}  // namespace

void *allocateColumnBytes(size_t bytes) {
    if (bytes < kMappedBytes) return ::operator new(bytes);
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
    // The length is whole huge pages (mappedBytes): a column's last rows
    // take one fault for their 2 MB, not one per 4 KiB.
    madvise(reinterpret_cast<void *>(aligned), length, MADV_HUGEPAGE);
#endif
    return reinterpret_cast<void *>(aligned);
}

void freeColumnBytes(void *pointer, size_t bytes) noexcept {
    if (!pointer) return;
    if (bytes < kMappedBytes) {
        ::operator delete(pointer);
        return;
    }
    if (!blockCache().keep(pointer, mappedBytes(bytes))) munmap(pointer, mappedBytes(bytes));
}

void faultInColumnBytes(void *pointer, size_t bytes) noexcept {
#ifdef MADV_POPULATE_WRITE
    // Only mapped memory starts at a page boundary and is known to reach
    // the end of the last page; pages already resident are passed over.
    // Failure (an older kernel, or no memory now) leaves the pages to be
    // faulted in as they are written, as without this call.
    if (pointer && bytes >= kMappedBytes)
        madvise(pointer, (bytes + kPage - 1) & ~(kPage - 1), MADV_POPULATE_WRITE);
#else
    (void)pointer;
    (void)bytes;
#endif
}

}  // namespace hdtrace::reader
