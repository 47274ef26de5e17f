// TraceWriter::innerLeafState against the five calls it stands for
// (beginInnerState, the attributes, endInnerState): the same sequence of
// states written both ways must give the same trace byte for byte, in both
// forms (a compact trace's records), whether the writer takes the whole
// leaf or refuses it.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/TraceWriter.hpp>
#include <hdtrace/reader/FrameFile.hpp>

#include "TestSupport.hpp"

namespace hdtrace {
namespace {

using test::readFile;
using test::ScratchDirectory;
using Attribute = TraceWriter::NumberAttribute;

Timestamp at(int64_t nanoseconds) {
    static const int64_t origin = (Timestamp::now().nanoseconds / 1000000000 - 100) * 1000000000;
    return Timestamp{origin + nanoseconds};
}

// How a leaf state is given: whole (innerLeafState, then the five calls
// where it refuses, as the POSIX layer does) or apart (the five calls).
struct LeafWriting {
    bool whole = false;
    int taken = 0;
    int refused = 0;

    void write(TraceWriter &writer, std::string_view name, int64_t start, int64_t end,
               const std::vector<Attribute> &attributes) {
        if (whole) {
            if (writer.innerLeafState(name, at(start), at(end), attributes.data(),
                                      static_cast<uint32_t>(attributes.size()))) {
                ++taken;
                return;
            }
            ++refused;
        }
        writer.beginInnerState(name, at(start));
        for (const Attribute &attribute : attributes)
            writer.attribute(attribute.name, attribute.value);
        writer.endInnerState(at(end));
    }
};

// Random calls with leaf states beneath them, the same for every writer
// given the same seed: mostly pwrite and fwrite in their shapes' order,
// with and without their error attribute, and each way a leaf cannot be
// kept whole: an unknown name, attributes out of order, missing, too
// many, or one more than the shape has; a leaf at the top level, under a
// state that is not written, beneath a deeper state, while a child is
// open, after a leaf that took the general way, and a text leaf between.
void driveLeaves(TraceWriter &writer, LeafWriting &leaves, uint32_t seed) {
    std::mt19937 random(seed);
    const auto chance = [&random](int percent) {
        return static_cast<int>(random() % 100) < percent;
    };
    int64_t t = 1000;
    const auto leaf = [&](bool inOrder) {
        const int64_t start = t += 1 + random() % 20;
        const int64_t end = t += 1 + random() % 20;
        const int64_t offset = static_cast<int64_t>(random() % 100000);
        if (chance(70)) {
            std::vector<Attribute> attributes = {
                {"fid", int64_t{3}}, {"offset", offset}, {"asked", 16}, {"size", 16}};
            if (chance(20)) attributes.push_back({"errno", 28});
            if (!inOrder) {
                switch (random() % 4) {
                    case 0:
                        std::swap(attributes[1], attributes[2]);
                        break;
                    case 1:
                        attributes.pop_back();
                        break;
                    case 2:
                        attributes.push_back({"extra", 1});
                        break;
                    default:
                        attributes.resize(6, Attribute{"errno", 5});
                        break;
                }
            }
            leaves.write(writer, "pwrite", start, end, attributes);
        } else if (chance(80)) {
            leaves.write(writer, "fwrite", start, end,
                         {{"fid", int64_t{4}},
                          {"offset", offset},
                          {"asked", 8},
                          {"size", chance(50) ? 8 : 0}});
        } else {
            leaves.write(writer, "my_inner_call", start, end, {{"level", offset}});
        }
    };
    for (int call = 0; call < 200; ++call) {
        if (chance(5)) leaf(true);  // at the top level
        const bool disabled = chance(5);
        if (disabled) writer.setEnabled(false);
        writer.beginState(chance(80) ? "File_write_at" : "Send", at(t += 1 + random() % 50));
        if (disabled) writer.setEnabled(true);
        const int inner = static_cast<int>(random() % 9);
        for (int state = 0; state < inner; ++state) {
            if (chance(3)) {
                writer.beginState("Barrier", at(t += 1));
                leaf(true);  // beneath a deeper state
                writer.endState(at(t += 1));
            } else if (chance(3)) {
                writer.beginInnerState("lseek", at(t += 1));
                writer.attribute("fid", int64_t{3});
                writer.attribute("whence", "SEEK_SET");
                writer.endInnerState(at(t += 1));
            } else if (chance(2)) {
                writer.beginElement("Data");
                writer.attribute("offset", int64_t{4});
                leaf(true);  // while a child is open
                writer.endElement();
            } else {
                leaf(!chance(10));
            }
        }
        writer.attribute("fid", int64_t{3});
        writer.attribute("offset", int64_t{call});
        writer.attribute("size", int64_t{16});
        writer.attribute("count", int64_t{16});
        writer.attribute("tid", int64_t{call % 4});
        writer.endState(at(t += 1 + random() % 100));
    }
}

// What a trace holds: an XML trace's text, a compact trace's records
// frame by frame (its file header and frame headers hold no state).
std::string contentOf(const std::string &path, TraceOptions::Format format) {
    if (format == TraceOptions::Format::Xml) return readFile(path);
    reader::FrameFile file(path);
    std::string records;
    std::vector<unsigned char> frame;
    for (size_t position = 0; position < file.frames().size(); ++position) {
        EXPECT_TRUE(file.readFrame(position, frame));
        records.append(frame.begin(), frame.end());
        records.append("|frame|");
    }
    return records;
}

std::string writeTrace(const ScratchDirectory &directory, const std::string &program,
                       TraceOptions::Format format, LeafWriting &leaves,
                       const std::function<void(TraceWriter &, LeafWriting &)> &drive) {
    TraceOptions options = test::traceOptionsIn(directory, program);
    options.format = format;
    options.earliestTime = at(0);
    std::string error;
    auto writer = TraceWriter::create(options, &error);
    EXPECT_TRUE(writer) << error;
    if (!writer) return "";
    drive(*writer, leaves);
    EXPECT_EQ(writer->close(), 0);
    return contentOf(writer->tracePath(), format);
}

// Both ways give the same file; returns the leaves given whole.
LeafWriting compareWays(TraceOptions::Format format,
                        const std::function<void(TraceWriter &, LeafWriting &)> &drive) {
    ScratchDirectory directory;
    LeafWriting apart, whole;
    whole.whole = true;
    const std::string expected = writeTrace(directory, "apart", format, apart, drive);
    const std::string written = writeTrace(directory, "whole", format, whole, drive);
    EXPECT_FALSE(expected.empty());
    const auto differs =
        std::mismatch(written.begin(), written.end(), expected.begin(), expected.end()).first;
    EXPECT_TRUE(written == expected) << "the trace differs from byte " << differs - written.begin();
    return whole;
}

TEST(InnerLeafState, RandomLeavesGiveTheSameTraceAsTheirFiveCalls) {
    for (TraceOptions::Format format : {TraceOptions::Format::Xml, TraceOptions::Format::Compact}) {
        int taken = 0, refused = 0;
        for (uint32_t seed = 1; seed <= 40; ++seed) {
            SCOPED_TRACE("seed " + std::to_string(seed) +
                         (format == TraceOptions::Format::Xml ? ", XML" : ", compact"));
            const LeafWriting whole =
                compareWays(format, [seed](TraceWriter &writer, LeafWriting &leaves) {
                    driveLeaves(writer, leaves, seed);
                });
            taken += whole.taken;
            refused += whole.refused;
        }
        // Both ways were taken, often.
        EXPECT_GT(taken, 2000);
        EXPECT_GT(refused, 200);
    }
}

// Each way it refuses, alone, and each after nothing was changed: the
// same call's next leaf is still taken whole (but after a leaf that took
// the general way, which the call's later leaves follow).
TEST(InnerLeafState, RefusesWhatATypedNestedStateCannotHold) {
    const std::vector<Attribute> pwrite = {{"fid", 3}, {"offset", 0}, {"asked", 1}, {"size", 1}};
    for (TraceOptions::Format format : {TraceOptions::Format::Xml, TraceOptions::Format::Compact}) {
        ScratchDirectory directory;
        TraceOptions options = test::traceOptionsIn(directory, "refusals");
        options.format = format;
        options.earliestTime = at(0);
        auto writer = TraceWriter::create(options);
        ASSERT_TRUE(writer);
        const auto whole = [&writer](std::string_view name, std::vector<Attribute> attributes) {
            return writer->innerLeafState(name, at(10), at(11), attributes.data(),
                                          static_cast<uint32_t>(attributes.size()));
        };
        EXPECT_FALSE(whole("pwrite", pwrite)) << "no call open";
        writer->beginState("MyOwnCall", at(1));
        EXPECT_FALSE(whole("pwrite", pwrite)) << "beneath a call of no shape";
        writer->endState(at(20));
        writer->beginState("File_write_at", at(21));
        EXPECT_FALSE(whole("my_inner_call", {{"level", 1}})) << "a name of no shape";
        EXPECT_FALSE(whole("pwrite", {{"offset", 0}, {"fid", 3}})) << "out of order";
        EXPECT_FALSE(whole("pwrite", {{"fid", 3}, {"offset", 0}})) << "too few values";
        std::vector<Attribute> tooMany = pwrite;
        tooMany.push_back({"errno", 1});
        tooMany.push_back({"errno", 2});
        EXPECT_FALSE(whole("pwrite", tooMany)) << "more than the shape has";
        EXPECT_FALSE(whole("fopen", {{"fid", 3}})) << "a shape with a text";
        EXPECT_TRUE(whole("pwrite", pwrite));
        tooMany.pop_back();
        EXPECT_TRUE(whole("pwrite", tooMany)) << "with its error attribute";
        writer->beginElement("Data");
        EXPECT_FALSE(whole("pwrite", pwrite)) << "while a child is open";
        writer->endElement();
        writer->beginState("Barrier", at(30));
        EXPECT_FALSE(whole("pwrite", pwrite)) << "beneath a deeper state";
        writer->endState(at(31));
        writer->endState(at(40));

        writer->beginState("File_write_at", at(41));
        EXPECT_TRUE(whole("pwrite", pwrite));
        writer->beginInnerState("pwrite", at(42));
        writer->attribute("fid", "text");
        writer->endInnerState(at(43));
        EXPECT_FALSE(whole("pwrite", pwrite)) << "after a leaf that took the general way";
        writer->endState(at(50));

        writer->setEnabled(false);
        writer->beginState("File_write_at", at(51));
        writer->setEnabled(true);
        EXPECT_FALSE(whole("pwrite", pwrite)) << "beneath a call that is not written";
        writer->endState(at(60));
        EXPECT_EQ(writer->close(), 0);
    }
}

// A call of more leaves than are kept as values: the ones after the last
// kept take the general way, as they do given apart.
TEST(InnerLeafState, TheLeavesPastTheKeptOnesTakeTheGeneralWay) {
    const auto drive = [](TraceWriter &writer, LeafWriting &leaves) {
        writer.beginState("File_write_at", at(1));
        const int64_t count = TraceWriter::kMaxTypedNested + 3;
        for (int64_t leaf = 0; leaf < count; ++leaf)
            leaves.write(writer, "pwritev", 2 + 2 * leaf, 3 + 2 * leaf,
                         {{"fid", 3}, {"offset", 8 * leaf}, {"asked", 8}, {"size", 8}});
        writer.attribute("fid", int64_t{3});
        writer.endState(at(3 * count));
    };
    for (TraceOptions::Format format : {TraceOptions::Format::Xml, TraceOptions::Format::Compact}) {
        const LeafWriting whole = compareWays(format, drive);
        EXPECT_EQ(whole.taken, static_cast<int>(TraceWriter::kMaxTypedNested));
        EXPECT_EQ(whole.refused, 3);
    }
}

}  // namespace
}  // namespace hdtrace
