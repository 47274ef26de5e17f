// CompactSource: the frames of a compact trace that one read takes, decoded
// a frame at a time into a CompactHandler (CompactRecords.hpp) inside one
// Program element, as the XML form of the same calls is read: every reader
// of traces (events, columns, slices, windows) goes through it.
//
// Which frames: all of them; those whose header starts in a byte range (a
// slice: the frames of any split tile the trace, since a record, a
// top-level call with the <Nested> block before it, never spans two
// frames); or those up to a time (the index keeps each frame's first and
// last start, so a window's end is found without decoding; its start is
// not, since a call that started before the window may end in it).
//
// A trace whose writer did not close it (no index: killed) ends at its
// last complete frame: the read reports it as cut there, as it reports a
// cut XML trace, with every complete frame read. Damage is a FrameError
// naming the file and byte offset; with partial, it ends the read instead,
// after the frames before it, and damage() says what happened.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <hdtrace/reader/TraceOptions.hpp>

#include "CompactRecords.hpp"
#include "FrameFile.hpp"

namespace hdtrace::reader {

class CompactSource {
  public:
    // Throws ReadError when the file cannot be read, FrameError when its
    // header or index is damaged (unless partial).
    CompactSource(const std::string &path, bool partial);

    const std::string &path() const { return file_.path(); }
    FrameFile &file() { return file_; }

    // Only the frames whose header starts in [begin, end) (byte offsets).
    void selectByteRange(uint64_t begin, uint64_t end);
    // Only the frames up to the first whose earliest call starts after
    // toNs (absolute nanoseconds): the calls after it start later still.
    void selectUntil(int64_t toNs);

    // Whether the selection begins with the trace's first frame, so that
    // the lines of its XML form are the whole trace's.
    bool startsAtTheFirstFrame() const { return positions_.empty() || positions_.front() == 0; }

    // Decodes the next selected frame into handler (the first opens the
    // Program element); after the last, closes the Program. False once
    // the Program is closed. Throws FrameError on damage unless partial.
    bool next(CompactHandler &handler);
    // Reads every selected frame.
    void readAll(CompactHandler &handler) {
        while (next(handler)) {
        }
    }
    // The rest of the selection is not wanted (a time window ended):
    // next() closes the Program at once.
    void stop() { position_ = positions_.size(); }

    // What ended a partial read: damage, or a trace cut at its last frame.
    const std::optional<std::string> &damage() const { return damage_; }
    // The trace's timeAdjustment in seconds (known once a frame was read).
    int64_t timeAdjustmentSeconds() const { return reader_.timeAdjustmentSeconds(); }

  private:
    // After the last frame: the damage or the cut, thrown or kept.
    void finish();

    FrameFile file_;
    CompactTraceReader reader_;
    bool partial_;
    std::vector<size_t> positions_;  // into file_.frames(), in file order
    size_t position_ = 0;            // the next of positions_ to read
    bool programOpen_ = false;
    bool done_ = false;
    bool readsTheLastFrame_ = true;  // the selection reaches where the trace ends
    std::optional<std::string> damage_;
};

// The bytes [begin, end) of a slice.
struct CompactByteRange {
    uint64_t begin = 0, end = 0;
};

// The source of one read of the compact trace at path: the whole trace or
// the frames of a byte range, up to the end of the filter's time window.
std::unique_ptr<CompactSource> openCompactSource(const std::string &path,
                                                 const TraceOptions &options,
                                                 const std::optional<CompactByteRange> &range = {});

}  // namespace hdtrace::reader
