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
//    one FrameFile, per thread).
//
// Errors: damage inside a frame's records throws FrameError: "file: byte
// O: frame N: record byte B: problem", O the frame's header offset in the
// file, B the position in its decoded records (of a frame with gathered
// times, in its gathered records).
#pragma once

#include <cstddef>
#include <cstdint>
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
    // The trace's timeAdjustment, known once a frame was read.
    int64_t timeAdjustmentSeconds() const { return decoder_.timeAdjustmentSeconds(); }
    // Gives handler the Program element that opens the first frame read.
    static void startProgram(CompactHandler &handler, int64_t timeAdjustmentSeconds);

  private:
    // False when a partial read stopped at damage before this frame.
    template <class Handler>
    bool readFrame(size_t position, Handler &handler, bool *programOpen);
    [[noreturn]] void failFrame(size_t position, const CompactRecordProblem &problem) const;

    FrameFile &file_;
    CompactFrameDecoder decoder_;
    std::vector<unsigned char> records_;
};

// --- CompactTraceReader's templates

// Passes a frame's elements on to handler, opening the Program at the
// first frame's start, with its timeAdjustment.
template <class Handler>
class FirstFrameOpensProgram final : public CompactHandler {
  public:
    static constexpr bool kTakesStaticElements = Handler::kTakesStaticElements;
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

  private:
    Handler &handler_;
    bool *programOpen_;
};

template <class Handler>
void CompactTraceReader::readFrames(Handler &handler, const std::vector<size_t> &positions) {
    bool programOpen = false;
    for (size_t position : positions)
        if (!readFrame(position, handler, &programOpen)) break;
    if (!programOpen) {
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
bool CompactTraceReader::readFrame(size_t position, Handler &handler, bool *programOpen) {
    if (position >= file_.frames().size()) return false;
    FirstFrameOpensProgram<Handler> forward(handler, programOpen);
    try {
        if (!decodeFileFrame(file_, position, records_, decoder_, forward)) return false;
    } catch (const CompactRecordProblem &problem) {
        failFrame(position, problem);
    }
    return true;
}

}  // namespace hdtrace::reader
