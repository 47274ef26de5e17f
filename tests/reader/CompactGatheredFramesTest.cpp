// Frames with their times gathered, end to end: the same records written
// by a FrameWriter that gathers times and by one that does not give frames
// of encoding 2 and 1, fewer bytes for the first, and the same records
// (FrameFile::readFrame) and elements (FrameFile::readFrameRecords and
// the decoder, which reads gathered frames in place, as the trace readers
// do) from both files. Records whose times gather larger give frames of
// encoding 3, read back alike; such a frame marked as encoding 2 is refused.
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/FrameWriter.hpp>
#include <hdtrace/codec/CompactDecoder.hpp>
#include <hdtrace/codec/CompactEncoder.hpp>
#include <hdtrace/codec/FrameFormat.hpp>
#include <hdtrace/codec/GatheredTimes.hpp>
#include <hdtrace/reader/FrameFile.hpp>
#include <hdtrace/reader/ReadError.hpp>

#include "CompactRecords.hpp"
#include "MemoryFrames.hpp"
#include "SampleRecords.hpp"
#include "TestFiles.hpp"

namespace hdtrace::reader {
namespace {

using testing::readBytes;
using testing::TemporaryFile;

class GatheredFrames : public ::testing::Test, public test::SampleRecords {
  protected:
    // 3,000 records, each appendRecord(encoder, record), through a writer
    // of 4 KiB frames into path.
    template <class AppendRecord>
    void write(const std::string &path, bool gatherTimes, bool background,
               AppendRecord appendRecord) {
        expected_.clear();
        FrameWriterOptions options;
        options.frameBytes = 4096;
        options.gatherTimes = gatherTimes;
        options.background = background;
        std::string message;
        const auto writer = FrameWriter::create(path, options, &message);
        ASSERT_TRUE(writer) << message;
        int error = 0;
        const auto encoder = CompactEncoder::create(*writer, 1700000000, 0, &error);
        ASSERT_TRUE(encoder) << error;
        for (int record = 0; record < 3000; ++record)
            ASSERT_EQ(appendRecord(*encoder, record), 0);
        ASSERT_EQ(writer->close(), 0);
    }
    // Writes the sample records (the same for every call: one seed) into path.
    void write(const std::string &path, bool gatherTimes, bool background) {
        random_.seed(7);
        clock_ = 1000;
        write(path, gatherTimes, background, [this](CompactEncoder &encoder, int record) {
            return record % 4 == 3 ? userState(encoder, expected_, "phase")
                                   : writeAtWithPwrite(encoder, expected_);
        });
    }
    // Calls whose start alternates between 63 ns before the previous
    // call's end and 63 ns after it: one byte each as they are, two as
    // changes, so that every frame gathers larger than its records
    // (encoding 3).
    void writeJittery(const std::string &path, bool gatherTimes) {
        const CallPlan *writeAt = plans_.planOf("File_write_at", true);
        const CallPlan *pwrite = plans_.planOf("pwrite", true);
        ASSERT_TRUE(writeAt && pwrite);
        const std::vector<int64_t> callValues(writeAt->own, 7), nestedValues(pwrite->own, 9);
        int64_t previousEnd = 1000;
        write(path, gatherTimes, false, [&](CompactEncoder &encoder, int record) {
            const int64_t start = previousEnd + (record % 2 == 0 ? -63 : 63);
            previousEnd = start + 35;
            return writeAtWithPwrite(encoder, expected_, callValues, nestedValues,
                                     {start, start + 10, start + 30, start + 35});
        });
    }
    std::vector<std::string> expected_;
};

// The encoding byte of every frame's header.
std::vector<int> encodings(const std::string &path) {
    const std::string bytes = readBytes(path);
    FrameFile file(path);
    std::vector<int> found;
    for (const FrameInfo &frame : file.frames())
        found.push_back(static_cast<unsigned char>(
            bytes[static_cast<size_t>(frame.offset) + frames::frame_header::kEncoding]));
    return found;
}

std::vector<std::string> elements(const std::string &path) {
    FrameFile file(path);
    CompactFrameDecoder decoder;
    test::DecodedLines lines;
    std::vector<unsigned char> bytes;
    for (size_t position = 0; position < file.frames().size(); ++position) {
        bool gathered = false;
        EXPECT_TRUE(file.readFrameRecords(position, bytes, &gathered));
        if (gathered)
            decoder.decodeGatheredFrame(bytes.data(), bytes.size(), lines);
        else
            decoder.decodeFrame(bytes.data(), bytes.size(), lines);
    }
    return lines.lines;
}

TEST_F(GatheredFrames, GiveTheSameRecordsAndElementsInFewerBytes) {
    for (const bool background : {false, true}) {
        TemporaryFile gathered("", ".ctrc"), plain("", ".ctrc");
        write(gathered.path(), true, background);
        const std::vector<std::string> expected = expected_;
        write(plain.path(), false, background);
        ASSERT_EQ(expected_, expected);

        const std::vector<int> gatheredEncodings = encodings(gathered.path());
        ASSERT_GT(gatheredEncodings.size(), 20u);
        EXPECT_EQ(gatheredEncodings,
                  std::vector<int>(gatheredEncodings.size(),
                                   static_cast<int>(frames::Encoding::ZstdGatheredTimes)));
        EXPECT_EQ(
            encodings(plain.path()),
            std::vector<int>(gatheredEncodings.size(), static_cast<int>(frames::Encoding::Zstd)));
        EXPECT_LT(readBytes(gathered.path()).size(), readBytes(plain.path()).size());

        FrameFile fromGathered(gathered.path()), fromPlain(plain.path());
        std::vector<unsigned char> one, other;
        for (size_t position = 0; position < fromPlain.frames().size(); ++position) {
            ASSERT_TRUE(fromGathered.readFrame(position, one));
            ASSERT_TRUE(fromPlain.readFrame(position, other));
            ASSERT_EQ(one, other) << "frame " << position;
        }

        const std::vector<std::string> lines = elements(gathered.path());
        EXPECT_EQ(lines, elements(plain.path()));
        EXPECT_EQ(lines, expected);
    }
}

TEST_F(GatheredFrames, LargerWhenGatheredAreWrittenAsEncoding3AndReadBack) {
    TemporaryFile gathered("", ".ctrc"), plain("", ".ctrc");
    writeJittery(gathered.path(), true);
    const std::vector<std::string> expected = expected_;
    writeJittery(plain.path(), false);
    ASSERT_EQ(expected_, expected);

    const std::vector<int> gatheredEncodings = encodings(gathered.path());
    ASSERT_GT(gatheredEncodings.size(), 10u);
    EXPECT_EQ(gatheredEncodings,
              std::vector<int>(gatheredEncodings.size(),
                               static_cast<int>(frames::Encoding::ZstdGatheredTimesLarger)));
    FrameFile fromGathered(gathered.path()), fromPlain(plain.path());
    ASSERT_EQ(fromGathered.frames().size(), fromPlain.frames().size());
    std::vector<unsigned char> one, other;
    for (size_t position = 0; position < fromPlain.frames().size(); ++position) {
        ASSERT_TRUE(fromGathered.readFrame(position, one));
        ASSERT_TRUE(fromPlain.readFrame(position, other));
        ASSERT_EQ(one, other) << "frame " << position;
        // Its times changed between gathering and reading: the records
        // gathered are larger than the records, within the eighth.
        bool inPlace = false;
        ASSERT_TRUE(fromGathered.readFrameRecords(position, one, &inPlace));
        EXPECT_TRUE(inPlace);
        EXPECT_GE(one.size(), other.size());
        EXPECT_LE(one.size(), compact::maxGatheredBytes(other.size()));
    }
    EXPECT_EQ(elements(gathered.path()), expected);
    EXPECT_EQ(expected.size(), 6u * 3000);
}

// A frame's encoding byte set to another value, its header checksum made
// again, so that the checks after the header's meet the change.
void setEncoding(const std::string &path, const FrameInfo &frame, uint32_t sequence,
                 frames::Encoding encoding) {
    std::string bytes = readBytes(path);
    auto *header = reinterpret_cast<unsigned char *>(&bytes[static_cast<size_t>(frame.offset)]);
    header[frames::frame_header::kEncoding] = static_cast<unsigned char>(encoding);
    const size_t headerBytes = header[frames::frame_header::kHeaderBytes];
    unsigned char number[4];
    frames::putU32(number, sequence);
    frames::putU32(header + headerBytes - 4,
                   frames::crc32c(header, headerBytes - 4, frames::crc32c(number, 4)));
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TEST_F(GatheredFrames, AFrameLargerGatheredIsRefusedAsEncoding2) {
    TemporaryFile gathered("", ".ctrc");
    writeJittery(gathered.path(), true);
    const FrameInfo second = FrameFile(gathered.path()).frames().at(1);
    setEncoding(gathered.path(), second, 1, frames::Encoding::ZstdGatheredTimes);
    FrameFile file(gathered.path());  // the header and index still agree
    std::vector<unsigned char> records;
    ASSERT_TRUE(file.readFrame(0, records));
    try {
        file.readFrame(1, records);
        FAIL() << "a frame of encoding 2 larger than its records was read";
    } catch (const ReadError &error) {
        const std::string what = error.what();
        EXPECT_NE(what.find(gathered.path()), std::string::npos) << what;
        EXPECT_NE(what.find("frame 1: payload is not one zstd frame of fewer than " +
                            std::to_string(second.rawBytes) + " bytes"),
                  std::string::npos)
            << what;
    }
}

}  // namespace
}  // namespace hdtrace::reader
