#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>

#include <hdtrace/reader/FrameFile.hpp>

namespace hdtrace::reader {

namespace fh = frames::frame_header;

FrameError::FrameError(const std::string &file, uint64_t offset, const std::string &problem)
    : ReadError(file, 0, 0, "byte " + std::to_string(offset) + ": " + problem), offset_(offset) {}

namespace {

// The partial read's way out of the middle of a check.
struct StopHere {
    std::string message;
};

// One zstd context per thread for every frame file it reads: a frame is
// decompressed in one call, which keeps nothing in the context for the
// next. A context per file, made and freed with it, was a tenth of reading
// a run of many small traces, and a merge of every rank's calls, which
// holds every trace open at once, held a context for each.
struct ThreadDecompressor {
    ZSTD_DCtx *context = nullptr;
    ~ThreadDecompressor() { ZSTD_freeDCtx(context); }
};
thread_local ThreadDecompressor threadDecompressor;

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
    // The magic and the version are where every version has them; the rest
    // of the header follows from the version.
    constexpr size_t kVersionEnd = fileh::kVersion + 2;
    if (size_ < kVersionEnd)
        damaged(0, "too short for a compact trace (" + std::to_string(size_) + " bytes)");
    unsigned char header[frames::v1::kFileHeaderBytes];
    readAt(0, header, kVersionEnd);
    if (std::memcmp(header + fileh::kMagic, frames::kFileMagic, sizeof frames::kFileMagic) != 0)
        damaged(0, "not a compact trace (no HDTCOMP magic)");
    version_ = frames::getU16(header + fileh::kVersion);
    if (version_ != frames::kVersion && version_ != frames::v1::kVersion)
        damaged(fileh::kVersion, "container version " + std::to_string(version_) +
                                     " is not one this reader knows (1 to " +
                                     std::to_string(frames::kVersion) + ")");
    firstFrame_ =
        version_ == frames::v1::kVersion ? frames::v1::kFileHeaderBytes : frames::kFileHeaderBytes;
    if (size_ < firstFrame_)
        damaged(0, "too short for a compact trace (" + std::to_string(size_) + " bytes)");
    readAt(0, header, firstFrame_);
    size_t crcAt = fileh::kHeaderCrc;
    size_t frameSizeAt = fileh::kMaxFrameBytes;
    if (version_ == frames::v1::kVersion) {
        crcAt = frames::v1::file_header::kHeaderCrc;
        frameSizeAt = frames::v1::file_header::kMaxFrameBytes;
    }
    if (frames::getU32(header + crcAt) != frames::crc32c(header, crcAt))
        damaged(0, "file header checksum mismatch");
    if (version_ == frames::v1::kVersion) {
        namespace v1h = frames::v1::file_header;
        if (frames::getU16(header + v1h::kHeaderBytes) != frames::v1::kFileHeaderBytes)
            damaged(v1h::kHeaderBytes,
                    "file header size is not " + std::to_string(frames::v1::kFileHeaderBytes));
        if (frames::getU32(header + v1h::kFlags) != 0) damaged(v1h::kFlags, "unknown file flags");
    }
    maxFrameBytes_ = frames::getU32(header + frameSizeAt);
    if (maxFrameBytes_ < frames::kMinFrameBytes || maxFrameBytes_ > frames::kMaxFrameBytesLimit)
        damaged(frameSizeAt, "frame size " + std::to_string(maxFrameBytes_) + " is outside " +
                                 std::to_string(frames::kMinFrameBytes) + ".." +
                                 std::to_string(frames::kMaxFrameBytesLimit));
}

bool FrameFile::readIndex() {
    if (version_ == frames::v1::kVersion) return readIndexVersion1();
    namespace ft = frames::footer;
    if (size_ < firstFrame_ + frames::kFooterBytes) return false;
    const uint64_t footerOffset = size_ - frames::kFooterBytes;
    unsigned char footer[frames::kFooterBytes];
    readAt(footerOffset, footer, sizeof footer);
    if (std::memcmp(footer + ft::kMagic, frames::kFooterMagic, sizeof frames::kFooterMagic) != 0)
        return false;
    const uint32_t indexBytes = frames::getU32(footer + ft::kIndexBytes);
    const uint32_t count = frames::getU32(footer + ft::kFrames);
    if (indexBytes > footerOffset - firstFrame_)
        damaged(footerOffset, "footer claims an index of " + std::to_string(indexBytes) +
                                  " bytes, more than the file holds before it");
    const uint64_t indexOffset = footerOffset - indexBytes;
    if (indexBytes == 0 && count == 1) return readOnlyFrame(footerOffset, footer);
    // The index, a bounded batch at a time, each entry checked as it comes;
    // an entry may straddle two batches, so the unread tail moves to the front.
    constexpr size_t kBatchBytes = 64 * 1024;
    std::vector<unsigned char> batch(kBatchBytes);
    size_t held = 0;
    uint64_t readUpTo = indexOffset;
    uint64_t heldFrom = indexOffset;  // file offset of batch[0]
    uint32_t crc = 0;
    uint64_t nextOffset = firstFrame_;
    int64_t previousLatest = 0;
    for (uint32_t position = 0; position < count; ++position) {
        const size_t used = static_cast<size_t>(readUpTo - heldFrom) - held;
        if (held < frames::kMaxIndexEntryBytes && readUpTo < footerOffset) {
            std::memmove(batch.data(), batch.data() + used, held);
            heldFrom += used;
            const size_t more = static_cast<size_t>(
                std::min<uint64_t>(kBatchBytes - held, footerOffset - readUpTo));
            readAt(readUpTo, batch.data() + held, more);
            crc = frames::crc32c(batch.data() + held, more, crc);
            held += more;
            readUpTo += more;
        }
        const unsigned char *start = batch.data() + (readUpTo - heldFrom) - held;
        const unsigned char *in = start;
        const unsigned char *end = start + held;
        const uint64_t at = readUpTo - held;
        uint64_t headerBytes = 0, storedBytes = 0, records = 0, rawBytes = 0, span = 0;
        int64_t sinceLatest = 0;
        if (!frames::getVarint(&in, end, &headerBytes) ||
            !frames::getVarint(&in, end, &storedBytes) || !frames::getVarint(&in, end, &records) ||
            !frames::getVarint(&in, end, &rawBytes) ||
            !frames::getSignedVarint(&in, end, &sinceLatest) || !frames::getVarint(&in, end, &span))
            damaged(at, "index entry " + std::to_string(position) + " runs past the index");
        held -= static_cast<size_t>(in - start);
        FrameInfo frame;
        frame.offset = nextOffset;
        if (headerBytes < frames::kMinFrameHeaderBytes ||
            headerBytes > frames::kMaxFrameHeaderBytes || storedBytes > UINT32_MAX ||
            records > UINT32_MAX || rawBytes > UINT32_MAX || span > INT64_MAX)
            damaged(at, "index entry " + std::to_string(position) +
                            " is impossible (header size, sizes or times)");
        frame.headerBytes = static_cast<uint32_t>(headerBytes);
        frame.storedBytes = static_cast<uint32_t>(storedBytes);
        frame.records = static_cast<uint32_t>(records);
        frame.rawBytes = static_cast<uint32_t>(rawBytes);
        frame.earliest = frames::wrappingAdd(previousLatest, sinceLatest);
        frame.latest = frames::wrappingAdd(frame.earliest, static_cast<int64_t>(span));
        previousLatest = frame.latest;
        checkIndexedFrame(frame, position, at);
        if (frame.headerBytes + uint64_t{frame.storedBytes} > indexOffset - frame.offset)
            damaged(at, "index entry " + std::to_string(position) +
                            " leaves no room for its frame before the index");
        frames_.push_back(frame);
        nextOffset = frame.end();
    }
    if (held != 0 || readUpTo != footerOffset)
        damaged(indexOffset, "the index holds more than its " + std::to_string(count) + " entries");
    if (nextOffset != indexOffset)
        damaged(indexOffset, "the frames the index lists end at byte " +
                                 std::to_string(nextOffset) + ", not where the index starts");
    if (frames::crc32c(footer, ft::kCrc, crc) != frames::getU32(footer + ft::kCrc))
        damaged(indexOffset, "index checksum mismatch");
    return true;
}

bool FrameFile::readOnlyFrame(uint64_t footerOffset, const unsigned char *footer) {
    namespace ft = frames::footer;
    if (frames::crc32c(footer, ft::kCrc) != frames::getU32(footer + ft::kCrc))
        damaged(footerOffset, "footer checksum mismatch");
    const FrameInfo frame = checkFrameHeader(firstFrame_, 0).frame;
    if (frame.end() != footerOffset)
        damaged(firstFrame_, "the only frame ends at byte " + std::to_string(frame.end()) +
                                 ", not where the footer starts");
    frames_.push_back(frame);
    return true;
}

void FrameFile::checkIndexedFrame(const FrameInfo &frame, uint32_t position, uint64_t at) const {
    if (frame.rawBytes > maxFrameBytes_ || frame.records == 0 || frame.records > frame.rawBytes ||
        frame.earliest > frame.latest)
        damaged(at, "index entry " + std::to_string(position) +
                        " is impossible (records, size or times)");
}

FrameFile::Header FrameFile::checkFrameHeader(uint64_t offset, uint32_t sequence) const {
    if (version_ == frames::v1::kVersion) return checkFrameHeaderVersion1(offset, sequence);
    namespace fh = frames::frame_header;
    const std::string name = "frame " + std::to_string(sequence) + ": ";
    const uint64_t left = size_ - offset;
    if (left < frames::kMinFrameHeaderBytes)
        damaged(offset, name + "cut inside its header (" + std::to_string(left) + " bytes)");
    unsigned char bytes[frames::kMaxFrameHeaderBytes];
    readAt(offset, bytes, 1);
    const size_t headerBytes = bytes[fh::kHeaderBytes];
    if (headerBytes < frames::kMinFrameHeaderBytes || headerBytes > frames::kMaxFrameHeaderBytes)
        damaged(offset, name + "no frame header here (its size byte says " +
                            std::to_string(headerBytes) + ")");
    if (left < headerBytes)
        damaged(offset, name + "cut inside its header (" + std::to_string(left) + " of " +
                            std::to_string(headerBytes) + " bytes)");
    readAt(offset, bytes, headerBytes);
    unsigned char sequenceBytes[4];
    frames::putU32(sequenceBytes, sequence);
    const size_t crcAt = headerBytes - fh::kHeaderCrcFromEnd;
    if (frames::getU32(bytes + crcAt) !=
        frames::crc32c(bytes, crcAt, frames::crc32c(sequenceBytes, 4)))
        damaged(offset,
                name + "header checksum mismatch (or not frame " + std::to_string(sequence) + ")");
    Header header;
    header.encoding = bytes[fh::kEncoding];
    header.payloadCrc = frames::getU32(bytes + headerBytes - fh::kPayloadCrcFromEnd);
    FrameInfo &frame = header.frame;
    frame.offset = offset;
    frame.headerBytes = static_cast<uint32_t>(headerBytes);
    const unsigned char *in = bytes + fh::kFields;
    const unsigned char *end = bytes + headerBytes - fh::kPayloadCrcFromEnd;
    uint64_t records = 0, rawBytes = 0, storedBytes = 0, span = 0;
    if (!frames::getVarint(&in, end, &records) || !frames::getVarint(&in, end, &rawBytes) ||
        !frames::getVarint(&in, end, &storedBytes) ||
        !frames::getSignedVarint(&in, end, &frame.earliest) ||
        !frames::getVarint(&in, end, &span) || in != end || records > UINT32_MAX ||
        rawBytes > UINT32_MAX || storedBytes > UINT32_MAX || span > INT64_MAX)
        damaged(offset,
                name + "header fields do not fill its " + std::to_string(headerBytes) + " bytes");
    frame.records = static_cast<uint32_t>(records);
    frame.rawBytes = static_cast<uint32_t>(rawBytes);
    frame.storedBytes = static_cast<uint32_t>(storedBytes);
    frame.latest = frames::wrappingAdd(frame.earliest, static_cast<int64_t>(span));
    checkFrameFields(header, sequence);
    return header;
}

void FrameFile::checkFrameFields(const Header &header, uint32_t sequence) const {
    const FrameInfo &frame = header.frame;
    const uint64_t offset = frame.offset;
    const std::string name = "frame " + std::to_string(sequence) + ": ";
    if (frame.rawBytes > maxFrameBytes_)
        damaged(offset, name + "decodes to " + std::to_string(frame.rawBytes) +
                            " bytes, more than the file's frame size " +
                            std::to_string(maxFrameBytes_));
    if (frame.records == 0 || frame.records > frame.rawBytes || frame.earliest > frame.latest)
        damaged(offset, name + "impossible record count or times");
    if (header.encoding == static_cast<uint8_t>(frames::Encoding::Stored)) {
        if (frame.storedBytes != frame.rawBytes)
            damaged(offset, name + "stored payload of " + std::to_string(frame.storedBytes) +
                                " bytes for " + std::to_string(frame.rawBytes) +
                                " bytes of records");
    } else if (header.encoding == static_cast<uint8_t>(frames::Encoding::Zstd) ||
               header.encoding == static_cast<uint8_t>(frames::Encoding::ZstdGatheredTimes) ||
               header.encoding == static_cast<uint8_t>(frames::Encoding::ZstdGatheredTimesLarger)) {
        const size_t mostContent =
            header.encoding == static_cast<uint8_t>(frames::Encoding::ZstdGatheredTimesLarger)
                ? compact::maxGatheredBytes(frame.rawBytes)
                : frame.rawBytes;
        if (frame.storedBytes == 0 || frame.storedBytes > ZSTD_compressBound(mostContent))
            damaged(offset, name + "zstd payload of " + std::to_string(frame.storedBytes) +
                                " bytes cannot hold " + std::to_string(frame.rawBytes) +
                                " bytes of records");
    } else {
        damaged(offset, name + "unknown encoding " + std::to_string(header.encoding));
    }
    const uint64_t payloadOffset = offset + frame.headerBytes;
    if (frame.storedBytes > size_ - payloadOffset)
        damaged(offset, name + "cut inside its payload (" + std::to_string(size_ - payloadOffset) +
                            " of " + std::to_string(frame.storedBytes) + " bytes)");
}

void FrameFile::walkFrames() {
    frames_.clear();
    uint64_t offset = firstFrame_;
    try {
        while (offset < size_) {
            const FrameInfo frame =
                checkFrameHeader(offset, static_cast<uint32_t>(frames_.size())).frame;
            frames_.push_back(frame);
            offset = frame.end();
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
    return readFrameRecords(position, records, nullptr);
}

bool FrameFile::readFrameRecords(size_t position, std::vector<unsigned char> &bytes,
                                 bool *gathered) {
    if (position >= frames_.size())
        throw ReadError(path_, 0, 0,
                        "no frame " + std::to_string(position) + " (the trace has " +
                            std::to_string(frames_.size()) + ")");
    try {
        const bool keptGathered = decode(frames_[position], position, bytes, gathered != nullptr);
        if (gathered) *gathered = keptGathered;
        return true;
    } catch (const FrameError &error) {
        if (!options_.partial) throw;
        if (!damage_) damage_ = error.what();
        frames_.resize(position);
        return false;
    }
}

bool FrameFile::decode(const FrameInfo &listed, size_t position,
                       std::vector<unsigned char> &records, bool keepGathered) {
    const Header header = checkFrameHeader(listed.offset, static_cast<uint32_t>(position));
    const FrameInfo &frame = header.frame;
    if (frame.headerBytes != listed.headerBytes || frame.storedBytes != listed.storedBytes ||
        frame.rawBytes != listed.rawBytes || frame.records != listed.records ||
        frame.earliest != listed.earliest || frame.latest != listed.latest)
        damaged(listed.offset,
                "frame " + std::to_string(position) + ": header disagrees with the index");
    const uint64_t payloadOffset = frame.offset + frame.headerBytes;
    payload_.resize(frame.storedBytes);
    readAt(payloadOffset, payload_.data(), payload_.size());
    if (frames::crc32c(payload_.data(), payload_.size()) != header.payloadCrc)
        damaged(payloadOffset, "frame " + std::to_string(position) + ": payload checksum mismatch");
    records.resize(frame.rawBytes);
    if (header.encoding == static_cast<uint8_t>(frames::Encoding::Stored)) {
        if (frame.rawBytes > 0) std::memcpy(records.data(), payload_.data(), frame.rawBytes);
        return false;
    }
    if (!threadDecompressor.context) {
        threadDecompressor.context = ZSTD_createDCtx();
        if (!threadDecompressor.context)
            throw ReadError(path_, 0, 0, "cannot create a zstd context");
    }
    ZSTD_DCtx *const context = threadDecompressor.context;
    // Gathered records: fewer bytes than the records they give back
    // (encoding 2), or at most maxGatheredBytes of them (encoding 3).
    const bool larger =
        header.encoding == static_cast<uint8_t>(frames::Encoding::ZstdGatheredTimesLarger);
    const bool gathered =
        larger || header.encoding == static_cast<uint8_t>(frames::Encoding::ZstdGatheredTimes);
    const unsigned long long declared = ZSTD_getFrameContentSize(payload_.data(), payload_.size());
    const uint64_t mostGathered = compact::maxGatheredBytes(frame.rawBytes);
    const bool sizeFits = larger     ? declared <= mostGathered
                          : gathered ? declared < frame.rawBytes
                                     : declared == frame.rawBytes;
    if (!sizeFits ||
        ZSTD_findFrameCompressedSize(payload_.data(), payload_.size()) != payload_.size())
        damaged(payloadOffset, "frame " + std::to_string(position) +
                                   ": payload is not one zstd frame of " +
                                   (larger     ? "at most " + std::to_string(mostGathered)
                                    : gathered ? "fewer than " + std::to_string(frame.rawBytes)
                                               : std::to_string(frame.rawBytes)) +
                                   " bytes");
    const bool keep = gathered && keepGathered;
    std::vector<unsigned char> &target = gathered && !keep ? gathered_ : records;
    target.resize(static_cast<size_t>(declared));
    const size_t decoded = ZSTD_decompressDCtx(context, target.data(), target.size(),
                                               payload_.data(), payload_.size());
    if (ZSTD_isError(decoded) || decoded != declared)
        damaged(payloadOffset,
                "frame " + std::to_string(position) + ": zstd cannot decode the payload" +
                    (ZSTD_isError(decoded) ? std::string(" (") + ZSTD_getErrorName(decoded) + ")"
                                           : std::string()));
    if (!gathered) return false;
    if (keep) return true;  // the decoder checks its parts
    try {
        gathering_.scatter(gathered_.data(), gathered_.size(), records, frame.rawBytes);
    } catch (const compact::GatheredTimesProblem &problem) {
        damaged(payloadOffset, "frame " + std::to_string(position) + ": byte " +
                                   std::to_string(problem.position) +
                                   " of its records with gathered times: " + problem.problem);
    }
    return false;
}

}  // namespace hdtrace::reader
