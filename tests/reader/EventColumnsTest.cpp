#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include <hdtrace/reader/EventColumns.hpp>
#include <hdtrace/reader/ReadError.hpp>

#include "TestFiles.hpp"

using namespace hdtrace::reader;
using hdtrace::reader::testing::TemporaryFile;

namespace {

const char *kTrace =
    "<?xml version='1.0'?>\n<Program timeAdjustment='10'>\n"
    "<Send size='8' toRank='0' toTag='5' cid='1' time='0.1' end='0.2'/>\n"
    "<Sendrecv size='4' toRank='1' toTag='2' fromRank='0' fromTag='3' cid='1' time='0.3' "
    "end='0.4'/>\n"
    "<Bcast size='4' rootRank='-1' cid='1' time='0.5' end='0.6'/>\n"
    "<File_open cid='0' name='f.dat' fid='2' time='0.7' end='0.8'/>\n"
    "<File_read_all_begin fid='2' rid='7' time='0.9' end='1.0'><Data offset='64' "
    "size='32'/></File_read_all_begin>\n"
    "<Wait time='1.1' end='1.2'><For rid='7'/></Wait>\n"
    "</Program>\n";

}  // namespace

TEST(EventColumns, ValuesAndFallbacks) {
    TemporaryFile file(kTrace);
    ColumnsResult result = readEventColumns(file.path(), {}, nullptr);
    const EventColumns &c = result.columns;
    ASSERT_EQ(c.rows(), 6u);
    EXPECT_EQ(c.names[static_cast<size_t>(c.nameCode[0])], "Send");
    EXPECT_NE(c.nameCode[0], c.nameCode[1]);
    EXPECT_EQ(c.startNs[0], 10100000000);
    EXPECT_EQ(c.endNs[5], 11200000000);
    EXPECT_EQ(c.size[0], 8);
    EXPECT_EQ(c.peer[0], 0);
    EXPECT_EQ(c.tag[0], 5);
    EXPECT_EQ(c.peer[1], 1);
    EXPECT_EQ(c.tag[1], 2);
    EXPECT_EQ(c.recvPeer[1], 0);
    EXPECT_EQ(c.recvTag[1], 3);
    EXPECT_EQ(c.recvPeer[0], kNoValue32);
    EXPECT_EQ(c.peer[2], -1);  // a wildcard stays
    EXPECT_EQ(c.peer[3], kNoValue32);
    EXPECT_EQ(c.fid[3], 2);
    EXPECT_EQ(c.size[3], -1);
    EXPECT_EQ(c.size[4], 32);
    EXPECT_EQ(c.offset[4], 64);
    EXPECT_EQ(c.rid[4], 7);
    EXPECT_EQ(c.completionRow, (Column<int64_t>{5}));
    EXPECT_EQ(c.completionRid, (Column<int64_t>{7}));
    EXPECT_EQ(c.openRow, (Column<int64_t>{3}));
    EXPECT_EQ(c.openName, (std::vector<std::string>{"f.dat"}));
    EXPECT_EQ(result.timeFractionDigits, 1);
}

TEST(EventColumns, LocalRanksAreTranslatedToWorld) {
    TemporaryFile file(kTrace);
    LocalToWorldTable table{{1, {3, 2}}};
    ColumnsResult result = readEventColumns(file.path(), {}, &table);
    const EventColumns &c = result.columns;
    EXPECT_EQ(c.peer[0], 3);      // local 0 of cid 1
    EXPECT_EQ(c.peer[1], 2);      // toRank local 1
    EXPECT_EQ(c.recvPeer[1], 3);  // fromRank local 0
    EXPECT_EQ(c.peer[2], -1);
    EXPECT_EQ(c.untranslatedPeers, 0);
}

TEST(EventColumns, UntranslatableRanksAreCounted) {
    TemporaryFile file(kTrace);
    LocalToWorldTable table{{0, {0}}};
    ColumnsResult result = readEventColumns(file.path(), {}, &table);
    EXPECT_EQ(result.columns.peer[0], 0);
    EXPECT_EQ(result.columns.untranslatedPeers, 3);
}

TEST(EventColumns, PartialTraceKeepsOnlyCompleteCalls) {
    std::string text = kTrace;
    TemporaryFile file(text.substr(0, text.find("<For rid='7'/>")));
    TraceOptions options;
    options.partial = true;
    ColumnsResult result = readEventColumns(file.path(), options, nullptr);
    EXPECT_EQ(result.columns.rows(), 5u);
    EXPECT_TRUE(result.columns.completionRow.empty());
    ASSERT_TRUE(result.damage);
    EXPECT_NE(result.damage->find(file.path() + ":8:"), std::string::npos) << *result.damage;
    options.partial = false;
    EXPECT_THROW(readEventColumns(file.path(), options, nullptr), ReadError);
}

TEST(EventColumns, NestedCallsAreNotRows) {
    TemporaryFile file(
        "<Program><Nested><Send toRank='1' time='1' end='2'/></Nested>"
        "<Bcast rootRank='0' time='0.5' end='3'><For rid='1'/></Bcast></Program>");
    ColumnsResult result = readEventColumns(file.path(), {}, nullptr);
    ASSERT_EQ(result.columns.rows(), 1u);
    EXPECT_EQ(result.columns.names[0], "Bcast");
    EXPECT_EQ(result.columns.completionRow, (Column<int64_t>{0}));
}

// A run of many ranks is many small traces: each one's columns are given
// the few rows its size foresees, not a block of thousands that the kernel
// faults in and zeroes again for every trace. Past the foreseen rows (calls
// shorter than the estimate's 100 bytes) the columns grow and every row is
// still the call written.
TEST(EventColumns, ColumnsAreAsLongAsTheTraceNeeds) {
    for (const int calls : {9, 5000}) {
        std::string text = "<Program>\n";
        for (int i = 0; i < calls; ++i)
            text += "<Barrier cid='" + std::to_string(i % 3) + "' time='" + std::to_string(i) +
                    ".5' end='" + std::to_string(i) + ".75'/>\n";
        text += "</Program>\n";
        TemporaryFile file(text);
        const ColumnsResult result = readEventColumns(file.path(), {}, nullptr);
        ASSERT_FALSE(result.fallback) << *result.fallback;
        const EventColumns &c = result.columns;
        ASSERT_EQ(c.rows(), static_cast<size_t>(calls));
        for (size_t row = 0; row < c.rows(); ++row) {
            ASSERT_EQ(c.startNs[row], static_cast<int64_t>(row) * 1000000000 + 500000000);
            ASSERT_EQ(c.endNs[row], static_cast<int64_t>(row) * 1000000000 + 750000000);
            ASSERT_EQ(c.cid[row], static_cast<int32_t>(row % 3));
        }
        // Room for at most twice the rows, or the size's estimate where it
        // is more (a row per 100 bytes of file), and the 64 rows that a
        // growth adds at the least.
        const size_t most = std::max(2 * c.rows(), text.size() / 100) + 64;
        for (size_t capacity :
             {c.startNs.capacity(), c.endNs.capacity(), c.size.capacity(), c.offset.capacity(),
              c.rid.capacity(), c.nameCode.capacity(), c.peer.capacity(), c.tag.capacity(),
              c.cid.capacity(), c.fid.capacity(), c.recvPeer.capacity(), c.recvTag.capacity()})
            EXPECT_LE(capacity, most) << calls << " calls";
    }
}
