// What the compact container tests write and read back: records with a
// length prefix (the container itself does not delimit records; a real
// encoding is self-delimiting in its own way), and the helpers that write
// a list of them through a FrameWriter and read every frame of a file.
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <hdtrace/FrameWriter.hpp>
#include <hdtrace/reader/FrameFile.hpp>

namespace hdtrace::reader::testing {

struct TestRecord {
    std::string bytes;
    int64_t time = 0;
    bool operator==(const TestRecord &other) const {
        return bytes == other.bytes && time == other.time;
    }
};

// A record's encoding: varint length of the bytes, the bytes, then the time
// as 8 little-endian bytes.
inline std::string encodeRecord(const TestRecord &record) {
    std::string out;
    uint64_t length = record.bytes.size();
    do {
        out += static_cast<char>((length & 0x7F) | (length > 0x7F ? 0x80 : 0));
        length >>= 7;
    } while (length != 0);
    out += record.bytes;
    for (int i = 0; i < 8; ++i)
        out += static_cast<char>(static_cast<uint64_t>(record.time) >> (8 * i));
    return out;
}

// Splits a frame's payload into records; fails the test on leftovers.
inline std::vector<TestRecord> decodeRecords(const std::vector<unsigned char> &payload) {
    std::vector<TestRecord> records;
    size_t at = 0;
    while (at < payload.size()) {
        uint64_t length = 0;
        int shift = 0;
        while (at < payload.size()) {
            const unsigned char byte = payload[at++];
            length |= uint64_t{byte & 0x7Fu} << shift;
            shift += 7;
            if (!(byte & 0x80)) break;
        }
        if (payload.size() - at < length + 8) {
            ADD_FAILURE() << "a record runs past its frame at byte " << at;
            return records;
        }
        TestRecord record;
        record.bytes.assign(reinterpret_cast<const char *>(payload.data() + at), length);
        at += length;
        uint64_t time = 0;
        for (int i = 7; i >= 0; --i)
            time = (time << 8) | payload[at + static_cast<size_t>(i)];
        at += 8;
        record.time = static_cast<int64_t>(time);
        records.push_back(record);
    }
    return records;
}

// Records of varied sizes (1 to maxBytes) and non-decreasing times.
inline std::vector<TestRecord> makeRecords(size_t count, size_t maxBytes, uint64_t seed = 1) {
    std::vector<TestRecord> records;
    uint64_t state = seed * 0x9E3779B97F4A7C15ull + 1;
    int64_t time = 1'000'000'000;
    for (size_t i = 0; i < count; ++i) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        const size_t length = 1 + (state >> 33) % maxBytes;
        TestRecord record;
        for (size_t b = 0; b < length; ++b)
            record.bytes += static_cast<char>('a' + (i + b) % 26);
        time += static_cast<int64_t>((state >> 20) % 1000);
        record.time = time;
        records.push_back(record);
    }
    return records;
}

inline void appendAll(FrameWriter &writer, const std::vector<TestRecord> &records) {
    for (const TestRecord &record : records) {
        const std::string encoded = encodeRecord(record);
        ASSERT_EQ(writer.append(encoded.data(), encoded.size(), record.time), 0);
    }
}

// Every record of every frame, in file order; checks each frame's record
// count and time range against its header.
inline std::vector<TestRecord> readAllRecords(FrameFile &file) {
    std::vector<TestRecord> all;
    std::vector<unsigned char> payload;
    for (size_t i = 0; i < file.frames().size(); ++i) {
        if (!file.readFrame(i, payload)) break;
        const FrameInfo &frame = file.frames()[i];
        const std::vector<TestRecord> records = decodeRecords(payload);
        EXPECT_EQ(records.size(), frame.records) << "frame " << i;
        for (const TestRecord &record : records) {
            EXPECT_GE(record.time, frame.earliest) << "frame " << i;
            EXPECT_LE(record.time, frame.latest) << "frame " << i;
        }
        all.insert(all.end(), records.begin(), records.end());
    }
    return all;
}

inline std::string readBytes(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

inline void writeBytes(const std::string &path, const std::string &bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace hdtrace::reader::testing
