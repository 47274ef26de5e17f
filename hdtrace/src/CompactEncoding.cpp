#include "CompactEncoding.hpp"

#include <errno.h>

#include <cstdio>
#include <cstring>

#include <hdtrace/FrameWriter.hpp>
#include <hdtrace/TraceOptions.hpp>
#include <hdtrace/codec/CompactEncoder.hpp>
#include <hdtrace/codec/CompactItems.hpp>
#include <hdtrace/codec/Inlining.hpp>

#include "TraceRegistry.hpp"

namespace hdtrace {

namespace items = compact_items;

namespace {

FrameWriterOptions frameOptionsOf(const TraceOptions &options) {
    FrameWriterOptions frameOptions;
    frameOptions.background = options.backgroundWrites;
    frameOptions.frameBytes = options.compactFrameBytes;
    frameOptions.compressionLevel = options.compactLevel;
    return frameOptions;
}

}  // namespace

CompactEncoding::CompactEncoding(const Trace &trace) : StateEncoding(trace) {}

CompactEncoding::~CompactEncoding() = default;

size_t CompactEncoding::memoryBytes(const TraceOptions &options) {
    return FrameWriter::memoryBytes(frameOptionsOf(options));
}

std::unique_ptr<CompactEncoding> CompactEncoding::create(const TraceOptions &options,
                                                         const Trace &trace, std::string *error) {
    std::unique_ptr<CompactEncoding> encoding(new CompactEncoding(trace));
    encoding->frames_ = FrameWriter::create(trace.tracePath, frameOptionsOf(options), error);
    if (!encoding->frames_) return nullptr;
    // Its TraceWriter closes the frames, saves them on a crash and forgets
    // them after fork(): one entry in the list of open traces.
    registry::remove(encoding->frames_.get());
    int appendError = 0;
    encoding->encoder_ = CompactEncoder::create(*encoding->frames_, trace.timeAdjustmentSeconds,
                                                trace.createdNanoseconds, &appendError);
    if (!encoding->encoder_) {
        if (error) *error = "cannot write '" + trace.tracePath + "': " + std::strerror(appendError);
        return nullptr;
    }
    if (options.forceFlush && encoding->frames_->flush() != 0) {
        if (error) *error = "cannot write '" + trace.tracePath + "'";
        return nullptr;
    }
    return encoding;
}

HDTRACE_CALL_PATH int CompactEncoding::writeLeafCall(const CallPlan &plan, const int64_t *values,
                                                     int64_t start, int64_t end,
                                                     std::string_view texts) {
    const int error = encoder_->appendLeafCall(plan, values, start, end, texts);
    return error == 0 ? 0 : appendFailed(error);
}

HDTRACE_CALL_PATH int CompactEncoding::writeCall(const CallPlan &plan, const int64_t *values,
                                                 int64_t start, int64_t end,
                                                 const TypedChildren &children,
                                                 const TypedNested &nested,
                                                 std::string_view texts) {
    const int error = children.count == 0 && nested.count != 0
                          ? encoder_->appendNestedCall(plan, values, start, end, nested, texts)
                          : encoder_->appendCall(plan, values, start, end, children, nested, texts);
    return error == 0 ? 0 : appendFailed(error);
}

void CompactEncoding::putNumber(TextBuffer &out, std::string_view name, int64_t value) {
    items::putNumber(out, compact::kInteger, name, value);
}

void CompactEncoding::putText(TextBuffer &out, std::string_view name, std::string_view text) {
    items::putText(out, compact::kText, name, text);
}

void CompactEncoding::putRawAttributes(TextBuffer &out, std::string_view text) {
    items::putRawAttributes(out, text);
}

size_t CompactEncoding::beginChild(TextBuffer &children, std::string_view name, int) {
    return items::beginElement(children, items::kLeaf, name);
}

void CompactEncoding::endChild(TextBuffer &children, size_t beganAt) {
    items::endElement(children, beganAt);
}

void CompactEncoding::putEvent(TextBuffer &children, std::string_view name, int64_t time, int) {
    const size_t lengthAt = items::beginElement(children, items::kLeaf, "Event");
    items::putText(children, compact::kText, "name", name);
    items::putNumber(children, compact::kTime, "time", time);
    items::endElement(children, lengthAt);
}

int CompactEncoding::writeState(StateParts &parts, int depth, int64_t start, int64_t end,
                                TextBuffer *parentNested) {
    if (depth == 0 && parts.nested.empty() && parts.children.empty()) {
        // Most states: the times join the entries where they are.
        items::putNumber(parts.head, compact::kTime, "time", start);
        items::putNumber(parts.head, compact::kEnd, "end", end);
        const int error = encoder_->appendElement(parts.name(), parts.attributes(), start);
        return error == 0 ? 0 : appendFailed(error);
    }
    // What XML renders as text, as items: the <Nested> block, the element
    // with its times, its children.
    TextBuffer &out = parentNested ? *parentNested : items_;
    if (!parentNested) out.clear();
    if (!parts.nested.empty()) {
        items::putOp(out, items::kNestedOpen);
        out.append(parts.nested.view());
        items::putOp(out, items::kNestedClose);
    }
    const bool open = !parts.children.empty();
    const size_t lengthAt =
        items::beginElement(out, open ? items::kOpen : items::kLeaf, parts.name());
    out.append(parts.attributes());
    items::putNumber(out, compact::kTime, "time", start);
    items::putNumber(out, compact::kEnd, "end", end);
    items::endElement(out, lengthAt);
    if (open) {
        out.append(parts.children.view());
        items::putOp(out, items::kEndItem);
    }
    if (parentNested) return 0;
    const int error = encoder_->append(out.view(), start);
    return error == 0 ? 0 : appendFailed(error);
}

int CompactEncoding::writeEvent(std::string_view name, int64_t time) {
    items_.clear();
    putEvent(items_, name, time, 0);
    const int error = encoder_->append(items_.view(), time);
    return error == 0 ? 0 : appendFailed(error);
}

int CompactEncoding::appendFailed(int error) {
    if (error == EMSGSIZE) {
        // One state larger than a frame: it is lost, the trace goes on.
        ++droppedStates_;
        std::fprintf(stderr, "hdtrace: '%s': a state of more than a frame's %u bytes is left out\n",
                     trace_->tracePath.c_str(), frames_->frameBytes());
        return 0;
    }
    fail(trace_->tracePath, error);
    return EIO;
}

bool CompactEncoding::flushInfo() {
    if (!trace_->info || trace_->info->flush()) return true;
    fail(trace_->infoPath, trace_->info->lastError());
    return false;
}

int CompactEncoding::flush() {
    // The .info first: every id the records use is declared there.
    if (!flushInfo()) return EIO;
    if (const int error = frames_->flush()) {
        fail(trace_->tracePath, error);
        return EIO;
    }
    return 0;
}

int CompactEncoding::close() {
    if (!failed()) flushInfo();
    if (const int error = frames_->close(); error && !failed()) fail(trace_->tracePath, error);
    return failed() ? EIO : 0;
}

void CompactEncoding::closeForCrash() {
    frames_->closeForCrash();
}

void CompactEncoding::abandonAfterFork() {
    frames_->abandonAfterFork();
}

}  // namespace hdtrace
