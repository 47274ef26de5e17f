// RecordSink: where CompactEncoder puts the records it codes. A sink
// gathers records into frames of bounded size; the encoder needs to know
// where a frame starts, because every frame must decode on its own and so
// starts its tables afresh. The writer's FrameWriter is the sink of a
// traced program's compact trace; anything that keeps records in frames
// (a converter's file, a test's memory) may be one.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hdtrace {

class RecordSink {
  public:
    virtual ~RecordSink() = default;
    // Appends one record of length bytes (1 to frameBytes()) taken at time
    // (nanoseconds). 0 or an errno value (EMSGSIZE: larger than a frame).
    virtual int append(const void *record, size_t length, int64_t time) = 0;
    // Room for up to maxBytes at the end of the frame being filled, for a
    // record written in place, or nullptr when the record would start a
    // frame (append() it then). commit() ends the record: its length and
    // time; 0 or an errno value.
    virtual unsigned char *claim(size_t maxBytes) = 0;
    virtual int commit(size_t length, int64_t time) = 0;
    // Bytes of records in the frame being filled: 0 when the next record
    // starts a frame.
    virtual size_t pendingBytes() const = 0;
    // Bytes of records a frame holds at most.
    virtual uint32_t frameBytes() const = 0;
    // Ends the frame being filled, if it holds records: the next record
    // starts a frame. 0 or an errno value.
    virtual int closeFrame() = 0;
};

}  // namespace hdtrace
