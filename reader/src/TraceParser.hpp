// The structure of a .trc trace: <Program timeAdjustment=S> holding one
// element per call. A <Nested> block belongs to the element that follows it
// (the call that contains the nested calls); blocks may nest. Each complete
// top-level call is handed to an EventSink, so memory stays constant.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <hdtrace/reader/Event.hpp>
#include <hdtrace/reader/TraceOptions.hpp>

#include "SaxFileParser.hpp"

namespace hdtrace::reader {

class EventSink {
  public:
    virtual ~EventSink() = default;
    // event is only valid during the call; it is reused for the next one.
    virtual void onEvent(const Event &event) = 0;
};

class TraceParser : private SaxHandler {
  public:
    TraceParser(const std::string &path, EventSink &sink, TraceOptions options = {});
    // Over a document made of pieces (a slice of the trace behind its
    // prolog: SaxFileParser's pieces and fileLine). checkError sees every
    // ReadError before options.partial decides about it, and may throw
    // another in its place. The events' line is 0 (not known): the file's
    // line would need the newlines before the slice counted.
    TraceParser(const std::string &path, EventSink &sink, TraceOptions options,
                std::vector<InputPiece> pieces, std::function<int(int)> fileLine,
                std::function<void(const ReadError &)> checkError);

    // Parses the next chunk; false when the trace is done. Throws ReadError on
    // damage unless options.partial, in which case damage() tells what happened.
    bool parseNextChunk();
    void parseAll() {
        while (parseNextChunk()) {
        }
    }

    // The error that ended a partial read, if any ("file:line:column: problem").
    const std::optional<std::string> &damage() const { return damage_; }
    // Whole-second base of the times (0 when the root has no timeAdjustment,
    // as in the seed's older traces with absolute times).
    int64_t timeAdjustmentNs() const { return timeAdjustmentNs_; }
    // Checks the root element (<Program>) and reads its timeAdjustment into
    // *adjustmentNs (0 when absent). On error, fails the parser and returns false.
    static bool startProgram(SaxFileParser &parser, std::string_view name,
                             const AttributeList &attributes, int64_t *adjustmentNs);
    // Digits after the point in the first time value seen (9: our writer; 6: the original's);
    // -1 before any time was read.
    int timeFractionDigits() const { return timeFractionDigits_; }

  private:
    enum class FrameKind { Call, Nested, Skipped };
    struct Frame {
        FrameKind kind = FrameKind::Call;
        Event event;
        std::vector<Event> collected;  // Nested: the calls of this block
        std::vector<Event> pending;    // nested calls waiting for the next element here
    };

    void startElement(std::string_view name, const AttributeList &attributes) override;
    void endElement(std::string_view name) override;
    bool acceptsName(std::string_view name) const;
    bool parseTime(std::string_view name, std::string_view text, int64_t *nanoseconds);

    SaxFileParser parser_;
    EventSink &sink_;
    TraceOptions options_;
    std::vector<Frame> frames_;  // indexed by element depth; 1 is <Program>
    int depth_ = 0;
    int skipBelowDepth_ = 0;  // > 0: ignore everything deeper than this
    int64_t timeAdjustmentNs_ = 0;
    int timeFractionDigits_ = -1;
    std::optional<std::string> damage_;
    std::function<void(const ReadError &)> checkError_;
    bool linesKnown_ = true;
    bool done_ = false;
};

}  // namespace hdtrace::reader
