#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include <hdtrace/TraceNames.hpp>
#include <hdtrace/TraceWriter.hpp>
#include <hdtrace/TracerIo.hpp>
#include <hdtrace/codec/CompactItems.hpp>
#include <hdtrace/codec/Inlining.hpp>

#include "StateEncoding.hpp"
#include "TraceRegistry.hpp"

namespace hdtrace {
namespace {

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

}  // namespace

// Small questions of the typed values, inline where asked.
__attribute__((always_inline)) inline uint32_t TraceWriter::typedParentValues() const {
    return typedCursorOnParent_ ? static_cast<uint32_t>(typedOut_ - typedValues_)
                                : typed_.parentValues;
}

__attribute__((always_inline)) inline bool TraceWriter::keepsTypedNested() const {
    return typedPlan_ && !typed_.nestingOff && !frames_[0].childOpen &&
           typed_.nested < kMaxTypedNested;
}

__attribute__((always_inline)) inline bool TraceWriter::typedNestedFits(uint32_t values) const {
    return typed_.nestedValuesUsed + values <= kMaxTypedNestedValues;
}

__attribute__((always_inline)) inline void TraceWriter::makeRoomForTypedNested(uint32_t values) {
    if (HDTRACE_UNLIKELY(typed_.nested == typedNestedPlans_.size() ||
                         typed_.nestedValuesUsed + values > typedNestedValues_.size()))
        growTypedNested(values);
}

__attribute__((always_inline)) inline bool TraceWriter::typedCallIsWhole() {
    const StateParts &parts = frames_[0];
    if (parts.childOpen || !parts.children.empty() || !parts.nested.empty()) return false;
    const CallPlan *plan = planWithValues(typedPlan_, typedParentValues());
    if (!plan) return false;
    typedPlan_ = plan;
    return true;
}

TraceWriter::TraceWriter(const TraceOptions &options)
    : nestedDepth_(options.nestedDepth), forceFlush_(options.forceFlush), clock_(options.clock) {}

size_t TraceWriter::memoryBytes(const TraceOptions &options) {
    return StateEncoding::memoryBytes(options) + kInfoBufferBytes;
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

    if (!layerTrace) {
        writer->infoFd_ =
            ::open(writer->infoPath_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (writer->infoFd_ < 0)
            return report("cannot create '" + writer->infoPath_ + "': " + std::strerror(errno));
        writer->info_.attach(writer->infoFd_, kInfoBufferBytes, false);
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

    const StateEncoding::Trace trace{writer->tracePath_,
                                     writer->infoPath_,
                                     layerTrace ? nullptr : &writer->info_,
                                     &writer->failed_,
                                     writer->timeAdjustmentSeconds_,
                                     writer->relativeNanoseconds(Timestamp::now())};
    writer->encoding_ = StateEncoding::create(options, trace, error);
    if (!writer->encoding_) {
        // No trace without its .info, nor the other way round.
        if (!layerTrace) {
            writer->info_.abandon();
            ::close(writer->infoFd_);
            ::unlink(writer->infoPath_.c_str());
        }
        writer->infoFd_ = -1;
        return nullptr;
    }
    writer->closed_ = false;
    registry::add(writer.get());
    return writer;
}

TraceWriter::~TraceWriter() {
    close();
    // A writer that failed in create() was never registered; remove() ignores it.
    registry::remove(this);
    if (infoFd_ >= 0) ::close(infoFd_);
}

uint64_t TraceWriter::droppedStates() const {
    return droppedStates_ + (encoding_ ? encoding_->droppedStates() : 0);
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
    frameWritten_[depth_] = written;
    if (written)
        frames_[depth_].open(name, start);
    else
        ++droppedStates_;
    ++depth_;
    if (depth_ > 1) {
        if (beginTypedNested(name, start, written)) return 0;
        pauseTyped();  // the nested state takes the attributes
    } else if (written) {
        beginTypedCall(name);
    }
    return 0;
}

HDTRACE_CALL_PATH int TraceWriter::endStateSlow(Timestamp end) {
    if (closed_) return EBADF;
    if (depth_ == 0) return EPERM;
    // A child left open ends with its state.
    if (frameWritten_[depth_ - 1] && frames_[depth_ - 1].childOpen) endElement();
    if (depth_ == 1 && typedPlan_ && typedCallIsWhole()) return endTypedCall(end);
    if (depth_ == 2 && typed_.nestedOpen && endTypedNested(end)) return 0;
    const int frameDepth = --depth_;
    if (frameDepth == 1) resumeTyped();
    if (!frameWritten_[frameDepth]) return 0;
    writeState(frames_[frameDepth], frameDepth, end);
    if (frameDepth == 0 && forceFlush_) return flush();
    return failed_ ? EIO : 0;
}

HDTRACE_CALL_PATH int TraceWriter::beginInnerState(std::string_view name, Timestamp start) {
    innerFrameDepth_ = 0;
    if (depth_ == 0) return beginState(name, start);
    if (closed_) return EBADF;
    if (depth_ >= HD_LOG_MAX_DEPTH) return EOVERFLOW;
    int parent = depth_ - 1;
    while (parent >= 0 && !frameWritten_[parent])
        --parent;
    const bool written = parent >= 0 && enabled_ && !failed_;
    frameWritten_[depth_] = written;
    if (written)
        frames_[depth_].open(name, start);
    else
        ++droppedStates_;
    innerFrameDepth_ = parent + 1;
    ++depth_;
    if (beginTypedNested(name, start, written)) return 0;
    pauseTyped();
    return 0;
}

HDTRACE_CALL_PATH int TraceWriter::endInnerState(Timestamp end) {
    if (innerFrameDepth_ == 0) return endState(end);
    if (closed_) return EBADF;
    if (depth_ == 0) return EPERM;
    endElement();  // a child left open ends with its state
    if (depth_ == 2 && typed_.nestedOpen && endTypedNested(end)) return 0;
    const int frameIndex = --depth_;
    if (frameIndex == 1) resumeTyped();
    if (!frameWritten_[frameIndex]) return 0;
    // Written at the depth below its written parent, into that parent's
    // nested states (frames between them are not written).
    writeState(frames_[frameIndex], innerFrameDepth_, end);
    return failed_ ? EIO : 0;
}

// What beginInnerState, the attributes and endInnerState do for a typed
// nested state, without its frame, the typed cursor's pause and resume, or
// a name compare per attribute call: the open call's cursor stays on its
// own values. Everything is checked before anything is counted, so that a
// false leaves the general way the same work as before.
HDTRACE_CALL_PATH bool TraceWriter::innerLeafState(std::string_view name, Timestamp start,
                                                   Timestamp end, const std::string_view *names,
                                                   const int64_t *values, uint32_t count) {
    // Written (as beginInnerState decides) right beneath the typed call.
    if (HDTRACE_UNLIKELY(depth_ != 1 || !frameWritten_[0] || !enabled_ || closed_ ||
                         failed_.load(std::memory_order_relaxed) || !typedCursorOnParent_ ||
                         !keepsTypedNested()))
        return false;
    const CallPlan *found = leafFound_.plan;
    if (HDTRACE_UNLIKELY(name.data() != leafFound_.name || name.size() != leafFound_.nameLength ||
                         names != leafFound_.names || count != leafFound_.count)) {
        found = findLeaf(name, names, count);
        if (!found) return false;
    }
    const uint32_t room = leafFound_.room;
    if (HDTRACE_UNLIKELY(!typedNestedFits(room))) return false;
    makeRoomForTypedNested(room);
    int64_t *const kept = typedNestedValues_.data() + typed_.nestedValuesUsed;
    for (uint32_t index = 0; index < count; ++index)
        kept[index] = values[index];
    typedNestedPlans_[typed_.nested] = found;
    typedNestedTimes_[2 * typed_.nested] = relativeNanoseconds(start);
    typedNestedTimes_[2 * typed_.nested + 1] = relativeNanoseconds(end);
    typed_.nestedValuesUsed += count;
    ++typed_.nested;
    return true;
}

const CallPlan *TraceWriter::findLeaf(std::string_view name, const std::string_view *names,
                                      uint32_t count) {
    const CallPlan *plan = plans_.planOf(name, true);
    if (!plan || plan->hasText || count > plan->own) return nullptr;
    const CallPlan *found = planWithValues(plan, count);
    if (!found) return nullptr;
    for (uint32_t index = 0; index < count; ++index)
        if (!compact_items::sameNameOrLiteral(plan->attributes[index].name, names[index]))
            return nullptr;
    leafFound_ = LeafFound{name.data(), name.size(), names, count, plan->own, found};
    return found;
}

void TraceWriter::writeState(StateParts &parts, int depth, Timestamp end) {
    // First: the typed values the call kept join its parts.
    if (&parts == &frames_[0]) untypeHead();
    if (depth == 0 && failed_) return;
    encoding_->writeState(parts, depth, relativeNanoseconds(parts.start), relativeNanoseconds(end),
                          depth > 0 ? &frames_[depth - 1].nested : nullptr);
}

int TraceWriter::event(std::string_view name, Timestamp at) {
    if (closed_) return EBADF;
    if (depth_ > 0 && !isWriting()) return 0;
    if (depth_ == 0 && (!enabled_ || failed_)) return failed_ ? EIO : 0;
    if (depth_ == 0) {
        const int result = encoding_->writeEvent(name, relativeNanoseconds(at));
        return result == 0 && forceFlush_ ? flush() : result;
    }
    // Inside a state, an event is one of its child elements.
    StateParts &parts = frames_[depth_ - 1];
    if (parts.childOpen) endElement();
    if (depth_ == 1) untypeChildren();
    if (depth_ == 2) untypeNested();
    encoding_->putEvent(parts.children, name, relativeNanoseconds(at), depth_);
    return 0;
}

void TraceWriter::attributesOneByOne(const std::string_view *names, const int64_t *values,
                                     uint32_t count) {
    // Each typed attribute moves the cursor on by one, an untyped one never:
    // where it moved by count, every name was its plan's in order, and will
    // be wherever the cursor stands at the same place of the same plan.
    const compact::ShapeAttribute *const at = typedNext_;
    for (uint32_t index = 0; index < count; ++index)
        attribute(names[index], values[index]);
    if (at && typedNext_ == at + count)
        typedNames_[typedNamesSlot(names)] = TypedNames{at, names, count};
}

void TraceWriter::attributeNotTyped(std::string_view name, int64_t value) {
    if (!isWriting()) return;
    untypeTarget();
    encoding_->putNumber(attributeTarget(), name, value);
}

void TraceWriter::attribute(std::string_view name, std::string_view text) {
    if (!isWriting()) return;
    // sameName: the name's length is not known here, and memcmp would be a call.
    if (typedNext_ != typedEnd_ && typedNext_->coding == compact::kText &&
        compact_items::sameName(typedNext_->name, name)) {
        // Copied: the caller's text may not outlive the call.
        *typedOut_++ = typedTextHandle(typedTexts_.size(), text.size());
        typedTexts_.append(text);
        ++typedNext_;
        return;
    }
    untypeTarget();
    encoding_->putText(attributeTarget(), name, text);
}

void TraceWriter::rawAttributes(std::string_view text) {
    if (!isWriting()) return;
    untypeTarget();
    encoding_->putRawAttributes(attributeTarget(), text);
}

void TraceWriter::beginElement(std::string_view name) {
    if (!isWriting()) return;
    StateParts &parts = frames_[depth_ - 1];
    if (parts.childOpen) endElement();
    if (depth_ == 2) untypeNested();
    parts.childOpen = true;
    if (depth_ == 1) {
        if (beginTypedChild(name)) return;
        untypeChildren();
        pauseTyped();  // the child takes the attributes
    }
    parts.childBeganAt = encoding_->beginChild(parts.children, name, depth_);
}

HDTRACE_CALL_PATH void TraceWriter::endElement() {
    if (!isWriting()) return;
    StateParts &parts = frames_[depth_ - 1];
    if (!parts.childOpen) return;
    // A typed child with all its values stays typed; one without them
    // takes the general way, as the others then do.
    const bool typed = typed_.childOpen && depth_ == 1 && endTypedChild();
    if (typed_.childOpen && depth_ == 1) untypeChildren();
    if (!typed) encoding_->endChild(parts.children, parts.childBeganAt);
    parts.childOpen = false;
    if (depth_ == 1) resumeTyped();
}

int TraceWriter::flush() {
    if (closed_) return EBADF;
    if (failed_) return EIO;
    return encoding_->flush();
}

// --- The .info in blocks. Lines are committed to info_ whole, so
// a crash handler writes every complete line (closeForCrash); info_ reaches
// the file before any later trace text (the encodings write it first).
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
    if (!closed_) encoding_->setForceFlush(on);
}
// --- End of the .info writing.

void TraceWriter::fail(const char *what, int error) {
    failTrace(failed_, what, error);
}

int TraceWriter::close() {
    if (closed_) return 0;
    const Timestamp end = now();
    while (depth_ > 0)
        endState(end);
    encoding_->close();
    if (hasInfo()) ::close(infoFd_);
    infoFd_ = -1;
    closed_ = true;
    registry::remove(this);
    return failed_ ? EIO : 0;
}

void TraceWriter::closeForCrash() {
    if (closed_ || crashClosed_.exchange(true)) return;
    failed_.store(true);
    // The .info first: every id the trace's complete elements use is there.
    if (hasInfo()) info_.closeForCrash("", 0);
    encoding_->closeForCrash();
}

void TraceWriter::abandonAfterFork() {
    if (closed_) return;
    encoding_->abandonAfterFork();
    info_.abandon();
    if (hasInfo()) ::close(infoFd_);
    infoFd_ = -1;
    closed_ = true;
}

// --- Typed calls: their values in their plans' order, without names.

HDTRACE_CALL_PATH void TraceWriter::beginTypedCall(std::string_view name) {
    const CallPlan *plan = plans_.planOf(name, true);
    typed_ = TypedCounts();
    typedTexts_.clear();
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

HDTRACE_CALL_PATH void TraceWriter::pauseTyped() {
    if (typedCursorOnParent_) typed_.parentValues = typedParentValues();
    typedCursorOnParent_ = false;
    typedNext_ = typedEnd_ = nullptr;
}

HDTRACE_CALL_PATH void TraceWriter::resumeTyped() {
    if (!typedPlan_ || frames_[0].childOpen) {
        typedNext_ = typedEnd_ = nullptr;
        return;
    }
    typedOut_ = typedValues_ + typed_.parentValues;
    typedNext_ = typedPlan_->attributes + typed_.parentValues;
    typedEnd_ = typedPlan_->attributes + typedPlan_->own;
    typedCursorOnParent_ = true;
}

bool TraceWriter::beginTypedChild(std::string_view name) {
    if (!typedPlan_ || !frames_[0].children.empty() || typed_.children == kMaxTypedChildren)
        return false;
    const CallPlan *plan = plans_.planOf(name, false);
    if (!plan || typed_.childValuesUsed + plan->own > kMaxTypedChildValues) return false;
    pauseTyped();
    typedChildPlans_[typed_.children] = plan;
    typed_.childOpen = true;
    typedOut_ = typedChildValues_ + typed_.childValuesUsed;
    typedNext_ = plan->attributes;
    typedEnd_ = plan->attributes + plan->own;
    return true;
}

bool TraceWriter::endTypedChild() {
    const CallPlan &plan = *typedChildPlans_[typed_.children];
    if (typedOut_ != typedChildValues_ + typed_.childValuesUsed + plan.own) return false;
    ++typed_.children;
    typed_.childValuesUsed += plan.own;
    typed_.childOpen = false;
    return true;
}

void TraceWriter::untypeChildren() {
    TextBuffer &children = frames_[0].children;
    const int64_t *values = typedChildValues_;
    const uint32_t total = typed_.children + (typed_.childOpen ? 1 : 0);
    for (uint32_t child = 0; child < total; ++child) {
        const CallPlan &plan = *typedChildPlans_[child];
        const bool open = child == typed_.children;
        const uint32_t count = open ? static_cast<uint32_t>(typedOut_ - values) : plan.own;
        const size_t beganAt = encoding_->beginChild(children, plan.element, 1);
        for (uint32_t index = 0; index < count; ++index)
            putTypedValue(children, plan.attributes[index], values[index]);
        values += count;
        if (open)
            frames_[0].childBeganAt = beganAt;  // its next attributes join it
        else
            encoding_->endChild(children, beganAt);
    }
    if (typed_.childOpen) typedNext_ = typedEnd_ = nullptr;
    typed_.childOpen = false;
    typed_.children = typed_.childValuesUsed = 0;
}

void TraceWriter::untypeHead() {
    if (!typedPlan_) return;
    untypeNested();
    untypeChildren();
    const CallPlan &plan = *typedPlan_;
    const uint32_t count = typedParentValues();
    for (uint32_t index = 0; index < count; ++index)
        putTypedValue(frames_[0].head, plan.attributes[index], typedValues_[index]);
    typedPlan_ = nullptr;
    typedCursorOnParent_ = false;
    typedNext_ = typedEnd_ = nullptr;
}

void TraceWriter::putTypedValue(TextBuffer &out, const compact::ShapeAttribute &attribute,
                                int64_t value) const {
    if (attribute.coding == compact::kText)
        encoding_->putText(out, attribute.name, typedText(typedTexts_.view(), value));
    else
        encoding_->putNumber(out, attribute.name, value);
}

void TraceWriter::untypeTarget() {
    if (depth_ == 2) return untypeNested();
    if (depth_ != 1) return;
    if (frames_[0].childOpen)
        untypeChildren();
    else
        untypeHead();
}

HDTRACE_CALL_PATH bool TraceWriter::beginTypedNested(std::string_view name, Timestamp start,
                                                     bool written) {
    // Only a written state right beneath a typed call, none of whose nested
    // states took the general way, while none of the call's children is open.
    const bool beneathTypedCall = written && depth_ == 2 && keepsTypedNested();
    const CallPlan *plan = beneathTypedCall ? plans_.planOf(name, true) : nullptr;
    if (!plan || !typedNestedFits(plan->own)) {
        untypeNested();  // this one and the rest take the general way, in order
        return false;
    }
    makeRoomForTypedNested(plan->own);
    pauseTyped();
    typedNestedPlans_[typed_.nested] = plan;
    typedNestedTimes_[2 * typed_.nested] = relativeNanoseconds(start);
    typed_.nestedOpen = true;
    typedOut_ = typedNestedValues_.data() + typed_.nestedValuesUsed;
    typedNext_ = plan->attributes;
    typedEnd_ = plan->attributes + plan->own;
    return true;
}

void TraceWriter::growTypedNested(uint32_t values) {
    // Doubled, so that a call of many nested states moves them a few times;
    // the room stays for the next calls.
    const size_t states = std::max<size_t>(2 * typedNestedPlans_.size(), typed_.nested + 1);
    typedNestedPlans_.resize(states);
    typedNestedTimes_.resize(2 * states);
    const size_t needed = size_t{typed_.nestedValuesUsed} + values;
    if (needed > typedNestedValues_.size())
        typedNestedValues_.resize(std::max(2 * typedNestedValues_.size(), needed));
}

void TraceWriter::releaseTypedNestedRoom() {
    std::vector<const CallPlan *>(kFirstTypedNested).swap(typedNestedPlans_);
    std::vector<int64_t>(2 * kFirstTypedNested).swap(typedNestedTimes_);
    std::vector<int64_t>(8 * kFirstTypedNested).swap(typedNestedValues_);
}

HDTRACE_CALL_PATH bool TraceWriter::endTypedNested(Timestamp end) {
    const CallPlan *found = planWithValues(
        typedNestedPlans_[typed_.nested],
        static_cast<uint32_t>(typedOut_ - typedNestedValues_.data() - typed_.nestedValuesUsed));
    if (!found) {
        untypeNested();  // it lacks values: the general way, after those before it
        return false;
    }
    const CallPlan &plan = *found;
    typedNestedPlans_[typed_.nested] = found;
    typedNestedTimes_[2 * typed_.nested + 1] = relativeNanoseconds(end);
    typed_.nestedValuesUsed += plan.own;
    ++typed_.nested;
    typed_.nestedOpen = false;
    depth_ = 1;
    resumeTyped();
    return true;
}

void TraceWriter::untypeNested() {
    typed_.nestingOff = true;
    if (typed_.nested == 0 && !typed_.nestedOpen) return;
    // The complete ones as the general way would have put them into the
    // call's nested states, in their order.
    const int64_t *values = typedNestedValues_.data();
    StateParts &parts = untypedNested_;
    for (uint32_t state = 0; state < typed_.nested; ++state) {
        const CallPlan &plan = *typedNestedPlans_[state];
        parts.open(plan.element, Timestamp());
        for (uint32_t index = 0; index < plan.own; ++index)
            putTypedValue(parts.head, plan.attributes[index], values[index]);
        encoding_->writeState(parts, 1, typedNestedTimes_[2 * state],
                              typedNestedTimes_[2 * state + 1], &frames_[0].nested);
        values += plan.own;
    }
    // The open one's values so far into its head, which the attributes
    // still to come join.
    if (typed_.nestedOpen) {
        const CallPlan &plan = *typedNestedPlans_[typed_.nested];
        const auto count = static_cast<uint32_t>(typedOut_ - values);
        for (uint32_t index = 0; index < count; ++index)
            putTypedValue(frames_[1].head, plan.attributes[index], values[index]);
        typed_.nestedOpen = false;
        typedNext_ = typedEnd_ = nullptr;
    }
    typed_.nested = typed_.nestedValuesUsed = 0;
    if (typedNestedPlans_.size() > kKeptTypedNested) releaseTypedNestedRoom();
}

HDTRACE_CALL_PATH int TraceWriter::endTypedCall(Timestamp end) {
    const CallPlan &plan = *typedPlan_;
    typedPlan_ = nullptr;
    typedCursorOnParent_ = false;
    typedNext_ = typedEnd_ = nullptr;
    depth_ = 0;
    if (failed_) return EIO;
    const TypedChildren children{typedChildPlans_, typed_.children, typedChildValues_};
    const TypedNested nested{typedNestedPlans_.data(), typed_.nested, typedNestedValues_.data(),
                             typedNestedTimes_.data()};
    encoding_->writeCall(plan, typedValues_, relativeNanoseconds(frames_[0].start),
                         relativeNanoseconds(end), children, nested, typedTexts_.view());
    if (typed_.nested > kKeptTypedNested) releaseTypedNestedRoom();
    if (forceFlush_) return flush();
    return failed_ ? EIO : 0;
}

HDTRACE_CALL_PATH int TraceWriter::endTypedWithNested(Timestamp end) {
    // What endStateSlow asks before it comes to endTypedCall; a flush and a
    // failed trace endTypedCall takes as it does from there.
    const StateParts &parts = frames_[0];
    if (HDTRACE_UNLIKELY(parts.childOpen || !parts.children.empty() || !parts.nested.empty() ||
                         closed_))
        return endStateSlow(end);
    typedPlan_ = typedOut_ == typedWhole_ ? typedPlan_ : typedPlan_->shorter;
    return endTypedCall(end);
}

HDTRACE_CALL_PATH int TraceWriter::endTypedLeaf(Timestamp end) {
    const StateParts &parts = frames_[0];
    // The rest (and a trace that failed, or flushes every call) the way
    // every typed call can take.
    if (parts.childOpen || !parts.children.empty() || !parts.nested.empty() || closed_ ||
        forceFlush_ || failed_.load(std::memory_order_relaxed))
        return endStateSlow(end);
    const CallPlan &plan = typedOut_ == typedWhole_ ? *typedPlan_ : *typedPlan_->shorter;
    typedPlan_ = nullptr;
    typedCursorOnParent_ = false;
    typedNext_ = typedEnd_ = nullptr;
    depth_ = 0;
    return encoding_->writeLeafCall(plan, typedValues_, relativeNanoseconds(parts.start),
                                    relativeNanoseconds(end), typedTexts_.view());
}

}  // namespace hdtrace
