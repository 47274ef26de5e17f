// Column memory (hdtrace/reader/ColumnMemory.hpp): freed memory serves the
// next allocation of its size without the kernel zeroing it again, and the
// block freed last displaces the oldest when the cache is full. Memory
// keeps its bytes while cached, which is what these tests see: a fresh
// mapping is zeroed, a reused one holds what was written into it. Memory
// about to be written whole is faulted in by one call, and keeps what it
// holds where it was resident already.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/reader/ColumnMemory.hpp>

namespace hdtrace::reader {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

// Every 4,096th byte of the block and its last one, which a block filled
// with one byte value holds everywhere.
unsigned char filledWith(const void *block, size_t bytes) {
    const auto *data = static_cast<const unsigned char *>(block);
    for (size_t at = 0; at < bytes; at += 4096)
        if (data[at] != data[0]) return 0xff;
    return data[bytes - 1] == data[0] ? data[0] : 0xff;
}

TEST(ColumnMemory, FreedMemoryServesTheNextAllocationOfItsSize) {
    const size_t bytes = 9 * kMiB + 4096;
    void *first = allocateColumnBytes(bytes);
    std::memset(first, 0xab, bytes);
    freeColumnBytes(first, bytes);
    void *second = allocateColumnBytes(bytes);
    EXPECT_EQ(filledWith(second, bytes), 0xab);
    // A block in use is never handed out twice.
    void *third = allocateColumnBytes(bytes);
    EXPECT_NE(third, second);
    EXPECT_EQ(filledWith(third, bytes), 0);  // fresh from the kernel
    std::memset(third, 0x5a, bytes);
    EXPECT_EQ(filledWith(second, bytes), 0xab);
    freeColumnBytes(second, bytes);
    freeColumnBytes(third, bytes);
}

TEST(ColumnMemory, AColumnOfAMegabyteOrMoreIsOnWholeHugePagesAndKept) {
    // 1.5 MiB: below a huge page, which malloc would give and take back
    // (its pages then fresh for every trace read).
    const size_t bytes = 3 * kMiB / 2;
    void *first = allocateColumnBytes(bytes);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(first) % (2 * kMiB), 0u);
    std::memset(first, 0x3c, bytes);
    // The mapping is the whole huge page: its last byte is there to write.
    static_cast<unsigned char *>(first)[2 * kMiB - 1] = 0x3c;
    freeColumnBytes(first, bytes);
    void *second = allocateColumnBytes(bytes);
    EXPECT_EQ(second, first);
    EXPECT_EQ(filledWith(second, bytes), 0x3c);
    freeColumnBytes(second, bytes);
}

TEST(ColumnMemory, TheBlockFreedLastDisplacesTheOldest) {
    // 200 MB, then three of 30 MB: the cache (256 MB) cannot hold all four.
    const size_t large = 200 * kMiB, small = 30 * kMiB + 8192;
    void *oldest = allocateColumnBytes(large);
    std::memset(oldest, 0x11, large);
    freeColumnBytes(oldest, large);
    std::vector<void *> blocks;
    for (unsigned char value : {0x22, 0x33, 0x44}) {
        blocks.push_back(allocateColumnBytes(small));
        std::memset(blocks.back(), value, small);
    }
    for (void *block : blocks)
        freeColumnBytes(block, small);
    // The three are kept (the oldest block made room for them) ...
    std::set<unsigned> found;
    blocks.clear();
    for (int i = 0; i < 3; ++i) {
        blocks.push_back(allocateColumnBytes(small));
        found.insert(filledWith(blocks.back(), small));
    }
    EXPECT_EQ(found, (std::set<unsigned>{0x22, 0x33, 0x44}));
    // ... and the 200 MB are the kernel's again: a new block of that size is fresh.
    void *fresh = allocateColumnBytes(large);
    EXPECT_EQ(filledWith(fresh, large), 0);
    freeColumnBytes(fresh, large);
    for (void *block : blocks)
        freeColumnBytes(block, small);
}

// How many of the pages of [block, block + bytes) are resident.
size_t residentPages(void *block, size_t bytes) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    std::vector<unsigned char> flags((bytes + page - 1) / page);
    if (mincore(block, bytes, flags.data()) != 0) return 0;
    size_t resident = 0;
    for (unsigned char flag : flags)
        resident += flag & 1;
    return resident;
}

TEST(ColumnMemory, MemoryWrittenWholeIsFaultedInAtOnceAndKeepsWhatItHolds) {
    // No block the other tests free is within a factor two of this size,
    // so this one is fresh from the kernel.
    const size_t bytes = 70 * kMiB + 12288;
    const size_t pages = bytes / 4096;
    void *block = allocateColumnBytes(bytes);
    ASSERT_EQ(residentPages(block, bytes), 0u) << "a fresh mapping has no page yet";
    faultInColumnBytes(block, bytes);
    EXPECT_EQ(residentPages(block, bytes), pages)
        << "MADV_POPULATE_WRITE (Linux 5.14) did not fault the pages in";
    EXPECT_EQ(filledWith(block, bytes), 0);
    std::memset(block, 0x6d, bytes);
    faultInColumnBytes(block, bytes);  // resident already: its bytes stay
    EXPECT_EQ(filledWith(block, bytes), 0x6d);
    freeColumnBytes(block, bytes);
}

}  // namespace
}  // namespace hdtrace::reader
