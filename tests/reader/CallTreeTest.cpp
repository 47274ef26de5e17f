// The call tree: the assembler's pre-order and its refusals, and the three
// readers (scanner, compact records, event reader) giving one tree.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/reader/CallTree.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceConversion.hpp>

#include "CallTreeAssembler.hpp"
#include "TestFiles.hpp"

namespace hdtrace::reader {
namespace {

CallValues at(int64_t start) {
    CallValues values;
    values.startNs = start;
    values.endNs = start + 10;
    values.hasEnd = true;
    return values;
}

std::vector<std::string> namesInRows(const CallTree &tree) {
    std::vector<std::string> names;
    for (int32_t code : tree.nameCode)
        names.push_back(tree.names[static_cast<size_t>(code)]);
    return names;
}

TEST(CallTreeAssembler, NestedCallsFollowTheirCallerAtEveryDepth) {
    CallTree tree;
    CallTreeAssembler assembler(tree);
    ASSERT_TRUE(assembler.startRoot());
    // <Nested> <Nested> <c/> </Nested> <b/> <d/> </Nested> <a/> <e/>
    ASSERT_TRUE(assembler.startNested(2));
    ASSERT_TRUE(assembler.startNested(3));
    ASSERT_TRUE(assembler.startCall(4, "c", at(3)));
    ASSERT_TRUE(assembler.endElement(4));
    ASSERT_TRUE(assembler.endElement(3));
    ASSERT_TRUE(assembler.startCall(3, "b", at(2)));
    ASSERT_TRUE(assembler.endElement(3));
    ASSERT_TRUE(assembler.startCall(3, "d", at(4)));
    ASSERT_TRUE(assembler.endElement(3));
    ASSERT_TRUE(assembler.endElement(2));
    ASSERT_TRUE(assembler.startCall(2, "a", at(1)));
    ASSERT_TRUE(assembler.startChild(3, true, 64, 8));  // <Data>
    ASSERT_TRUE(assembler.endElement(3));
    ASSERT_TRUE(assembler.endElement(2));
    ASSERT_TRUE(assembler.startCall(2, "e", at(5)));
    ASSERT_TRUE(assembler.endElement(2));
    ASSERT_TRUE(assembler.endElement(1));
    EXPECT_TRUE(assembler.finished());
    EXPECT_EQ(namesInRows(tree), (std::vector<std::string>{"a", "b", "c", "d", "e"}));
    EXPECT_EQ(tree.depth, (std::vector<int8_t>{0, 1, 2, 1, 0}));
    EXPECT_EQ(tree.parent, (std::vector<int64_t>{-1, 0, 1, 0, -1}));
    EXPECT_EQ(tree.topRow, (std::vector<int64_t>{0, 0, 0, 0, 1}));
    EXPECT_EQ(tree.startNs, (std::vector<int64_t>{1, 2, 3, 4, 5}));
    EXPECT_EQ(tree.dataSize, (std::vector<int64_t>{64, -1, -1, -1, -1}));
    EXPECT_EQ(tree.dataOffset, (std::vector<int64_t>{8, -1, -1, -1, -1}));
}

TEST(CallTreeAssembler, RefusesWhatNoTraceHolds) {
    {  // a block whose calls no call takes
        CallTree tree;
        CallTreeAssembler assembler(tree);
        ASSERT_TRUE(assembler.startRoot());
        ASSERT_TRUE(assembler.startNested(2));
        ASSERT_TRUE(assembler.startCall(3, "b", at(1)));
        ASSERT_TRUE(assembler.endElement(3));
        ASSERT_TRUE(assembler.endElement(2));
        EXPECT_FALSE(assembler.endElement(1));
    }
    {  // two blocks before one call
        CallTree tree;
        CallTreeAssembler assembler(tree);
        ASSERT_TRUE(assembler.startRoot());
        ASSERT_TRUE(assembler.startNested(2));
        ASSERT_TRUE(assembler.startCall(3, "b", at(1)));
        ASSERT_TRUE(assembler.endElement(3));
        ASSERT_TRUE(assembler.endElement(2));
        EXPECT_FALSE(assembler.startNested(2));
    }
    {  // a call inside a call's own children, a child at the top, a skipped depth
        CallTree tree;
        CallTreeAssembler assembler(tree);
        ASSERT_TRUE(assembler.startRoot());
        EXPECT_FALSE(assembler.startChild(2, false, -1, -1));
        EXPECT_FALSE(assembler.startCall(3, "a", at(1)));
        ASSERT_TRUE(assembler.startCall(2, "a", at(1)));
        EXPECT_FALSE(assembler.startCall(3, "b", at(2)));
        EXPECT_FALSE(assembler.endElement(1));
    }
    {  // a trace cut inside a call
        CallTree tree;
        CallTreeAssembler assembler(tree);
        ASSERT_TRUE(assembler.startRoot());
        ASSERT_TRUE(assembler.startCall(2, "a", at(1)));
        EXPECT_FALSE(assembler.finished());
    }
}

constexpr const char *kTrace =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<Program timeAdjustment='1700000000'>\n"
    "<Nested>\n"
    "  <open fid='2' flags='66' time='0.000000100' end='0.000000200'/>\n"
    "</Nested>\n"
    "<File_open cid='0' name='a&amp;b.dat' flags='9' fid='2' time='0.000000050' "
    "end='0.000000300'/>\n"
    "<Nested>\n"
    "  <pwrite fid='2' offset='-1' asked='8' size='0' errno='28' time='0.000001100' "
    "end='0.000001200'/>\n"
    "</Nested>\n"
    "<File_write_at fid='2' offset='4096' size='8' count='8' tid='1' time='0.000001000' "
    "end='0.000002000'/>\n"
    "<Finalize time='0.000003000' end='0.000004000'/>\n"
    "</Program>\n";

void expectSameTree(const CallTree &left, const CallTree &right) {
    EXPECT_EQ(namesInRows(left), namesInRows(right));
    EXPECT_EQ(left.depth, right.depth);
    EXPECT_EQ(left.parent, right.parent);
    EXPECT_EQ(left.topRow, right.topRow);
    EXPECT_EQ(left.startNs, right.startNs);
    EXPECT_EQ(left.endNs, right.endNs);
    EXPECT_EQ(left.fid, right.fid);
    EXPECT_EQ(left.offset, right.offset);
    EXPECT_EQ(left.size, right.size);
    EXPECT_EQ(left.asked, right.asked);
    EXPECT_EQ(left.failed, right.failed);
    EXPECT_EQ(left.openRow, right.openRow);
    EXPECT_EQ(left.openFid, right.openFid);
    EXPECT_EQ(left.openName, right.openName);
}

TEST(CallTree, ScannerCompactAndEventReaderAgree) {
    const testing::TemporaryFile xmlFile(kTrace);
    const std::string &xml = xmlFile.path();
    const CallTree scanned = readCallTree(xml).tree;
    EXPECT_EQ(namesInRows(scanned), (std::vector<std::string>{"File_open", "open", "File_write_at",
                                                              "pwrite", "Finalize"}));
    const int64_t base = 1700000000LL * 1000000000LL;
    EXPECT_EQ(scanned.startNs,
              (std::vector<int64_t>{base + 50, base + 100, base + 1000, base + 1100, base + 3000}));
    EXPECT_EQ(scanned.offset, (std::vector<int64_t>{-1, -1, 4096, -1, -1}));
    EXPECT_EQ(scanned.failed, (std::vector<uint8_t>{0, 0, 0, 1, 0}));
    EXPECT_EQ(scanned.openName, (std::vector<std::string>{"a&b.dat"}));

    // A comment sends the same calls to the event reader.
    std::string text = kTrace;
    text.replace(text.find("<Nested>"), 0, "<!-- a comment -->\n");
    const testing::TemporaryFile other(text);
    expectSameTree(scanned, readCallTree(other.path()).tree);

    const testing::TemporaryFile compact("", ".ctrc");
    convertTrace(xml, compact.path(), TraceForm::Compact);
    expectSameTree(scanned, readCallTree(compact.path()).tree);
}

TEST(CallTree, DamageIsAnErrorOrWhereThePartialReadStopped) {
    const std::string text = kTrace;
    const testing::TemporaryFile cut(text.substr(0, text.find("<Finalize")));
    const std::string &path = cut.path();
    EXPECT_THROW(readCallTree(path), ReadError);
    TraceOptions options;
    options.partial = true;
    const CallTreeResult result = readCallTree(path, options);
    ASSERT_TRUE(result.damage.has_value());
    EXPECT_NE(result.damage->find(path), std::string::npos);
    EXPECT_EQ(namesInRows(result.tree),
              (std::vector<std::string>{"File_open", "open", "File_write_at", "pwrite"}));
}

}  // namespace
}  // namespace hdtrace::reader
