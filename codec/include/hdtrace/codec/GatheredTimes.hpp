// GatheredTimes: a frame's records rearranged so that zstd compresses them
// better (frame encoding 2, docs/format/compact.md "Frames with their times
// gathered"). The times are what changes most from call to call: read
// between the bytes that repeat (the operation codes, ids, sizes and
// offsets), each of them cuts zstd's matches short. Gathered, the records
// keep every byte but the values of times, ends and <Nested> block starts,
// which follow all the records, each coded as the difference from the
// previous value of the same attribute of the same shape (a call's
// duration against the last duration of that call). The container does
// this to a frame's records just before compressing them, on the writer's
// background thread, and undoes it just after decompressing them, so the
// encoder and the decoder see the records of compact.md and nothing else.
//
// Layout of a gathered frame:
//   the records without those values | the values, zigzag varints |
//   u32 little-endian: the size of the first part
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hdtrace::compact {

// Where scatter() found the gathered bytes damaged: the byte (in the
// gathered frame) and what is wrong.
struct GatheredTimesProblem {
    size_t position;
    std::string problem;
};

// Bytes of a gathered frame after its times.
constexpr size_t kGatheredTrailerBytes = 4;

// The most a gathered frame of recordsBytes of records may hold: an eighth
// more, and its trailer. Times that vary from call to call can take more
// bytes as changes than as they are, and still compress far better apart.
constexpr size_t maxGatheredBytes(size_t recordsBytes) {
    return recordsBytes + recordsBytes / 8 + kGatheredTrailerBytes;
}

// Where the parts of a gathered frame of size bytes are: its records
// without their times [0, *recordsBytes), then its times up to size -
// kGatheredTrailerBytes. False when the trailer is cut or points past them.
bool gatheredParts(const unsigned char *gathered, size_t size, size_t *recordsBytes);

// Reusable for any number of frames; one per thread. A decoder need not
// scatter a frame: CompactFrameDecoder reads the gathered times in place.
class TimeGathering {
  public:
    // The gathered form of one frame's records into out, at most
    // maxGatheredBytes(size) bytes (more than size: a frame of encoding 3).
    // False, out unspecified, when the records cannot be gathered: they are
    // not of the current records version, an operation or value is unknown
    // or cut, a time is not in its shortest varint, or the gathered form
    // would be larger than that; the frame is then compressed as it is.
    bool gather(const unsigned char *records, size_t size, std::vector<unsigned char> &out);
    // The same with the times written first into scratch (at least
    // maxGatheredBytes(size) bytes; free again on return) instead of a
    // buffer of its own: a writer lends the buffer zstd writes into next.
    bool gather(const unsigned char *records, size_t size, std::vector<unsigned char> &out,
                unsigned char *scratch, size_t scratchBytes);
    // The records of a gathered frame into records, which must then hold
    // exactly recordsSize bytes. Throws GatheredTimesProblem on damage.
    void scatter(const unsigned char *gathered, size_t size, std::vector<unsigned char> &records,
                 size_t recordsSize);

  private:
    // The previous value of each time attribute: of the static shapes
    // first (by staticFieldOffset), then of the frame's dynamic shapes.
    std::vector<int64_t> previous_;
    std::vector<unsigned char> times_;     // gather's scratch when none is lent
    std::vector<uint8_t> dynamicCodings_;  // of the frame's dynamic shapes, in order
    std::vector<uint32_t> dynamicFirst_;   // each dynamic shape's first coding
    friend class RecordWalk;
};

}  // namespace hdtrace::compact
