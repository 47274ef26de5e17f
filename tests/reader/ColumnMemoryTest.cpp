// Column memory (hdtrace/reader/ColumnMemory.hpp): freed memory serves the
// next allocation of its size without the kernel zeroing it again, and the
// block freed last displaces the oldest when the cache is full. Memory on
// small pages keeps its bytes while cached, which is what these tests see:
// a fresh mapping is zeroed, a reused one holds what was written into it.
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
    void *first = allocateColumnBytes(bytes, ColumnPages::Small);
    std::memset(first, 0xab, bytes);
    freeColumnBytes(first, bytes, ColumnPages::Small);
    void *second = allocateColumnBytes(bytes, ColumnPages::Small);
    EXPECT_EQ(filledWith(second, bytes), 0xab);
    // A block in use is never handed out twice.
    void *third = allocateColumnBytes(bytes, ColumnPages::Small);
    EXPECT_NE(third, second);
    EXPECT_EQ(filledWith(third, bytes), 0);  // fresh from the kernel
    std::memset(third, 0x5a, bytes);
    EXPECT_EQ(filledWith(second, bytes), 0xab);
    freeColumnBytes(second, bytes, ColumnPages::Small);
    freeColumnBytes(third, bytes, ColumnPages::Small);
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
    void *oldest = allocateColumnBytes(large, ColumnPages::Small);
    std::memset(oldest, 0x11, large);
    freeColumnBytes(oldest, large, ColumnPages::Small);
    std::vector<void *> blocks;
    for (unsigned char value : {0x22, 0x33, 0x44}) {
        blocks.push_back(allocateColumnBytes(small, ColumnPages::Small));
        std::memset(blocks.back(), value, small);
    }
    for (void *block : blocks)
        freeColumnBytes(block, small, ColumnPages::Small);
    // The three are kept (the oldest block made room for them) ...
    std::set<unsigned> found;
    blocks.clear();
    for (int i = 0; i < 3; ++i) {
        blocks.push_back(allocateColumnBytes(small, ColumnPages::Small));
        found.insert(filledWith(blocks.back(), small));
    }
    EXPECT_EQ(found, (std::set<unsigned>{0x22, 0x33, 0x44}));
    // ... and the 200 MB are the kernel's again: a new block of that size is fresh.
    void *fresh = allocateColumnBytes(large, ColumnPages::Small);
    EXPECT_EQ(filledWith(fresh, large), 0);
    freeColumnBytes(fresh, large, ColumnPages::Small);
    for (void *block : blocks)
        freeColumnBytes(block, small, ColumnPages::Small);
}

}  // namespace
}  // namespace hdtrace::reader
