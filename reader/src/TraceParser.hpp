// The trace read into Events: the grammar (TraceGrammar.hpp) over libxml2,
// with this as its events sink. A <Nested> block's calls become children of
// the call that follows the block. Each complete top-level call is handed
// to an EventSink, so memory stays constant.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <hdtrace/reader/Event.hpp>
#include <hdtrace/reader/TraceOptions.hpp>

#include "CompactXmlText.hpp"
#include "SaxFileParser.hpp"
#include "TraceGrammar.hpp"

namespace hdtrace::reader {

class EventSink {
  public:
    virtual ~EventSink() = default;
    // event is only valid during the call; it is reused for the next one.
    virtual void onEvent(const Event &event) = 0;
};

class TraceParser {
  public:
    // A trace of either form: a compact trace is read as its XML form
    // (CompactXmlText.hpp), its time window seeking by the frame index.
    TraceParser(const std::string &path, EventSink &sink, TraceOptions options = {});
    // The frames of a compact trace that source selects (a slice).
    TraceParser(const std::string &path, EventSink &sink, TraceOptions options,
                std::unique_ptr<CompactSource> source);
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
    // as in the older layout's traces with absolute times).
    int64_t timeAdjustmentNs() const { return grammar_.timeAdjustmentNs(); }
    // Digits after the point in the first time value seen (9: our writer; 6: the original's);
    // -1 before any time was read.
    int timeFractionDigits() const { return grammar_.timeFractionDigits(); }

  private:
    enum class FrameKind { Call, Nested };
    struct Frame {
        FrameKind kind = FrameKind::Call;
        Event event;
        std::vector<Event> collected;  // Nested: the calls of this block
        std::vector<Event> pending;    // nested calls waiting for the next element here
    };

    // The grammar's events sink (TraceGrammar.hpp, SaxTraceGrammar).
    friend class SaxTraceGrammar<TraceParser>;
    static constexpr bool kTakesEachAttribute = true;
    void callLeftOut(int depth);
    bool enterNested(int depth);
    void beginElement(int depth, std::string_view name);
    void attribute(std::string_view name, std::string_view value);
    grammar::CallStart startCall(std::string_view name, const ElementAttributes &,
                                 const grammar::ElementTimes &times);
    void startBelowCall(int depth, std::string_view name, const ElementAttributes &,
                        const grammar::ElementTimes &times);
    void endElement(int depth);
    // The times of the element begun at depth, and its pending nested calls
    // made its children.
    Event &finishStart(int depth, const grammar::ElementTimes &times);
    // The frame at depth (frames_ grows as deep as the elements go).
    Frame &frameAt(int depth);

    EventSink &sink_;
    TraceOptions options_;
    SaxTraceGrammar<TraceParser> grammar_;
    std::unique_ptr<CompactXmlText> compact_;  // of a compact trace: its XML form
    std::unique_ptr<SaxFileParser> parser_;
    std::vector<Frame> frames_;  // indexed by element depth; 1 is <Program>
    std::optional<std::string> damage_;
    std::function<void(const ReadError &)> checkError_;
    Event *begun_ = nullptr;  // the event of the element whose attributes come
    size_t attributeCount_ = 0;
    bool linesKnown_ = true;
    bool done_ = false;
};

}  // namespace hdtrace::reader
