// Compact mode against XML mode, in one process: the same sequence of
// TraceWriter calls, with the same times, goes to an XML writer and to a
// compact writer; the compact trace, decoded and rendered as XML, must be
// the XML writer's file byte for byte.
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/TraceWriter.hpp>
#include <hdtrace/codec/CallPlans.hpp>
#include <hdtrace/reader/FrameFile.hpp>
#include <hdtrace/reader/TraceConversion.hpp>

#include "CompactAsXml.hpp"
#include "TestSupport.hpp"

namespace hdtrace {
namespace {

using test::at;
using test::compactAsXml;
using test::readFile;
using test::ScratchDirectory;

// Every shape of the API: known calls (static shapes), unknown names and
// attribute lists, text needing escapes, raw attribute text in and out of
// the canonical form, children, events, nested states, extreme numbers.
void driveStates(TraceWriter &writer, int repetitions) {
    int64_t t = 1000;
    for (int round = 0; round < repetitions; ++round) {
        writer.beginState("Send", at(t));
        writer.attribute("size", int64_t{16});
        writer.attribute("count", int64_t{4});
        writer.attribute("tid", int64_t{round % 7});
        writer.attribute("toRank", int64_t{round % 3});
        writer.attribute("toTag", int64_t{-1});
        writer.attribute("cid", int64_t{0});
        writer.endState(at(t += 1234));

        writer.beginState("Waitall", at(t += 10));
        writer.beginElement("For");
        writer.attribute("rid", int64_t{round * 2});
        writer.endElement();
        writer.beginElement("For");
        writer.attribute("rid", int64_t{round * 2 + 1});
        writer.event("inside", at(t + 3));
        writer.endState(at(t += 99));

        writer.beginState("File_open", at(t += 7));
        writer.attribute("cid", int64_t{1});
        writer.attribute("name", "/tmp/f&<'\"\t\n\x01\xe9 " + std::to_string(round % 5));
        writer.attribute("flags", int64_t{37});
        writer.attribute("fid", int64_t{round});
        writer.beginElement("Info");
        writer.attribute("key", "striping");
        writer.attribute("value", "4");
        writer.endElement();
        writer.endState(at(t += 5000));

        writer.beginState("MyOwnState", at(t += 3));
        writer.attribute("big", std::numeric_limits<int64_t>::max());
        writer.attribute("small", std::numeric_limits<int64_t>::min());
        writer.attribute("minus", int64_t{-42});
        writer.rawAttributes(" x='1' y='abc' z='007'");
        writer.rawAttributes(" odd=\"2\"  w='&amp;'");
        writer.attribute("after", "text");
        writer.beginElement("Custom");
        writer.rawAttributes(" a='b'");
        writer.endElement();
        writer.beginElement("Empty");
        writer.endElement();
        writer.endState(at(t += 1));

        // Nested states, two levels deep, with children of their own.
        writer.beginState("File_write_all", at(t += 5));
        writer.beginState("Allreduce", at(t += 1));
        writer.attribute("size", int64_t{8});
        writer.beginState("Inner", at(t += 1));
        writer.attribute("level", int64_t{2});
        writer.endState(at(t += 1));
        writer.endState(at(t += 1));
        writer.beginState("Irecv", at(t += 1));
        writer.beginElement("For");
        writer.attribute("rid", int64_t{9});
        writer.endElement();
        writer.endState(at(t += 1));
        writer.attribute("fid", int64_t{round});
        writer.endState(at(t += 20));

        // Known calls whose attributes leave the shape's order at each
        // point where the compact writer keeps them as values only: a
        // nested state between them, a child between them, one out of
        // order, one too many, a text one, too few.
        writer.beginState("Isend", at(t += 2));
        writer.attribute("size", int64_t{64});
        writer.attribute("count", int64_t{8});
        writer.beginState("Iprobe", at(t += 1));
        writer.attribute("source", int64_t{1});
        writer.attribute("tag", int64_t{round});
        writer.attribute("cid", int64_t{0});
        writer.endState(at(t += 1));
        writer.attribute("tid", int64_t{3});
        writer.attribute("toRank", int64_t{1});
        writer.attribute("toTag", int64_t{7});
        writer.attribute("cid", int64_t{0});
        writer.attribute("rid", int64_t{round + 100});
        writer.endState(at(t += 4));
        writer.beginState("Send", at(t += 2));
        writer.attribute("size", int64_t{8});
        writer.beginElement("For");
        writer.attribute("rid", int64_t{5});
        writer.endElement();
        writer.attribute("count", int64_t{1});
        writer.attribute("tid", int64_t{3});
        writer.attribute("toRank", int64_t{1});
        writer.attribute("toTag", int64_t{7});
        writer.attribute("cid", int64_t{0});
        writer.endState(at(t += 4));
        writer.beginState("Send", at(t += 2));
        writer.attribute("size", int64_t{8});
        writer.attribute("tid", int64_t{3});
        writer.attribute("count", int64_t{1});
        writer.endState(at(t += 4));
        for (const char *variant : {"one too many", "text", "too few"}) {
            writer.beginState("Iprobe", at(t += 2));
            writer.attribute("source", int64_t{round});
            if (variant[0] == 'o') {
                writer.attribute("tag", int64_t{1});
                writer.attribute("cid", int64_t{2});
                writer.attribute("extra", int64_t{3});
            } else if (variant[0] == 't' && variant[1] == 'e') {
                writer.attribute("tag", "any");
            }
            writer.endState(at(t += 4));
        }
        // Children of known calls, kept as values while they follow their
        // shapes: too many of them, one with too few values, one out of
        // order, one followed by a child with text, one left open.
        writer.beginState("Waitall", at(t += 2));
        for (int64_t rid = 0; rid < 18; ++rid) {
            writer.beginElement("For");
            writer.attribute("rid", rid * round);
            writer.endElement();
        }
        writer.endState(at(t += 4));
        writer.beginState("File_read", at(t += 2));
        writer.attribute("fid", int64_t{round});
        writer.beginElement("Data");
        writer.attribute("offset", int64_t{4096});
        writer.attribute("size", int64_t{10});
        writer.endElement();
        writer.beginElement("Data");
        writer.attribute("size", int64_t{10});
        writer.attribute("offset", int64_t{8192});
        writer.endElement();
        writer.endState(at(t += 4));
        writer.beginState("Wait", at(t += 2));
        writer.beginElement("For");
        writer.attribute("rid", int64_t{round});
        writer.beginElement("Info");
        writer.attribute("key", "k");
        writer.endElement();
        writer.beginElement("For");
        writer.attribute("rid", int64_t{round + 1});
        writer.endState(at(t += 4));
        // One buffer holding two names in turn: the writer's cache of call
        // names by address must look at the text.
        std::string name = "Iprobe";
        for (const char *next : {"Iprobe", "Barrier", "Iprobe"}) {
            name.assign(next);
            writer.beginState(name, at(t += 2));
            writer.attribute("source", int64_t{round});
            writer.attribute("tag", int64_t{2});
            writer.attribute("cid", int64_t{0});
            writer.endState(at(t += 4));
        }

        // Nested leaf states of known calls beneath a known call (the C
        // library calls an MPI-IO call makes), kept as values while they
        // follow their shapes: whole ones with and without their error
        // attribute, then each way one leaves the shapes (too few values,
        // a text value, a child, an event, a state inside it, one out of
        // order, more of them than are kept, one of an unknown name between
        // known ones, the call's own attributes out of order after them).
        const auto pwrite = [&writer, &t](int64_t offset, bool failed) {
            writer.beginInnerState("pwrite", at(t += 1));
            writer.attribute("fid", int64_t{3});
            writer.attribute("offset", offset);
            writer.attribute("asked", int64_t{16});
            writer.attribute("size", failed ? int64_t{-1} : int64_t{16});
            if (failed) writer.attribute("errno", int64_t{28});
            writer.endInnerState(at(t += 2));
        };
        const auto fileWriteAt = [&writer, &t, round](int64_t offset, bool inOrder) {
            writer.attribute("fid", int64_t{3});
            if (inOrder) writer.attribute("offset", offset);
            writer.attribute("size", int64_t{16});
            if (!inOrder) writer.attribute("offset", offset);
            writer.attribute("count", int64_t{16});
            writer.attribute("tid", int64_t{round % 4});
            writer.endState(at(t += 3));
        };
        for (int variant = 0; variant < 11; ++variant) {
            const int64_t offset = 16 * (round * 16 + variant);
            writer.beginState("File_write_at", at(t += 5));
            switch (variant) {
                case 0:
                    pwrite(offset, false);
                    break;
                case 1:
                    pwrite(offset, false);
                    pwrite(offset + 8, true);
                    pwrite(offset + 8, false);
                    break;
                case 2:
                    writer.beginInnerState("pwrite", at(t += 1));
                    writer.attribute("fid", int64_t{3});
                    writer.endInnerState(at(t += 1));
                    pwrite(offset, false);
                    break;
                case 3:
                    pwrite(offset, false);
                    writer.beginInnerState("pwrite", at(t += 1));
                    writer.attribute("fid", int64_t{3});
                    writer.attribute("offset", "unknown");
                    writer.endInnerState(at(t += 1));
                    pwrite(offset, false);
                    break;
                case 4:
                    pwrite(offset, false);
                    writer.beginInnerState("pwrite", at(t += 1));
                    writer.attribute("fid", int64_t{3});
                    writer.beginElement("Data");
                    writer.attribute("offset", offset);
                    writer.endElement();
                    writer.endInnerState(at(t += 1));
                    break;
                case 5:
                    pwrite(offset, false);
                    writer.beginInnerState("pwrite", at(t += 1));
                    writer.attribute("fid", int64_t{3});
                    writer.event("inside", at(t += 1));
                    writer.endInnerState(at(t += 1));
                    break;
                case 6:
                    pwrite(offset, false);
                    writer.beginState("Allreduce", at(t += 1));
                    writer.attribute("fid", int64_t{3});
                    writer.beginState("Barrier", at(t += 1));
                    writer.attribute("cid", int64_t{0});
                    writer.endState(at(t += 1));
                    writer.endState(at(t += 1));
                    pwrite(offset, false);
                    break;
                case 7:
                    pwrite(offset, false);
                    writer.beginInnerState("pwrite", at(t += 1));
                    writer.attribute("offset", offset);
                    writer.attribute("fid", int64_t{3});
                    writer.endInnerState(at(t += 1));
                    break;
                case 8:
                    for (int64_t more = 0; more < 11; ++more)
                        pwrite(offset + more, more % 5 == 4);
                    break;
                case 9:
                    pwrite(offset, false);
                    writer.beginInnerState("my_own_call", at(t += 1));
                    writer.attribute("fid", int64_t{3});
                    writer.endInnerState(at(t += 1));
                    pwrite(offset, false);
                    break;
                default:
                    pwrite(offset, false);
                    pwrite(offset, false);
                    break;
            }
            fileWriteAt(offset, variant != 10);
        }

        // Known calls with text values, kept as values too while they follow
        // their shapes: the same text again and a new one (each frame
        // defines its strings once), texts needing escapes and an empty one,
        // a text made for the call only (the writer keeps a copy), nested
        // states beneath, and the ways out: an integer where the shape has a
        // text, a text where it has an integer.
        const char *transfers[] = {"collective", "independent", "", "a&b<'c'>"};
        for (int variant = 0; variant < 7; ++variant) {
            writer.beginState("H5Dwrite", at(t += 5));
            if (variant == 3) pwrite(4096 * round, false);
            writer.attribute("fid", int64_t{3});
            writer.attribute("dataset", int64_t{round % 3});
            writer.attribute("size", int64_t{128});
            writer.attribute("memTypeSize", int64_t{8});
            writer.attribute("fileTypeSize", int64_t{8});
            if (variant == 4) {
                writer.attribute("transfer", int64_t{1});
            } else if (variant == 5) {
                writer.attribute("transfer", std::string("made ") + std::to_string(round));
            } else {
                writer.attribute("transfer", transfers[(variant + round) % 4]);
            }
            if (variant == 6) {
                writer.attribute("error", "none");
            } else if (variant % 2 == 1) {
                writer.attribute("error", int64_t{-1});
            }
            writer.endState(at(t += 7));
        }

        writer.event("marker & <event>", at(t += 2));
        // A time before timeAdjustment: negative relative times.
        writer.beginState("Barrier", Timestamp{at(0).nanoseconds - 5});
        writer.attribute("cid", int64_t{0});
        writer.endState(at(t += 3));
        t += round % 2 ? 1'000'000'007 : 13;
    }
}

struct Pair {
    std::string xml, compact;
};

Pair writeBoth(const ScratchDirectory &directory, const std::function<void(TraceWriter &)> &drive,
               bool forceFlush, uint32_t frameBytes, int compactLevel = 1) {
    Pair paths;
    for (TraceOptions::Format format : {TraceOptions::Format::Xml, TraceOptions::Format::Compact}) {
        TraceOptions options = test::traceOptionsIn(directory, "roundtrip");
        options.format = format;
        options.nestedDepth = 3;
        options.forceFlush = forceFlush;
        options.earliestTime = at(0);
        options.compactFrameBytes = frameBytes;
        options.compactLevel = compactLevel;
        std::string error;
        auto writer = TraceWriter::create(options, &error);
        EXPECT_TRUE(writer) << error;
        if (!writer) return paths;
        drive(*writer);
        EXPECT_EQ(writer->close(), 0);
        (format == TraceOptions::Format::Xml ? paths.xml : paths.compact) = writer->tracePath();
    }
    return paths;
}

Pair writeBoth(const ScratchDirectory &directory, int repetitions, bool forceFlush,
               uint32_t frameBytes) {
    return writeBoth(
        directory, [repetitions](TraceWriter &writer) { driveStates(writer, repetitions); },
        forceFlush, frameBytes);
}

// Random sequences, the same for both writers (each writer's generator
// starts from the same number): calls of known shapes whose attributes mostly come in order,
// nested states beneath them (most of them leaves of known shapes), texts,
// children, events, deeper states and unknown names, each now and then.
void driveRandomStates(TraceWriter &writer, uint32_t seed) {
    std::mt19937 random(seed);
    const auto chance = [&random](int percent) {
        return static_cast<int>(random() % 100) < percent;
    };
    struct Shape {
        const char *name;
        std::vector<const char *> attributes;  // "$" before a text attribute's name
    };
    const std::vector<Shape> calls = {
        {"File_write_at", {"fid", "offset", "size", "count", "tid"}},
        {"H5Dwrite",
         {"fid", "dataset", "size", "memTypeSize", "fileTypeSize", "$transfer", "error"}},
        {"Send", {"size", "count", "tid", "toRank", "toTag", "cid"}},
        {"Waitall", {}},
        {"my_call", {"fid", "$name"}},
    };
    const std::vector<Shape> nested = {
        {"pwrite", {"fid", "offset", "asked", "size", "errno"}},
        {"fwrite", {"fid", "asked", "size", "errno"}},
        {"Allreduce", {"size", "count", "cid"}},
        {"my_inner", {"level"}},
    };
    const char *texts[] = {"collective", "independent", "", "x&<'>\"", "a longer text value"};
    int64_t t = 1000;
    const auto attributes = [&](const Shape &shape) {
        size_t count = shape.attributes.size();
        if (chance(30) && count > 0) count -= 1 + random() % count;  // fewer
        for (size_t index = 0; index < count; ++index) {
            size_t which = index;
            if (chance(5)) which = random() % shape.attributes.size();  // out of order
            const char *name = shape.attributes[which];
            const bool text = name[0] == '$';
            if (text) ++name;
            if (text != chance(4))  // now and then the other kind
                writer.attribute(name, texts[random() % 5]);
            else
                writer.attribute(name, static_cast<int64_t>(random() % 64) - 8);
        }
        if (chance(3)) writer.attribute("extra", int64_t{7});
    };
    for (int call = 0; call < 60; ++call) {
        const Shape &shape = calls[random() % calls.size()];
        writer.beginState(shape.name, at(t += 1 + random() % 50));
        const int inner = chance(50) ? static_cast<int>(random() % 11) : 0;
        for (int state = 0; state < inner; ++state) {
            const Shape &below = nested[chance(80) ? 0 : random() % nested.size()];
            const bool asInner = chance(70);
            if (asInner)
                writer.beginInnerState(below.name, at(t += 1 + random() % 20));
            else
                writer.beginState(below.name, at(t += 1 + random() % 20));
            attributes(below);
            if (chance(4)) {
                writer.beginElement("Data");
                writer.attribute("offset", int64_t{4});
                writer.endElement();
            }
            if (chance(3)) writer.event("inside", at(t += 1));
            if (chance(4)) {
                writer.beginState("Barrier", at(t += 1));
                writer.attribute("cid", int64_t{0});
                writer.endState(at(t += 1));
            }
            if (asInner)
                writer.endInnerState(at(t += 1 + random() % 20));
            else
                writer.endState(at(t += 1 + random() % 20));
        }
        attributes(shape);
        const int children = shape.attributes.empty() ? static_cast<int>(random() % 4) : 0;
        for (int child = 0; child < children; ++child) {
            writer.beginElement("For");
            writer.attribute("rid", static_cast<int64_t>(random() % 9));
            writer.endElement();
        }
        if (chance(3)) writer.event("after", at(t += 1));
        writer.endState(at(t += 1 + random() % 100));
    }
}

// "" when equal, else the first line where they differ, with the line before.
std::string firstDifference(const std::string &compact, const std::string &xml) {
    size_t line = 1, start = 0, previous = 0;
    for (size_t at = 0; at < compact.size() || at < xml.size(); ++at) {
        if (at < compact.size() && at < xml.size() && compact[at] == xml[at]) {
            if (xml[at] == '\n') {
                ++line;
                previous = start;
                start = at + 1;
            }
            continue;
        }
        const auto lineAt = [start](const std::string &text) {
            const size_t end = text.find('\n', start);
            return start < text.size() ? text.substr(start, end - start) : std::string("(end)");
        };
        return "line " + std::to_string(line) + ", after " +
               xml.substr(previous, start - previous) + "compact: " + lineAt(compact) +
               "\nxml:     " + lineAt(xml);
    }
    return "";
}

TEST(CompactRoundTrip, OneFrameGivesTheXmlModeTextByteForByte) {
    ScratchDirectory directory;
    const Pair paths = writeBoth(directory, 3, false, 1u << 20);
    EXPECT_EQ(paths.compact.substr(paths.compact.size() - 5), ".ctrc");
    EXPECT_EQ(reader::FrameFile(paths.compact).frames().size(), 1u);
    EXPECT_EQ(compactAsXml(paths.compact), readFile(paths.xml));
}

TEST(CompactRoundTrip, ManyFramesEachDecodingOnItsOwn) {
    ScratchDirectory directory;
    const Pair paths = writeBoth(directory, 400, false, 4096);
    reader::FrameFile file(paths.compact);
    ASSERT_GT(file.frames().size(), 10u);
    EXPECT_EQ(compactAsXml(paths.compact), readFile(paths.xml));

    // Every frame alone: begins with its Program and decodes without the
    // frames before it.
    struct Count final : CompactHandler {
        int starts = 0, ends = 0;
        int64_t adjustment = -1;
        void frameStart(int64_t seconds) override { adjustment = seconds; }
        void startElement(std::string_view, const CompactAttributes &) override { ++starts; }
        void endElement(std::string_view) override { ++ends; }
    };
    CompactFrameDecoder decoder;
    std::vector<unsigned char> records;
    for (size_t position = file.frames().size(); position-- > 0;) {
        ASSERT_TRUE(file.readFrame(position, records));
        Count count;
        decoder.decode(records.data(), records.size(), count);
        EXPECT_EQ(count.adjustment, at(0).nanoseconds / 1000000000);
        EXPECT_EQ(count.starts, count.ends);
    }
}

TEST(CompactRoundTrip, AStateLargerThanAFrameIsLeftOutAndTheRestReads) {
    // The same calls with and without one state larger than a compact
    // frame among them: the compact trace that had it reads as the XML
    // mode's trace of the calls without it.
    bool withLargeState = false;
    const auto drive = [&withLargeState](TraceWriter &writer) {
        for (int call = 0; call < 200; ++call) {
            writer.beginState("File_write_at", at(1000 * call));
            writer.attribute("fid", int64_t{3});
            writer.attribute("offset", int64_t{16} * call);
            writer.attribute("size", int64_t{16});
            writer.attribute("count", int64_t{16});
            writer.attribute("tid", int64_t{1});
            writer.endState(at(1000 * call + 500));
            if (withLargeState && call == 120) {
                writer.beginState("my_call", at(1000 * call + 600));
                writer.attribute("name", std::string(6000, 'x'));
                writer.endState(at(1000 * call + 700));
            }
        }
    };
    ScratchDirectory without;
    const Pair plain = writeBoth(without, drive, false, 4096);
    withLargeState = true;
    ScratchDirectory with;
    const Pair large = writeBoth(with, drive, false, 4096);
    const std::string xml = readFile(plain.xml);
    ASSERT_NE(xml.find("File_write_at"), std::string::npos);
    EXPECT_NE(readFile(large.xml).find(std::string(6000, 'x')), std::string::npos);
    EXPECT_EQ(firstDifference(compactAsXml(large.compact), xml), "");
}

TEST(CompactRoundTrip, StoredFramesGiveTheSameTraceUncompressed) {
    // Level 0: the frames hold the records as they are, and read as the
    // compressed ones do.
    ScratchDirectory directory;
    const Pair paths = writeBoth(
        directory, [](TraceWriter &writer) { driveStates(writer, 400); }, false, 4096, 0);
    reader::FrameFile file(paths.compact);
    ASSERT_GT(file.frames().size(), 10u);
    for (const reader::FrameInfo &frame : file.frames())
        EXPECT_EQ(frame.storedBytes, frame.rawBytes) << "frame at " << frame.offset;
    EXPECT_EQ(firstDifference(compactAsXml(paths.compact), readFile(paths.xml)), "");

    ScratchDirectory compressedDirectory;
    const Pair compressed = writeBoth(
        compressedDirectory, [](TraceWriter &writer) { driveStates(writer, 400); }, false, 4096, 1);
    reader::FrameFile compressedFile(compressed.compact);
    uint64_t storedBytes = 0, compressedBytes = 0;
    for (const reader::FrameInfo &frame : file.frames())
        storedBytes += frame.storedBytes;
    for (const reader::FrameInfo &frame : compressedFile.frames())
        compressedBytes += frame.storedBytes;
    EXPECT_LT(compressedBytes, storedBytes);
}

TEST(CompactRoundTrip, RandomSequencesGiveTheXmlModeText) {
    for (uint32_t seed = 1; seed <= 300; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        ScratchDirectory directory;
        const Pair paths = writeBoth(
            directory, [seed](TraceWriter &writer) { driveRandomStates(writer, seed); },
            seed % 7 == 0, seed % 2 ? 4096 : 1u << 20);
        const std::string fromCompact = compactAsXml(paths.compact);
        const std::string xml = readFile(paths.xml);
        ASSERT_EQ(firstDifference(fromCompact, xml), "") << "the whole XML:\n" << xml;
    }
}

// The records of every frame of a compact trace, decoded from zstd.
std::vector<std::vector<unsigned char>> frameRecords(const std::string &path) {
    reader::FrameFile file(path);
    std::vector<std::vector<unsigned char>> frames(file.frames().size());
    for (size_t position = 0; position < frames.size(); ++position)
        EXPECT_TRUE(file.readFrame(position, frames[position]));
    return frames;
}

// File writes at random times: MPI-IO calls with their pwrites beneath
// them (what the writer codes in place from their values), some beneath
// an HDF5 call, some with a state that is not a leaf among their nested
// ones (both of which take the general encoder), and calls between them.
void driveNestedWrites(TraceWriter &writer, uint32_t seed) {
    std::mt19937 random(seed);
    int64_t t = 100;
    const auto later = [&random, &t](uint32_t most) { return at(t += 1 + random() % most); };
    const auto pwrite = [&writer, &later](int64_t offset) {
        writer.beginInnerState("pwrite", later(300));
        writer.attribute("fid", int64_t{3});
        writer.attribute("offset", offset);
        writer.attribute("asked", int64_t{16});
        writer.attribute("size", int64_t{16});
        writer.endInnerState(later(3000));
    };
    const auto fileWriteAt = [&writer, &later, &pwrite, &random](int64_t offset) {
        writer.beginState("File_write_at", later(500));
        const uint32_t pwrites = random() % 3;
        for (uint32_t index = 0; index < pwrites; ++index)
            pwrite(offset + 16 * index);
        if (random() % 5 == 0) {
            writer.beginState("Barrier", later(100));
            writer.attribute("cid", int64_t{0});
            writer.endState(later(100));
        }
        writer.attribute("fid", int64_t{1});
        writer.attribute("offset", offset);
        writer.attribute("size", int64_t{16});
        writer.attribute("count", int64_t{16});
        writer.attribute("tid", int64_t{1});
        writer.endState(later(400));
    };
    for (int64_t call = 0; call < 200; ++call) {
        if (random() % 4 == 0) {
            writer.beginState("H5Dwrite", later(500));
            fileWriteAt(64 * call);
            writer.attribute("fid", int64_t{1});
            writer.endState(later(400));
        } else {
            fileWriteAt(64 * call);
        }
        if (random() % 3 == 0) {
            writer.beginState("Barrier", later(1000));
            writer.attribute("cid", int64_t{0});
            writer.endState(later(1000));
        }
    }
}

// The writer codes most calls in place from their values; the XML trace
// converted to compact goes through the general encoder, which must find
// the same bytes, <Nested> blocks with their owners' starts included.
TEST(CompactRoundTrip, TheGeneralEncoderWritesTheTypedPathsRecords) {
    for (uint32_t seed = 1; seed <= 40; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        ScratchDirectory directory;
        const Pair paths = writeBoth(
            directory, [seed](TraceWriter &writer) { driveNestedWrites(writer, seed); }, false,
            1u << 20);
        EXPECT_EQ(compactAsXml(paths.compact), readFile(paths.xml));
        const std::string converted = directory.path() + "/converted.ctrc";
        reader::convertTrace(paths.xml, converted, reader::TraceForm::Compact, 1u << 20);
        const auto written = frameRecords(paths.compact);
        ASSERT_EQ(written.size(), 1u);
        ASSERT_EQ(frameRecords(converted), written);
    }
}

// An MPI-IO call may make hundreds of C library calls (Open MPI's own
// MPI-IO writes each piece of a strided file view with a pwritev of its
// own). As many as the writer keeps as values, and more than that, some
// of them failed: every nested call in its place, and the records and text
// the general way gives.
TEST(CompactRoundTrip, ACallOfManyNestedCallsGivesTheGeneralWaysRecords) {
    // Nested calls per call, and calls: more than the writer keeps room for
    // between calls, and more than it keeps as values.
    const std::pair<uint32_t, int> cases[] = {
        {600u, 3}, {TraceWriter::kKeptTypedNested + 5, 3}, {TraceWriter::kMaxTypedNested + 3, 1}};
    for (const auto &[count, calls] : cases) {
        SCOPED_TRACE(std::to_string(count) + " nested calls");
        // generalWay: each call's nested states begin with one of a name
        // no plan has, which sends them all the general way.
        const auto drive = [count = count, calls = calls](TraceWriter &writer, bool generalWay) {
            int64_t t = 100;
            for (int64_t call = 0; call < calls; ++call) {
                writer.beginState("File_write_at_all", at(t += 50));
                if (generalWay) {
                    writer.beginInnerState("my_own_call", at(t));
                    writer.endInnerState(at(t));
                }
                for (uint32_t index = 0; index < count; ++index) {
                    const bool failed = index % 97 == 5;
                    writer.beginInnerState("pwritev", at(t += 3));
                    writer.attribute("fid", int64_t{1});
                    writer.attribute("offset", int64_t{16} * index);
                    writer.attribute("asked", int64_t{8});
                    writer.attribute("size", failed ? int64_t{-1} : int64_t{8});
                    if (failed) writer.attribute("errno", int64_t{5});
                    writer.endInnerState(at(t += 7 + index % 13));
                }
                writer.attribute("fid", int64_t{1});
                writer.attribute("offset", int64_t{0});
                writer.attribute("size", int64_t{8} * count);
                writer.attribute("count", int64_t{count});
                writer.attribute("tid", int64_t{2});
                writer.endState(at(t += 20));
            }
        };
        ScratchDirectory directory;
        const Pair paths = writeBoth(
            directory, [&drive](TraceWriter &writer) { drive(writer, false); }, false, 1u << 20);
        const std::string xml = readFile(paths.xml);
        EXPECT_EQ(compactAsXml(paths.compact), xml);

        // The general way's text, without the state that sent them there.
        ScratchDirectory generalDirectory;
        const Pair general = writeBoth(
            generalDirectory, [&drive](TraceWriter &writer) { drive(writer, true); }, false,
            1u << 20);
        std::string generalXml = readFile(general.xml);
        for (size_t found; (found = generalXml.find("  <my_own_call ")) != std::string::npos;)
            generalXml.erase(found, generalXml.find('\n', found) + 1 - found);
        EXPECT_EQ(generalXml, xml);

        // Each call's nested calls in order, before it.
        size_t position = 0;
        for (int call = 0; call < calls; ++call) {
            position = xml.find("<Nested>", position);
            ASSERT_NE(position, std::string::npos);
            for (uint32_t index = 0; index < count; ++index) {
                const bool failed = index % 97 == 5;
                position = xml.find("<pwritev fid='1' offset='" + std::to_string(16 * index) +
                                        "' asked='8' size='" + (failed ? "-1' errno='5'" : "8'"),
                                    position);
                ASSERT_NE(position, std::string::npos) << "call " << call << ", pwritev " << index;
            }
            position = xml.find("</Nested>\n<File_write_at_all fid='1' offset='0' size='" +
                                    std::to_string(8 * count) + "'",
                                position);
            ASSERT_NE(position, std::string::npos) << "call " << call;
        }
        EXPECT_EQ(xml.find("<Nested>", position), std::string::npos);

        const std::string converted = directory.path() + "/converted.ctrc";
        reader::convertTrace(paths.xml, converted, reader::TraceForm::Compact, 1u << 20);
        const auto written = frameRecords(paths.compact);
        ASSERT_EQ(written.size(), 1u);
        ASSERT_EQ(frameRecords(converted), written);
    }
}

TEST(CompactRoundTrip, ForceFlushWritesAFramePerState) {
    ScratchDirectory directory;
    const Pair paths = writeBoth(directory, 2, true, 1u << 20);
    reader::FrameFile file(paths.compact);
    // The Program alone, then one frame per top-level state or event.
    EXPECT_EQ(file.frames().size(), 1u + 2u * 37u);
    EXPECT_EQ(compactAsXml(paths.compact), readFile(paths.xml));
}

TEST(CompactRoundTrip, EmptyTraceSaysItsTimeAdjustment) {
    ScratchDirectory directory;
    const Pair paths = writeBoth(directory, 0, false, 1u << 20);
    EXPECT_EQ(compactAsXml(paths.compact), readFile(paths.xml));
}

TEST(CompactRoundTrip, AttributesAnswerAsAnXmlParserWould) {
    ScratchDirectory directory;
    const Pair paths = writeBoth(directory, 1, false, 1u << 20);
    struct Find final : CompactHandler {
        std::vector<std::string> seen;
        void startElement(std::string_view name, const CompactAttributes &a) override {
            std::string line(name);
            for (int i = 0; i < a.size(); ++i)
                line += " " + std::string(a.name(i)) + "=" + std::string(a.value(i));
            seen.push_back(line);
        }
        void endElement(std::string_view) override {}
    } find;
    reader::FrameFile file(paths.compact);
    reader::CompactTraceReader(file).read(find);
    const std::string adjustment = std::to_string(at(0).nanoseconds / 1000000000);
    ASSERT_GE(find.seen.size(), 4u);
    EXPECT_EQ(find.seen[0], "Program timeAdjustment=" + adjustment);
    EXPECT_EQ(
        find.seen[1],
        "Send size=16 count=4 tid=0 toRank=0 toTag=-1 cid=0 time=0.000001000 end=0.000002234");
    bool sawOwn = false;
    for (const std::string &line : find.seen) {
        if (line.rfind("MyOwnState", 0) != 0) continue;
        sawOwn = true;
        EXPECT_EQ(line,
                  "MyOwnState big=9223372036854775807 small=-9223372036854775808 minus=-42 "
                  "x=1 y=abc z=007 odd=2 w=& after=text time=0.000007353 end=0.000007354");
    }
    EXPECT_TRUE(sawOwn);
}

// Each form writes a call of the dialect from its values when its
// attributes come in its plan's order (the typed way), and from its parts
// otherwise (the general way). For every call of the dialect, alone and
// with a nested C library call and a child element, both ways must give
// the same text: the typed way's XML is rendered from the plan's names,
// its compact record coded from the values.
void driveEveryCall(TraceWriter &writer, bool general, bool withParts) {
    uint32_t count = 0;
    const CallPlan *plans = callPlans(&count);
    int64_t t = 1000;
    for (uint32_t index = 0; index < count; ++index) {
        const CallPlan &plan = plans[index];
        if (!plan.timed) continue;
        const std::string name(plan.element);
        writer.beginState(name, at(t += 3));
        // Raw attribute text, even none, takes the call the general way.
        if (general) writer.rawAttributes("");
        if (withParts) {
            writer.beginInnerState("pwrite", at(t += 1));
            for (const char *attribute : {"fid", "offset", "asked", "size"})
                writer.attribute(attribute, static_cast<int64_t>(index) * 16);
            writer.endInnerState(at(t += 2));
        }
        for (uint32_t attribute = 0; attribute < plan.own; ++attribute) {
            const std::string_view attributeName = plan.attributes[attribute].name;
            if (plan.attributes[attribute].coding == compact::kText)
                writer.attribute(attributeName, "<a&b '" + name + "'>\t\xc3\xa9");
            else
                writer.attribute(attributeName, static_cast<int64_t>(attribute) * 1000003 -
                                                    static_cast<int64_t>(index) * 7);
        }
        if (withParts) {
            writer.beginElement("For");
            writer.attribute("rid", static_cast<int64_t>(index));
            writer.endElement();
        }
        writer.endState(at(t += 11));
    }
}

TEST(CompactRoundTrip, EveryCallOfTheDialectGivesTheSameTextTypedOrNot) {
    uint32_t count = 0;
    callPlans(&count);
    ASSERT_GT(count, 100u);  // every call of the dialect, not a handful
    for (bool withParts : {false, true}) {
        SCOPED_TRACE(withParts ? "with a nested call and a child" : "alone");
        ScratchDirectory typedDirectory, generalDirectory;
        const Pair typed = writeBoth(
            typedDirectory,
            [withParts](TraceWriter &writer) { driveEveryCall(writer, false, withParts); }, false,
            1u << 20);
        const Pair general = writeBoth(
            generalDirectory,
            [withParts](TraceWriter &writer) { driveEveryCall(writer, true, withParts); }, false,
            1u << 20);
        const std::string generalXml = readFile(general.xml);
        ASSERT_NE(generalXml.find(withParts ? "<Nested>" : "<File_write_at "), std::string::npos);
        EXPECT_EQ(firstDifference(readFile(typed.xml), generalXml), "");
        EXPECT_EQ(firstDifference(compactAsXml(typed.compact), generalXml), "");
        EXPECT_EQ(firstDifference(compactAsXml(general.compact), generalXml), "");
    }
}

}  // namespace
}  // namespace hdtrace
