// TraceWriter::attributes (a call's number attributes at once, named by a
// static table) against attribute() for each name: the same calls written
// both ways must give the same trace byte for byte in both forms, whether
// the writer finds the table typed at its place or gives the names one by
// one: a right table, a wrong name, a table begun after a single attribute,
// more names than the plan has, a number where the plan has a text, a call
// of no plan, an open child, tables that take turns.
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/TraceWriter.hpp>
#include <hdtrace/reader/FrameFile.hpp>

#include "CompactAsXml.hpp"
#include "TestSupport.hpp"

namespace hdtrace {
namespace {

using test::at;
using test::compactAsXml;
using test::readFile;
using test::ScratchDirectory;

// Tables as the generated wrappers hold them: the same arrays call after call.
constexpr std::string_view kWriteAt[] = {"fid", "offset", "size", "count", "tid"};
constexpr std::string_view kWriteAtWrong[] = {"fid", "offset", "bytes", "count", "tid"};
constexpr std::string_view kWriteAtMore[] = {"fid", "offset", "size", "count", "tid", "extra"};
constexpr std::string_view kSend[] = {"size", "count", "tid", "toRank", "toTag", "cid"};
constexpr std::string_view kSeek[] = {"fid", "relative-offset", "whence", "offset"};

struct Table {
    const char *call;
    const std::string_view *names;
    uint32_t count;
    uint32_t skipped;  // names given one by one before the table's rest
};

const Table kTables[] = {
    {"File_write_at", kWriteAt, 5, 0},
    {"File_write_at", kWriteAt, 5, 0},
    {"File_write_at", kWriteAt, 5, 2},
    {"File_write_at", kWriteAtWrong, 5, 0},
    {"File_write_at", kWriteAtMore, 6, 0},
    {"File_write_at", kWriteAtMore, 5, 0},
    {"File_write_at", kWriteAt, 3, 0},
    {"Send", kSend, 6, 0},
    {"Send", kSend, 6, 1},
    {"lseek", kSeek, 4, 0},
    {"MyOwnCall", kWriteAt, 5, 0},
};

// Random calls, the same for every writer given the same seed; byTable:
// whether the names past the skipped ones go through attributes().
void drive(TraceWriter &writer, bool byTable, uint32_t seed) {
    std::mt19937 random(seed);
    int64_t t = 1000;
    for (int call = 0; call < 300; ++call) {
        const Table &table = kTables[random() % std::size(kTables)];
        std::vector<int64_t> values;
        for (uint32_t index = 0; index < table.count; ++index)
            values.push_back(static_cast<int64_t>(random() % 100000) - 10);
        writer.beginState(table.call, at(t += 1 + random() % 50));
        const bool child = random() % 20 == 0;
        if (child) writer.beginElement("Data");
        for (uint32_t index = 0; index < table.skipped; ++index)
            writer.attribute(table.names[index], values[index]);
        if (byTable) {
            writer.attributes(table.names + table.skipped, values.data() + table.skipped,
                              table.count - table.skipped);
        } else {
            for (uint32_t index = table.skipped; index < table.count; ++index)
                writer.attribute(table.names[index], values[index]);
        }
        if (child) writer.endElement();
        writer.endState(at(t += 1 + random() % 100));
    }
}

std::string writeTrace(const ScratchDirectory &directory, const std::string &program,
                       TraceOptions::Format format, bool byTable, uint32_t seed) {
    const std::string path = test::writeTraceBy(
        directory, program, format, [&](TraceWriter &writer) { drive(writer, byTable, seed); });
    if (path.empty()) return "";
    return format == TraceOptions::Format::Xml ? readFile(path) : compactAsXml(path);
}

TEST(AttributesTable, RandomCallsGiveTheSameTraceAsTheirAttributesOneByOne) {
    for (TraceOptions::Format format : {TraceOptions::Format::Xml, TraceOptions::Format::Compact}) {
        for (uint32_t seed = 1; seed <= 20; ++seed) {
            SCOPED_TRACE("seed " + std::to_string(seed) +
                         (format == TraceOptions::Format::Xml ? ", XML" : ", compact"));
            ScratchDirectory directory;
            const std::string expected = writeTrace(directory, "apart", format, false, seed);
            const std::string written = writeTrace(directory, "table", format, true, seed);
            ASSERT_FALSE(expected.empty());
            EXPECT_EQ(written, expected);
        }
    }
}

// The same wrong table at 16 places one after another: the writer keeps
// the tables it found typed in a few slots by their address, and one of
// these shares the right table's slot, whatever the slot's number.
constexpr std::string_view kWriteAtWrongEverywhere[16][5] = {
    {"fid", "offset", "bytes", "count", "tid"}, {"fid", "offset", "bytes", "count", "tid"},
    {"fid", "offset", "bytes", "count", "tid"}, {"fid", "offset", "bytes", "count", "tid"},
    {"fid", "offset", "bytes", "count", "tid"}, {"fid", "offset", "bytes", "count", "tid"},
    {"fid", "offset", "bytes", "count", "tid"}, {"fid", "offset", "bytes", "count", "tid"},
    {"fid", "offset", "bytes", "count", "tid"}, {"fid", "offset", "bytes", "count", "tid"},
    {"fid", "offset", "bytes", "count", "tid"}, {"fid", "offset", "bytes", "count", "tid"},
    {"fid", "offset", "bytes", "count", "tid"}, {"fid", "offset", "bytes", "count", "tid"},
    {"fid", "offset", "bytes", "count", "tid"}, {"fid", "offset", "bytes", "count", "tid"}};

// Calls that take turns, as an Isend, an Irecv and a Waitall do: the right
// table, a wrong one at each of its places, a Send between them.
void driveTurns(TraceWriter &writer, bool byTable) {
    int64_t t = 1000;
    const auto call = [&](const char *name, const std::string_view *names, uint32_t count,
                          int64_t first) {
        int64_t values[6];
        for (uint32_t index = 0; index < count; ++index)
            values[index] = first + index;
        writer.beginState(name, at(t += 7));
        if (byTable) {
            writer.attributes(names, values, count);
        } else {
            for (uint32_t index = 0; index < count; ++index)
                writer.attribute(names[index], values[index]);
        }
        writer.endState(at(t += 5));
    };
    for (int round = 0; round < 3; ++round) {
        for (int place = 0; place < 16; ++place) {
            call("File_write_at", kWriteAt, 5, 100 * place);
            call("Send", kSend, 6, 7);
            call("File_write_at", kWriteAtWrongEverywhere[place], 5, 100 * place + 50);
        }
    }
}

TEST(AttributesTable, TablesTakingTurnsGiveTheSameTraceAsTheirAttributesOneByOne) {
    for (TraceOptions::Format format : {TraceOptions::Format::Xml, TraceOptions::Format::Compact}) {
        SCOPED_TRACE(format == TraceOptions::Format::Xml ? "XML" : "compact");
        ScratchDirectory directory;
        std::string traces[2];
        for (bool byTable : {false, true}) {
            const std::string path =
                test::writeTraceBy(directory, byTable ? "table" : "apart", format,
                                   [&](TraceWriter &writer) { driveTurns(writer, byTable); });
            ASSERT_FALSE(path.empty());
            traces[byTable] =
                format == TraceOptions::Format::Xml ? readFile(path) : compactAsXml(path);
        }
        EXPECT_EQ(traces[1], traces[0]);
        // Every wrong table's values went out under its own names.
        for (int place = 0; place < 16; ++place) {
            const std::string wrong = "<File_write_at fid='" + std::to_string(100 * place + 50) +
                                      "' offset='" + std::to_string(100 * place + 51) +
                                      "' bytes='" + std::to_string(100 * place + 52) + "'";
            EXPECT_NE(traces[1].find(wrong), std::string::npos) << wrong;
        }
    }
}

// The values reach the trace: a table taken typed, the second time at
// least from what the writer remembered of the first.
TEST(AttributesTable, ATableTakenTypedWritesItsValues) {
    ScratchDirectory directory;
    TraceOptions options = test::traceOptionsIn(directory, "values");
    auto writer = TraceWriter::create(options);
    ASSERT_TRUE(writer);
    for (int64_t call = 0; call < 3; ++call) {
        writer->beginState("File_write_at", at(10 * call + 1));
        const int64_t values[] = {3, 100 + call, 16, 4, 7};
        writer->attributes(kWriteAt, values, 5);
        writer->endState(at(10 * call + 2));
    }
    EXPECT_EQ(writer->close(), 0);
    const std::string xml = readFile(writer->tracePath());
    for (int call = 0; call < 3; ++call) {
        const std::string expected = "<File_write_at fid='3' offset='" +
                                     std::to_string(100 + call) + "' size='16' count='4' tid='7'";
        EXPECT_NE(xml.find(expected), std::string::npos) << expected << " missing from\n" << xml;
    }
}

}  // namespace
}  // namespace hdtrace
