#include "FrameFile.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <cstring>

namespace hdtrace::reader {

namespace fh = frames::frame_header;

FrameError::FrameError(const std::string &file, uint64_t offset, const std::string &problem)
    : ReadError(file, 0, 0, "byte " + std::to_string(offset) + ": " + problem), offset_(offset) {}

namespace {

// The partial read's way out of the middle of a check.
struct StopHere {
    std::string message;
};

}  // namespace

FrameFile::FrameFile(const std::string &path, FrameFileOptions options)
    : path_(path), options_(options) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw ReadError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
    struct stat info;
    if (::fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd_);
        throw ReadError(path, 0, 0, "not a regular file");
    }
    size_ = static_cast<uint64_t>(info.st_size);
    try {
        readFileHeader();  // damage here is never partial: nothing to keep
        try {
            indexed_ = readIndex();
        } catch (const FrameError &error) {
            if (!options_.partial) throw;
            damage_ = error.what();
            frames_.clear();
        }
        if (!indexed_) walkFrames();
    } catch (...) {
        ::close(fd_);
        throw;
    }
}

FrameFile::~FrameFile() {
    if (fd_ >= 0) ::close(fd_);
    ZSTD_freeDCtx(static_cast<ZSTD_DCtx *>(decompressor_));
}

void FrameFile::damaged(uint64_t offset, const std::string &problem) const {
    throw FrameError(path_, offset, problem);
}

void FrameFile::readAt(uint64_t offset, void *out, size_t length) const {
    if (offset > size_ || length > size_ - offset)
        damaged(offset, "needs " + std::to_string(length) + " bytes, the file ends at byte " +
                            std::to_string(size_));
    auto *to = static_cast<char *>(out);
    while (length > 0) {
        const ssize_t got = ::pread(fd_, to, length, static_cast<off_t>(offset));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0)
            damaged(offset, got < 0 ? std::string("cannot read: ") + std::strerror(errno)
                                    : "the file shrank while being read");
        to += got;
        offset += static_cast<uint64_t>(got);
        length -= static_cast<size_t>(got);
    }
}

uint64_t FrameFile::records() const {
    uint64_t total = 0;
    for (const FrameInfo &frame : frames_)
        total += frame.records;
    return total;
}

void FrameFile::readFileHeader() {
    namespace fileh = frames::file_header;
    if (size_ < frames::kFileHeaderBytes)
        damaged(0, "too short for a compact trace (" + std::to_string(size_) + " bytes)");
    unsigned char header[frames::kFileHeaderBytes];
    readAt(0, header, sizeof header);
    if (std::memcmp(header + fileh::kMagic, frames::kFileMagic, sizeof frames::kFileMagic) != 0)
        damaged(0, "not a compact trace (no HDTCOMP magic)");
    if (frames::getU32(header + fileh::kHeaderCrc) != frames::crc32c(header, fileh::kHeaderCrc))
        damaged(0, "file header checksum mismatch");
    const uint16_t version = frames::getU16(header + fileh::kVersion);
    if (version != frames::kVersion)
        damaged(fileh::kVersion, "container version " + std::to_string(version) +
                                     " is not the one this reader knows (" +
                                     std::to_string(frames::kVersion) + ")");
    if (frames::getU16(header + fileh::kHeaderBytes) != frames::kFileHeaderBytes)
        damaged(fileh::kHeaderBytes,
                "file header size is not " + std::to_string(frames::kFileHeaderBytes));
    if (frames::getU32(header + fileh::kFlags) != 0) damaged(fileh::kFlags, "unknown file flags");
    maxFrameBytes_ = frames::getU32(header + fileh::kMaxFrameBytes);
    if (maxFrameBytes_ < frames::kMinFrameBytes || maxFrameBytes_ > frames::kMaxFrameBytesLimit)
        damaged(fileh::kMaxFrameBytes, "frame size " + std::to_string(maxFrameBytes_) +
                                           " is outside " + std::to_string(frames::kMinFrameBytes) +
                                           ".." + std::to_string(frames::kMaxFrameBytesLimit));
}

