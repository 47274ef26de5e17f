#include "TraceParser.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

#include <hdtrace/reader/ReadError.hpp>

#include "DecimalNumber.hpp"

namespace hdtrace::reader {

TraceParser::TraceParser(const std::string &path, EventSink &sink, TraceOptions options)
    : parser_(path, *this), sink_(sink), options_(std::move(options)), frames_(8) {}

TraceParser::TraceParser(const std::string &path, EventSink &sink, TraceOptions options,
                         std::vector<InputPiece> pieces, std::function<int(int)> fileLine,
                         std::function<void(const ReadError &)> checkError)
    : parser_(path, *this, std::move(pieces), std::move(fileLine)),
      sink_(sink),
      options_(std::move(options)),
      frames_(8),
      checkError_(std::move(checkError)),
      linesKnown_(false) {}

bool TraceParser::parseNextChunk() {
    if (done_) return false;
    try {
        if (parser_.parseNextChunk()) return true;
    } catch (const ReadError &error) {
        done_ = true;
        if (checkError_) checkError_(error);
        if (!options_.partial) throw;
        damage_ = error.what();
        return false;
    }
    done_ = true;  // complete, or stopped on purpose at the end of the time window
    return false;
}

bool TraceParser::startProgram(SaxFileParser &parser, std::string_view name,
                               const AttributeList &attributes, int64_t *adjustmentNs) {
    *adjustmentNs = 0;
    if (name != "Program") {
        parser.fail("the root element is <" + std::string(name) +
                    ">, but a trace's root is <Program>");
        return false;
    }
    std::string_view adjustment;
    if (attributes.find("timeAdjustment", &adjustment)) {
        auto parsed = parseDecimalSeconds(adjustment);
        if (!parsed) {
            parser.fail("timeAdjustment='" + std::string(adjustment) +
                        "' is not a number of seconds");
            return false;
        }
        *adjustmentNs = parsed->nanoseconds;
    }
    return true;
}

bool TraceParser::acceptsName(std::string_view name) const {
    if (options_.filter.names.empty()) return true;
    return std::find(options_.filter.names.begin(), options_.filter.names.end(), name) !=
           options_.filter.names.end();
}

bool TraceParser::parseTime(std::string_view name, std::string_view text, int64_t *nanoseconds) {
    auto parsed = parseDecimalSeconds(text);
    if (!parsed) {
        parser_.fail("attribute " + std::string(name) + "='" + std::string(text) +
                     "' is not a time in seconds");
        return false;
    }
    auto absolute = addTimes(timeAdjustmentNs_, parsed->nanoseconds);
    if (!absolute) {
        parser_.fail("attribute " + std::string(name) + "='" + std::string(text) +
                     "' plus timeAdjustment overflows 64-bit nanoseconds");
        return false;
    }
    if (timeFractionDigits_ < 0) timeFractionDigits_ = parsed->fractionDigits;
    *nanoseconds = *absolute;
    return true;
}

void TraceParser::startElement(std::string_view name, const AttributeList &attributes) {
    ++depth_;
    if (skipBelowDepth_ > 0) return;
    if (static_cast<size_t>(depth_) >= frames_.size()) frames_.resize(frames_.size() * 2);

    if (depth_ == 1) {
        startProgram(parser_, name, attributes, &timeAdjustmentNs_);
        frames_[1].pending.clear();
        return;
    }

    Frame &parent = frames_[depth_ - 1];
    Frame &frame = frames_[depth_];
    if (name == "Nested") {
        frame.kind = FrameKind::Nested;
        frame.collected.clear();
        frame.pending.clear();
        return;
    }

    bool topLevel = depth_ == 2;
    if (topLevel && !acceptsName(name)) {
        frame.kind = FrameKind::Skipped;
        skipBelowDepth_ = depth_;
        parent.pending.clear();
        return;
    }

    frame.kind = FrameKind::Call;
    frame.pending.clear();
    Event &event = frame.event;
    // The frame's Event is reused call after call: its attribute strings are
    // assigned in place, so a steady stream of calls allocates nothing.
    std::vector<Attribute> reused;
    reused.swap(event.attributes);
    event.clear();
    event.attributes.swap(reused);
    size_t attributeCount = 0;
    event.name.assign(name);
    event.line = linesKnown_ ? parser_.line() : 0;
    for (int index = 0; index < attributes.size(); ++index) {
        std::string_view attributeName = attributes.name(index);
        if (attributeName == "time") {
            if (!parseTime(attributeName, attributes.value(index), &event.startNs)) return;
            event.hasStart = true;
        } else if (attributeName == "end") {
            if (!parseTime(attributeName, attributes.value(index), &event.endNs)) return;
            event.hasEnd = true;
        } else {
            if (isNumberAttribute(attributeName) && isOutOfRangeInteger(attributes.value(index))) {
                parser_.fail("attribute " + std::string(attributeName) + "='" +
                             std::string(attributes.value(index)) + "' does not fit in 64 bits");
                return;
            }
            if (attributeCount == event.attributes.size()) event.attributes.emplace_back();
            Attribute &attribute = event.attributes[attributeCount++];
            attribute.name.assign(attributeName);
            attribute.value.assign(attributes.value(index));
        }
    }
    event.attributes.resize(attributeCount);
    if (!event.hasEnd && event.hasStart) event.endNs = event.startNs;

    if (topLevel && options_.filter.hasTimeWindow()) {
        if (event.hasStart && event.startNs > options_.filter.toNs) {
            parser_.stop();
            return;
        }
        if (!event.hasStart || event.endNs < options_.filter.fromNs) {
            frame.kind = FrameKind::Skipped;
            skipBelowDepth_ = depth_;
            parent.pending.clear();
            return;
        }
    }

    if (!parent.pending.empty()) {
        event.children.insert(event.children.end(), std::make_move_iterator(parent.pending.begin()),
                              std::make_move_iterator(parent.pending.end()));
        parent.pending.clear();
    }
}

void TraceParser::endElement(std::string_view) {
    int depth = depth_--;
    if (skipBelowDepth_ > 0) {
        if (depth == skipBelowDepth_) skipBelowDepth_ = 0;
        return;
    }
    if (depth == 1) {
        // Nested calls at the very end with no call after them (a process
        // that ended inside a call): keep them as top-level calls.
        for (const Event &orphan : frames_[1].pending)
            sink_.onEvent(orphan);
        frames_[1].pending.clear();
        return;
    }
    Frame &frame = frames_[depth];
    Frame &parent = frames_[depth - 1];
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
