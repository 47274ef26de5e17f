#include "TraceParser.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include <hdtrace/reader/ReadError.hpp>
#include <hdtrace/reader/TraceForm.hpp>

namespace hdtrace::reader {

namespace {

// The compact source of a whole read of path, or null when path is XML.
std::unique_ptr<CompactSource> compactSourceOf(const std::string &path,
                                               const TraceOptions &options) {
    if (traceFormOf(path) != TraceForm::Compact) return nullptr;
    return openCompactSource(path, options);
}

// The parser's chunk of a compact trace's XML text: the text takes 30 to
// 50 times the trace's bytes, so 64 times them holds a small trace's text
// whole, and a process holding many small traces open at once (a merge of
// every rank's calls in start order) no longer holds 256 KiB for each.
size_t textChunkBytes(const std::string &path) {
    constexpr size_t kMost = 256 * 1024, kLeast = 16 * 1024;
    struct stat info {};
    if (::stat(path.c_str(), &info) != 0 || info.st_size < 0) return kMost;
    return std::clamp<size_t>(static_cast<size_t>(info.st_size) * 64, kLeast, kMost);
}

}  // namespace

TraceParser::TraceParser(const std::string &path, EventSink &sink, TraceOptions options)
    : TraceParser(path, sink, options, compactSourceOf(path, options)) {}

TraceParser::TraceParser(const std::string &path, EventSink &sink, TraceOptions options,
                         std::unique_ptr<CompactSource> source)
    : sink_(sink), options_(std::move(options)), grammar_(*this, options_.filter), frames_(8) {
    if (source) {
        linesKnown_ = source->startsAtTheFirstFrame();
        compact_ = std::make_unique<CompactXmlText>(std::move(source));
        parser_ = std::make_unique<SaxFileParser>(path, grammar_, textSourceOf(*compact_),
                                                  textChunkBytes(path));
    } else {
        parser_ = std::make_unique<SaxFileParser>(path, grammar_);
    }
    grammar_.setParser(parser_.get());
}

TraceParser::TraceParser(const std::string &path, EventSink &sink, TraceOptions options,
                         std::vector<InputPiece> pieces, std::function<int(int)> fileLine,
                         std::function<void(const ReadError &)> checkError)
    : sink_(sink),
      options_(std::move(options)),
      grammar_(*this, options_.filter),
      parser_(
          std::make_unique<SaxFileParser>(path, grammar_, std::move(pieces), std::move(fileLine))),
      frames_(8),
      checkError_(std::move(checkError)),
      linesKnown_(false) {
    grammar_.setParser(parser_.get());
}

bool TraceParser::parseNextChunk() {
    if (done_) return false;
    try {
        if (parser_->parseNextChunk()) return true;
    } catch (const ReadError &error) {
        done_ = true;
        if (checkError_) checkError_(error);
        if (!options_.partial) throw;
        damage_ = error.what();
        return false;
    }
    done_ = true;  // complete, or stopped on purpose at the end of the time window
    // A compact trace cut or damaged in a partial read: its XML form ended
    // well-formed after the last good frame.
    if (compact_ && compact_->source().damage()) damage_ = compact_->source().damage();
    return false;
}

TraceParser::Frame &TraceParser::frameAt(int depth) {
    if (static_cast<size_t>(depth) >= frames_.size()) frames_.resize(frames_.size() * 2);
    return frames_[static_cast<size_t>(depth)];
}

// The nested calls before a call left out go with it.
void TraceParser::callLeftOut(int depth) {
    frameAt(depth - 1).pending.clear();
}

bool TraceParser::enterNested(int depth) {
    Frame &frame = frameAt(depth);
    frame.kind = FrameKind::Nested;
    frame.collected.clear();
    frame.pending.clear();
    return true;
}

void TraceParser::beginElement(int depth, std::string_view name) {
    Frame &frame = frameAt(depth);
    frame.kind = FrameKind::Call;
    frame.pending.clear();
    Event &event = frame.event;
    // The frame's Event is reused call after call: its attribute strings are
    // assigned in place, so a steady stream of calls allocates nothing.
    std::vector<Attribute> reused;
    reused.swap(event.attributes);
    event.clear();
    event.attributes.swap(reused);
    event.name.assign(name);
    event.line = linesKnown_ ? parser_->line() : 0;
    begun_ = &event;
    attributeCount_ = 0;
}

void TraceParser::attribute(std::string_view name, std::string_view value) {
    std::vector<Attribute> &attributes = begun_->attributes;
    if (attributeCount_ == attributes.size()) attributes.emplace_back();
    Attribute &attribute = attributes[attributeCount_++];
    attribute.name.assign(name);
    attribute.value.assign(value);
}

Event &TraceParser::finishStart(int depth, const grammar::ElementTimes &times) {
    Event &event = frames_[static_cast<size_t>(depth)].event;
    event.attributes.resize(attributeCount_);
    if (times.hasStart) event.startNs = times.startNs, event.hasStart = true;
    if (times.hasEnd) event.endNs = times.endNs, event.hasEnd = true;
    if (!event.hasEnd && event.hasStart) event.endNs = event.startNs;
    return event;
}

grammar::CallStart TraceParser::startCall(std::string_view, const ElementAttributes &,
                                          const grammar::ElementTimes &times) {
    Event &event = finishStart(2, times);
    Frame &parent = frames_[1];
    const grammar::CallStart decision =
        grammar::windowDecision(options_.filter, options_.filter.hasTimeWindow(), event);
    if (decision == grammar::CallStart::Skip) parent.pending.clear();
    if (decision != grammar::CallStart::Read) return decision;
    if (!parent.pending.empty()) {
        event.children.insert(event.children.end(), std::make_move_iterator(parent.pending.begin()),
                              std::make_move_iterator(parent.pending.end()));
        parent.pending.clear();
    }
    return decision;
}

void TraceParser::startBelowCall(int depth, std::string_view, const ElementAttributes &,
                                 const grammar::ElementTimes &times) {
    Event &event = finishStart(depth, times);
    Frame &parent = frames_[static_cast<size_t>(depth - 1)];
    if (!parent.pending.empty()) {
        event.children.insert(event.children.end(), std::make_move_iterator(parent.pending.begin()),
                              std::make_move_iterator(parent.pending.end()));
        parent.pending.clear();
    }
}

void TraceParser::endElement(int depth) {
    if (depth == 1) {
        // Nested calls at the very end with no call after them (a process
        // that ended inside a call): keep them as top-level calls.
        for (const Event &orphan : frameAt(1).pending)
            sink_.onEvent(orphan);
        frames_[1].pending.clear();
        return;
    }
    Frame &frame = frames_[static_cast<size_t>(depth)];
    Frame &parent = frames_[static_cast<size_t>(depth - 1)];
    if (frame.kind == FrameKind::Nested) {
        std::vector<Event> &target = parent.pending;
        target.insert(target.end(), std::make_move_iterator(frame.collected.begin()),
                      std::make_move_iterator(frame.collected.end()));
        target.insert(target.end(), std::make_move_iterator(frame.pending.begin()),
                      std::make_move_iterator(frame.pending.end()));
        frame.collected.clear();
        frame.pending.clear();
        return;
    }
    Event &event = frame.event;
    if (!frame.pending.empty()) {
        event.children.insert(event.children.end(), std::make_move_iterator(frame.pending.begin()),
                              std::make_move_iterator(frame.pending.end()));
        frame.pending.clear();
    }
    if (depth == 2) {
        sink_.onEvent(event);
    } else if (parent.kind == FrameKind::Nested) {
        parent.collected.push_back(std::move(event));
    } else {
        parent.event.children.push_back(std::move(event));
    }
}

}  // namespace hdtrace::reader
