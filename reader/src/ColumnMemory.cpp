#include <cstdint>
#include <mutex>

#include <hdtrace/MappedMemory.hpp>
#include <hdtrace/reader/ColumnMemory.hpp>

namespace hdtrace::reader {
namespace {

// Columns from this size on are mapped and kept when freed (BlockCache).
// Below a huge page, malloc gave them back to the kernel when freed (its
// heap trimmed), and each trace read of a few hundred thousand calls
// faulted its 32-bit columns in again page by page.
constexpr size_t kMappedBytes = size_t{1} << 20;

// A mapping of bytes: whole huge pages, so that the last part of a column
// is not left on 4 KiB pages (up to 2 MB more resident per column).
size_t mappedBytes(size_t bytes) {
    return (bytes + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
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
            unmapMemory(static_cast<char *>(block.address) + length, block.length - length);
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
            unmapMemory(displaced[index].address, displaced[index].length);
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
    // The length is whole huge pages (mappedBytes): a column's last rows
    // take one fault for their 2 MB, not one per 4 KiB.
    void *mapped = mapAtHugePageBoundary(length);
    if (!mapped) throw std::bad_alloc();
    return mapped;
}

void freeColumnBytes(void *pointer, size_t bytes) noexcept {
    if (!pointer) return;
    if (bytes < kMappedBytes) {
        ::operator delete(pointer);
        return;
    }
    if (!blockCache().keep(pointer, mappedBytes(bytes))) unmapMemory(pointer, mappedBytes(bytes));
}

void faultInColumnBytes(void *pointer, size_t bytes) noexcept {
    // Only mapped memory starts at a page boundary and is known to reach
    // the end of the last page. Failure leaves the pages to be faulted in as
    // they are written, as without this call.
    if (pointer && bytes >= kMappedBytes) faultInPages(pointer, bytes);
}

}  // namespace hdtrace::reader
