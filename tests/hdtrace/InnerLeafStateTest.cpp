// TraceWriter::innerLeafState against the five calls it stands for
// (beginInnerState, the attributes, endInnerState): the same sequence of
// states written both ways must give the same trace byte for byte, in both
// forms (a compact trace's records), whether the writer takes the whole
// leaf or refuses it.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <random>
#include <string>
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

// The names of the common leaves, as the POSIX layer's tables: the same
// array call after call.
constexpr std::string_view kAccessNames[] = {"fid", "offset", "asked", "size", "errno"};
constexpr std::string_view kSeekNames[] = {"fid", "relative-offset", "whence", "offset", "errno"};

// How a leaf state is given: whole (innerLeafState, then the five calls
// where it refuses, as the POSIX layer does) or apart (the five calls).
// Names made for one leaf are kept as long as the writer.
struct LeafWriting {
    bool whole = false;
    int taken = 0;
    int refused = 0;
    std::deque<std::vector<std::string_view>> madeNames;

    const std::string_view *keep(std::vector<std::string_view> names) {
        return madeNames.emplace_back(std::move(names)).data();
    }
    void write(TraceWriter &writer, std::string_view name, int64_t start, int64_t end,
               const std::string_view *names, const std::vector<int64_t> &values) {
        const auto count = static_cast<uint32_t>(values.size());
        if (whole) {
            if (writer.innerLeafState(name, at(start), at(end), names, values.data(), count)) {
                ++taken;
                return;
            }
            ++refused;
        }
        writer.beginInnerState(name, at(start));
        for (uint32_t index = 0; index < count; ++index)
            writer.attribute(names[index], values[index]);
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
        const char *call = chance(80) ? "pwrite" : "pwritev";
        if (chance(70)) {
            std::vector<int64_t> values = {3, offset, 16, 16};
            if (chance(20)) values.push_back(28);
            const std::string_view *names = kAccessNames;
            if (!inOrder) {
                std::vector<std::string_view> mixed(kAccessNames, kAccessNames + 5);
                switch (random() % 4) {
                    case 0:
                        std::swap(mixed[1], mixed[2]);
                        break;
                    case 1:
                        values.pop_back();
                        break;
                    case 2:
                        mixed.insert(mixed.begin() + static_cast<long>(values.size()), "extra");
                        values.push_back(1);
                        break;
                    default:
                        values.resize(6, 5);
                        mixed.resize(6, "errno");
                        break;
                }
                names = leaves.keep(std::move(mixed));
            }
            leaves.write(writer, call, start, end, names, values);
        } else if (chance(70)) {
            leaves.write(writer, "fwrite", start, end, kAccessNames,
                         {4, offset, 8, chance(50) ? 8 : 0});
        } else if (chance(50)) {
            // A shape with a text, given numbers: refused.
            leaves.write(writer, "lseek", start, end, kSeekNames, {3, 0, 0, offset});
        } else {
            leaves.write(writer, "my_inner_call", start, end, leaves.keep({"level"}), {offset});
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
    const std::string path = test::writeTraceBy(
        directory, program, format, [&](TraceWriter &writer) { drive(writer, leaves); });
    return path.empty() ? "" : contentOf(path, format);
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
    const std::vector<int64_t> pwrite = {3, 0, 1, 1};
    const auto drive = [&pwrite](TraceWriter &writer) {
        std::deque<std::vector<std::string_view>> kept;
        const auto whole = [&writer](std::string_view name, const std::string_view *names,
                                     const std::vector<int64_t> &values) {
            return writer.innerLeafState(name, at(10), at(11), names, values.data(),
                                         static_cast<uint32_t>(values.size()));
        };
        const auto names = [&kept](std::vector<std::string_view> list) {
            return kept.emplace_back(std::move(list)).data();
        };
        EXPECT_FALSE(whole("pwrite", kAccessNames, pwrite)) << "no call open";
        writer.beginState("MyOwnCall", at(1));
        EXPECT_FALSE(whole("pwrite", kAccessNames, pwrite)) << "beneath a call of no shape";
        writer.endState(at(20));
        writer.beginState("File_write_at", at(21));
        EXPECT_FALSE(whole("my_inner_call", names({"level"}), {1})) << "a name of no shape";
        EXPECT_FALSE(whole("pwrite", names({"offset", "fid"}), {0, 3})) << "out of order";
        EXPECT_FALSE(whole("pwrite", kAccessNames, {3, 0})) << "too few values";
        EXPECT_FALSE(whole("pwrite", names({"fid", "offset", "asked", "size", "errno", "errno"}),
                           {3, 0, 1, 1, 1, 2}))
            << "more than the shape has";
        EXPECT_FALSE(whole("fopen", names({"fid"}), {3})) << "a shape with a text";
        EXPECT_TRUE(whole("pwrite", kAccessNames, pwrite));
        EXPECT_TRUE(whole("pwrite", kAccessNames, {3, 0, 1, -1, 5})) << "with its error";
        // Names found in order for one plan and count are not taken for
        // another plan, nor for more of them.
        const std::string_view *fourRight = names({"fid", "offset", "asked", "size", "error"});
        EXPECT_TRUE(whole("pwrite", fourRight, pwrite));
        EXPECT_FALSE(whole("pwrite", fourRight, {3, 0, 1, -1, 5})) << "a fifth name unlike";
        const std::string_view *fwriteNames = names({"fid", "asked", "offset", "size"});
        EXPECT_FALSE(whole("fwrite", fwriteNames, pwrite)) << "out of order";
        EXPECT_FALSE(whole("pwritev", fwriteNames, pwrite)) << "another plan, out of order";
        EXPECT_TRUE(whole("pwritev", kAccessNames, pwrite)) << "another plan, in order";
        const std::string_view *truncateNames = names({"fid", "size"});
        EXPECT_TRUE(whole("ftruncate", truncateNames, {3, 0}));
        EXPECT_FALSE(whole("open", truncateNames, {3, 0})) << "the same names, another plan";
        writer.beginElement("Data");
        EXPECT_FALSE(whole("pwrite", kAccessNames, pwrite)) << "while a child is open";
        writer.endElement();
        writer.beginState("Barrier", at(30));
        EXPECT_FALSE(whole("pwrite", kAccessNames, pwrite)) << "beneath a deeper state";
        writer.endState(at(31));
        writer.endState(at(40));

        writer.beginState("File_write_at", at(41));
        EXPECT_TRUE(whole("pwrite", kAccessNames, pwrite));
        writer.beginInnerState("pwrite", at(42));
        writer.attribute("fid", "text");
        writer.endInnerState(at(43));
        EXPECT_FALSE(whole("pwrite", kAccessNames, pwrite))
            << "after a leaf that took the general way";
        writer.endState(at(50));

        writer.setEnabled(false);
        writer.beginState("File_write_at", at(51));
        writer.setEnabled(true);
        EXPECT_FALSE(whole("pwrite", kAccessNames, pwrite)) << "beneath a call that is not written";
        writer.endState(at(60));
    };
    for (TraceOptions::Format format : {TraceOptions::Format::Xml, TraceOptions::Format::Compact}) {
        ScratchDirectory directory;
        test::writeTraceBy(directory, "refusals", format, drive);
    }
}

// A call of more leaves than are kept as values: the ones after the last
// kept take the general way, as they do given apart.
TEST(InnerLeafState, TheLeavesPastTheKeptOnesTakeTheGeneralWay) {
    const auto drive = [](TraceWriter &writer, LeafWriting &leaves) {
        writer.beginState("File_write_at", at(1));
        const int64_t count = TraceWriter::kMaxTypedNested + 3;
        for (int64_t leaf = 0; leaf < count; ++leaf)
            leaves.write(writer, "pwritev", 2 + 2 * leaf, 3 + 2 * leaf, kAccessNames,
                         {3, 8 * leaf, 8, 8});
        writer.attribute("fid", int64_t{3});
        writer.endState(at(3 * count));
    };
    for (TraceOptions::Format format : {TraceOptions::Format::Xml, TraceOptions::Format::Compact}) {
        const LeafWriting whole = compareWays(format, drive);
        EXPECT_EQ(whole.taken, static_cast<int>(TraceWriter::kMaxTypedNested));
        EXPECT_EQ(whole.refused, 3);
    }
}

// A child that takes the general way after a leaf kept whole: the call
// then goes the general way at its end, with the leaf and the child.
TEST(InnerLeafState, AChildOfTheGeneralWayAfterAKeptLeafIsWritten) {
    const auto drive = [](TraceWriter &writer) {
        writer.beginState("File_write_at", at(1));
        const int64_t pwrite[] = {3, 64, 16, 16};
        EXPECT_TRUE(writer.innerLeafState("pwrite", at(2), at(3), kAccessNames, pwrite, 4));
        writer.beginElement("Note");
        writer.attribute("says", "kept");
        writer.endElement();
        // Every value of the call's shape, as a typed call ends whole.
        writer.attribute("fid", int64_t{3});
        writer.attribute("offset", int64_t{64});
        writer.attribute("size", int64_t{16});
        writer.attribute("count", int64_t{16});
        writer.attribute("tid", int64_t{0});
        writer.endState(at(4));
    };
    ScratchDirectory directory;
    const std::string xml =
        readFile(test::writeTraceBy(directory, "child-xml", TraceOptions::Format::Xml, drive));
    const std::string compact = compactAsXml(
        test::writeTraceBy(directory, "child-compact", TraceOptions::Format::Compact, drive));
    size_t from = 0;
    for (const char *part :
         {"<Nested>", "<pwrite fid='3' offset='64' asked='16' size='16'", "</Nested>",
          "<File_write_at fid='3' offset='64'", "<Note says='kept'/>", "</File_write_at>"}) {
        const size_t found = xml.find(part, from);
        EXPECT_NE(found, std::string::npos) << part << " missing from\n" << xml;
        if (found != std::string::npos) from = found;
    }
    EXPECT_EQ(compact, xml);
}

}  // namespace
}  // namespace hdtrace
