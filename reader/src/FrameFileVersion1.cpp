// FrameFile's reading of version 1 containers: fixed-size frame headers
// with a magic, index entries with absolute offsets and times, and a footer
// that also counts the records (FrameFormat.hpp, namespace v1).
#include <zstd.h>

#include <cstring>

#include <hdtrace/reader/FrameFile.hpp>

namespace hdtrace::reader {

bool FrameFile::readIndexVersion1() {
    namespace ft = frames::v1::footer;
    namespace ie = frames::v1::index_entry;
    if (size_ < frames::v1::kFileHeaderBytes + frames::v1::kFooterBytes) return false;
    const uint64_t footerOffset = size_ - frames::v1::kFooterBytes;
    unsigned char footer[frames::v1::kFooterBytes];
    readAt(footerOffset, footer, sizeof footer);
    if (std::memcmp(footer + ft::kMagic, frames::kFooterMagic, sizeof frames::kFooterMagic) != 0)
        return false;
    if (frames::getU32(footer + ft::kFooterCrc) != frames::crc32c(footer, ft::kFooterCrc))
        damaged(footerOffset, "footer checksum mismatch");
    const uint64_t indexOffset = frames::getU64(footer + ft::kIndexOffset);
    const uint32_t count = frames::getU32(footer + ft::kFrames);
    const uint64_t indexBytes = uint64_t{count} * frames::v1::kIndexEntryBytes;
    if (indexOffset < frames::v1::kFileHeaderBytes || indexOffset > footerOffset ||
        footerOffset - indexOffset != indexBytes)
        damaged(footerOffset, "footer places an index of " + std::to_string(count) +
                                  " frames at byte " + std::to_string(indexOffset) +
                                  ", which does not end where the footer starts");
    // The index, a bounded batch at a time: entries are checked as they come.
    uint32_t crc = 0;
    uint64_t records = 0;
    uint64_t nextOffset = frames::v1::kFileHeaderBytes;
    unsigned char batch[256 * frames::v1::kIndexEntryBytes];
    for (uint32_t first = 0; first < count; first += 256) {
        const uint32_t n = count - first < 256 ? count - first : 256;
        const uint64_t batchOffset = indexOffset + uint64_t{first} * frames::v1::kIndexEntryBytes;
        readAt(batchOffset, batch, n * frames::v1::kIndexEntryBytes);
        crc = frames::crc32c(batch, n * frames::v1::kIndexEntryBytes, crc);
        for (uint32_t i = 0; i < n; ++i) {
            const unsigned char *in = batch + i * frames::v1::kIndexEntryBytes;
            const uint64_t at = batchOffset + i * frames::v1::kIndexEntryBytes;
            FrameInfo frame;
            frame.offset = frames::getU64(in + ie::kOffset);
            frame.records = frames::getU32(in + ie::kRecords);
            frame.rawBytes = frames::getU32(in + ie::kRawBytes);
            frame.earliest = frames::getI64(in + ie::kEarliest);
            frame.latest = frames::getI64(in + ie::kLatest);
            if (frame.offset != nextOffset)
                damaged(at, "index entry " + std::to_string(first + i) +
                                " places its frame at byte " + std::to_string(frame.offset) +
                                ", not at " + std::to_string(nextOffset) +
                                " where the frame before ends");
            frame.headerBytes = frames::v1::kFrameHeaderBytes;
            checkIndexedFrame(frame, first + i, at);
            // Where the next frame starts bounds this one's payload; the
            // last frame ends where the index starts.
            frames_.push_back(frame);
            records += frame.records;
            nextOffset = UINT64_MAX;  // set below once the next offset is known
            if (i + 1 < n) {
                nextOffset = frames::getU64(in + frames::v1::kIndexEntryBytes + ie::kOffset);
            } else if (first + n < count) {
                unsigned char next[8];
                readAt(batchOffset + n * frames::v1::kIndexEntryBytes + ie::kOffset, next, 8);
                nextOffset = frames::getU64(next);
            } else {
                nextOffset = indexOffset;
            }
            if (nextOffset <= frame.offset || nextOffset > indexOffset ||
                nextOffset - frame.offset < frames::v1::kFrameHeaderBytes ||
                nextOffset - frame.offset - frames::v1::kFrameHeaderBytes > UINT32_MAX)
                damaged(at, "index entry " + std::to_string(first + i) +
                                " leaves no room for its frame before the next one");
            frames_.back().storedBytes =
                static_cast<uint32_t>(nextOffset - frame.offset - frames::v1::kFrameHeaderBytes);
        }
    }
    if (count == 0 && indexOffset != frames::v1::kFileHeaderBytes)
        damaged(footerOffset, "an empty index after frames");
    if (crc != frames::getU32(footer + ft::kIndexCrc))
        damaged(indexOffset, "index checksum mismatch");
    if (records != frames::getU64(footer + ft::kRecords))
        damaged(footerOffset, "footer counts " +
                                  std::to_string(frames::getU64(footer + ft::kRecords)) +
                                  " records, the index " + std::to_string(records));
    return true;
}

FrameFile::Header FrameFile::checkFrameHeaderVersion1(uint64_t offset, uint32_t sequence) const {
    namespace fh = frames::v1::frame_header;
    if (size_ - offset < frames::v1::kFrameHeaderBytes)
        damaged(offset, "frame " + std::to_string(sequence) + " is cut inside its header (" +
                            std::to_string(size_ - offset) + " of " +
                            std::to_string(frames::v1::kFrameHeaderBytes) + " bytes)");
    unsigned char header[frames::v1::kFrameHeaderBytes];
    readAt(offset, header, sizeof header);
    if (std::memcmp(header + fh::kMagic, frames::v1::kFrameMagic, sizeof frames::v1::kFrameMagic) !=
        0)
        damaged(offset, "no frame header (magic HDFR) for frame " + std::to_string(sequence));
    if (frames::getU32(header + fh::kHeaderCrc) != frames::crc32c(header, fh::kHeaderCrc))
        damaged(offset, "frame " + std::to_string(sequence) + ": header checksum mismatch");
    Header read;
    FrameInfo &frame = read.frame;
    frame.offset = offset;
    frame.headerBytes = frames::v1::kFrameHeaderBytes;
    frame.records = frames::getU32(header + fh::kRecords);
    frame.rawBytes = frames::getU32(header + fh::kRawBytes);
    frame.storedBytes = frames::getU32(header + fh::kStoredBytes);
    frame.earliest = frames::getI64(header + fh::kEarliest);
    frame.latest = frames::getI64(header + fh::kLatest);
    read.encoding = header[fh::kEncoding];
    read.payloadCrc = frames::getU32(header + fh::kPayloadCrc);
    const std::string name = "frame " + std::to_string(sequence) + ": ";
    if (frames::getU16(header + fh::kHeaderBytes) != frames::v1::kFrameHeaderBytes ||
        header[fh::kFlags] != 0)
        damaged(offset, name + "unknown header size or flags");
    if (frames::getU32(header + fh::kSequence) != sequence)
        damaged(offset, name + "header says it is frame " +
                            std::to_string(frames::getU32(header + fh::kSequence)));
    checkFrameFields(read, sequence);
    return read;
}

}  // namespace hdtrace::reader
