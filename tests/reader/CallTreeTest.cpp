// The call tree: the assembler's pre-order and its refusals, and the three
// readers (scanner, compact records, event reader) giving one tree.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/reader/CallTree.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceConversion.hpp>
#include <hdtrace/reader/TraceReader.hpp>

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

template <class T>
std::vector<T> rowsOf(const Column<T> &column) {
    return {column.begin(), column.end()};
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
    EXPECT_EQ(rowsOf(tree.depth), (std::vector<int8_t>{0, 1, 2, 1, 0}));
    EXPECT_EQ(rowsOf(tree.parent), (std::vector<int64_t>{-1, 0, 1, 0, -1}));
    EXPECT_EQ(rowsOf(tree.topRow), (std::vector<int64_t>{0, 0, 0, 0, 1}));
    EXPECT_EQ(rowsOf(tree.startNs), (std::vector<int64_t>{1, 2, 3, 4, 5}));
    EXPECT_EQ(rowsOf(tree.dataSize), (std::vector<int64_t>{64, -1, -1, -1, -1}));
    EXPECT_EQ(rowsOf(tree.dataOffset), (std::vector<int64_t>{8, -1, -1, -1, -1}));
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
    EXPECT_EQ(rowsOf(left.depth), rowsOf(right.depth));
    EXPECT_EQ(rowsOf(left.parent), rowsOf(right.parent));
    EXPECT_EQ(rowsOf(left.topRow), rowsOf(right.topRow));
    EXPECT_EQ(rowsOf(left.startNs), rowsOf(right.startNs));
    EXPECT_EQ(rowsOf(left.endNs), rowsOf(right.endNs));
    EXPECT_EQ(rowsOf(left.fid), rowsOf(right.fid));
    EXPECT_EQ(rowsOf(left.offset), rowsOf(right.offset));
    EXPECT_EQ(rowsOf(left.size), rowsOf(right.size));
    EXPECT_EQ(rowsOf(left.asked), rowsOf(right.asked));
    EXPECT_EQ(rowsOf(left.failed), rowsOf(right.failed));
    EXPECT_EQ(rowsOf(left.dataSize), rowsOf(right.dataSize));
    EXPECT_EQ(rowsOf(left.dataOffset), rowsOf(right.dataOffset));
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
    EXPECT_EQ(rowsOf(scanned.startNs),
              (std::vector<int64_t>{base + 50, base + 100, base + 1000, base + 1100, base + 3000}));
    EXPECT_EQ(rowsOf(scanned.offset), (std::vector<int64_t>{-1, -1, 4096, -1, -1}));
    EXPECT_EQ(rowsOf(scanned.failed), (std::vector<uint8_t>{0, 0, 0, 1, 0}));
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

// A time as the writer's XML text gives it: seconds after timeAdjustment.
std::string stamp(int64_t nanoseconds) {
    char text[32];
    std::snprintf(text, sizeof text, "%lld.%09lld",
                  static_cast<long long>(nanoseconds / 1000000000),
                  static_cast<long long>(nanoseconds % 1000000000));
    return text;
}

// A trace of random calls in the writer's layout, and the tree it holds:
// file opens (some with an <Info>, some with opens nested in them),
// writes with the pwrites they made (some failed), split collectives with
// their <Data>, calls nested up to three deep, calls of no known shape.
class RandomTrace {
  public:
    explicit RandomTrace(unsigned seed) : random_(seed) {}

    // The trace's text; expected() is its tree afterwards.
    std::string text() {
        std::string out =
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<Program timeAdjustment='1700000000'>\n";
        const int calls = 1 + pick(400);
        for (int index = 0; index < calls; ++index) {
            const Call call = makeCall(0);
            write(call, 0, out);
            flatten(call, 0, -1, index);
        }
        return out + "</Program>\n";
    }
    const CallTree &expected() const { return expected_; }

  private:
    static constexpr int64_t kEpochNs = 1700000000LL * 1000000000LL;
    struct Call {
        std::string name, attributes, children;  // children: its child elements' lines
        int64_t start = 0, end = 0, fid = -1, offset = -1, size = -1, asked = -1;
        int64_t dataSize = -1, dataOffset = -1;
        bool failed = false;
        std::string openedName;  // a file open's name
        std::vector<Call> nested;
    };

    int pick(int below) { return std::uniform_int_distribution<int>(0, below - 1)(random_); }
    // A number for an attribute, its text appended to attributes as name='text'.
    int64_t number(Call &call, const char *name) {
        const int64_t value = pick(3) == 0 ? pick(10) : pick(1 << 30);
        call.attributes += std::string(" ") + name + "='" + std::to_string(value) + "'";
        return value;
    }
    void openedFile(Call &call, const std::string &name) {
        call.attributes += " cid='0' name='" + name + "' flags='9'";
        call.openedName = name;
        call.fid = number(call, "fid");
    }

    // A call level deep (0: top level); the calls nested in it come first,
    // as in the trace, and so take the earlier times.
    Call makeCall(int level) {
        Call call;
        if (level < 3 && pick(level == 0 ? 2 : 8) == 0) {
            const int nested = 1 + pick(3);
            for (int index = 0; index < nested; ++index)
                call.nested.push_back(makeCall(level + 1));
        }
        switch (level == 0 ? pick(6) : 6 + pick(5)) {
            case 0:
                call.name = "File_open";
                openedFile(call, "file" + std::to_string(pick(100)) + ".dat");
                break;
            case 1:
            case 10:
                call.name = "File_write_at";
                call.fid = number(call, "fid");
                call.offset = number(call, "offset");
                call.size = number(call, "size");
                number(call, "count");
                call.attributes += " tid='4'";
                break;
            case 2:
                call.name = "File_read_all_begin";
                call.fid = number(call, "fid");
                number(call, "rid");
                call.children = "  <Data offset='" + std::to_string(call.dataOffset = pick(1000)) +
                                "' size='" + std::to_string(call.dataSize = pick(1000)) + "'/>\n";
                break;
            case 3:
                call.name = "File_open";
                openedFile(call, "info.dat");
                call.children = "  <Info key='k' value='v'/>\n";
                break;
            case 4:
                call.name = "Unknown_call";
                number(call, "a");
                number(call, "b");
                break;
            case 5:
                call.name = "Barrier";
                call.attributes = " cid='0'";
                break;
            case 6:
                call.name = "pwrite";
                call.fid = number(call, "fid");
                call.offset = number(call, "offset");
                call.asked = number(call, "asked");
                call.size = number(call, "size");
                break;
            case 7:
                call.name = "pwrite";
                call.attributes = " fid='3' offset='-1' asked='8' size='-1'";
                call.fid = 3, call.asked = 8;
                number(call, "errno");
                call.failed = true;
                break;
            case 8:
                call.name = "fwrite";
                call.fid = number(call, "fid");
                call.asked = number(call, "asked");
                call.size = number(call, "size");
                break;
            default:  // an open nested in a call, perhaps in another open
                call.name = "File_open";
                openedFile(call, "inner" + std::to_string(pick(100)));
                break;
        }
        now_ += 1 + pick(5000);
        call.start = now_;
        now_ += pick(3000);
        call.end = now_;
        call.attributes += " time='" + stamp(call.start) + "' end='" + stamp(call.end) + "'";
        return call;
    }

    void write(const Call &call, int level, std::string &out) const {
        const std::string indent(static_cast<size_t>(level) * 2, ' ');
        if (!call.nested.empty()) {
            out += indent + "<Nested>\n";
            for (const Call &nested : call.nested)
                write(nested, level + 1, out);
            out += indent + "</Nested>\n";
        }
        out += indent + "<" + call.name + call.attributes;
        out += call.children.empty() ? "/>\n" : ">\n" + call.children + "</" + call.name + ">\n";
    }

    // The call's row and those of the calls nested in it, in pre-order.
    void flatten(const Call &call, int depth, int64_t parent, int64_t topRow) {
        CallTree &tree = expected_;
        const auto row = static_cast<int64_t>(tree.rows());
        int32_t code = 0;
        while (static_cast<size_t>(code) < tree.names.size() && tree.names[code] != call.name)
            ++code;
        if (static_cast<size_t>(code) == tree.names.size()) tree.names.push_back(call.name);
        tree.nameCode.push_back(code);
        tree.depth.push_back(static_cast<int8_t>(depth));
        tree.parent.push_back(parent);
        tree.topRow.push_back(topRow);
        tree.startNs.push_back(kEpochNs + call.start);
        tree.endNs.push_back(kEpochNs + call.end);
        tree.fid.push_back(static_cast<int32_t>(call.fid));
        tree.offset.push_back(call.offset);
        tree.size.push_back(call.size);
        tree.asked.push_back(call.asked);
        tree.failed.push_back(call.failed ? 1 : 0);
        tree.dataSize.push_back(call.dataSize);
        tree.dataOffset.push_back(call.dataOffset);
        if (!call.openedName.empty()) {
            tree.openRow.push_back(row);
            tree.openFid.push_back(static_cast<int32_t>(call.fid));
            tree.openName.push_back(call.openedName);
        }
        for (const Call &nested : call.nested)
            flatten(nested, depth + 1, row, topRow);
    }

    std::mt19937 random_;
    int64_t now_ = 1000;
    CallTree expected_;
};

// Names, depths and sizes as a full read has them; nothing else written.
void expectNamesDepthsSizesOnly(const CallTree &full, const CallTree &narrow) {
    EXPECT_EQ(namesInRows(narrow), namesInRows(full));
    EXPECT_EQ(rowsOf(narrow.depth), rowsOf(full.depth));
    EXPECT_EQ(rowsOf(narrow.size), rowsOf(full.size));
    EXPECT_TRUE(narrow.parent.empty() && narrow.topRow.empty() && narrow.startNs.empty() &&
                narrow.endNs.empty() && narrow.fid.empty() && narrow.offset.empty() &&
                narrow.asked.empty() && narrow.failed.empty() && narrow.dataSize.empty() &&
                narrow.dataOffset.empty())
        << "a column beyond the three was filled";
    EXPECT_TRUE(narrow.openRow.empty() && narrow.openFid.empty() && narrow.openName.empty());
}

// Each reader gives the trace's tree, and a read of names, depths and sizes
// only (TreeColumns::NamesDepthsSizes) the same three columns and no other.
TEST(CallTree, RandomTracesGiveTheirTreeFromEveryReader) {
    const auto expectTrees = [](const CallTree &expected, const std::string &path) {
        expectSameTree(expected, readCallTree(path).tree);
        expectNamesDepthsSizesOnly(expected,
                                   readCallTree(path, {}, TreeColumns::NamesDepthsSizes).tree);
    };
    for (unsigned seed = 1; seed <= 40; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        RandomTrace trace(seed);
        const std::string text = trace.text();
        const testing::TemporaryFile xml(text);
        SCOPED_TRACE("the XML scanner");
        expectTrees(trace.expected(), xml.path());

        // A comment leaves the trace to the event reader.
        std::string commented = text;
        commented.replace(commented.find("<Program"), 0, "<!-- by events -->\n");
        const testing::TemporaryFile byEvents(commented);
        SCOPED_TRACE("the event reader");
        expectTrees(trace.expected(), byEvents.path());

        const testing::TemporaryFile compact("", ".ctrc");
        convertTrace(xml.path(), compact.path(), TraceForm::Compact);
        SCOPED_TRACE("the compact records");
        expectTrees(trace.expected(), compact.path());
    }
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

TEST(CallTree, ANumberBeyondSixtyFourBitsIsRefusedAsTheEventReaderRefusesIt) {
    // In an attribute the tree does not take (a call's tid, a child's), and
    // in one it takes (an offset): each refused with the event reader's
    // words.
    const std::string beyond = "92233720368547758070";
    const std::vector<std::string> traces = {
        "<Isend size='1' count='1' tid='" + beyond +
            "' toRank='1' toTag='0' cid='0' rid='1' time='0.000001' end='0.000002' />\n",
        "<File_write_at fid='2' offset='" + beyond +
            "' size='1' count='1' tid='1' time='0.000001' end='0.000002' />\n",
        "<File_write_at_all_begin fid='2' rid='0' time='0.000001' end='0.000002' >\n"
        "  <Data offset='0' size='1' count='1' tid='" +
            beyond + "' />\n</File_write_at_all_begin>\n"};
    for (const std::string &call : traces) {
        SCOPED_TRACE(call);
        const testing::TemporaryFile trace(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<Program timeAdjustment='1240497420'>\n" +
            call + "</Program>\n");
        std::string eventsError, treeError;
        try {
            TraceReader reader(trace.path());
            Event event;
            while (reader.next(event)) {
            }
        } catch (const ReadError &error) {
            eventsError = error.what();
        }
        try {
            readCallTree(trace.path());
        } catch (const ReadError &error) {
            treeError = error.what();
        }
        EXPECT_NE(eventsError.find("does not fit in 64 bits"), std::string::npos) << eventsError;
        EXPECT_EQ(treeError, eventsError);
    }
}

}  // namespace
}  // namespace hdtrace::reader
