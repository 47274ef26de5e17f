// Call costs: every line of the XML form counted to its call, exactly; the
// compact form's bytes shared out so that they add up to the file; the
// same figures whichever form the trace is in.
#include <sys/stat.h>

#include <map>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include <hdtrace/reader/CallCosts.hpp>
#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceConversion.hpp>

#include "TestFiles.hpp"

namespace hdtrace::reader {
namespace {

const std::string kProlog =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='1700000000'>\n";
const std::string kOpenNested = "<Nested>\n";
const std::string kOpen = "  <open fid='2' flags='66' time='0.000000100' end='0.000000200'/>\n";
const std::string kCloseNested = "</Nested>\n";
const std::string kFileOpen =
    "<File_open cid='0' name='a.dat' flags='9' fid='2' time='0.000000050' end='0.000000300'/>\n";
const std::string kIsend =
    "<Isend size='8' count='1' tid='1' toRank='1' toTag='3' cid='0' rid='0' "
    "time='0.000001000' end='0.000001500'/>\n";
const std::string kWaitStart = "<Wait time='0.000002000' end='0.000004000'>\n";
const std::string kFor = "  <For rid='0'/>\n";
const std::string kWaitEnd = "</Wait>\n";
const std::string kPwrite1 =
    "  <pwrite fid='2' offset='0' asked='8' size='8' time='0.000005100' end='0.000005300'/>\n";
const std::string kPwrite2 =
    "  <pwrite fid='2' offset='8' asked='8' size='8' time='0.000005400' end='0.000005500'/>\n";
const std::string kWriteAt =
    "<File_write_at fid='2' offset='0' size='16' count='16' tid='1' time='0.000005000' "
    "end='0.000006000'/>\n";
const std::string kFinalize = "<Finalize time='0.000007000' end='0.000007250'/>\n";
const std::string kEnd = "</Program>\n";

std::string trace() {
    return kProlog + kOpenNested + kOpen + kCloseNested + kFileOpen + kIsend + kWaitStart + kFor +
           kWaitEnd + kOpenNested + kPwrite1 + kPwrite2 + kCloseNested + kWriteAt + kFinalize +
           kEnd;
}

int64_t sizeOf(const std::string &path) {
    struct stat status {};
    stat(path.c_str(), &status);
    return status.st_size;
}

using Key = std::pair<std::string, bool>;

std::map<Key, CallCostRow> byKey(const CallCosts &costs) {
    std::map<Key, CallCostRow> rows;
    for (const CallCostRow &row : costs.rows)
        rows[{row.tag, row.nested}] = row;
    return rows;
}

int64_t length(const std::string &text) {
    return static_cast<int64_t>(text.size());
}

TEST(CallCosts, EveryXmlLineBelongsToOneCall) {
    const testing::TemporaryFile xml(trace());
    const CallCosts costs = callCostsOf(xml.path());
    auto rows = byKey(costs);
    ASSERT_EQ(rows.size(), 7u);
    EXPECT_EQ(rows[Key("open", true)].bytesXml, length(kOpen));
    // The <Nested> tags go to the call that owns the block.
    EXPECT_EQ(rows[Key("File_open", false)].bytesXml,
              length(kOpenNested + kCloseNested + kFileOpen));
    EXPECT_EQ(rows[Key("Wait", false)].bytesXml, length(kWaitStart + kFor + kWaitEnd));
    EXPECT_EQ(rows[Key("pwrite", true)].bytesXml, length(kPwrite1 + kPwrite2));
    EXPECT_EQ(rows[Key("pwrite", true)].visits, 2);
    EXPECT_EQ(rows[Key("pwrite", true)].timeNs, 200 + 100);
    EXPECT_EQ(rows[Key("File_write_at", false)].bytesXml,
              length(kOpenNested + kCloseNested + kWriteAt));
    EXPECT_EQ(rows[Key("Wait", false)].timeNs, 2000);
    EXPECT_EQ(rows[Key("Finalize", false)].timeNs, 250);
    EXPECT_EQ(costs.fixedXml, length(kProlog + kEnd));
    EXPECT_EQ(costs.fileBytesXml, sizeOf(xml.path()));
    EXPECT_EQ(costs.spanNs, 7250 - 50);
    int64_t xmlSum = costs.fixedXml, compactSum = costs.fixedCompact;
    for (const CallCostRow &row : costs.rows) {
        xmlSum += row.bytesXml;
        compactSum += row.bytesCompact;
        EXPECT_GT(row.bytesCompact, 0) << row.tag;
    }
    EXPECT_EQ(xmlSum, costs.fileBytesXml);
    EXPECT_EQ(compactSum, costs.fileBytesCompact);

    // The compact form, measured on itself, gives the same figures.
    const testing::TemporaryFile compact("", ".ctrc");
    convertTrace(xml.path(), compact.path(), TraceForm::Compact);
    EXPECT_EQ(sizeOf(compact.path()), costs.fileBytesCompact);
    const CallCosts fromCompact = callCostsOf(compact.path());
    auto compactRows = byKey(fromCompact);
    for (const auto &[key, row] : rows) {
        EXPECT_EQ(compactRows[key].visits, row.visits) << key.first;
        EXPECT_EQ(compactRows[key].timeNs, row.timeNs) << key.first;
        EXPECT_EQ(compactRows[key].bytesXml, row.bytesXml) << key.first;
        EXPECT_EQ(compactRows[key].bytesCompact, row.bytesCompact) << key.first;
    }
    EXPECT_EQ(fromCompact.fixedXml, costs.fixedXml);
    EXPECT_EQ(fromCompact.fixedCompact, costs.fixedCompact);
    EXPECT_EQ(fromCompact.fileBytesXml, costs.fileBytesXml);
}

TEST(CallCosts, ATraceNotInTheWritersLayoutIsAnErrorWithItsLine) {
    std::string text = trace();
    text.replace(text.find(kFinalize), kFinalize.size(),
                 "<Finalize time='0.000007000' end='0.000007250'/><Finalize time='0.000008000' "
                 "end='0.000009000'/>\n");
    const testing::TemporaryFile xml(text);
    try {
        callCostsOf(xml.path());
        FAIL() << "no error";
    } catch (const ReadError &error) {
        EXPECT_EQ(error.file(), xml.path());
    }
}

TEST(CallCosts, ADamagedTraceIsAnError) {
    const std::string text = trace();
    const testing::TemporaryFile cut(text.substr(0, text.find(kFinalize)));
    EXPECT_THROW(callCostsOf(cut.path()), ReadError);
    EXPECT_THROW(callCostsOf("/nonexistent/trace.trc"), ReadError);
}

}  // namespace
}  // namespace hdtrace::reader
