// The compact container's bytes: a file FrameWriter writes is taken apart
// field by field against the layout of docs/format/compact.md (version 2),
// and files of version 1, built here byte by byte as its writer laid them
// out, still read, by their index and by walking their frames.
#include <algorithm>
#include <cstring>
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

using testing::readBytes;
using testing::TemporaryFile;

// Reads the file's bytes in order, as the layout lists them.
struct Cursor {
    const std::string &bytes;
    size_t at = 0;

    const unsigned char *here() const {
        return reinterpret_cast<const unsigned char *>(bytes.data()) + at;
    }
    uint64_t varint() {
        const unsigned char *in = here();
        uint64_t value = 0;
        EXPECT_TRUE(frames::getVarint(&in, here() + (bytes.size() - at), &value))
            << "varint at byte " << at;
        at = static_cast<size_t>(in - reinterpret_cast<const unsigned char *>(bytes.data()));
        return value;
    }
    int64_t signedVarint() { return unzigzag(varint()); }
    uint32_t u32() {
        const uint32_t value = frames::getU32(here());
        at += 4;
        return value;
    }
    uint32_t crcFrom(size_t start) const {
        return frames::crc32c(bytes.data() + start, at - start);
    }
};

TEST(CompactContainerLayout, OneStoredFrameIsLaidOutAsDocumented) {
    TemporaryFile file("", ".ctrc");
    FrameWriterOptions options;
    options.frameBytes = 4096;
    options.background = false;
    const std::string first = "\x07\x01\x7f";  // too short for zstd to shrink
    const std::string second = "\x09\x02";
    const int64_t firstTime = 1'234'567'890;
    const int64_t secondTime = firstTime + 70'000;
    {
        std::string error;
        auto writer = FrameWriter::create(file.path(), options, &error);
        ASSERT_TRUE(writer) << error;
        ASSERT_EQ(writer->append(first.data(), first.size(), firstTime), 0);
        ASSERT_EQ(writer->append(second.data(), second.size(), secondTime), 0);
        ASSERT_EQ(writer->close(), 0);
    }
    const std::string bytes = readBytes(file.path());
    Cursor in{bytes};

    // File header.
    ASSERT_GE(bytes.size(), frames::kFileHeaderBytes);
    EXPECT_EQ(bytes.substr(0, 8), std::string("HDTCOMP\x1a", 8));
    EXPECT_EQ(frames::getU16(in.here() + 8), 2u);
    EXPECT_EQ(frames::getU32(in.here() + 10), 4096u);
    in.at = 14;
    const uint32_t headerCrc = in.crcFrom(0);
    EXPECT_EQ(in.u32(), headerCrc);
    ASSERT_EQ(in.at, frames::kFileHeaderBytes);

    // The frame: its header, then the two records as appended.
    const size_t frameStart = in.at;
    const size_t headerBytes = static_cast<unsigned char>(bytes[frameStart]);
    EXPECT_EQ(bytes[frameStart + 1], 0);  // stored
    in.at += 2;
    EXPECT_EQ(in.varint(), 2u);                            // records
    EXPECT_EQ(in.varint(), first.size() + second.size());  // decoded
    EXPECT_EQ(in.varint(), first.size() + second.size());  // stored
    EXPECT_EQ(in.signedVarint(), firstTime);               // earliest
    EXPECT_EQ(in.varint(), 70'000u);                       // latest - earliest
    EXPECT_EQ(in.at + 8, frameStart + headerBytes);
    EXPECT_EQ(in.u32(), frames::crc32c((first + second).data(), first.size() + second.size()));
    const std::string sequenceZero(4, '\0');
    EXPECT_EQ(in.u32(), frames::crc32c(bytes.data() + frameStart, headerBytes - 4,
                                       frames::crc32c(sequenceZero.data(), 4)));
    EXPECT_EQ(bytes.substr(in.at, first.size() + second.size()), first + second);
    in.at += first.size() + second.size();

    // No index: a file of one frame needs none. The footer, and nothing
    // after it.
    const size_t footerStart = in.at;
    EXPECT_EQ(in.u32(), 0u);
    EXPECT_EQ(in.u32(), 1u);
    EXPECT_EQ(in.u32(), frames::crc32c(bytes.data() + footerStart, 8));
    EXPECT_EQ(bytes.substr(in.at), "HDIX");
    EXPECT_EQ(bytes.size(), in.at + 4);

    FrameFile read(file.path());
    EXPECT_EQ(read.version(), 2u);
    ASSERT_EQ(read.frames().size(), 1u);
    EXPECT_EQ(read.frames()[0].headerBytes, headerBytes);
    EXPECT_EQ(read.frames()[0].earliest, firstTime);
    EXPECT_EQ(read.frames()[0].latest, secondTime);
    EXPECT_TRUE(read.indexed());
}

TEST(CompactContainerLayout, TheIndexListsEveryFrameOfSeveral) {
    TemporaryFile file("", ".ctrc");
    FrameWriterOptions options;
    options.background = false;
    // Three frames (flush ends one), times 5000, 5100 | 4000 | 9000, 9050.
    const std::vector<std::vector<std::pair<std::string, int64_t>>> frameList = {
        {{"ab", 5'000}, {"c", 5'100}}, {{"defg", 4'000}}, {{"h", 9'000}, {"ij", 9'050}}};
    {
        std::string error;
        auto writer = FrameWriter::create(file.path(), options, &error);
        ASSERT_TRUE(writer) << error;
        for (const auto &records : frameList) {
            for (const auto &[bytes, time] : records)
                ASSERT_EQ(writer->append(bytes.data(), bytes.size(), time), 0);
            ASSERT_EQ(writer->flush(), 0);
        }
        ASSERT_EQ(writer->close(), 0);
    }
    const std::string bytes = readBytes(file.path());
    Cursor in{bytes};
    in.at = frames::kFileHeaderBytes;
    std::vector<size_t> headerSizes;
    for (const auto &records : frameList) {
        const size_t start = in.at;
        headerSizes.push_back(static_cast<unsigned char>(bytes[start]));
        size_t payload = 0;
        for (const auto &record : records)
            payload += record.first.size();
        in.at = start + headerSizes.back() + payload;
    }
    const size_t indexStart = in.at;
    int64_t previousLatest = 0;
    for (size_t i = 0; i < frameList.size(); ++i) {
        const auto &records = frameList[i];
        size_t payload = 0;
        int64_t earliest = records[0].second, latest = records[0].second;
        for (const auto &[record, time] : records) {
            payload += record.size();
            earliest = std::min(earliest, time);
            latest = std::max(latest, time);
        }
        SCOPED_TRACE("entry " + std::to_string(i));
        EXPECT_EQ(in.varint(), headerSizes[i]);
        EXPECT_EQ(in.varint(), payload);  // stored
        EXPECT_EQ(in.varint(), records.size());
        EXPECT_EQ(in.varint(), payload);  // decoded
        EXPECT_EQ(in.signedVarint(), earliest - previousLatest);
        EXPECT_EQ(in.varint(), static_cast<uint64_t>(latest - earliest));
        previousLatest = latest;
    }
    const size_t indexBytes = in.at - indexStart;
    const size_t footerStart = in.at;
    EXPECT_EQ(in.u32(), indexBytes);
    EXPECT_EQ(in.u32(), frameList.size());
    EXPECT_EQ(in.u32(), frames::crc32c(bytes.data() + footerStart, 8,
                                       frames::crc32c(bytes.data() + indexStart, indexBytes)));
    EXPECT_EQ(bytes.substr(in.at), "HDIX");

    FrameFile read(file.path());
    EXPECT_TRUE(read.indexed());
    ASSERT_EQ(read.frames().size(), 3u);
    EXPECT_EQ(read.frames()[1].earliest, 4'000);
    EXPECT_EQ(read.frames()[2].latest, 9'050);
}

TEST(CompactContainerLayout, AOneFrameFileCatchesEveryFlipAndEveryCut) {
    TemporaryFile file("", ".ctrc");
    {
        auto writer = FrameWriter::create(file.path(), FrameWriterOptions());
        ASSERT_TRUE(writer);
        const std::string record = "one record, compressed or not";
        ASSERT_EQ(writer->append(record.data(), record.size(), 77), 0);
        ASSERT_EQ(writer->close(), 0);
    }
    const std::string bytes = readBytes(file.path());
    const uint64_t frameEnd = FrameFile(file.path()).frames().at(0).end();
    auto readsWhole = [](const std::string &path) {
        FrameFile read(path);
        std::vector<unsigned char> payload;
        for (size_t i = 0; i < read.frames().size(); ++i)
            read.readFrame(i, payload);
        return read.indexed();
    };
    for (size_t position = 0; position < bytes.size(); ++position) {
        for (const unsigned char bit : {0x01, 0x80}) {
            std::string flipped = bytes;
            flipped[position] = static_cast<char>(flipped[position] ^ bit);
            TemporaryFile damaged(flipped, ".ctrc");
            EXPECT_THROW(readsWhole(damaged.path()), FrameError)
                << "bit " << int{bit} << " of byte " << position;
        }
    }
    for (size_t length = 0; length < bytes.size(); ++length) {
        TemporaryFile cut(bytes.substr(0, length), ".ctrc");
        // Cut after the file header or after the frame: a trace cut there.
        if (length == frames::kFileHeaderBytes || length == frameEnd) {
            EXPECT_FALSE(readsWhole(cut.path())) << "cut at byte " << length;
        } else {
            EXPECT_THROW(readsWhole(cut.path()), FrameError) << "cut at byte " << length;
        }
    }
}

// --- Version 1, as its writer laid it out: 24-byte file header, 48-byte
// frame headers with a magic and their sequence, 32-byte index entries
// with absolute offsets, a 32-byte footer that also counts the records.
struct Version1Frame {
    std::string payload;  // stored as it is
    uint32_t records;
    int64_t earliest;
    int64_t latest;
};

std::string version1File(const std::vector<Version1Frame> &frameList, bool withIndex) {
    namespace v1 = frames::v1;
    std::string out(v1::kFileHeaderBytes, '\0');
    auto *header = reinterpret_cast<unsigned char *>(&out[0]);
    std::memcpy(header, frames::kFileMagic, 8);
    frames::putU16(header + 8, v1::kVersion);
    frames::putU16(header + v1::file_header::kHeaderBytes, v1::kFileHeaderBytes);
    frames::putU32(header + v1::file_header::kMaxFrameBytes, 1024);
    frames::putU32(header + v1::file_header::kHeaderCrc,
                   frames::crc32c(header, v1::file_header::kHeaderCrc));
    std::string index;
    uint64_t records = 0;
    for (size_t i = 0; i < frameList.size(); ++i) {
        const Version1Frame &frame = frameList[i];
        unsigned char h[v1::kFrameHeaderBytes] = {};
        namespace fh = v1::frame_header;
        std::memcpy(h + fh::kMagic, v1::kFrameMagic, 4);
        frames::putU16(h + fh::kHeaderBytes, v1::kFrameHeaderBytes);
        frames::putU32(h + fh::kRecords, frame.records);
        frames::putU32(h + fh::kRawBytes, static_cast<uint32_t>(frame.payload.size()));
        frames::putU32(h + fh::kStoredBytes, static_cast<uint32_t>(frame.payload.size()));
        frames::putU32(h + fh::kPayloadCrc,
                       frames::crc32c(frame.payload.data(), frame.payload.size()));
        frames::putI64(h + fh::kEarliest, frame.earliest);
        frames::putI64(h + fh::kLatest, frame.latest);
        frames::putU32(h + fh::kSequence, static_cast<uint32_t>(i));
        frames::putU32(h + fh::kHeaderCrc, frames::crc32c(h, fh::kHeaderCrc));
        unsigned char entry[v1::kIndexEntryBytes] = {};
        namespace ie = v1::index_entry;
        frames::putU64(entry + ie::kOffset, out.size());
        frames::putU32(entry + ie::kRecords, frame.records);
        frames::putU32(entry + ie::kRawBytes, static_cast<uint32_t>(frame.payload.size()));
        frames::putI64(entry + ie::kEarliest, frame.earliest);
        frames::putI64(entry + ie::kLatest, frame.latest);
        index.append(reinterpret_cast<const char *>(entry), sizeof entry);
        records += frame.records;
        out.append(reinterpret_cast<const char *>(h), sizeof h);
        out += frame.payload;
    }
    if (!withIndex) return out;
    unsigned char footer[v1::kFooterBytes] = {};
    namespace ft = v1::footer;
    frames::putU64(footer + ft::kIndexOffset, out.size());
    frames::putU64(footer + ft::kRecords, records);
    frames::putU32(footer + ft::kFrames, static_cast<uint32_t>(frameList.size()));
    frames::putU32(footer + ft::kIndexCrc, frames::crc32c(index.data(), index.size()));
    frames::putU32(footer + ft::kFooterCrc, frames::crc32c(footer, ft::kFooterCrc));
    std::memcpy(footer + ft::kMagic, frames::kFooterMagic, 4);
    out += index;
    out.append(reinterpret_cast<const char *>(footer), sizeof footer);
    return out;
}

TEST(CompactContainerLayout, Version1FilesStillRead) {
    const std::vector<Version1Frame> frameList = {
        {"first frame's records", 2, 1'000, 1'500},
        {"the second one", 1, 1'600, 1'600},
        {"and a third, later", 3, 9'000, 12'000},
    };
    for (const bool withIndex : {true, false}) {
        SCOPED_TRACE(withIndex ? "with its index" : "cut after its last frame");
        const std::string bytes = version1File(frameList, withIndex);
        TemporaryFile file(bytes, ".ctrc");
        FrameFile read(file.path());
        EXPECT_EQ(read.version(), 1u);
        EXPECT_EQ(read.indexed(), withIndex);
        ASSERT_EQ(read.frames().size(), frameList.size());
        uint64_t offset = frames::v1::kFileHeaderBytes;
        std::vector<unsigned char> payload;
        for (size_t i = 0; i < frameList.size(); ++i) {
            const FrameInfo &frame = read.frames()[i];
            EXPECT_EQ(frame.offset, offset);
            EXPECT_EQ(frame.headerBytes, frames::v1::kFrameHeaderBytes);
            EXPECT_EQ(frame.records, frameList[i].records);
            EXPECT_EQ(frame.earliest, frameList[i].earliest);
            EXPECT_EQ(frame.latest, frameList[i].latest);
            ASSERT_TRUE(read.readFrame(i, payload));
            EXPECT_EQ(std::string(payload.begin(), payload.end()), frameList[i].payload);
            offset = frame.end();
        }
        if (!withIndex) {
            EXPECT_EQ(read.cutAt(), bytes.size());
        }
        EXPECT_EQ(read.framesInWindow(1'550, 1'600), (std::vector<size_t>{1}));
    }
    // A version 1 frame damaged is still an error at its offset.
    std::string bytes = version1File(frameList, true);
    const size_t secondFrame =
        frames::v1::kFileHeaderBytes + frames::v1::kFrameHeaderBytes + frameList[0].payload.size();
    bytes[secondFrame + frames::v1::kFrameHeaderBytes + 2] ^= 0x04;
    TemporaryFile damaged(bytes, ".ctrc");
    FrameFile read(damaged.path());
    std::vector<unsigned char> payload;
    try {
        read.readFrame(1, payload);
        ADD_FAILURE() << "a damaged version 1 frame decoded";
    } catch (const FrameError &error) {
        EXPECT_EQ(error.offset(), secondFrame + frames::v1::kFrameHeaderBytes);
    }
}

TEST(CompactContainerLayout, UnknownVersionsAreRefusedByName) {
    TemporaryFile file("", ".ctrc");
    {
        auto writer = FrameWriter::create(file.path(), FrameWriterOptions());
        ASSERT_TRUE(writer);
        ASSERT_EQ(writer->close(), 0);
    }
    std::string bytes = readBytes(file.path());
    auto *header = reinterpret_cast<unsigned char *>(&bytes[0]);
    frames::putU16(header + frames::file_header::kVersion, 3);
    frames::putU32(header + frames::file_header::kHeaderCrc,
                   frames::crc32c(header, frames::file_header::kHeaderCrc));
    TemporaryFile three(bytes, ".ctrc");
    try {
        FrameFile read(three.path());
        ADD_FAILURE() << "a version 3 container opened";
    } catch (const FrameError &error) {
        EXPECT_EQ(error.offset(), frames::file_header::kVersion);
        EXPECT_NE(std::string(error.what()).find("container version 3"), std::string::npos)
            << error.what();
    }
}

}  // namespace
}  // namespace hdtrace::reader
