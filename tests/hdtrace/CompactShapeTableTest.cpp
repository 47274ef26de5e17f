// The static shapes of compact records: a successful call of the POSIX
// layer (written without its errno) is coded with a static shape, as a
// failed one is, so a frame defines neither strings nor a shape for it;
// and frames of the tables earlier writers used, which lacked those shapes
// (or, later, the calls added since) and numbered their own shapes from
// their end, still decode.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/TraceWriter.hpp>
#include <hdtrace/codec/CompactFormat.hpp>
#include <hdtrace/reader/FrameFile.hpp>

#include "CompactRecords.hpp"
#include "CompactToXml.hpp"
#include "TestSupport.hpp"

namespace hdtrace::reader {
namespace {

using namespace compact;

// Every element reported, with the static shape it was coded with.
struct Shapes final : CompactHandler {
    std::vector<std::pair<std::string, int>> seen;
    std::vector<int64_t> numbers;
    void startElement(std::string_view name, const CompactAttributes &attributes) override {
        seen.emplace_back(std::string(name), attributes.staticShape());
        for (int index = 0; index < attributes.size(); ++index)
            numbers.push_back(attributes.integer(index));
    }
    void endElement(std::string_view) override {}
};

// A whole second: the traces' timeAdjustment, so relative times are these.
constexpr int64_t kStart = 1'700'000'000'000'000'000;

void writePosixCalls(TraceWriter &writer) {
    const int64_t start = kStart;
    writer.beginState("open", Timestamp{start + 100});
    writer.attribute("fid", int64_t{3});
    writer.attribute("flags", int64_t{66});
    writer.endState(Timestamp{start + 200});
    writer.beginState("pwrite", Timestamp{start + 300});
    writer.attribute("fid", int64_t{3});
    writer.attribute("offset", int64_t{4096});
    writer.attribute("asked", int64_t{512});
    writer.attribute("size", int64_t{512});
    writer.endState(Timestamp{start + 400});
    writer.beginState("open", Timestamp{start + 500});  // failed: with its errno
    writer.attribute("fid", int64_t{-1});
    writer.attribute("flags", int64_t{0});
    writer.attribute("errno", int64_t{2});
    writer.endState(Timestamp{start + 600});
}

TEST(CompactShapeTable, SuccessfulPosixCallsHaveStaticShapes) {
    test::ScratchDirectory directory;
    std::string paths[2];
    for (const TraceOptions::Format format :
         {TraceOptions::Format::Xml, TraceOptions::Format::Compact}) {
        TraceOptions options = test::traceOptionsIn(directory, "posix");
        options.format = format;
        options.earliestTime = Timestamp{kStart};
        std::string error;
        auto writer = TraceWriter::create(options, &error);
        ASSERT_TRUE(writer) << error;
        writePosixCalls(*writer);
        ASSERT_EQ(writer->close(), 0);
        paths[format == TraceOptions::Format::Compact] = writer->tracePath();
    }
    FrameFile file(paths[1]);
    ASSERT_EQ(file.frames().size(), 1u);
    std::vector<unsigned char> records;
    ASSERT_TRUE(file.readFrame(0, records));
    Shapes shapes;
    CompactFrameDecoder decoder;
    decoder.decode(records.data(), records.size(), shapes);
    ASSERT_EQ(shapes.seen.size(), 3u);
    const std::vector<std::string> names = {"open", "pwrite", "open"};
    for (size_t i = 0; i < names.size(); ++i) {
        EXPECT_EQ(shapes.seen[i].first, names[i]);
        EXPECT_GE(shapes.seen[i].second, 0) << names[i] << " (" << i << ") has no static shape";
    }
    EXPECT_NE(shapes.seen[0].second, shapes.seen[2].second);  // with and without errno
    // fid, flags, time, end; fid, offset, asked, size, time, end; fid, flags, errno, time, end
    EXPECT_EQ(shapes.numbers, (std::vector<int64_t>{3, 66, 100, 200, 3, 4096, 512, 512, 300, 400,
                                                    -1, 0, 2, 500, 600}));
    // Nothing but the Program and the three elements: no string, no shape.
    const unsigned char *in = records.data();
    const unsigned char *end = in + records.size();
    uint64_t op = 0;
    ASSERT_TRUE(getVarint(&in, end, &op));
    EXPECT_EQ(op, kProgram);
    for (int skip = 0; skip < 3; ++skip)
        ASSERT_TRUE(getVarint(&in, end, &op));
    const uint32_t valueCounts[] = {4, 6, 5};
    for (const uint32_t values : valueCounts) {
        ASSERT_TRUE(getVarint(&in, end, &op));
        EXPECT_GE(op, kFirstElementCode);
        for (uint32_t value = 0; value < values; ++value)
            ASSERT_TRUE(getVarint(&in, end, &op));
    }
    EXPECT_EQ(in, end);

    std::string xml;
    CompactToXml converter(&xml);
    CompactTraceReader traceReader(file);
    traceReader.read(converter);
    converter.drain();
    EXPECT_EQ(xml, test::readFile(paths[0]));
}

// The shapes of successful calls come last: the first of them is the
// first element name the table holds twice.
uint32_t shapesBeforeSuccesses() {
    for (uint32_t shape = 0; shape < staticShapeCount(); ++shape)
        for (uint32_t earlier = 0; earlier < shape; ++earlier)
            if (staticShapes()[earlier].element == staticShapes()[shape].element) return shape;
    return staticShapeCount();
}

void varint(std::vector<unsigned char> &out, uint64_t value) {
    unsigned char bytes[kMaxVarintBytes];
    out.insert(out.end(), bytes, putVarint(bytes, value));
}
void defineString(std::vector<unsigned char> &out, std::string_view text) {
    varint(out, kString);
    varint(out, text.size());
    out.insert(out.end(), text.begin(), text.end());
}

// A frame of the given table with one shape of its own, <Mine level time
// end>, and one element of it, coded right after the table's last shape.
std::vector<unsigned char> frameOfTable(uint32_t fingerprint, uint32_t shapes) {
    std::vector<unsigned char> out;
    varint(out, kProgram);
    varint(out, kRecordsVersion);
    varint(out, fingerprint);
    varint(out, zigzag(5));
    defineString(out, "Mine");
    defineString(out, "level");
    defineString(out, "time");
    defineString(out, "end");
    varint(out, kShape);
    varint(out, 0);
    varint(out, 3);
    for (const auto &[name, coding] :
         {std::pair<uint64_t, uint8_t>{1, kInteger}, {2, kTime}, {3, kEnd}}) {
        varint(out, name);
        out.push_back(coding);
    }
    varint(out, kFirstElementCode + 2 * uint64_t{shapes});
    varint(out, zigzag(7));
    varint(out, zigzag(1000));
    varint(out, zigzag(20));
    return out;
}

// The fingerprint of the table the writers of the first table's calls and
// their successful forms used (before the calls of compact_table 2): their
// traces must always decode.
constexpr uint32_t kFirstTableFingerprint = 1577865131u;

TEST(CompactShapeTable, FramesOfTheEarlierTablesStillDecode) {
    const uint32_t earlier = shapesBeforeSuccesses();
    ASSERT_LT(earlier, staticShapeCount()) << "no shapes of successful calls in the table";
    const std::vector<uint32_t> tables = earlierShapeTables();
    ASSERT_GE(tables.size(), 2u);
    EXPECT_EQ(tables.front(), earlier);
    EXPECT_TRUE(std::is_sorted(tables.begin(), tables.end()));
    EXPECT_LT(tables.back(), staticShapeCount());
    EXPECT_EQ(shapeTableFingerprint(staticShapeCount()), staticShapesFingerprint());
    EXPECT_EQ(staticShapeCountFor(shapeTableFingerprint(staticShapeCount())), staticShapeCount());
    for (const uint32_t shapes : tables)
        EXPECT_EQ(staticShapeCountFor(shapeTableFingerprint(shapes)), shapes);
    EXPECT_EQ(staticShapeCountFor(kFirstTableFingerprint), tables[1]);
    EXPECT_EQ(shapeTableFingerprint(tables[1]), kFirstTableFingerprint);
    EXPECT_EQ(staticShapeCountFor(shapeTableFingerprint(earlier - 1)), 0u);

    std::vector<uint32_t> decoded = tables;
    decoded.push_back(staticShapeCount());
    for (const uint32_t shapes : decoded) {
        SCOPED_TRACE(shapes == staticShapeCount() ? "this table"
                                                  : "a table of " + std::to_string(shapes));
        const std::vector<unsigned char> records =
            frameOfTable(shapeTableFingerprint(shapes), shapes);
        Shapes seen;
        CompactFrameDecoder decoder;
        decoder.decode(records.data(), records.size(), seen);
        EXPECT_EQ(decoder.timeAdjustmentSeconds(), 5);
        ASSERT_EQ(seen.seen.size(), 1u);
        EXPECT_EQ(seen.seen[0].first, "Mine");
        EXPECT_EQ(seen.seen[0].second, -1);
        EXPECT_EQ(seen.numbers, (std::vector<int64_t>{7, 1000, 1020}));
    }

    // Another table's frame is refused, with both fingerprints named.
    const uint32_t other = shapeTableFingerprint(earlier - 1);
    const std::vector<unsigned char> records = frameOfTable(other, earlier);
    Shapes seen;
    CompactFrameDecoder decoder;
    try {
        decoder.decode(records.data(), records.size(), seen);
        ADD_FAILURE() << "a frame of another table decoded";
    } catch (const CompactRecordProblem &problem) {
        EXPECT_NE(problem.problem.find("shape table " + std::to_string(other)), std::string::npos)
            << problem.problem;
    }
    EXPECT_TRUE(seen.seen.empty());
}

}  // namespace
}  // namespace hdtrace::reader
