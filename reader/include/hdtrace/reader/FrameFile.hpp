// FrameFile: reads the container of a compact trace (hdtrace/codec/FrameFormat.hpp,
// docs/format/compact.md): the list of frames from the index at the end, or,
// in a file without one (its writer was killed), by walking the frame
// headers from the start; then any frame on its own, decompressed into the
// caller's buffer after its checksums are verified.
//
// Nothing read from the file is trusted before it is checked against the
// file: every offset and size lies inside it, a frame decodes to at most the
// frame size the file header declares (itself bounded), so the memory a read
// needs is bounded by the frame size, whatever the input.
//
// Damage is a FrameError naming the file and the byte offset. With
// options.partial, damage instead ends the trace at the last good frame
// before it: frames() keeps those, damage() says what happened.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <hdtrace/codec/FrameFormat.hpp>
#include <hdtrace/codec/GatheredTimes.hpp>
#include <hdtrace/reader/ReadError.hpp>

namespace hdtrace::reader {

class FrameError : public ReadError {
  public:
    // "file: byte offset: problem"
    FrameError(const std::string &file, uint64_t offset, const std::string &problem);
    uint64_t offset() const { return offset_; }

  private:
    uint64_t offset_;
};

struct FrameInfo {
    uint64_t offset = 0;       // of the frame header
    uint32_t headerBytes = 0;  // the payload starts at offset + headerBytes
    uint32_t storedBytes = 0;  // payload in the file
    uint32_t rawBytes = 0;     // payload decoded
    uint32_t records = 0;
    int64_t earliest = 0;  // record times, nanoseconds
    int64_t latest = 0;

    uint64_t end() const { return offset + headerBytes + storedBytes; }
};

struct FrameFileOptions {
    bool partial = false;
};

class FrameFile {
  public:
    // Opens path and lists its frames. Throws ReadError when the file cannot
    // be read, FrameError when it is damaged (unless options.partial).
    explicit FrameFile(const std::string &path, FrameFileOptions options = {});
    ~FrameFile();
    FrameFile(const FrameFile &) = delete;
    FrameFile &operator=(const FrameFile &) = delete;

    const std::string &path() const { return path_; }
    const std::vector<FrameInfo> &frames() const { return frames_; }
    uint64_t records() const;
    // The largest decoded frame the file may hold (its header says).
    uint32_t maxFrameBytes() const { return maxFrameBytes_; }
    // The container version of the file (frames::kVersion, or an older one).
    uint16_t version() const { return version_; }
    // Whether the file ends in a valid index; false for a trace whose
    // writer did not close it, which ends at its last complete frame.
    bool indexed() const { return indexed_; }
    // For a trace without index: where its last complete frame ends.
    uint64_t cutAt() const { return cutAt_; }
    // The damage that ended a partial read ("file: byte N: problem").
    const std::optional<std::string> &damage() const { return damage_; }

    // Positions in frames() of the frames with records in [from, to]
    // (by each frame's earliest and latest time), in file order.
    std::vector<size_t> framesInWindow(int64_t from, int64_t to) const;

    // Decodes frame `position` into records (resized to its decoded size).
    // True on success. On damage: throws FrameError, or with
    // options.partial records it in damage(), drops this frame and those
    // after it from frames(), and returns false.
    bool readFrame(size_t position, std::vector<unsigned char> &records);
    // readFrame() for a decoder that reads a frame's gathered times in
    // place (CompactFrameDecoder::decodeGatheredFrame): a frame of
    // encoding 2 is left gathered in bytes (GatheredTimes.hpp), and
    // *gathered says so. A frame of another encoding: its records, as
    // readFrame() gives them.
    bool readFrameRecords(size_t position, std::vector<unsigned char> &bytes, bool *gathered);

  private:
    // A frame header as read: what the frame says of itself, and what the
    // payload's checks need.
    struct Header {
        FrameInfo frame;
        uint8_t encoding = 0;
        uint32_t payloadCrc = 0;
    };
    [[noreturn]] void damaged(uint64_t offset, const std::string &problem) const;
    void readAt(uint64_t offset, void *out, size_t length) const;
    void readFileHeader();
    bool readIndex();  // false: the file has no footer
    bool readIndexVersion1();
    // A closed file of one frame, which has no index.
    bool readOnlyFrame(uint64_t footerOffset, const unsigned char *footer);
    void walkFrames();
    // Checks a frame header at offset and returns what it says.
    Header checkFrameHeader(uint64_t offset, uint32_t sequence) const;
    Header checkFrameHeaderVersion1(uint64_t offset, uint32_t sequence) const;
    // The checks every version's frame header gets once its fields are read.
    void checkFrameFields(const Header &header, uint32_t sequence) const;
    // Checks an index entry's frame against the file; `at` is where the
    // entry is, nextOffset where the next frame (or the index) starts.
    void checkIndexedFrame(const FrameInfo &frame, uint32_t position, uint64_t at) const;
    // The frame's records into records; with keepGathered, a frame of
    // encoding 2 as it is gathered instead of scattered. Whether records
    // holds a gathered frame.
    bool decode(const FrameInfo &frame, size_t position, std::vector<unsigned char> &records,
                bool keepGathered);

    std::string path_;
    FrameFileOptions options_;
    int fd_ = -1;
    uint64_t size_ = 0;
    uint32_t maxFrameBytes_ = 0;
    uint16_t version_ = 0;
    uint64_t firstFrame_ = 0;  // where the first frame starts: after the file header
    bool indexed_ = false;
    uint64_t cutAt_ = 0;
    std::vector<FrameInfo> frames_;
    std::optional<std::string> damage_;
    std::vector<unsigned char> payload_;  // the stored payload of one frame
    // A frame of encoding 2: its records with their times gathered, and
    // what puts them back in place.
    std::vector<unsigned char> gathered_;
    compact::TimeGathering gathering_;
};

}  // namespace hdtrace::reader
