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

#include <hdtrace/reader/FrameFile.hpp>
#include <hdtrace/reader/TraceOptions.hpp>

#include "CompactRecords.hpp"

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
    // Handler: CompactHandler, or a handler's own type
    // (CompactFrameDecoder::decodeFrame). A handler that pauses
    // (CompactHandler::kMayPause) ends a call inside a frame; the next call
    // goes on with it (the same handler type).
    template <class Handler>
    bool next(Handler &handler);
    // Reads every selected frame.
    template <class Handler>
    void readAll(Handler &handler) {
        while (next(handler)) {
        }
    }
    // The rest of the selection is not wanted (a time window ended):
    // next() closes the Program at once.
    void stop() {
        position_ = positions_.size();
        if (reader_.paused()) reader_.abandon();
    }

    // What ended a partial read: damage, or a trace cut at its last frame.
    const std::optional<std::string> &damage() const { return damage_; }
    // The trace's timeAdjustment in seconds (known once a frame was read).
    int64_t timeAdjustmentSeconds() const { return reader_.timeAdjustmentSeconds(); }

  private:
    // Before a frame is read: false when the selection is read (position_ past it).
    bool frameToRead(size_t *position) {
        if (position_ == positions_.size()) return false;
        *position = positions_[position_++];
        return true;
    }
    // A partial read keeps whole frames only: the frame is decoded once
    // without effect, so that damage inside it drops all of it. Throws
    // FrameError on damage.
    void checkWholeFrame(size_t position);
    // After a frame was read, or failed with error (null: it did not).
    void afterFrame(const FrameError *error);
    // After the last frame: the damage or the cut, thrown or kept.
    void finish();

    FrameFile file_;
    CompactTraceReader reader_;
    bool partial_;
    std::vector<size_t> positions_;  // into file_.frames(), in file order
    size_t position_ = 0;            // the next of positions_ to read
    bool programOpen_ = false;
    int frameDepth_ = 0;  // OneProgram's depth in the frame being read (it may pause)
    bool done_ = false;
    bool readsTheLastFrame_ = true;  // the selection reaches where the trace ends
    std::optional<std::string> damage_;
};

// Passes one frame's elements on, but the Program's start after the first
// frame and its end: the frames of one read make one Program.
template <class Handler>
class OneProgram final : public CompactHandler {
  public:
    static constexpr bool kTakesStaticElements = Handler::kTakesStaticElements;
    static constexpr bool kMayPause = Handler::kMayPause;
    // depth: the element depth in the frame, kept by the caller across a
    // pause.
    OneProgram(Handler &handler, bool *programOpen, int *depth)
        : handler_(handler), programOpen_(programOpen), depth_(*depth) {}
    void startElement(std::string_view name, const CompactAttributes &attributes) override {
        if (depth_++ == 0) {
            if (*programOpen_) return;
            *programOpen_ = true;
        }
        handler_.startElement(name, attributes);
    }
    // A static element is never the Program (depth 0).
    template <class Inner = Handler>
    bool startStaticElement(std::string_view name, const StaticElement &element) {
        if (!static_cast<Inner &>(handler_).startStaticElement(name, element)) return false;
        ++depth_;
        return true;
    }
    void endElement(std::string_view name) override {
        if (--depth_ == 0) return;
        handler_.endElement(name);
    }
    template <class Inner = Handler>
    bool pauseWanted() const {
        return static_cast<const Inner &>(handler_).pauseWanted();
    }

  private:
    Handler &handler_;
    bool *programOpen_;
    int &depth_;
};

template <class Handler>
bool CompactSource::next(Handler &handler) {
    if (done_) return false;
    OneProgram<Handler> oneProgram(handler, &programOpen_, &frameDepth_);
    size_t position;
    const bool resuming = reader_.paused();
    if (resuming || frameToRead(&position)) {
        try {
            if (resuming) {
                reader_.resume(oneProgram);
            } else {
                if (partial_) checkWholeFrame(position);
                frameDepth_ = 0;
                if (!file_.damage()) reader_.readFrames(oneProgram, {position});
            }
        } catch (const FrameError &error) {
            if (!partial_) throw;
            afterFrame(&error);
            return true;
        }
        if (!reader_.paused()) afterFrame(nullptr);
        return true;
    }
    frameDepth_ = 0;
    done_ = true;
    if (!programOpen_) reader_.readFrames(oneProgram, {});  // an empty Program
    handler.endElement("Program");
    finish();
    return false;
}

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
