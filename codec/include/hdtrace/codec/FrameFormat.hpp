// FrameFormat: the byte layout of the compact trace container, shared by the
// writer's FrameWriter and the reader's FrameFile. What the bytes
// mean is described in docs/format/compact.md; this header holds the sizes,
// the magic numbers and the field offsets, so that both sides agree by
// construction.
//
// Every integer is little-endian; the helpers below read and write them
// byte by byte, so the layout does not depend on the host.
#pragma once

#include <cstddef>
#include <cstdint>

#include <hdtrace/codec/Varint.hpp>

namespace hdtrace::frames {

// --- File header: the first kFileHeaderBytes of every compact trace. The
// magic and the version are at the same place in every version.
constexpr char kFileMagic[8] = {'H', 'D', 'T', 'C', 'O', 'M', 'P', '\x1a'};
constexpr uint16_t kVersion = 2;
constexpr size_t kFileHeaderBytes = 18;
namespace file_header {
constexpr size_t kMagic = 0;           // 8 bytes
constexpr size_t kVersion = 8;         // u16
constexpr size_t kMaxFrameBytes = 10;  // u32, largest uncompressed frame payload
constexpr size_t kHeaderCrc = 14;      // u32, CRC-32C of bytes [0, 14)
}  // namespace file_header

// --- Frame header: before every frame's payload, kMinFrameHeaderBytes to
// kMaxFrameHeaderBytes long:
//   u8 header size, u8 Encoding, varint records, varint decoded size,
//   varint stored size, signed varint earliest, varint latest - earliest,
//   u32 payload CRC, u32 header CRC
// The header CRC covers the frame's sequence number (u32, 0 for the file's
// first frame) followed by the header's bytes before the CRC, so a frame
// read in another place than its own fails its check.
constexpr size_t kMinFrameHeaderBytes = 15;
constexpr size_t kMaxFrameHeaderBytes = 2 + 3 * 5 + 2 * 10 + 8;
namespace frame_header {
constexpr size_t kHeaderBytes = 0;  // u8
constexpr size_t kEncoding = 1;     // u8, Encoding
constexpr size_t kFields = 2;       // the varints
// From the end of the header:
constexpr size_t kPayloadCrcFromEnd = 8;  // u32, CRC-32C of the stored payload
constexpr size_t kHeaderCrcFromEnd = 4;   // u32
}  // namespace frame_header

enum class Encoding : uint8_t {
    Stored = 0,  // payload as appended (a crash path writes these)
    Zstd = 1,    // payload is one zstd frame
    // payload is one zstd frame of the records with their times gathered
    // after them (GatheredTimes.hpp); the zstd frame's content size is the
    // gathered size, smaller than the decoded size
    ZstdGatheredTimes = 2,
    // as 2, the gathered size larger than the decoded size, at most
    // compact::maxGatheredBytes of it: times whose changes take more bytes
    // than they do, which zstd still makes smaller gathered
    ZstdGatheredTimesLarger = 3,
};

// --- Index: one entry per frame, after the last frame, each
//   varint header size, varint stored size, varint records,
//   varint decoded size, signed varint earliest minus the latest of the
//   entry before (0 before the first), varint latest - earliest
// The first frame starts at kFileHeaderBytes, each next one where the one
// before ends; the last one ends where the index starts.
constexpr size_t kMaxIndexEntryBytes = 4 * 5 + 2 * 10;

// --- Footer: the last kFooterBytes of a closed trace.
constexpr char kFooterMagic[4] = {'H', 'D', 'I', 'X'};
constexpr size_t kFooterBytes = 16;
namespace footer {
constexpr size_t kIndexBytes = 0;  // u32, the index's size in bytes
constexpr size_t kFrames = 4;      // u32, index entries
constexpr size_t kCrc = 8;         // u32, CRC-32C of the index, then of bytes [0, 8)
constexpr size_t kMagic = 12;      // 4 bytes
}  // namespace footer

// --- Version 1 (written until the container was made smaller; still read):
// fixed-size headers, index entries and footer, with the same magics.
namespace v1 {
constexpr uint16_t kVersion = 1;
constexpr size_t kFileHeaderBytes = 24;
namespace file_header {
constexpr size_t kHeaderBytes = 10;    // u16, kFileHeaderBytes
constexpr size_t kMaxFrameBytes = 12;  // u32
constexpr size_t kFlags = 16;          // u32, 0
constexpr size_t kHeaderCrc = 20;      // u32, CRC-32C of bytes [0, 20)
}  // namespace file_header
constexpr char kFrameMagic[4] = {'H', 'D', 'F', 'R'};
constexpr size_t kFrameHeaderBytes = 48;
namespace frame_header {
constexpr size_t kMagic = 0;         // 4 bytes
constexpr size_t kEncoding = 4;      // u8, Encoding
constexpr size_t kFlags = 5;         // u8, 0
constexpr size_t kHeaderBytes = 6;   // u16, kFrameHeaderBytes
constexpr size_t kRecords = 8;       // u32
constexpr size_t kRawBytes = 12;     // u32, payload size once decoded
constexpr size_t kStoredBytes = 16;  // u32, payload size in the file
constexpr size_t kPayloadCrc = 20;   // u32, CRC-32C of the stored payload
constexpr size_t kEarliest = 24;     // i64, earliest record time (ns)
constexpr size_t kLatest = 32;       // i64, latest record time (ns)
constexpr size_t kSequence = 40;     // u32, 0 for the file's first frame
constexpr size_t kHeaderCrc = 44;    // u32, CRC-32C of bytes [0, 44)
}  // namespace frame_header
constexpr size_t kIndexEntryBytes = 32;
namespace index_entry {
constexpr size_t kOffset = 0;     // u64, file offset of the frame header
constexpr size_t kRecords = 8;    // u32
constexpr size_t kRawBytes = 12;  // u32
constexpr size_t kEarliest = 16;  // i64
constexpr size_t kLatest = 24;    // i64
}  // namespace index_entry
constexpr size_t kFooterBytes = 32;
namespace footer {
constexpr size_t kIndexOffset = 0;  // u64
constexpr size_t kRecords = 8;      // u64, records in all frames
constexpr size_t kFrames = 16;      // u32, index entries
constexpr size_t kIndexCrc = 20;    // u32, CRC-32C of the index entries
constexpr size_t kFooterCrc = 24;   // u32, CRC-32C of bytes [0, 24)
constexpr size_t kMagic = 28;       // 4 bytes
}  // namespace footer
}  // namespace v1

// The writer refuses larger frames, the reader larger claims: the bound on
// the memory a reader needs for one frame.
constexpr uint32_t kMaxFrameBytesLimit = 64u << 20;
constexpr uint32_t kMinFrameBytes = 256;

inline void putU16(unsigned char *out, uint16_t value) {
    out[0] = static_cast<unsigned char>(value);
    out[1] = static_cast<unsigned char>(value >> 8);
}
inline void putU32(unsigned char *out, uint32_t value) {
    for (int i = 0; i < 4; ++i)
        out[i] = static_cast<unsigned char>(value >> (8 * i));
}
inline void putU64(unsigned char *out, uint64_t value) {
    for (int i = 0; i < 8; ++i)
        out[i] = static_cast<unsigned char>(value >> (8 * i));
}
inline void putI64(unsigned char *out, int64_t value) {
    putU64(out, static_cast<uint64_t>(value));
}
inline uint16_t getU16(const unsigned char *in) {
    return static_cast<uint16_t>(in[0] | (in[1] << 8));
}
inline uint32_t getU32(const unsigned char *in) {
    uint32_t value = 0;
    for (int i = 3; i >= 0; --i)
        value = (value << 8) | in[i];
    return value;
}
inline uint64_t getU64(const unsigned char *in) {
    uint64_t value = 0;
    for (int i = 7; i >= 0; --i)
        value = (value << 8) | in[i];
    return value;
}
inline int64_t getI64(const unsigned char *in) {
    return static_cast<int64_t>(getU64(in));
}

// Variable-length integers of the headers and the index (Varint.hpp).
using hdtrace::getVarint;
using hdtrace::putVarint;
inline unsigned char *putSignedVarint(unsigned char *out, int64_t value) {
    return putVarint(out, zigzag(value));
}
inline bool getSignedVarint(const unsigned char **in, const unsigned char *end, int64_t *value) {
    uint64_t coded = 0;
    if (!getVarint(in, end, &coded)) return false;
    *value = unzigzag(coded);
    return true;
}

// Sums of times wrap, as their differences do.
inline int64_t wrappingAdd(int64_t value, int64_t difference) {
    return static_cast<int64_t>(static_cast<uint64_t>(value) + static_cast<uint64_t>(difference));
}

// CRC-32C (Castagnoli), the checksum of every header, payload and index.
// Pure computation on the caller's bytes: safe in a signal handler.
uint32_t crc32c(const void *data, size_t length, uint32_t crc = 0);

}  // namespace hdtrace::frames