bool FrameFile::readIndex() {
    namespace ft = frames::footer;
    namespace ie = frames::index_entry;
    if (size_ < frames::kFileHeaderBytes + frames::kFooterBytes) return false;
    const uint64_t footerOffset = size_ - frames::kFooterBytes;
    unsigned char footer[frames::kFooterBytes];
    readAt(footerOffset, footer, sizeof footer);
    if (std::memcmp(footer + ft::kMagic, frames::kFooterMagic, sizeof frames::kFooterMagic) != 0)
        return false;
    if (frames::getU32(footer + ft::kFooterCrc) != frames::crc32c(footer, ft::kFooterCrc))
        damaged(footerOffset, "footer checksum mismatch");
    const uint64_t indexOffset = frames::getU64(footer + ft::kIndexOffset);
    const uint32_t count = frames::getU32(footer + ft::kFrames);
    const uint64_t indexBytes = uint64_t{count} * frames::kIndexEntryBytes;
    if (indexOffset < frames::kFileHeaderBytes || indexOffset > footerOffset ||
        footerOffset - indexOffset != indexBytes)
        damaged(footerOffset, "footer places an index of " + std::to_string(count) +
                                  " frames at byte " + std::to_string(indexOffset) +
                                  ", which does not end where the footer starts");
    // The index, a bounded batch at a time: entries are checked as they come.
    uint32_t crc = 0;
    uint64_t records = 0;
    uint64_t nextOffset = frames::kFileHeaderBytes;
    unsigned char batch[256 * frames::kIndexEntryBytes];
    for (uint32_t first = 0; first < count; first += 256) {
        const uint32_t n = count - first < 256 ? count - first : 256;
        const uint64_t batchOffset = indexOffset + uint64_t{first} * frames::kIndexEntryBytes;
        readAt(batchOffset, batch, n * frames::kIndexEntryBytes);
        crc = frames::crc32c(batch, n * frames::kIndexEntryBytes, crc);
        for (uint32_t i = 0; i < n; ++i) {
            const unsigned char *in = batch + i * frames::kIndexEntryBytes;
            const uint64_t at = batchOffset + i * frames::kIndexEntryBytes;
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
            if (frame.rawBytes > maxFrameBytes_ || frame.records == 0 ||
                frame.records > frame.rawBytes || frame.earliest > frame.latest)
                damaged(at, "index entry " + std::to_string(first + i) +
                                " is impossible (records, size or times)");
            // Where the next frame starts bounds this one's payload; the
            // last frame ends where the index starts.
            frames_.push_back(frame);
            records += frame.records;
            nextOffset = UINT64_MAX;  // set below once the next offset is known
            if (i + 1 < n) {
                nextOffset = frames::getU64(in + frames::kIndexEntryBytes + ie::kOffset);
            } else if (first + n < count) {
                unsigned char next[8];
                readAt(batchOffset + n * frames::kIndexEntryBytes + ie::kOffset, next, 8);
                nextOffset = frames::getU64(next);
            } else {
                nextOffset = indexOffset;
            }
            if (nextOffset <= frame.offset || nextOffset > indexOffset ||
                nextOffset - frame.offset < frames::kFrameHeaderBytes ||
                nextOffset - frame.offset - frames::kFrameHeaderBytes > UINT32_MAX)
                damaged(at, "index entry " + std::to_string(first + i) +
                                " leaves no room for its frame before the next one");
            frames_.back().storedBytes =
                static_cast<uint32_t>(nextOffset - frame.offset - frames::kFrameHeaderBytes);
        }
    }
    if (count == 0 && indexOffset != frames::kFileHeaderBytes)
        damaged(footerOffset, "an empty index after frames");
    if (crc != frames::getU32(footer + ft::kIndexCrc))
        damaged(indexOffset, "index checksum mismatch");
    if (records != frames::getU64(footer + ft::kRecords))
        damaged(footerOffset, "footer counts " +
                                  std::to_string(frames::getU64(footer + ft::kRecords)) +
                                  " records, the index " + std::to_string(records));
    return true;
}

FrameInfo FrameFile::checkFrameHeader(uint64_t offset, uint32_t sequence) const {
    if (size_ - offset < frames::kFrameHeaderBytes)
        damaged(offset, "frame " + std::to_string(sequence) + " is cut inside its header (" +
                            std::to_string(size_ - offset) + " of " +
                            std::to_string(frames::kFrameHeaderBytes) + " bytes)");
    unsigned char header[frames::kFrameHeaderBytes];
    readAt(offset, header, sizeof header);
    if (std::memcmp(header + fh::kMagic, frames::kFrameMagic, sizeof frames::kFrameMagic) != 0)
        damaged(offset, "no frame header (magic HDFR) for frame " + std::to_string(sequence));
    if (frames::getU32(header + fh::kHeaderCrc) != frames::crc32c(header, fh::kHeaderCrc))
        damaged(offset, "frame " + std::to_string(sequence) + ": header checksum mismatch");
    FrameInfo frame;
    frame.offset = offset;
    frame.records = frames::getU32(header + fh::kRecords);
    frame.rawBytes = frames::getU32(header + fh::kRawBytes);
    frame.storedBytes = frames::getU32(header + fh::kStoredBytes);
    frame.earliest = frames::getI64(header + fh::kEarliest);
    frame.latest = frames::getI64(header + fh::kLatest);
    const uint8_t encoding = header[fh::kEncoding];
    const std::string name = "frame " + std::to_string(sequence) + ": ";
    if (frames::getU16(header + fh::kHeaderBytes) != frames::kFrameHeaderBytes ||
        header[fh::kFlags] != 0)
        damaged(offset, name + "unknown header size or flags");
    if (frames::getU32(header + fh::kSequence) != sequence)
        damaged(offset, name + "header says it is frame " +
                            std::to_string(frames::getU32(header + fh::kSequence)));
    if (frame.rawBytes > maxFrameBytes_)
        damaged(offset, name + "decodes to " + std::to_string(frame.rawBytes) +
                            " bytes, more than the file's frame size " +
                            std::to_string(maxFrameBytes_));
    if (frame.records == 0 || frame.records > frame.rawBytes || frame.earliest > frame.latest)
        damaged(offset, name + "impossible record count or times");
    if (encoding == static_cast<uint8_t>(frames::Encoding::Stored)) {
        if (frame.storedBytes != frame.rawBytes)
            damaged(offset, name + "stored payload of " + std::to_string(frame.storedBytes) +
                                " bytes for " + std::to_string(frame.rawBytes) +
                                " bytes of records");
    } else if (encoding == static_cast<uint8_t>(frames::Encoding::Zstd)) {
        if (frame.storedBytes == 0 || frame.storedBytes > ZSTD_compressBound(frame.rawBytes))
            damaged(offset, name + "zstd payload of " + std::to_string(frame.storedBytes) +
                                " bytes cannot hold " + std::to_string(frame.rawBytes) +
                                " bytes of records");
    } else {
        damaged(offset, name + "unknown encoding " + std::to_string(encoding));
    }
    const uint64_t payloadOffset = offset + frames::kFrameHeaderBytes;
    if (frame.storedBytes > size_ - payloadOffset)
        damaged(offset, name + "cut inside its payload (" + std::to_string(size_ - payloadOffset) +
                            " of " + std::to_string(frame.storedBytes) + " bytes)");
    return frame;
}

