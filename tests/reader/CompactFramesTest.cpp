// The compact container end to end: records through FrameWriter's frames
// and back through FrameFile, by index, by walking, by time window, and
// against truncated and damaged files.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/FrameWriter.hpp>
#include <hdtrace/codec/FrameFormat.hpp>
#include <hdtrace/reader/FrameFile.hpp>

#include "CompactRecords.hpp"
#include "TestFiles.hpp"

namespace hdtrace::reader {
namespace {

using testing::appendAll;
using testing::makeRecords;
using testing::readAllRecords;
using testing::readBytes;
using testing::TemporaryFile;
using testing::TestRecord;
using testing::writeBytes;

std::unique_ptr<FrameWriter> writerFor(const std::string &path, FrameWriterOptions options) {
    std::string error;
    auto writer = FrameWriter::create(path, options, &error);
    EXPECT_TRUE(writer) << error;
    return writer;
}

// Writes records into path with options and closes the file.
void writeTrace(const std::string &path, const std::vector<TestRecord> &records,
                FrameWriterOptions options) {
    auto writer = writerFor(path, options);
    ASSERT_TRUE(writer);
    appendAll(*writer, records);
    ASSERT_EQ(writer->close(), 0);
}

TEST(Crc32c, MatchesTheStandardCheckValue) {
    EXPECT_EQ(frames::crc32c("123456789", 9), 0xE3069283u);
    EXPECT_EQ(frames::crc32c("", 0), 0u);
    // In two pieces as in one.
    const std::string text = "the quick brown fox jumps over the lazy dog, twice or more";
    EXPECT_EQ(frames::crc32c(text.data() + 13, text.size() - 13, frames::crc32c(text.data(), 13)),
              frames::crc32c(text.data(), text.size()));
}

TEST(CompactFrames, RecordsRoundTripAcrossFrameBoundaries) {
    struct Case {
        size_t count;
        size_t maxBytes;
        uint32_t frameBytes;
        bool background;
        int level;
    };
    const Case cases[] = {
        {1, 1, 256, false, 1},     {100, 1, 256, false, 1},       {5000, 20, 256, false, 1},
        {5000, 20, 256, true, 1},  {20000, 60, 4096, true, 3},    {3000, 200, 1 << 16, true, 1},
        {200, 230, 256, false, 1}, {50000, 12, 1 << 20, true, 1}, {777, 1000, 4096, false, 3},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(std::to_string(c.count) + " records of up to " + std::to_string(c.maxBytes) +
                     " bytes, frames of " + std::to_string(c.frameBytes) +
                     (c.background ? ", background" : ", in thread") + ", level " +
                     std::to_string(c.level));
        TemporaryFile file("", ".ctrc");
        const auto records = makeRecords(c.count, c.maxBytes, c.count);
        FrameWriterOptions options;
        options.frameBytes = c.frameBytes;
        options.background = c.background;
        options.compressionLevel = c.level;
        writeTrace(file.path(), records, options);

        FrameFile read(file.path());
        EXPECT_TRUE(read.indexed());
        EXPECT_EQ(read.records(), c.count);
        EXPECT_FALSE(read.damage());
        uint64_t rawTotal = 0;
        for (const FrameInfo &frame : read.frames()) {
            EXPECT_LE(frame.rawBytes, c.frameBytes);
            rawTotal += frame.rawBytes;
        }
        uint64_t encodedTotal = 0;
        for (const TestRecord &record : records)
            encodedTotal += testing::encodeRecord(record).size();
        EXPECT_EQ(rawTotal, encodedTotal);
        // Frames hold as many records as fit: each frame but the last is
        // too full for the next frame's first record.
        EXPECT_EQ(readAllRecords(read), records);
    }
}

TEST(CompactFrames, AnEmptyTraceIsAHeaderAndAnEmptyIndex) {
    TemporaryFile file("", ".ctrc");
    writeTrace(file.path(), {}, FrameWriterOptions());
    EXPECT_EQ(readBytes(file.path()).size(), frames::kFileHeaderBytes + frames::kFooterBytes);
    FrameFile read(file.path());
    EXPECT_TRUE(read.indexed());
    EXPECT_TRUE(read.frames().empty());
    EXPECT_EQ(read.records(), 0u);
}

TEST(CompactFrames, RefusesRecordsItCannotHold) {
    TemporaryFile file("", ".ctrc");
    FrameWriterOptions options;
    options.frameBytes = 256;
    auto writer = writerFor(file.path(), options);
    ASSERT_TRUE(writer);
    const std::string big(257, 'x');
    EXPECT_EQ(writer->append(big.data(), big.size(), 1), EMSGSIZE);
    EXPECT_EQ(writer->append(big.data(), 0, 1), EINVAL);
    EXPECT_EQ(writer->append(big.data(), 256, 1), 0);  // exactly a frame
    EXPECT_EQ(writer->close(), 0);
    EXPECT_EQ(writer->append(big.data(), 1, 1), EBADF);
    FrameFile read(file.path());
    ASSERT_EQ(read.frames().size(), 1u);
    std::vector<unsigned char> payload;
    ASSERT_TRUE(read.readFrame(0, payload));
    EXPECT_EQ(std::string(payload.begin(), payload.end()), std::string(256, 'x'));

    std::string error;
    options.frameBytes = 100;
    EXPECT_FALSE(FrameWriter::create(file.path(), options, &error));
    EXPECT_NE(error.find("frame size 100"), std::string::npos) << error;
    options.frameBytes = 4096;
    EXPECT_FALSE(FrameWriter::create("/nonexistent-dir/x.ctrc", options, &error));
    EXPECT_NE(error.find("/nonexistent-dir/x.ctrc"), std::string::npos) << error;
}

// The index and a walk over the frame headers list the same frames, and a
// frame read directly (in any order) is the frame read in sequence.
TEST(CompactFrames, IndexSeekEqualsSequentialRead) {
    TemporaryFile file("", ".ctrc");
    const auto records = makeRecords(6000, 40, 7);
    FrameWriterOptions options;
    options.frameBytes = 2048;
    writeTrace(file.path(), records, options);

    FrameFile indexed(file.path());
    ASSERT_TRUE(indexed.indexed());
    ASSERT_GT(indexed.frames().size(), 20u);
    // Without its index and footer the file is walked.
    const std::string bytes = readBytes(file.path());
    const FrameInfo &last = indexed.frames().back();
    TemporaryFile cut(bytes.substr(0, last.end()), ".ctrc");
    FrameFile walked(cut.path());
    EXPECT_FALSE(walked.indexed());
    EXPECT_EQ(walked.cutAt(), last.end());
    ASSERT_EQ(walked.frames().size(), indexed.frames().size());
    for (size_t i = 0; i < walked.frames().size(); ++i) {
        const FrameInfo &a = indexed.frames()[i];
        const FrameInfo &b = walked.frames()[i];
        EXPECT_EQ(a.offset, b.offset);
        EXPECT_EQ(a.headerBytes, b.headerBytes);
        EXPECT_EQ(a.storedBytes, b.storedBytes);
        EXPECT_EQ(a.rawBytes, b.rawBytes);
        EXPECT_EQ(a.records, b.records);
        EXPECT_EQ(a.earliest, b.earliest);
        EXPECT_EQ(a.latest, b.latest);
    }
    std::vector<std::vector<unsigned char>> sequential(indexed.frames().size());
    for (size_t i = 0; i < sequential.size(); ++i)
        ASSERT_TRUE(walked.readFrame(i, sequential[i]));
    std::vector<unsigned char> payload;
    for (size_t i = sequential.size(); i-- > 0;) {
        ASSERT_TRUE(indexed.readFrame(i, payload));
        EXPECT_EQ(payload, sequential[i]) << "frame " << i;
    }
    EXPECT_EQ(readAllRecords(walked), records);
}

TEST(CompactFrames, TimeWindowFindsExactlyTheFramesWithRecordsInIt) {
    TemporaryFile file("", ".ctrc");
    const auto records = makeRecords(8000, 30, 3);
    FrameWriterOptions options;
    options.frameBytes = 1024;
    writeTrace(file.path(), records, options);
    FrameFile read(file.path());
    // Per frame, its records.
    std::vector<std::vector<TestRecord>> byFrame;
    std::vector<unsigned char> payload;
    for (size_t i = 0; i < read.frames().size(); ++i) {
        ASSERT_TRUE(read.readFrame(i, payload));
        byFrame.push_back(testing::decodeRecords(payload));
    }
    const int64_t first = records.front().time, lastTime = records.back().time;
    const int64_t span = lastTime - first;
    const std::pair<int64_t, int64_t> windows[] = {
        {first, first},
        {first + span / 3, first + span / 2},
        {lastTime, lastTime + 5},
        {first - 100, first - 1},
        {lastTime + 1, lastTime + 100},
        {records[4321].time, records[4321].time},
    };
    for (const auto &[from, to] : windows) {
        SCOPED_TRACE("window [" + std::to_string(from) + ", " + std::to_string(to) + "]");
        const std::vector<size_t> chosen = read.framesInWindow(from, to);
        std::vector<TestRecord> inWindow;
        for (const TestRecord &record : records)
            if (record.time >= from && record.time <= to) inWindow.push_back(record);
        std::vector<TestRecord> found;
        for (size_t i = 0; i < byFrame.size(); ++i) {
            const bool hasOne =
                std::any_of(byFrame[i].begin(), byFrame[i].end(),
                            [&](const TestRecord &r) { return r.time >= from && r.time <= to; });
            const bool isChosen = std::find(chosen.begin(), chosen.end(), i) != chosen.end();
            // Times never decrease here, so a chosen frame holds a record
            // of the window unless the window falls between two records.
            if (hasOne) {
                EXPECT_TRUE(isChosen) << "frame " << i;
            }
            if (!isChosen) continue;
            for (const TestRecord &record : byFrame[i])
                if (record.time >= from && record.time <= to) found.push_back(record);
        }
        EXPECT_EQ(found, inWindow);
    }
}

// A small trace of several frames, its bytes, and where each frame ends.
struct SmallTrace {
    std::vector<TestRecord> records;
    std::string bytes;
    std::vector<uint64_t> payloadStarts;
    std::vector<uint64_t> frameEnds;
    std::vector<uint32_t> frameRecords;
};

SmallTrace smallTrace() {
    SmallTrace trace;
    TemporaryFile file("", ".ctrc");
    trace.records = makeRecords(60, 25, 11);
    FrameWriterOptions options;
    options.frameBytes = 256;
    writeTrace(file.path(), trace.records, options);
    trace.bytes = readBytes(file.path());
    FrameFile read(file.path());
    for (const FrameInfo &frame : read.frames()) {
        trace.payloadStarts.push_back(frame.offset + frame.headerBytes);
        trace.frameEnds.push_back(frame.end());
        trace.frameRecords.push_back(frame.records);
    }
    return trace;
}

TEST(CompactFrames, TruncationAtEveryByteKeepsEveryCompleteFrame) {
    const SmallTrace trace = smallTrace();
    ASSERT_GE(trace.frameEnds.size(), 4u);
    for (size_t length = 0; length < trace.bytes.size(); ++length) {
        SCOPED_TRACE("cut at byte " + std::to_string(length));
        TemporaryFile file(trace.bytes.substr(0, length), ".ctrc");
        if (length < frames::kFileHeaderBytes) {
            for (bool partial : {false, true}) {
                try {
                    FrameFile read(file.path(), FrameFileOptions{partial});
                    ADD_FAILURE() << "no file header, yet it opened";
                } catch (const FrameError &error) {
                    EXPECT_NE(std::string(error.what()).find(file.path()), std::string::npos);
                }
            }
            continue;
        }
        // The complete frames, and where the first incomplete one starts.
        size_t complete = 0;
        uint64_t end = frames::kFileHeaderBytes;
        while (complete < trace.frameEnds.size() && trace.frameEnds[complete] <= length)
            end = trace.frameEnds[complete++];
        size_t completeRecords = 0;
        for (size_t i = 0; i < complete; ++i)
            completeRecords += trace.frameRecords[i];
        const std::vector<TestRecord> expected(trace.records.begin(),
                                               trace.records.begin() + completeRecords);

        // Strict: a cut exactly after a frame reads whole; anything else is
        // an error that names the file and where the damage starts.
        if (length == end) {
            FrameFile read(file.path());
            EXPECT_FALSE(read.indexed());
            EXPECT_EQ(read.cutAt(), end);
            EXPECT_EQ(readAllRecords(read), expected);
        } else {
            try {
                FrameFile read(file.path());
                ADD_FAILURE() << "a cut file read without error";
            } catch (const FrameError &error) {
                EXPECT_EQ(error.offset(), end);
                const std::string message = error.what();
                EXPECT_NE(message.find(file.path() + ": byte " + std::to_string(end) + ": "),
                          std::string::npos)
                    << message;
            }
        }
        // Partial: every complete frame, and the damage named.
        FrameFile read(file.path(), FrameFileOptions{true});
        EXPECT_EQ(read.frames().size(), complete);
        EXPECT_EQ(readAllRecords(read), expected);
        EXPECT_EQ(read.damage().has_value(), length != end);
        if (read.damage()) {
            EXPECT_NE(read.damage()->find("byte " + std::to_string(end) + ": "), std::string::npos)
                << *read.damage();
        }
    }
}

TEST(CompactFrames, EveryBitFlipIsDetected) {
    const SmallTrace trace = smallTrace();
    for (size_t position = 0; position < trace.bytes.size(); ++position) {
        for (unsigned char bit : {0x01, 0x80}) {
            std::string bytes = trace.bytes;
            bytes[position] = static_cast<char>(bytes[position] ^ bit);
            TemporaryFile file(bytes, ".ctrc");
            try {
                FrameFile read(file.path());
                std::vector<unsigned char> payload;
                for (size_t i = 0; i < read.frames().size(); ++i)
                    read.readFrame(i, payload);
                ADD_FAILURE() << "bit " << int{bit} << " of byte " << position
                              << " flipped, yet everything read";
            } catch (const FrameError &error) {
                EXPECT_NE(std::string(error.what()).find(file.path() + ": byte "),
                          std::string::npos);
                EXPECT_LT(error.offset(), bytes.size());
            }
        }
    }
}

TEST(CompactFrames, PartialReadKeepsTheFramesBeforeADamagedOne) {
    const SmallTrace trace = smallTrace();
    ASSERT_GE(trace.frameEnds.size(), 4u);
    // One byte in the middle of frame 2's payload.
    const uint64_t payloadStart = trace.payloadStarts[2];
    std::string bytes = trace.bytes;
    const size_t position = (payloadStart + trace.frameEnds[2]) / 2;
    bytes[position] = static_cast<char>(bytes[position] ^ 0x10);
    TemporaryFile file(bytes, ".ctrc");

    FrameFile read(file.path(), FrameFileOptions{true});
    ASSERT_TRUE(read.indexed());
    const auto records = readAllRecords(read);
    EXPECT_EQ(read.frames().size(), 2u);
    const size_t before = trace.frameRecords[0] + trace.frameRecords[1];
    EXPECT_EQ(records,
              std::vector<TestRecord>(trace.records.begin(), trace.records.begin() + before));
    ASSERT_TRUE(read.damage());
    EXPECT_NE(read.damage()->find(file.path() + ": byte " + std::to_string(payloadStart) +
                                  ": frame 2: payload checksum mismatch"),
              std::string::npos)
        << *read.damage();

    FrameFile strict(file.path());
    std::vector<unsigned char> payload;
    EXPECT_TRUE(strict.readFrame(3, payload));  // seeking past the damage
    try {
        strict.readFrame(2, payload);
        ADD_FAILURE() << "a damaged frame decoded";
    } catch (const FrameError &error) {
        EXPECT_EQ(error.offset(), payloadStart);
    }
}

TEST(CompactFrames, IncompressibleRecordsAreStored) {
    TemporaryFile file("", ".ctrc");
    FrameWriterOptions options;
    options.frameBytes = 4096;
    auto writer = writerFor(file.path(), options);
    ASSERT_TRUE(writer);
    // Random bytes, appended as they are: zstd cannot shrink them.
    std::string all;
    uint64_t state = 99;
    for (int i = 0; i < 300; ++i) {
        std::string record;
        for (int b = 0; b < 50; ++b) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            record += static_cast<char>(state >> 56);
        }
        ASSERT_EQ(writer->append(record.data(), record.size(), i), 0);
        all += record;
    }
    ASSERT_EQ(writer->close(), 0);
    FrameFile read(file.path());
    std::string back;
    std::vector<unsigned char> payload;
    for (size_t i = 0; i < read.frames().size(); ++i) {
        EXPECT_EQ(read.frames()[i].storedBytes, read.frames()[i].rawBytes);
        ASSERT_TRUE(read.readFrame(i, payload));
        back.append(payload.begin(), payload.end());
    }
    EXPECT_EQ(back, all);
    EXPECT_EQ(read.records(), 300u);
}

TEST(CompactFrames, RefusesWhatIsNotACompactTrace) {
    TemporaryFile xml("<?xml version=\"1.0\"?>\n<Program timeAdjustment='0'>\n</Program>\n");
    try {
        FrameFile read(xml.path());
        ADD_FAILURE() << "an XML trace opened as a compact one";
    } catch (const FrameError &error) {
        EXPECT_NE(std::string(error.what()).find("not a compact trace"), std::string::npos);
    }
    EXPECT_THROW(FrameFile("/nonexistent-dir/x.ctrc"), ReadError);
}

}  // namespace
}  // namespace hdtrace::reader
