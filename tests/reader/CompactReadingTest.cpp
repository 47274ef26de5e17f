// The readers over a compact trace against the same readers over the XML
// trace of the same states: one sequence of TraceWriter calls, with the same
// times, written in both forms; every column, event, slice and window read
// from the compact trace must be what the XML trace gives, errors included
// (but the file name); a damaged frame is an error naming the file and the
// byte, and a partial read keeps the frames before it.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/TraceWriter.hpp>
#include <hdtrace/reader/FrameFile.hpp>
#include <hdtrace/reader/TraceReader.hpp>
#include <hdtrace/reader/TraceSlices.hpp>

#include "ColumnsComparison.hpp"
#include "CompactXmlText.hpp"

namespace hdtrace::reader {
namespace {

using testing::compareReaders;
using testing::differences;
using testing::ReadOutcome;
using testing::readOutcome;

Timestamp origin() {
    static const Timestamp at{(Timestamp::now().nanoseconds / 1000000000 - 50) * 1000000000};
    return at;
}

// What a traced program does, rounds times: every attribute the columns
// take (peers, tags, sizes, offsets, requests, files, communicators), a
// split collective's <Data>, completions, nested calls, an event.
void writeCalls(TraceWriter &writer, int rounds) {
    int64_t t = 1000;
    const auto at = [](int64_t ns) { return Timestamp{origin().nanoseconds + ns}; };
    for (int round = 0; round < rounds; ++round) {
        writer.beginState("Isend", at(t));
        writer.attribute("size", int64_t{64 + round});
        writer.attribute("toRank", int64_t{round % 4});
        writer.attribute("toTag", int64_t{round % 3 - 1});
        writer.attribute("cid", int64_t{round % 2});
        writer.attribute("rid", int64_t{round});
        writer.endState(at(t += 700));
        writer.beginState("Sendrecv", at(t += 5));
        writer.attribute("toRank", int64_t{1});
        writer.attribute("toTag", int64_t{7});
        writer.attribute("fromRank", int64_t{2});
        writer.attribute("fromTag", int64_t{8});
        writer.attribute("cid", int64_t{0});
        writer.attribute("sendSize", int64_t{12});
        writer.endState(at(t += 40));
        writer.beginState("Wait", at(t += 5));
        writer.beginElement("For");
        writer.attribute("rid", int64_t{round});
        writer.endElement();
        writer.endState(at(t += 300));
        writer.beginState("File_open", at(t += 5));
        writer.attribute("cid", int64_t{0});
        writer.attribute("name", "data & <more> " + std::to_string(round % 3));
        writer.attribute("fid", int64_t{round});
        writer.endState(at(t += 900));
        writer.beginState("File_write_all_begin", at(t += 5));
        writer.attribute("fid", int64_t{round});
        writer.beginElement("Data");
        writer.attribute("offset", int64_t{round} * 4096);
        writer.attribute("size", int64_t{4096});
        writer.endElement();
        writer.endState(at(t += 50));
        writer.beginState("Allreduce", at(t += 5));  // with a nested call
        writer.beginState("Isend", at(t += 1));
        writer.attribute("toRank", int64_t{3});
        writer.endState(at(t += 2));
        writer.attribute("cid", int64_t{0});
        writer.attribute("size", int64_t{8});
        writer.endState(at(t += 80));
        writer.event("phase", at(t += 3));
        t += round % 5 == 0 ? 1'000'000'000 : 17;
    }
}

struct Written {
    std::string xml, compact;
};

// The trace drive writes in one form; its path.
std::string writeIn(hdtrace::TraceOptions::Format format, const std::string &directory,
                    uint32_t frameBytes, const std::function<void(TraceWriter &)> &drive) {
    hdtrace::TraceOptions options;
    options.directory = directory;
    options.program = "reading";
    options.levels = {"host", "0", "0"};
    options.format = format;
    options.nestedDepth = 2;
    options.earliestTime = origin();
    options.compactFrameBytes = frameBytes;
    std::string error;
    auto writer = TraceWriter::create(options, &error);
    if (!writer) {
        ADD_FAILURE() << error;
        return {};
    }
    drive(*writer);
    EXPECT_EQ(writer->close(), 0);
    return writer->tracePath();
}

// The calls in both forms; extra runs after writeCalls (an attribute the
// readers refuse, say).
template <typename Extra>
Written writeBoth(const std::string &directory, int rounds, uint32_t frameBytes, Extra extra) {
    const auto drive = [&](TraceWriter &writer) {
        writeCalls(writer, rounds);
        extra(writer);
    };
    return {writeIn(hdtrace::TraceOptions::Format::Xml, directory, frameBytes, drive),
            writeIn(hdtrace::TraceOptions::Format::Compact, directory, frameBytes, drive)};
}
Written writeBoth(const std::string &directory, int rounds, uint32_t frameBytes) {
    return writeBoth(directory, rounds, frameBytes, [](TraceWriter &) {});
}

class CompactReading : public ::testing::Test {
  protected:
    void SetUp() override {
        char pattern[] = "/tmp/hdtrace-compact-reading-XXXXXX";
        ASSERT_TRUE(mkdtemp(pattern));
        directory_ = pattern;
    }
    void TearDown() override {
        for (const char *suffix : {".trc", ".ctrc", ".info"})
            std::remove((directory_ + "/reading_host_0_0" + suffix).c_str());
        ::rmdir(directory_.c_str());
    }
    std::string directory_;
};

// The text of an error or damage with the compact file named as the XML.
std::string asXml(std::string text, const Written &paths) {
    for (size_t at; (at = text.find(paths.compact)) != std::string::npos;)
        text.replace(at, paths.compact.size(), paths.xml);
    return text;
}

ReadOutcome namedAsXml(ReadOutcome outcome, const Written &paths) {
    outcome.error = asXml(outcome.error, paths);
    if (outcome.result && outcome.result->damage)
        outcome.result->damage = asXml(*outcome.result->damage, paths);
    return outcome;
}

std::vector<std::string> eventsOf(TraceReader reader, bool withLines = true) {
    std::vector<std::string> out;
    Event event;
    std::function<std::string(const Event &)> text = [&](const Event &e) {
        std::string line = e.name + " " + std::to_string(e.startNs) + "-" +
                           std::to_string(e.endNs) +
                           (withLines ? " @" + std::to_string(e.line) : "");
        for (const Attribute &attribute : e.attributes)
            line += " " + attribute.name + "=" + attribute.value;
        for (const Event &child : e.children)
            line += " [" + text(child) + "]";
        return line;
    };
    while (reader.next(event))
        out.push_back(text(event));
    return out;
}

TEST_F(CompactReading, ColumnsAndEventsAreTheXmlTraces) {
    const Written paths = writeBoth(directory_, 300, 512);
    ASSERT_GT(FrameFile(paths.compact).frames().size(), 20u);
    for (const TraceFilter &filter :
         {TraceFilter{}, TraceFilter{{"Isend", "Wait"}},
          TraceFilter{
              {}, origin().nanoseconds + 3'000'000'000, origin().nanoseconds + 5'000'000'000},
          TraceFilter{{"File_open"}, origin().nanoseconds + 2'000'000'000}}) {
        TraceOptions options;
        options.filter = filter;
        const ReadOutcome xml =
            readOutcome([&] { return readEventColumns(paths.xml, options, nullptr); });
        ASSERT_TRUE(xml.result) << xml.error;
        EXPECT_GT(xml.result->columns.rows(), 10u);
        const ReadOutcome compact =
            readOutcome([&] { return readEventColumns(paths.compact, options, nullptr); });
        ASSERT_TRUE(compact.result) << compact.error;
        EXPECT_FALSE(compact.result->fallback) << *compact.result->fallback;
        EXPECT_EQ(differences(xml, compact), "");
        // The XML form of the compact trace through libxml2, the reference reader.
        EXPECT_EQ(compareReaders(paths.compact, options), "");
        EXPECT_EQ(eventsOf(TraceReader(paths.compact, options)),
                  eventsOf(TraceReader(paths.xml, options)));
    }
}

// Frames of a megabyte hold far more text than a piece: the XML form is
// rendered a piece at a time, inside the frames, and is still the XML trace
// byte for byte, read whole, as events, and up to a time.
TEST_F(CompactReading, TheXmlFormOfLargeFramesIsMadeAPieceAtATime) {
    const Written paths = writeBoth(directory_, 4000, 1u << 20);
    std::ifstream xmlFile(paths.xml, std::ios::binary);
    const std::string xml((std::istreambuf_iterator<char>(xmlFile)),
                          std::istreambuf_iterator<char>());
    const size_t frames = FrameFile(paths.compact).frames().size();
    ASSERT_GT(xml.size() / frames, 8 * CompactXmlText::kLeastPieceBytes)
        << "each frame must hold several pieces of text";
    for (size_t room : {size_t{1}, size_t{4096}, size_t{1} << 20}) {
        CompactXmlText text(openCompactSource(paths.compact, TraceOptions{}));
        std::string read;
        std::vector<char> buffer(room);
        size_t mostHeld = 0;
        for (bool last = false; !last;) {
            read.append(buffer.data(), text.read(buffer.data(), room, &last));
            mostHeld = std::max(mostHeld, text.heldBytes());
        }
        EXPECT_TRUE(read == xml) << "room " << room << ": the text differs from the XML trace";
        EXPECT_LE(mostHeld, std::max(room, CompactXmlText::kLeastPieceBytes) + 4096)
            << "room " << room << ": more text held than a piece and a call";
    }
    EXPECT_EQ(eventsOf(TraceReader(paths.compact)), eventsOf(TraceReader(paths.xml)));
    TraceOptions window;
    window.filter.toNs = origin().nanoseconds + 40'000'000'000;
    EXPECT_EQ(eventsOf(TraceReader(paths.compact, window)),
              eventsOf(TraceReader(paths.xml, window)));
}

TEST_F(CompactReading, SlicesTileTheTraceAtFrames) {
    const Written paths = writeBoth(directory_, 200, 512);
    const FrameFile file(paths.compact);
    const std::vector<FrameInfo> &frames = file.frames();
    ASSERT_GT(frames.size(), 10u);
    const ColumnsResult whole = readEventColumns(paths.xml, {}, nullptr);
    const std::vector<std::string> wholeEvents = eventsOf(TraceReader(paths.xml), false);
    for (uint64_t pieces : {2u, 3u, 5u, 16u}) {
        const uint64_t size = frames.back().offset + 1;
        std::vector<int64_t> starts;
        std::vector<std::string> events;
        uint64_t framesRead = 0;
        for (uint64_t piece = 0; piece < pieces; ++piece) {
            const uint64_t begin = piece * size / pieces;
            const uint64_t end = piece + 1 == pieces ? UINT64_MAX : (piece + 1) * size / pieces;
            const SliceRead slice = readEventColumnsSlice(paths.compact, {}, nullptr, begin, end);
            EXPECT_FALSE(slice.whole);
            starts.insert(starts.end(), slice.result.columns.startNs.begin(),
                          slice.result.columns.startNs.end());
            const std::vector<std::string> sliceEvents =
                eventsOf(TraceReader(paths.compact, {}, begin, end), false);
            events.insert(events.end(), sliceEvents.begin(), sliceEvents.end());
            for (const FrameInfo &frame : frames)
                framesRead += frame.offset >= begin && frame.offset < end;
        }
        EXPECT_EQ(framesRead, frames.size()) << pieces;
        EXPECT_TRUE(std::equal(starts.begin(), starts.end(), whole.columns.startNs.begin(),
                               whole.columns.startNs.end()))
            << pieces << " slices";
        EXPECT_EQ(events, wholeEvents) << pieces << " slices";
    }
}

TEST_F(CompactReading, ValuesTheColumnsRefuseGiveTheXmlTracesError) {
    // A peer beyond the 32-bit column, and a time given as text that is none.
    const auto bigPeer = [](TraceWriter &writer) {
        writer.beginState("Send", Timestamp{origin().nanoseconds + 10});
        writer.attribute("toRank", std::numeric_limits<int64_t>::max());
        writer.endState(Timestamp{origin().nanoseconds + 20});
    };
    const auto textTime = [](TraceWriter &writer) {
        writer.beginState("Barrier", Timestamp{origin().nanoseconds + 10});
        writer.beginElement("Info");
        writer.rawAttributes(" end='soon'");
        writer.endElement();
        writer.endState(Timestamp{origin().nanoseconds + 20});
    };
    for (const std::function<void(TraceWriter &)> &extra :
         {std::function<void(TraceWriter &)>(bigPeer),
          std::function<void(TraceWriter &)>(textTime)}) {
        const Written paths = writeBoth(directory_, 20, 4096, extra);
        for (bool partial : {false, true}) {
            TraceOptions options;
            options.partial = partial;
            const ReadOutcome xml =
                readOutcome([&] { return readEventColumns(paths.xml, options, nullptr); });
            const ReadOutcome compact = namedAsXml(
                readOutcome([&] { return readEventColumns(paths.compact, options, nullptr); }),
                paths);
            EXPECT_TRUE(partial ? xml.result && xml.result->damage : !xml.error.empty());
            EXPECT_EQ(differences(xml, compact), "") << (partial ? "partial" : "strict");
            if (compact.result) {
                EXPECT_TRUE(compact.result->fallback);
            }
        }
        TearDown();
        SetUp();
    }
}

TEST_F(CompactReading, ADamagedFrameNamesItsByteAndAPartialReadKeepsTheFramesBefore) {
    const Written paths = writeBoth(directory_, 200, 512);
    const std::vector<FrameInfo> frames = FrameFile(paths.compact).frames();
    ASSERT_GT(frames.size(), 8u);
    // A byte in the payload of frame 5.
    const uint64_t payload = frames[5].offset + frames[5].headerBytes;
    const uint64_t damaged = payload + 12;
    {
        std::fstream file(paths.compact, std::ios::in | std::ios::out | std::ios::binary);
        file.seekg(static_cast<std::streamoff>(damaged));
        const char byte = static_cast<char>(file.get());
        file.seekp(static_cast<std::streamoff>(damaged));
        file.put(static_cast<char>(byte ^ 0x20));
    }
    const std::string expected = paths.compact + ": byte " + std::to_string(payload) +
                                 ": frame 5: payload checksum mismatch";
    const ReadOutcome strict =
        readOutcome([&] { return readEventColumns(paths.compact, {}, nullptr); });
    EXPECT_EQ(strict.error, expected);
    TraceOptions options;
    options.partial = true;
    const ColumnsResult partial = readEventColumns(paths.compact, options, nullptr);
    EXPECT_EQ(partial.damage, expected);
    // The calls of frames 0 to 4: their records less the Program-only first.
    uint64_t calls = 0;
    for (size_t position = 0; position < 5; ++position)
        calls += frames[position].records;
    const ColumnsResult whole = readEventColumns(paths.xml, {}, nullptr);
    ASSERT_GT(calls, 2u);
    // A record is a top-level call or event, each a row.
    const size_t rows = partial.columns.rows();
    ASSERT_EQ(rows, calls - 1);
    EXPECT_TRUE(std::equal(partial.columns.startNs.begin(), partial.columns.startNs.end(),
                           whole.columns.startNs.begin()));
    // The events stop at the same place.
    TraceReader events(paths.compact, options);
    EXPECT_EQ(eventsOf(std::move(events)).size(), rows);
}

}  // namespace
}  // namespace hdtrace::reader