void FrameFile::walkFrames() {
    frames_.clear();
    uint64_t offset = frames::kFileHeaderBytes;
    try {
        while (offset < size_) {
            const FrameInfo frame = checkFrameHeader(offset, static_cast<uint32_t>(frames_.size()));
            frames_.push_back(frame);
            offset += frames::kFrameHeaderBytes + frame.storedBytes;
        }
    } catch (const FrameError &error) {
        if (!options_.partial) throw;
        if (!damage_) damage_ = error.what();
    }
    cutAt_ = offset;
}

std::vector<size_t> FrameFile::framesInWindow(int64_t from, int64_t to) const {
    std::vector<size_t> positions;
    for (size_t i = 0; i < frames_.size(); ++i)
        if (frames_[i].latest >= from && frames_[i].earliest <= to) positions.push_back(i);
    return positions;
}

bool FrameFile::readFrame(size_t position, std::vector<unsigned char> &records) {
    if (position >= frames_.size())
        throw ReadError(path_, 0, 0,
                        "no frame " + std::to_string(position) + " (the trace has " +
                            std::to_string(frames_.size()) + ")");
    try {
        decode(frames_[position], position, records);
        return true;
    } catch (const FrameError &error) {
        if (!options_.partial) throw;
        if (!damage_) damage_ = error.what();
        frames_.resize(position);
        return false;
    }
}

void FrameFile::decode(const FrameInfo &listed, size_t position,
                       std::vector<unsigned char> &records) {
    const FrameInfo frame = checkFrameHeader(listed.offset, static_cast<uint32_t>(position));
    if (frame.storedBytes != listed.storedBytes || frame.rawBytes != listed.rawBytes ||
        frame.records != listed.records || frame.earliest != listed.earliest ||
        frame.latest != listed.latest)
        damaged(listed.offset,
                "frame " + std::to_string(position) + ": header disagrees with the index");
    unsigned char header[frames::kFrameHeaderBytes];
    readAt(frame.offset, header, sizeof header);
    const uint64_t payloadOffset = frame.offset + frames::kFrameHeaderBytes;
    payload_.resize(frame.storedBytes);
    readAt(payloadOffset, payload_.data(), payload_.size());
    if (frames::crc32c(payload_.data(), payload_.size()) !=
        frames::getU32(header + fh::kPayloadCrc))
        damaged(payloadOffset, "frame " + std::to_string(position) + ": payload checksum mismatch");
    records.resize(frame.rawBytes);
    if (header[fh::kEncoding] == static_cast<uint8_t>(frames::Encoding::Stored)) {
        if (frame.rawBytes > 0) std::memcpy(records.data(), payload_.data(), frame.rawBytes);
        return;
    }
    if (!decompressor_) {
        decompressor_ = ZSTD_createDCtx();
        if (!decompressor_) throw ReadError(path_, 0, 0, "cannot create a zstd context");
    }
    auto *context = static_cast<ZSTD_DCtx *>(decompressor_);
    const unsigned long long declared = ZSTD_getFrameContentSize(payload_.data(), payload_.size());
    if (declared != frame.rawBytes ||
        ZSTD_findFrameCompressedSize(payload_.data(), payload_.size()) != payload_.size())
        damaged(payloadOffset, "frame " + std::to_string(position) +
                                   ": payload is not one zstd frame of " +
                                   std::to_string(frame.rawBytes) + " bytes");
    const size_t decoded = ZSTD_decompressDCtx(context, records.data(), records.size(),
                                               payload_.data(), payload_.size());
    if (ZSTD_isError(decoded) || decoded != frame.rawBytes)
        damaged(payloadOffset,
                "frame " + std::to_string(position) + ": zstd cannot decode the payload" +
                    (ZSTD_isError(decoded) ? std::string(" (") + ZSTD_getErrorName(decoded) + ")"
                                           : std::string()));
}

}  // namespace hdtrace::reader
