// Mapped memory (hdtrace/MappedMemory.hpp): it starts at a 2 MB boundary
// (less than 2 MB: at a page), is zeroed and whole pages long, and its
// pages are resident after one faultInPages call. A compact trace's frame
// writer holds its two frames resident from the start, so that the traced
// calls that fill them take no page faults.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include <gtest/gtest.h>

#include <hdtrace/FrameWriter.hpp>
#include <hdtrace/MappedMemory.hpp>

#include "TestSupport.hpp"

namespace hdtrace {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

// Whether every byte of [block, block + bytes) is value.
bool allBytesAre(const void *block, size_t bytes, unsigned char value) {
    const auto *data = static_cast<const unsigned char *>(block);
    for (size_t at = 0; at < bytes; ++at)
        if (data[at] != value) return false;
    return true;
}

// The process's resident memory, from /proc/self/statm.
size_t residentBytes() {
    FILE *statm = std::fopen("/proc/self/statm", "r");
    if (!statm) return 0;
    unsigned long total = 0, resident = 0;
    const int read = std::fscanf(statm, "%lu %lu", &total, &resident);
    std::fclose(statm);
    return read == 2 ? resident * static_cast<size_t>(sysconf(_SC_PAGESIZE)) : 0;
}

// How much the resident memory grew since before (negative: it shrank).
long long residentGrowthSince(size_t before) {
    return static_cast<long long>(residentBytes()) - static_cast<long long>(before);
}

TEST(MappedMemory, StartsAtAHugePageBoundaryZeroedAndInWholePages) {
    const size_t bytes = 3 * kMiB + 100;
    auto *block = static_cast<unsigned char *>(mapAtHugePageBoundary(bytes));
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % kHugePageBytes, 0u);
    // Rounded up to whole 4 KiB pages: the last page's last byte is there.
    const size_t wholePages = (bytes + kSmallPageBytes - 1) / kSmallPageBytes * kSmallPageBytes;
    EXPECT_TRUE(allBytesAre(block, wholePages, 0));
    block[wholePages - 1] = 0x7e;
    EXPECT_EQ(block[wholePages - 1], 0x7e);
    unmapMemory(block, bytes);
}

TEST(MappedMemory, LessThanAHugePageStartsAtAPageZeroedAndInWholePages) {
    for (const size_t bytes : {size_t{1}, size_t{4096}, size_t{7000}, kHugePageBytes - 1}) {
        auto *block = static_cast<unsigned char *>(mapAtHugePageBoundary(bytes));
        ASSERT_NE(block, nullptr);
        EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % kSmallPageBytes, 0u);
        const size_t wholePages = (bytes + kSmallPageBytes - 1) / kSmallPageBytes * kSmallPageBytes;
        EXPECT_TRUE(allBytesAre(block, wholePages, 0));
        std::memset(block, 0x5a, wholePages);
        EXPECT_TRUE(faultInPages(block, bytes));
        EXPECT_TRUE(allBytesAre(block, wholePages, 0x5a));
        unmapMemory(block, bytes);
    }
}

TEST(MappedMemory, FaultedInPagesAreResidentAndKeepTheirBytes) {
    const size_t bytes = 24 * kMiB;
    const size_t before = residentBytes();
    auto *block = static_cast<unsigned char *>(mapAtHugePageBoundary(bytes));
    ASSERT_NE(block, nullptr);
    ASSERT_GT(before, 0u);
    EXPECT_LT(residentGrowthSince(before), static_cast<long long>(kMiB))
        << "fresh memory has no page yet";
    ASSERT_TRUE(faultInPages(block, bytes)) << "MADV_POPULATE_WRITE (Linux 5.14) refused";
    EXPECT_GE(residentGrowthSince(before), static_cast<long long>(bytes))
        << "the pages are not resident";
    EXPECT_TRUE(allBytesAre(block, bytes, 0));
    std::memset(block, 0x41, bytes);
    ASSERT_TRUE(faultInPages(block, bytes));  // resident already: its bytes stay
    EXPECT_TRUE(allBytesAre(block, bytes, 0x41));
    unmapMemory(block, bytes);
}

TEST(FrameWriterMemory, ACompactTracesFramesAreResidentBeforeItsFirstRecord) {
    test::ScratchDirectory directory;
    FrameWriterOptions options;
    options.frameBytes = 16 * kMiB;
    options.compressionLevel = 0;  // no zstd context, no buffer for its output
    options.background = false;
    const size_t before = residentBytes();
    std::string error;
    auto writer = FrameWriter::create(directory.path() + "/resident.ctrc", options, &error);
    ASSERT_TRUE(writer) << error;
    ASSERT_GT(before, 0u);
    // Both frames, 32 MiB; without them resident the file's header is all.
    EXPECT_GE(residentGrowthSince(before), 2 * static_cast<long long>(options.frameBytes));
    const unsigned char record[] = {1, 2, 3};
    EXPECT_EQ(writer->append(record, sizeof record, 42), 0);
    writer->close();
}

}  // namespace
}  // namespace hdtrace
