// CompactRecords: the elements of a compact trace, or of some of its
// frames, read from its file (FrameFile) and decoded by the codec's
// CompactFrameDecoder (hdtrace/codec/CompactDecoder.hpp), framed by one
// Program element as an XML parser reports them. It is a source of the
// trace grammar (TraceGrammar.hpp), as libxml2 is for XML.
//
//      FrameFile file(path);                       // or {partial = true}
//      CompactTraceReader reader(file);
//      reader.read(handler);      // Program start, every frame, Program end
//    or a part of it: reader.readFrames(handler, positions) with positions
//    into file.frames() (e.g. FrameFile::framesInWindow): Program start, the
//    listed frames in the given order, Program end. Frames may be read by
//    different readers on different threads (one CompactTraceReader, and
//    one FrameFile, per thread). A handler that pauses (CompactHandler::
//    kMayPause) stops a read between two top-level elements: paused() is
//    then true, and resume(handler) goes on with the rest of the read.
//
// Errors: damage inside a frame's records throws FrameError: "file: byte
// O: frame N: record byte B: problem", O the frame's header offset in the
// file, B the position in its decoded records (of a frame with gathered
// times, in its gathered records).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <hdtrace/codec/CompactDecoder.hpp>
#include <hdtrace/reader/FrameFile.hpp>

namespace hdtrace::reader {

// The elements of a whole compact trace (or of some of its frames), framed
// by its Program element, as an XML parser reports them.
class CompactTraceReader {
  public:
    explicit CompactTraceReader(FrameFile &file) : file_(file) {}
    // Every frame in file order. Throws FrameError on damage (with a
    // partial FrameFile, damage of the container instead ends the read
    // after the last good frame; see FrameFile::damage()).
    void read(CompactHandler &handler);
    // Handler: CompactHandler, or a handler's own type (decodeFrame).
    template <class Handler>
    void readFrames(Handler &handler, const std::vector<size_t> &positions);
    // Whether the read stopped where its handler paused it.
    bool paused() const { return decoder_.paused(); }
    // Goes on with a paused read (the same handler type), up to its end or
    // the handler's next pause.
    template <class Handler>
    void resume(Handler &handler);
    // Ends a paused read where it stopped: the rest of its frames and the
    // Program's end are not given.
    void abandon() {
        decoder_.abandonFrame();
        next_ = positions_.size();
    }
    // The trace's timeAdjustment, known once a frame was read.
    int64_t timeAdjustmentSeconds() const { return decoder_.timeAdjustmentSeconds(); }
    // Gives handler the Program element that opens the first frame read.
    static void startProgram(CompactHandler &handler, int64_t timeAdjustmentSeconds);

  private:
    // False when a partial read stopped at damage before this frame.
    template <class Handler>
    bool readFrame(size_t position, Handler &handler);
    // The frames of the read from next_ on, then the Program's end, unless
    // the handler pauses.
    template <class Handler>
    void readOn(Handler &handler);
    [[noreturn]] void failFrame(size_t position, const CompactRecordProblem &problem) const;

    FrameFile &file_;
    CompactFrameDecoder decoder_;
    std::vector<unsigned char> records_;  // the frame being read, decoded
    // The read under way: its frames, the next to read, the frame being
    // read, and whether the Program was opened.
    std::vector<size_t> positions_;
    size_t next_ = 0;
    size_t position_ = 0;
    bool programOpen_ = false;
};

// --- CompactTraceReader's templates

// Passes a frame's elements on to handler, opening the Program at the
// first frame's start, with its timeAdjustment.
template <class Handler>
class FirstFrameOpensProgram final : public CompactHandler {
  public:
    static constexpr bool kTakesStaticElements = Handler::kTakesStaticElements;
    static constexpr bool kMayPause = Handler::kMayPause;
    FirstFrameOpensProgram(Handler &handler, bool *programOpen)
        : handler_(handler), programOpen_(programOpen) {}
    void frameStart(int64_t timeAdjustmentSeconds) override {
        if (*programOpen_) return;
        *programOpen_ = true;
        CompactTraceReader::startProgram(handler_, timeAdjustmentSeconds);
    }
    void startElement(std::string_view name, const CompactAttributes &attributes) override {
        handler_.startElement(name, attributes);
    }
    template <class Inner = Handler>
    bool startStaticElement(std::string_view name, const StaticElement &element) {
        return static_cast<Inner &>(handler_).startStaticElement(name, element);
    }
    void endElement(std::string_view name) override { handler_.endElement(name); }
    template <class Inner = Handler>
    bool pauseWanted() const {
        return static_cast<const Inner &>(handler_).pauseWanted();
    }

  private:
    Handler &handler_;
    bool *programOpen_;
};

template <class Handler>
void CompactTraceReader::readFrames(Handler &handler, const std::vector<size_t> &positions) {
    decoder_.abandonFrame();
    positions_ = positions;
    next_ = 0;
    programOpen_ = false;
    readOn(handler);
}

template <class Handler>
void CompactTraceReader::resume(Handler &handler) {
    if (!decoder_.paused()) throw std::logic_error("resume() of a compact read that is not paused");
    FirstFrameOpensProgram<Handler> forward(handler, &programOpen_);
    try {
        if (!decoder_.resumeFrame(forward)) return;
    } catch (const CompactRecordProblem &problem) {
        failFrame(position_, problem);
    }
    readOn(handler);
}

template <class Handler>
void CompactTraceReader::readOn(Handler &handler) {
    while (next_ < positions_.size()) {
        if (!readFrame(positions_[next_++], handler)) {
            next_ = positions_.size();
            break;
        }
        if (decoder_.paused()) return;
    }
    if (!programOpen_) {
        // A trace without frames (its writer was killed before the first
        // was written): an empty Program, as in a cut XML trace.
        static const CompactAttributes kNoAttributes;
        handler.startElement("Program", kNoAttributes);
    }
    handler.endElement("Program");
}

// Reads frame `position` of file into bytes and decodes it into handler: a
// frame with gathered times in place, any other as its records. False when
// a partial read stopped at damage of the container; damage inside the
// records throws CompactRecordProblem.
template <class Handler>
bool decodeFileFrame(FrameFile &file, size_t position, std::vector<unsigned char> &bytes,
                     CompactFrameDecoder &decoder, Handler &handler) {
    bool gathered;
    if (!file.readFrameRecords(position, bytes, &gathered)) return false;
    if (gathered)
        decoder.decodeGatheredFrame(bytes.data(), bytes.size(), handler);
    else
        decoder.decodeFrame(bytes.data(), bytes.size(), handler);
    return true;
}

template <class Handler>
bool CompactTraceReader::readFrame(size_t position, Handler &handler) {
    if (position >= file_.frames().size()) return false;
    position_ = position;
    FirstFrameOpensProgram<Handler> forward(handler, &programOpen_);
    try {
        if (!decodeFileFrame(file_, position, records_, decoder_, forward)) return false;
    } catch (const CompactRecordProblem &problem) {
        failFrame(position, problem);
    }
    return true;
}

}  // namespace hdtrace::reader
