// The calls of an XML trace foreseen from the start of its file
// (ForeseenRows.hpp): what the sample counts, how it is carried to the
// whole file, and a tree read whole where the start foresaw too few rows.
#include <cmath>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include <hdtrace/reader/CallTree.hpp>

#include "ForeseenRows.hpp"
#include "TestFiles.hpp"

namespace hdtrace::reader {
namespace {

constexpr size_t kSlackRows = 1024;

size_t foreseenFromWhole(const std::string &text, size_t fileBytes) {
    return foreseenXmlCalls(text.data(), text.size(), fileBytes);
}

TEST(ForeseenRows, CountsCallsNotTheRootNestedBlocksEndTagsOrComments) {
    const std::string text =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<Program timeAdjustment='1700000000'>\n"
        "<!-- a comment -->\n"
        "<Nested>\n"
        "  <pwrite fid='0' offset='0' size='4' time='0.1' end='0.2'/>\n"
        "</Nested>\n"
        "<File_write_at fid='0' offset='0' size='4' time='0.1' end='0.3'/>\n"
        "<Send size='4' time='0.4' end='0.5'>\n"
        "</Send>\n"
        "<Wait time='0.6' end='0.7'>\n"
        "<For rid='3'/>\n"  // a detail below a call: counted, towards room
        "</Wait>\n"
        "</Program>\n";
    const size_t counted = 5;
    // The sample is the file: its count, an eighth more, and the slack.
    EXPECT_EQ(foreseenFromWhole(text, text.size()), counted * 9 / 8 + kSlackRows);
    // A file a hundred times the sample: a hundred times its count.
    const size_t scaled = foreseenFromWhole(text, 100 * text.size());
    EXPECT_NEAR(static_cast<double>(scaled), counted * 100 * 9.0 / 8 + kSlackRows, 1.0);
}

TEST(ForeseenRows, ANameCutByTheSamplesEndIsNotCounted) {
    const std::string whole = "<Program>\n<Send time='0.1' end='0.2'/>\n<Recv";
    EXPECT_EQ(foreseenFromWhole(whole, whole.size()), 1 * 9 / 8 + kSlackRows);
    EXPECT_EQ(foreseenFromWhole(whole + " ", whole.size() + 1), 2 * 9 / 8 + kSlackRows);
}

TEST(ForeseenRows, AStartWithoutACallFallsBackToACallPerFortyBytes) {
    const std::string prolog = "<?xml version=\"1.0\"?>\n<Program timeAdjustment='0'>\n";
    EXPECT_EQ(foreseenFromWhole(prolog, 4000), 4000 / 40 + kSlackRows);
    EXPECT_EQ(foreseenFromWhole("", 0), kSlackRows);
}

// Lines of calls of the given length (at least 60 bytes), one a line.
std::string callLines(size_t count, size_t lineBytes, int64_t firstMicrosecond) {
    std::string out;
    for (size_t index = 0; index < count; ++index) {
        const int64_t at = firstMicrosecond + static_cast<int64_t>(index);
        std::string line = "<Send size='" + std::to_string(index) + "' time='0." +
                           std::to_string(100000 + at) + "' end='0." + std::to_string(100000 + at) +
                           "5'";
        line += std::string(lineBytes - line.size() - 3, ' ');
        out += line + "/>\n";
    }
    return out;
}

const char kHead[] = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='0'>\n";

TEST(ForeseenRows, AFileOfEvenCallsIsForeseenWithinItsMargin) {
    // 2.5 MB: the sample is its start.
    const size_t calls = 25000;
    const testing::TemporaryFile file(kHead + callLines(calls, 100, 0) + "</Program>\n");
    const size_t foreseen = foreseenXmlCalls(file.path());
    EXPECT_GE(foreseen, calls);
    EXPECT_LE(foreseen, calls * 9 / 8 + kSlackRows + 2);
    EXPECT_EQ(foreseenXmlCalls("/nonexistent/hdtrace/trace.trc"), 0u);
}

TEST(ForeseenRows, ATreeIsReadWholeWhereItsStartForesawTooFewRows) {
    // 1.2 MB of long calls, then thirty times as many short ones:
    // the columns grow past what was reserved.
    const size_t longCalls = 2000, shortCalls = 60000;
    const testing::TemporaryFile file(kHead + callLines(longCalls, 600, 0) +
                                      callLines(shortCalls, 60, longCalls) + "</Program>\n");
    ASSERT_LT(foreseenXmlCalls(file.path()), longCalls + shortCalls);
    const CallTree tree = readCallTree(file.path()).tree;
    ASSERT_EQ(tree.rows(), longCalls + shortCalls);
    for (size_t row = 0; row < tree.rows(); ++row) {
        const size_t index = row < longCalls ? row : row - longCalls;
        ASSERT_EQ(tree.size[row], static_cast<int64_t>(index)) << "row " << row;
        ASSERT_EQ(tree.startNs[row], (100000 + static_cast<int64_t>(row)) * 1000) << "row " << row;
        ASSERT_EQ(tree.depth[row], 0) << "row " << row;
    }
}

}  // namespace
}  // namespace hdtrace::reader
