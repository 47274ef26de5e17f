#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include <hdtrace/FrameWriter.hpp>
#include <hdtrace/TraceNames.hpp>
#include <hdtrace/TraceWriter.hpp>
#include <hdtrace/TracerIo.hpp>
#include <hdtrace/codec/CompactEncoder.hpp>
#include <hdtrace/codec/CompactItems.hpp>
#include <hdtrace/codec/Format.hpp>

#include "TraceRegistry.hpp"

namespace hdtrace {
namespace {

// The end of every trace. Static: the output buffer keeps a pointer to it.
constexpr std::string_view kEpilog = "</Program>\n";
constexpr std::string_view kIndentSpaces = "                                  ";
static_assert(kIndentSpaces.size() >= 2 * HD_LOG_MAX_DEPTH, "indent for every depth");

char *writeText(char *out, std::string_view text) {
    std::memcpy(out, text.data(), text.size());
    return out + text.size();
}

char *writeIndent(char *out, int depth) {
    return writeText(out, kIndentSpaces.substr(0, static_cast<size_t>(2 * depth)));
}

// mkdir -p; true when the directory exists afterwards.
bool makeDirectories(const std::string &path) {
    if (path.empty()) return true;
    std::string prefix;
    size_t position = 0;
    while (position != std::string::npos) {
        position = path.find('/', position + 1);
        prefix = path.substr(0, position);
        if (::mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST) return false;
    }
    struct stat info;
    return ::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

int openForWriting(const std::string &path) {
    return ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

// plan, or the shorter plan of its element with count values, or nullptr.
const CompactCallPlan *planWithValues(const CompactCallPlan *plan, uint32_t count) {
    while (plan && plan->own > count)
        plan = plan->shorter;
    return plan && plan->own == count ? plan : nullptr;
}

}  // namespace

// Compact: small questions of the typed values, inline where asked.
__attribute__((always_inline)) inline uint32_t TraceWriter::typedParentValues() const {
    return typedCursorOnParent_ ? static_cast<uint32_t>(typedOut_ - typedValues_)
                                : typedParentCount_;
}

__attribute__((always_inline)) inline bool TraceWriter::compactCallIsWhole() {
    const Frame &frame = frames_[0];
    if (frame.childOpen || !frame.children.empty() || !frame.nested.empty()) return false;
    const CompactCallPlan *plan = planWithValues(typedPlan_, typedParentValues());
    if (!plan) return false;
    typedPlan_ = plan;
    return true;
}

TraceWriter::TraceWriter(const TraceOptions &options)
    : nestedDepth_(options.nestedDepth), forceFlush_(options.forceFlush), clock_(options.clock) {}

size_t TraceWriter::memoryBytes(const TraceOptions &options) {
    if (options.format == TraceOptions::Format::Xml)
        return (options.bufferBytes < 4096 ? 4096 : options.bufferBytes) + kInfoBufferBytes;
    FrameWriterOptions frameOptions;
    frameOptions.frameBytes = options.compactFrameBytes;
    frameOptions.compressionLevel = options.compactLevel;
    return FrameWriter::memoryBytes(frameOptions) + kInfoBufferBytes;
}

std::unique_ptr<TraceWriter> TraceWriter::create(const TraceOptions &options, std::string *error) {
    auto report = [error](const std::string &message) {
        if (error) *error = message;
        return nullptr;
    };
    if (options.nestedDepth < 0 || options.nestedDepth >= HD_LOG_MAX_DEPTH)
        return report("nested depth " + std::to_string(options.nestedDepth) + " is outside 0.." +
                      std::to_string(HD_LOG_MAX_DEPTH - 1));

    std::unique_ptr<TraceWriter> writer(new TraceWriter(options));
    if (!makeDirectories(options.directory))
        return report("cannot create directory '" + options.directory +
                      "': " + std::strerror(errno));
    if (!isLayerName(options.layer))
        return report("layer name '" + options.layer + "' is not lower-case letters and digits");
    std::string base = options.directory.empty() ? std::string() : options.directory + "/";
    base += traceBaseName(options.program, options.levels);
    const bool compact = options.format == TraceOptions::Format::Compact;
    const bool layerTrace = !options.layer.empty();
    writer->tracePath_ = base + (layerTrace ? "." + options.layer : std::string()) +
                         std::string(compact ? kCompactTraceSuffix : kXmlTraceSuffix);
    if (!layerTrace) writer->infoPath_ = base + std::string(kInfoSuffix);
    // The files are the tracer's: a layer tracing the program's file calls
    // must not take them (nor the prolog written below) for the program's.
    TracerIoScope tracerIo;

    // A compact trace's file is created by its encoder, below.
    writer->traceFd_ = compact ? -1 : openForWriting(writer->tracePath_);
    if (!compact && writer->traceFd_ < 0)
        return report("cannot create '" + writer->tracePath_ + "': " + std::strerror(errno));
    writer->infoFd_ = layerTrace ? -1 : openForWriting(writer->infoPath_);
    if (!layerTrace && writer->infoFd_ < 0) {
        const int openError = errno;
        if (!compact) {
            ::close(writer->traceFd_);
            ::unlink(writer->tracePath_.c_str());
        }
        writer->traceFd_ = -1;
        return report("cannot create '" + writer->infoPath_ + "': " + std::strerror(openError));
    }

    Timestamp origin = Timestamp::now();
    if (options.earliestTime.nanoseconds != 0 &&
        options.earliestTime.nanoseconds < origin.nanoseconds)
        origin = options.earliestTime;
    writer->origin_ = origin;
    writer->shiftTime_ = options.shiftTime;
    if (writer->shiftTime_) origin.nanoseconds = writer->shiftTime_(origin.nanoseconds);
    writer->timeAdjustmentSeconds_ = origin.wholeSeconds();
    writer->timeBaseNanoseconds_ = writer->timeAdjustmentSeconds_ * 1000000000;
    if (compact) {
        if (writer->createCompact(options, error) != 0) return nullptr;
        writer->info_.attach(writer->infoFd_, kInfoBufferBytes, false);
        writer->closed_ = false;
        registry::add(writer.get());
        return writer;
    }
    writer->output_.attach(writer->traceFd_,
                           options.bufferBytes < 4096 ? 4096 : options.bufferBytes,
                           options.backgroundWrites);

    std::string prolog = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='";
    appendInteger(prolog, writer->timeAdjustmentSeconds_);
    prolog += "'>\n";
    // Straight to the file, so that even a trace of a killed process has its
    // prolog. When every call is flushed, the file also ends in the epilog
    // from the start until close, so that a process killed by SIGKILL (as
    // MPICH's Hydra ends every rank after a fatal error) leaves a
    // well-formed trace of every call. Otherwise a killed process leaves a
    // visibly cut trace: what was buffered is lost anyway.
    if (options.forceFlush) writer->output_.keepFileEndingWith(kEpilog.data(), kEpilog.size());
    if (!writer->output_.writeThrough(prolog.data(), prolog.size())) {
        const int writeError = writer->output_.lastError();
        return report("cannot write '" + writer->tracePath_ + "': " + std::strerror(writeError));
    }
    // The .info in blocks, written before the trace text after it.
    writer->info_.attach(writer->infoFd_, kInfoBufferBytes, false);
    if (!layerTrace) writer->output_.writeFirst(&writer->info_);
    writer->closed_ = false;
    registry::add(writer.get());
    return writer;
}

TraceWriter::~TraceWriter() {
    close();
    // A writer that failed in create() was never registered; remove() ignores it.
    registry::remove(this);
    if (traceFd_ >= 0) ::close(traceFd_);
    if (infoFd_ >= 0) ::close(infoFd_);
}

int TraceWriter::setNestedDepth(int depth) {
    if (depth < 0 || depth >= HD_LOG_MAX_DEPTH) return EINVAL;
    nestedDepth_ = depth;
    return 0;
}

int TraceWriter::beginStateSlow(std::string_view name, Timestamp start) {
    if (closed_) return EBADF;
    if (depth_ >= HD_LOG_MAX_DEPTH) return EOVERFLOW;
    const bool parentWritten = depth_ == 0 || frameWritten_[depth_ - 1];
    const bool written = enabled_ && !failed_ && parentWritten && depth_ <= nestedDepth_;
    frameWritten_[depth_] = written ? writeMode_ : kNotWritten;
    if (written)
        openFrame(frames_[depth_], name, start);
    else
        ++droppedStates_;
    ++depth_;
    if (depth_ > 1) {
        if (compact_ && beginTypedNested(name, start, written)) return 0;
        pauseTyped();  // the nested state takes the attributes
    } else if (written && compact_) {
        beginCompactCall(name);
    }
    return 0;
}

int TraceWriter::endStateSlow(Timestamp end) {
    if (closed_) return EBADF;
    if (depth_ == 0) return EPERM;
    // A child left open ends with its state.
    if (frameWritten_[depth_ - 1] && frames_[depth_ - 1].childOpen) endElement();
    if (depth_ == 1 && typedPlan_ && compactCallIsWhole()) return endCompactCall(end);
    if (depth_ == 2 && typedNestedOpen_ && endTypedNested(end)) return 0;
    const int frameDepth = --depth_;
    if (frameDepth == 1) resumeTyped();
    if (!frameWritten_[frameDepth]) return 0;
    Frame &frame = frames_[frameDepth];
    if (compact_)
        writeCompactState(frame, frameDepth, end);
    else
        writeState(frame, frameDepth, end);
    if (frameDepth == 0 && forceFlush_) return flush();
    return failed_ ? EIO : 0;
}

int TraceWriter::beginInnerState(std::string_view name, Timestamp start) {
    innerFrameDepth_ = 0;
    if (depth_ == 0) return beginState(name, start);
    if (closed_) return EBADF;
    if (depth_ >= HD_LOG_MAX_DEPTH) return EOVERFLOW;
    int parent = depth_ - 1;
    while (parent >= 0 && !frameWritten_[parent])
        --parent;
    const bool written = parent >= 0 && enabled_ && !failed_;
    frameWritten_[depth_] = written ? writeMode_ : kNotWritten;
    if (written)
        openFrame(frames_[depth_], name, start);
    else
        ++droppedStates_;
    innerFrameDepth_ = parent + 1;
    ++depth_;
    if (compact_ && beginTypedNested(name, start, written)) return 0;
    pauseTyped();
    return 0;
}

int TraceWriter::endInnerState(Timestamp end) {
    if (innerFrameDepth_ == 0) return endState(end);
    if (closed_) return EBADF;
    if (depth_ == 0) return EPERM;
    endElement();  // a child left open ends with its state
    if (depth_ == 2 && typedNestedOpen_ && endTypedNested(end)) return 0;
    const int frameIndex = --depth_;
    if (frameIndex == 1) resumeTyped();
    if (!frameWritten_[frameIndex]) return 0;
    Frame &frame = frames_[frameIndex];
    // Rendered at the depth below its written parent, into that parent's
    // nested states (frames between them are not written).
    if (compact_)
        writeCompactState(frame, innerFrameDepth_, end);
    else
        writeState(frame, innerFrameDepth_, end);
    return failed_ ? EIO : 0;
}

size_t TraceWriter::maxRenderedSize(const Frame &frame, int frameDepth) const {
    constexpr size_t kFixedText = sizeof("<Nested>\n</Nested>\n>\n</>\n");
    return kFixedText + kTimesBytes + 3 * 2 * static_cast<size_t>(frameDepth) +
           frame.nested.size() + frame.head.size() + frame.children.size() + frame.nameLength;
}

char *TraceWriter::renderState(char *out, const Frame &frame, int frameDepth, Timestamp end) const {
    if (!frame.nested.empty()) {
        out = writeIndent(out, frameDepth);
        out = writeText(out, "<Nested>\n");
        out = writeText(out, frame.nested.view());
        out = writeIndent(out, frameDepth);
        out = writeText(out, "</Nested>\n");
    }
    if (frameDepth > 0) out = writeIndent(out, frameDepth);
    out = writeHeadAndTimes(out, frame, end);
    if (frame.children.empty()) return writeText(out, "'/>\n");
    out = writeText(out, "'>\n");
    out = writeText(out, frame.children.view());
    out = writeIndent(out, frameDepth);
    out = writeText(out, "</");
    out = writeText(out, frame.head.view().substr(1, frame.nameLength));
    return writeText(out, ">\n");
}

void TraceWriter::writeState(Frame &frame, int frameDepth, Timestamp end) {
    const size_t maxSize = maxRenderedSize(frame, frameDepth);
    if (frameDepth > 0) {
        // A nested state joins its parent's list of nested states.
        TextBuffer &parentNested = frames_[frameDepth - 1].nested;
        parentNested.commit(renderState(parentNested.reserve(maxSize), frame, frameDepth, end));
        return;
    }
    if (failed_) return;
    // A top-level state is rendered straight into the output buffer.
    if (char *space = output_.claim(maxSize)) {
        output_.commit(static_cast<size_t>(renderState(space, frame, 0, end) - space));
        return;
    }
    oversizedState_.clear();
    oversizedState_.commit(renderState(oversizedState_.reserve(maxSize), frame, 0, end));
    appendOutput(oversizedState_.data(), oversizedState_.size());
}

int TraceWriter::event(std::string_view name, Timestamp at) {
    if (closed_) return EBADF;
    if (depth_ > 0 && !isWriting()) return 0;
    if (depth_ == 0 && (!enabled_ || failed_)) return failed_ ? EIO : 0;
    if (compact_) {
        TextBuffer &target = depth_ > 0 ? frames_[depth_ - 1].children : compactItems_;
        if (depth_ > 0 && frames_[depth_ - 1].childOpen) endElement();
        if (depth_ == 1) untypeChildren();
        if (depth_ == 2) untypeNested();
        if (depth_ == 0) target.clear();
        const size_t lengthAt = compact_items::beginElement(target, compact_items::kLeaf, "Event");
        compact_items::putText(target, compact::kText, "name", name);
        compact_items::putNumber(target, compact::kTime, "time", relativeNanoseconds(at));
        compact_items::endElement(target, lengthAt);
        if (depth_ > 0) return 0;
        const int result = appendCompact(target.view(), relativeNanoseconds(at));
        return result == 0 && forceFlush_ ? flush() : result;
    }
    std::string element(kIndentSpaces.substr(0, static_cast<size_t>(2 * depth_)));
    element += "<Event name='";
    appendXmlEscaped(element, name);
    element += "' time='";
    char number[kMaxNumberChars];
    element.append(number, formatRelativeTime(number, relativeNanoseconds(at)));
    element += "'/>\n";
    if (depth_ > 0) {
        // Inside a state, an event is one of its child elements.
        Frame &frame = frames_[depth_ - 1];
        if (frame.childOpen) endElement();
        frame.children.append(element);
        return 0;
    }
    return appendOutput(element.data(), element.size());
}

void TraceWriter::attributeNotXml(std::string_view name, int64_t value) {
    if (!isWriting()) return;
    untypeTarget();
    compact_items::putNumber(attributeTarget(), compact::kInteger, name, value);
}

void TraceWriter::attribute(std::string_view name, std::string_view text) {
    if (!isWriting()) return;
    TextBuffer &out = attributeTarget();
    if (compact_) {
        if (typedNext_ != typedEnd_ && typedNext_->coding == compact::kText &&
            sameText(typedNext_->name, name)) {
            // Copied: the caller's text may not outlive the call.
            *typedOut_++ = typedTextHandle(typedTexts_.size(), text.size());
            typedTexts_.append(text);
            ++typedNext_;
            return;
        }
        untypeTarget();
        return compact_items::putText(out, compact::kText, name, text);
    }
    char *p = out.reserve(name.size() + 4 + kMaxEscapedBytesPerByte * text.size());
    *p++ = ' ';
    p = writeText(p, name);
    *p++ = '=';
    *p++ = '\'';
    p = escapeXml(p, text);
    *p++ = '\'';
    out.commit(p);
}

void TraceWriter::rawAttributes(std::string_view text) {
    if (!isWriting()) return;
    if (compact_) {
        untypeTarget();
        return compact_items::putRawAttributes(attributeTarget(), text);
    }
    attributeTarget().append(text);
}

void TraceWriter::beginElement(std::string_view name) {
    if (!isWriting()) return;
    Frame &frame = frames_[depth_ - 1];
    if (frame.childOpen) endElement();
    if (compact_) {
        if (depth_ == 2) untypeNested();
        frame.childOpen = true;
        if (depth_ == 1) {
            if (beginTypedChild(name)) return;
            untypeChildren();
            pauseTyped();  // the child takes the attributes
        }
        frame.childLengthAt =
            compact_items::beginElement(frame.children, compact_items::kLeaf, name);
        return;
    }
    const size_t indent = static_cast<size_t>(2 * depth_);
    char *p = frame.children.reserve(indent + 1 + name.size());
    std::memcpy(p, kIndentSpaces.data(), indent);
    p[indent] = '<';
    std::memcpy(p + indent + 1, name.data(), name.size());
    frame.children.commit(p + indent + 1 + name.size());
    frame.childOpen = true;
}

void TraceWriter::endElement() {
    if (!isWriting()) return;
    Frame &frame = frames_[depth_ - 1];
    if (!frame.childOpen) return;
    if (compact_) {
        // A typed child with all its values stays typed; one without them
        // becomes an item, as the others are then.
        const bool typed = typedChildOpen_ && depth_ == 1 && endTypedChild();
        if (typedChildOpen_ && depth_ == 1) untypeChildren();
        if (!typed) compact_items::endElement(frame.children, frame.childLengthAt);
        frame.childOpen = false;
        if (depth_ == 1) resumeTyped();
    } else {
        frame.childOpen = false;
        frame.children.append("/>\n");
    }
}

int TraceWriter::appendOutput(const char *text, size_t length) {
    if (failed_) return EIO;
    if (char *space = output_.claim(length)) {
        std::memcpy(space, text, length);
        output_.commit(length);
        return 0;
    }
    if (output_.lastError() == 0 && !output_.failedInBefore() && output_.writeThrough(text, length))
        return 0;
    failOutput();
    return EIO;
}

int TraceWriter::flush() {
    if (closed_) return EBADF;
    if (failed_) return EIO;
    if (compact_) {
        // The .info first: every id the records use is declared there.
        if (hasInfo() && !info_.flush()) {
            fail(infoPath_.c_str(), info_.lastError());
            return EIO;
        }
        if (const int error = compactFrames_->flush()) {
            fail(tracePath_.c_str(), error);
            return EIO;
        }
        return 0;
    }
    if (!output_.flush()) {
        failOutput();
        return EIO;
    }
    return 0;
}

// --- The .info in blocks. Lines are committed to info_ whole, so
// a crash handler writes every complete line (closeForCrash); info_ reaches
// the file before any later trace text (OutputBuffer::writeFirst).
int TraceWriter::writeInfo(std::string_view text) {
    if (closed_) return EBADF;
    if (infoPath_.empty()) return EINVAL;  // a layer's trace
    if (failed_) return EIO;
    if (char *space = info_.claim(text.size())) {
        std::memcpy(space, text.data(), text.size());
        info_.commit(text.size());
        if (!forceFlush_ || info_.flush()) return 0;
    } else if (info_.lastError() == 0 && info_.writeThrough(text.data(), text.size())) {
        return 0;  // a line longer than the buffer
    }
    fail(infoPath_.c_str(), info_.lastError());
    return EIO;
}

void TraceWriter::setForceFlush(bool on) {
    forceFlush_ = on;
    if (!closed_ && !compact_)
        output_.keepFileEndingWith(on ? kEpilog.data() : nullptr, kEpilog.size());
}

void TraceWriter::failOutput() {
    if (output_.failedInBefore())
        fail(infoPath_.c_str(), info_.lastError());
    else
        fail(tracePath_.c_str(), output_.lastError());
}
// --- End of the .info writing.

void TraceWriter::fail(const char *what, int error) {
    if (failed_.exchange(true)) return;
    std::fprintf(stderr,
                 "hdtrace: cannot write '%s': %s; this trace stops here, the program goes on\n",
                 what, std::strerror(error));
}

int TraceWriter::close() {
    if (closed_) return 0;
    const Timestamp end = now();
    while (depth_ > 0)
        endState(end);
    if (compact_) {
        if (!failed_ && hasInfo() && !info_.flush()) fail(infoPath_.c_str(), info_.lastError());
        if (const int error = compactFrames_->close(); error && !failed_)
            fail(tracePath_.c_str(), error);
        if (hasInfo()) ::close(infoFd_);
        infoFd_ = -1;
        closed_ = true;
        registry::remove(this);
        return failed_ ? EIO : 0;
    }
    output_.keepFileEndingWith(nullptr, 0);
    appendOutput(kEpilog.data(), kEpilog.size());
    if (!failed_ && !output_.flush()) failOutput();  // the .info's lines first
    // Even after a failure: the background writer must be done with the
    // descriptor before its number can be given to another file.
    output_.waitForBackgroundWrites();
    ::close(traceFd_);
    if (hasInfo()) ::close(infoFd_);
    traceFd_ = infoFd_ = -1;
    closed_ = true;
    registry::remove(this);
    return failed_ ? EIO : 0;
}

void TraceWriter::closeForCrash() {
    if (closed_ || crashClosed_.exchange(true)) return;
    failed_.store(true);
    // The .info first: every id the trace's complete elements use is there.
    if (hasInfo()) info_.closeForCrash("", 0);
    if (compact_)
        compactFrames_->closeForCrash();
    else
        output_.closeForCrash(kEpilog.data(), kEpilog.size());
}

void TraceWriter::abandonAfterFork() {
    if (closed_) return;
    if (compact_)
        compactFrames_->abandonAfterFork();
    else
        output_.abandon();
    info_.abandon();
    if (traceFd_ >= 0) ::close(traceFd_);
    if (hasInfo()) ::close(infoFd_);
    traceFd_ = infoFd_ = -1;
    closed_ = true;
}

// --- Compact mode: the same states, as records (CompactEncoder).

int TraceWriter::createCompact(const TraceOptions &options, std::string *error) {
    FrameWriterOptions frameOptions;
    frameOptions.background = options.backgroundWrites;
    frameOptions.frameBytes = options.compactFrameBytes;
    frameOptions.compressionLevel = options.compactLevel;
    compactFrames_ = FrameWriter::create(tracePath_, frameOptions, error);
    if (compactFrames_) {
        // This trace closes its frames, saves them on a crash and forgets
        // them after fork(): one entry in the list of open traces.
        registry::remove(compactFrames_.get());
        int appendError = 0;
        compact_ = CompactEncoder::create(*compactFrames_, timeAdjustmentSeconds_,
                                          relativeNanoseconds(Timestamp::now()), &appendError);
        if (!compact_ && error)
            *error = "cannot write '" + tracePath_ + "': " + std::strerror(appendError);
    }
    if (!compact_) {
        compactFrames_.reset();
        if (hasInfo()) {
            ::close(infoFd_);
            ::unlink(infoPath_.c_str());
        }
        infoFd_ = -1;
        return EIO;
    }
    writeMode_ = kWrittenCompact;
    if (forceFlush_ && compactFrames_->flush() != 0) {
        if (error) *error = "cannot write '" + tracePath_ + "'";
        return EIO;
    }
    return 0;
}

void TraceWriter::writeCompactState(Frame &frame, int frameDepth, Timestamp end) {
    const int64_t start = relativeNanoseconds(frame.start);
    // First: the typed nested states and children it kept join the frame.
    if (&frame == &frames_[0]) untypeHead();
    const bool leaf = frameDepth == 0 && frame.nested.empty() && frame.children.empty();
    if (leaf) {
        // Most states: the times join the entries where they are.
        compact_items::putNumber(frame.head, compact::kTime, "time", start);
        compact_items::putNumber(frame.head, compact::kEnd, "end", relativeNanoseconds(end));
        if (failed_) return;
        const std::string_view head = frame.head.view();
        const int error = compact_->appendElement(head.substr(1, frame.nameLength),
                                                  head.substr(1 + frame.nameLength), start);
        if (error) compactAppendFailed(error);
        return;
    }
    // What XML mode renders as text (renderState), as items: the <Nested>
    // block, the element with its times, its children.
    TextBuffer &out = frameDepth > 0 ? frames_[frameDepth - 1].nested : compactItems_;
    if (frameDepth == 0) out.clear();
    if (!frame.nested.empty()) {
        compact_items::putOp(out, compact_items::kNestedOpen);
        out.append(frame.nested.view());
        compact_items::putOp(out, compact_items::kNestedClose);
    }
    const bool open = !frame.children.empty();
    const std::string_view head = frame.head.view();
    const size_t lengthAt = compact_items::beginElement(
        out, open ? compact_items::kOpen : compact_items::kLeaf, head.substr(1, frame.nameLength));
    out.append(head.substr(1 + frame.nameLength));
    compact_items::putNumber(out, compact::kTime, "time", start);
    compact_items::putNumber(out, compact::kEnd, "end", relativeNanoseconds(end));
    compact_items::endElement(out, lengthAt);
    if (open) {
        out.append(frame.children.view());
        compact_items::putOp(out, compact_items::kEndItem);
    }
    if (frameDepth == 0 && !failed_) appendCompact(out.view(), start);
}

void TraceWriter::beginCompactCall(std::string_view name) {
    const CompactCallPlan *plan = compact_->planOf(name, true);
    typedChildOpen_ = false;
    typedChildren_ = typedChildValuesUsed_ = 0;
    typedParentCount_ = 0;
    typedNestedOpen_ = typedNestingOff_ = false;
    typedNested_ = typedNestedValuesUsed_ = 0;
    if (!typedTexts_.empty()) typedTexts_.clear();
    if (!plan || plan->own > kMaxTypedValues) {
        typedPlan_ = nullptr;
        typedCursorOnParent_ = false;
        typedNext_ = typedEnd_ = nullptr;
        return;
    }
    typedPlan_ = plan;
    typedCursorOnParent_ = true;
    typedOut_ = typedValues_;
    typedWhole_ = typedValues_ + plan->own;
    typedShorterWhole_ = plan->shorter ? typedValues_ + plan->shorter->own : typedWhole_;
    typedNext_ = plan->attributes;
    typedEnd_ = plan->attributes + plan->own;
}

void TraceWriter::pauseTyped() {
    if (typedCursorOnParent_) typedParentCount_ = typedParentValues();
    typedCursorOnParent_ = false;
    typedNext_ = typedEnd_ = nullptr;
}

void TraceWriter::resumeTyped() {
    if (!typedPlan_ || frames_[0].childOpen) {
        typedNext_ = typedEnd_ = nullptr;
        return;
    }
    typedOut_ = typedValues_ + typedParentCount_;
    typedNext_ = typedPlan_->attributes + typedParentCount_;
    typedEnd_ = typedPlan_->attributes + typedPlan_->own;
    typedCursorOnParent_ = true;
}

bool TraceWriter::beginTypedChild(std::string_view name) {
    if (!typedPlan_ || !frames_[0].children.empty() || typedChildren_ == kMaxTypedChildren)
        return false;
    const CompactCallPlan *plan = compact_->planOf(name, false);
    if (!plan || typedChildValuesUsed_ + plan->own > kMaxTypedChildValues) return false;
    pauseTyped();
    typedChildPlans_[typedChildren_] = plan;
    typedChildOpen_ = true;
    typedOut_ = typedChildValues_ + typedChildValuesUsed_;
    typedNext_ = plan->attributes;
    typedEnd_ = plan->attributes + plan->own;
    return true;
}

bool TraceWriter::endTypedChild() {
    const CompactCallPlan &plan = *typedChildPlans_[typedChildren_];
    if (typedOut_ != typedChildValues_ + typedChildValuesUsed_ + plan.own) return false;
    ++typedChildren_;
    typedChildValuesUsed_ += plan.own;
    typedChildOpen_ = false;
    return true;
}

void TraceWriter::untypeChildren() {
    TextBuffer &children = frames_[0].children;
    const int64_t *values = typedChildValues_;
    const uint32_t total = typedChildren_ + (typedChildOpen_ ? 1 : 0);
    for (uint32_t child = 0; child < total; ++child) {
        const CompactCallPlan &plan = *typedChildPlans_[child];
        const bool open = child == typedChildren_;
        const uint32_t count = open ? static_cast<uint32_t>(typedOut_ - values) : plan.own;
        const size_t lengthAt = compact_items::beginElement(
            children, compact_items::kLeaf, compact::staticShapes()[plan.shape].element);
        for (uint32_t index = 0; index < count; ++index)
            putTypedEntry(children, plan.attributes[index], values[index]);
        values += count;
        if (open)
            frames_[0].childLengthAt = lengthAt;  // its next attributes join it as entries
        else
            compact_items::endElement(children, lengthAt);
    }
    if (typedChildOpen_) typedNext_ = typedEnd_ = nullptr;
    typedChildOpen_ = false;
    typedChildren_ = typedChildValuesUsed_ = 0;
}

void TraceWriter::untypeHead() {
    if (!typedPlan_) return;
    untypeNested();
    untypeChildren();
    const CompactCallPlan &plan = *typedPlan_;
    const uint32_t count = typedParentValues();
    for (uint32_t index = 0; index < count; ++index)
        putTypedEntry(frames_[0].head, plan.attributes[index], typedValues_[index]);
    typedPlan_ = nullptr;
    typedCursorOnParent_ = false;
    typedNext_ = typedEnd_ = nullptr;
}

void TraceWriter::putTypedEntry(TextBuffer &out, const compact::ShapeAttribute &attribute,
                                int64_t value) const {
    if (attribute.coding == compact::kText)
        compact_items::putText(out, compact::kText, attribute.name,
                               typedText(typedTexts_.view(), value));
    else
        compact_items::putNumber(out, compact::kInteger, attribute.name, value);
}

void TraceWriter::untypeTarget() {
    if (depth_ == 2) return untypeNested();
    if (depth_ != 1) return;
    if (frames_[0].childOpen)
        untypeChildren();
    else
        untypeHead();
}

bool TraceWriter::beginTypedNested(std::string_view name, Timestamp start, bool written) {
    // Only a written state right beneath a typed call, none of whose nested
    // states took the general way, while none of the call's children is open.
    const bool beneathTypedCall = written && typedPlan_ && !typedNestingOff_ && depth_ == 2 &&
                                  !frames_[0].childOpen && typedNested_ < kMaxTypedNested;
    const CompactCallPlan *plan = beneathTypedCall ? compact_->planOf(name, true) : nullptr;
    if (!plan || typedNestedValuesUsed_ + plan->own > kMaxTypedNestedValues) {
        untypeNested();  // this one and the rest take the general way, in order
        return false;
    }
    pauseTyped();
    typedNestedPlans_[typedNested_] = plan;
    typedNestedTimes_[2 * typedNested_] = relativeNanoseconds(start);
    typedNestedOpen_ = true;
    typedOut_ = typedNestedValues_ + typedNestedValuesUsed_;
    typedNext_ = plan->attributes;
    typedEnd_ = plan->attributes + plan->own;
    return true;
}

bool TraceWriter::endTypedNested(Timestamp end) {
    const CompactCallPlan *found = planWithValues(
        typedNestedPlans_[typedNested_],
        static_cast<uint32_t>(typedOut_ - typedNestedValues_ - typedNestedValuesUsed_));
    if (!found) {
        untypeNested();  // it lacks values: the general way, after those before it
        return false;
    }
    const CompactCallPlan &plan = *found;
    typedNestedPlans_[typedNested_] = found;
    typedNestedTimes_[2 * typedNested_ + 1] = relativeNanoseconds(end);
    typedNestedValuesUsed_ += plan.own;
    ++typedNested_;
    typedNestedOpen_ = false;
    depth_ = 1;
    resumeTyped();
    return true;
}

void TraceWriter::untypeNested() {
    typedNestingOff_ = true;
    if (typedNested_ == 0 && !typedNestedOpen_) return;
    // The complete ones as writeCompactState would have put them into the
    // call's nested states, in their order.
    TextBuffer &nested = frames_[0].nested;
    const int64_t *values = typedNestedValues_;
    for (uint32_t state = 0; state < typedNested_; ++state) {
        const CompactCallPlan &plan = *typedNestedPlans_[state];
        const size_t lengthAt = compact_items::beginElement(
            nested, compact_items::kLeaf, compact::staticShapes()[plan.shape].element);
        for (uint32_t index = 0; index < plan.own; ++index)
            putTypedEntry(nested, plan.attributes[index], values[index]);
        compact_items::putNumber(nested, compact::kTime, "time", typedNestedTimes_[2 * state]);
        compact_items::putNumber(nested, compact::kEnd, "end", typedNestedTimes_[2 * state + 1]);
        compact_items::endElement(nested, lengthAt);
        values += plan.own;
    }
    // The open one's values so far as entries of its frame, which the
    // attributes still to come join.
    if (typedNestedOpen_) {
        const CompactCallPlan &plan = *typedNestedPlans_[typedNested_];
        const auto count = static_cast<uint32_t>(typedOut_ - values);
        for (uint32_t index = 0; index < count; ++index)
            putTypedEntry(frames_[1].head, plan.attributes[index], values[index]);
        typedNestedOpen_ = false;
        typedNext_ = typedEnd_ = nullptr;
    }
    typedNested_ = typedNestedValuesUsed_ = 0;
}

int TraceWriter::endCompactCall(Timestamp end) {
    const CompactCallPlan &plan = *typedPlan_;
    typedPlan_ = nullptr;
    typedCursorOnParent_ = false;
    typedNext_ = typedEnd_ = nullptr;
    depth_ = 0;
    if (failed_) return EIO;
    const CompactEncoder::Children children{typedChildPlans_, typedChildren_, typedChildValues_};
    const CompactEncoder::Nested nested{typedNestedPlans_, typedNested_, typedNestedValues_,
                                        typedNestedTimes_};
    const int error =
        compact_->appendCall(plan, typedValues_, relativeNanoseconds(frames_[0].start),
                             relativeNanoseconds(end), children, nested, typedTexts_.view());
    if (error) compactAppendFailed(error);
    if (forceFlush_) return flush();
    return failed_ ? EIO : 0;
}

int TraceWriter::endCompactLeaf(Timestamp end) {
    const Frame &frame = frames_[0];
    if (frame.childOpen || !frame.children.empty() || !frame.nested.empty() || closed_)
        return endStateSlow(end);
    const CompactCallPlan &plan = typedOut_ == typedWhole_ ? *typedPlan_ : *typedPlan_->shorter;
    typedPlan_ = nullptr;
    typedCursorOnParent_ = false;
    typedNext_ = typedEnd_ = nullptr;
    depth_ = 0;
    if (failed_) return EIO;
    const int error =
        compact_->appendLeafCall(plan, typedValues_, relativeNanoseconds(frames_[0].start),
                                 relativeNanoseconds(end), typedTexts_.view());
    if (error) compactAppendFailed(error);
    if (forceFlush_) return flush();
    return failed_ ? EIO : 0;
}

int TraceWriter::appendCompact(std::string_view items, int64_t time) {
    if (failed_) return EIO;
    const int error = compact_->append(items, time);
    return error == 0 ? 0 : compactAppendFailed(error);
}

int TraceWriter::compactAppendFailed(int error) {
    if (error == EMSGSIZE) {
        // One state larger than a frame: it is lost, the trace goes on.
        ++droppedStates_;
        std::fprintf(stderr, "hdtrace: '%s': a state of more than a frame's %u bytes is left out\n",
                     tracePath_.c_str(), compactFrames_->frameBytes());
        return EMSGSIZE;
    }
    fail(tracePath_.c_str(), error);
    return EIO;
}

}  // namespace hdtrace
