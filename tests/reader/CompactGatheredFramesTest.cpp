// Frames with their times gathered, end to end: the same records written
// by a FrameWriter that gathers times and by one that does not give frames
// of encoding 2 and 1, fewer bytes for the first, and the same records
// (FrameFile::readFrame) and elements (FrameFile::readFrameRecords and
// the decoder, which reads gathered frames in place, as the trace readers
// do) from both files.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/FrameWriter.hpp>
#include <hdtrace/codec/CompactDecoder.hpp>
#include <hdtrace/codec/CompactEncoder.hpp>
#include <hdtrace/codec/FrameFormat.hpp>
#include <hdtrace/codec/GatheredTimes.hpp>
#include <hdtrace/reader/FrameFile.hpp>

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
    // Writes the sample records (the same for every call: one seed) into path.
    void write(const std::string &path, bool gatherTimes, bool background) {
        random_.seed(7);
        clock_ = 1000;
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
            ASSERT_EQ(record % 4 == 3 ? userState(*encoder, expected_, "phase")
                                      : writeAtWithPwrite(*encoder, expected_),
                      0);
        ASSERT_EQ(writer->close(), 0);
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

}  // namespace
}  // namespace hdtrace::reader
