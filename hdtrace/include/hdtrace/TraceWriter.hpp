// TraceWriter: the typed C++ API of libhdtrace, the fast path under hdTrace.h.
//
// One TraceWriter owns one trace (.trc or .ctrc, and the .info) and belongs
// to one thread. Attributes are typed (integers, strings), so no format
// string is parsed per call. The writer tracks the open states (their
// depth, which are written, which are nested where) and hands each finished
// one to the trace's encoding (StateEncoding, one per form), which owns the
// bytes and the file. A call of the dialect whose attributes come in its
// plan's order (CallPlans.hpp) is kept as values only; any other state is
// assembled by the encoding in per-depth buffers (StateParts) that are
// reused, so a steady stream of states allocates nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <hdtrace/Clock.hpp>
#include <hdtrace/OpenTrace.hpp>
#include <hdtrace/OutputBuffer.hpp>
#include <hdtrace/StateParts.hpp>
#include <hdtrace/Timestamp.hpp>
#include <hdtrace/TraceOptions.hpp>
#include <hdtrace/codec/CallPlans.hpp>
#include <hdtrace/codec/CompactFormat.hpp>
#include <hdtrace/codec/Inlining.hpp>
#include <hdtrace/codec/TextBuffer.hpp>
#include <hdtrace/hdTrace.h>

namespace hdtrace {

class StateEncoding;

class TraceWriter final : public OpenTrace {
  public:
    // The memory a trace with these options holds while it is open: its
    // encoding's (the output buffer of XML, the frames of compact) and its
    // .info buffer.
    static size_t memoryBytes(const TraceOptions &options);
    // Creates the .info and, through the encoding of options.format, the
    // trace file with its start (the XML prolog; the compact header and
    // first record). Returns nullptr on failure, with a message naming the
    // file and the reason in *error.
    static std::unique_ptr<TraceWriter> create(const TraceOptions &options,
                                               std::string *error = nullptr);
    ~TraceWriter();  // close()
    TraceWriter(const TraceWriter &) = delete;
    TraceWriter &operator=(const TraceWriter &) = delete;

    const std::string &tracePath() const { return tracePath_; }
    const std::string &infoPath() const { return infoPath_; }
    // Whole epoch seconds at creation (or at TraceOptions::earliestTime if
    // that is earlier); every time in the trace is relative to it.
    int64_t timeAdjustment() const { return timeAdjustmentSeconds_; }
    // The time timeAdjustment was taken from, before any shiftTime: as the
    // earliestTime of another trace of the same thread (a layer's), it
    // gives that trace the same timeAdjustment.
    Timestamp origin() const { return origin_; }

    // --- States. Results are 0 or an errno value (see hdTrace.h).
    // Inline for the common case (a top-level call of the dialect, its
    // attributes kept as values, without children or nested states); the
    // rest is out of line.
    // Without a time, they read the writer's clock (now()).
    int beginState(std::string_view name, Timestamp start);
    // Inline, always, so that a literal name is copied by a few moves.
    __attribute__((always_inline)) int beginState(std::string_view name) {
        return beginState(name, now());
    }
    int endState(Timestamp end);
    int endState() { return endState(now()); }
    // A state of the layer below the traced calls (a C library call made
    // inside an MPI call), begun and ended with no other state between:
    // written in the <Nested> block of the innermost open state that is
    // written, whatever nestedDepth says, or at the top level when no state
    // is open. Dropped when states are open but none of them is written.
    int beginInnerState(std::string_view name, Timestamp start);
    int endInnerState(Timestamp end);
    // Such a state given whole, when it is a leaf whose attributes are all
    // numbers (a C library call on a file inside an MPI-IO call): the
    // first count of names, with their values. Kept as a typed nested
    // state of the open call where it can be one, in one call instead of
    // five. false where it cannot be, having done nothing: the caller then
    // writes it with beginInnerState, attribute and endInnerState, which
    // take it the general way. name and names must hold the same text for
    // as long as the writer lives (a literal, a static table): the writer
    // finds the state's plan and compares the names with it once, not at
    // every call.
    bool innerLeafState(std::string_view name, Timestamp start, Timestamp end,
                        const std::string_view *names, const int64_t *values, uint32_t count);
    // An event without duration: <Event name='N' time='T'/>.
    int event(std::string_view name, Timestamp at);
    int event(std::string_view name) { return event(name, now()); }

    // The writer's clock: CLOCK_REALTIME, cheaply (see Clock.hpp). Callers
    // that take times themselves should read this one.
    __attribute__((always_inline)) Timestamp now() { return clock_.now(); }
    bool clockUsesTsc() const { return clock_.usesTsc(); }

    // Attributes go to the open child element if there is one, else to the
    // innermost open state; they are ignored when no state is open or the
    // state is not written (see isWriting()).
    void attribute(std::string_view name, int64_t value);  // inline, below
    // count number attributes at once, named in order by names, which must
    // hold the same names for as long as the writer lives (a static table):
    // the same as attribute() for each, with the names compared with the
    // call's plan once per table and place, not at every call. Inline,
    // below.
    void attributes(const std::string_view *names, const int64_t *values, uint32_t count);
    void attribute(std::string_view name, std::string_view text);  // escaped
    void attribute(std::string_view name, const char *text) {
        attribute(name, std::string_view(text ? text : ""));
    }
    // Pre-formatted attribute text such as " a='1' b='2'", appended as given.
    void rawAttributes(std::string_view text);
    // A child element of the innermost open state, e.g. <Data .../>.
    void beginElement(std::string_view name);
    void endElement();

    int depth() const { return depth_; }
    // Whether the innermost open state will be written; callers may skip
    // gathering attributes when it is not.
    bool isWriting() const { return depth_ > 0 && frameWritten_[depth_ - 1]; }

    // --- The .info sidecar: text is written as given, in blocks, each
    // call's text whole. It reaches the file before any trace
    // text written after it, at once with forceFlush, and on a crash
    // (closeForCrash) or close().
    int writeInfo(std::string_view text);

    // --- Settings.
    // On: every top-level state is flushed when it ends, and the file ends in
    // </Program> after every flush (see create()).
    void setForceFlush(bool on);
    bool forceFlush() const { return forceFlush_; }
    int setNestedDepth(int depth);  // EINVAL unless 0 <= depth < HD_LOG_MAX_DEPTH
    int nestedDepth() const { return nestedDepth_; }
    void setEnabled(bool on) { enabled_ = on; }
    bool enabled() const { return enabled_; }
    // States that were tracked but not written: nested too deep, begun
    // while the trace was disabled, or too large for a compact frame.
    uint64_t droppedStates() const;

    int flush();
    // Ends open states, writes </Program>, closes both files. Idempotent.
    int close() override;
    bool isClosed() const { return closed_; }
    // Whether a write failed; the trace then stops and the program goes on.
    bool hasFailed() const { return failed_; }

    // In the child of fork(): forget the files without writing to them, so
    // that the parent's traces stay intact. Called by the fork handler.
    void abandonAfterFork() override;

    // Async-signal-safe, for a dying process: writes every complete element
    // and </Program>, then stops the trace (later states are dropped, so the
    // file stays well-formed if the process lives on). Open states are lost.
    void closeForCrash() override;

    // The most leaf states nested in one call that are kept as values (see
    // beginTypedNested); the next ones take the general way. An MPI-IO call
    // may make thousands of C library calls: Open MPI's own MPI-IO writes
    // each piece of a strided file view with a pwritev of its own.
    static constexpr uint32_t kMaxTypedNested = 65536;
    // A call that nested more gives their room back when it ends.
    static constexpr uint32_t kKeptTypedNested = 16384;

  private:
    explicit TraceWriter(const TraceOptions &options);

    // The attribute when the innermost state is not written or the value is
    // not the next one of a typed call: the general way.
    __attribute__((noinline)) void attributeNotTyped(std::string_view name, int64_t value);
    // attributes() where the table was not found at its place before: one
    // by one, then the table remembered where all were typed.
    __attribute__((noinline)) void attributesOneByOne(const std::string_view *names,
                                                      const int64_t *values, uint32_t count);

    // A top-level call of the dialect keeps its attributes as values only
    // (typedValues_) while they come in its plan's order, and so do its
    // child elements (typedChildValues_) and the leaf calls nested in it
    // (typedNested*), so that it is written from them without names to
    // copy or compare. These start, pause (while a nested state or a child
    // takes the attributes), resume, and end that.
    __attribute__((noinline)) void beginTypedCall(std::string_view name);
    void pauseTyped();
    void resumeTyped();
    uint32_t typedParentValues() const;
    bool beginTypedChild(std::string_view name);  // false: the child is not typed
    bool endTypedChild();                         // false: it lacks values
    // The typed values put into the parts as the encoding's general way has
    // them, before anything out of the plans' order or a state that takes
    // the general way: untypeHead() the call's and its children's and
    // nested states', untypeChildren() the children's, untypeTarget() what
    // the next attribute would join.
    void untypeHead();
    void untypeChildren();
    void untypeTarget();
    // One typed value as the attribute it stands for (a text's from typedTexts_).
    void putTypedValue(TextBuffer &out, const compact::ShapeAttribute &attribute,
                       int64_t value) const;
    // Nested states that are leaves of known calls whose attributes come in
    // their plans' order (the C library calls an MPI-IO call makes): begun
    // (false: it cannot be, and the typed ones are put into the parts),
    // ended whole (false: it was not), or put into the parts (untypeNested(),
    // after which the call's further nested states take the general way,
    // keeping their order).
    bool beginTypedNested(std::string_view name, Timestamp start, bool written);
    bool endTypedNested(Timestamp end);
    // What beginTypedNested and innerLeafState both ask: whether the typed
    // call still keeps its nested states as values (none took the general
    // way, no child is open, fewer than the most kept), and whether a state
    // of that many values (its plan's) fits in the most values kept.
    bool keepsTypedNested() const;
    bool typedNestedFits(uint32_t values) const;
    void untypeNested();
    int endTypedCall(Timestamp end);
    // The common call: typed, every value of its plan given, no child and
    // no nested state; endStateSlow when it is not.
    __attribute__((noinline)) int endTypedLeaf(Timestamp end);
    // The same with typed nested states: written as endTypedCall writes them.
    __attribute__((noinline)) int endTypedWithNested(Timestamp end);
    // Whole: typed and nothing else; the plan then becomes the one with as
    // many values as it got (a call without its error attribute).
    bool typedCallIsWhole();
    static constexpr uint32_t kMaxTypedValues = 64;
    static constexpr uint32_t kMaxTypedChildren = 16;
    static constexpr uint32_t kMaxTypedChildValues = 64;
    static constexpr uint32_t kMaxTypedNestedValues = 16 * kMaxTypedNested;
    // Room for one more typed nested state of `values` values, as the call
    // needs it (most calls nest none or a few); given back after a call
    // that needed more than kKeptTypedNested, so that one call of very many
    // does not hold its room for the rest of the run.
    void makeRoomForTypedNested(uint32_t values);
    __attribute__((noinline)) void growTypedNested(uint32_t values);
    void releaseTypedNestedRoom();
    static constexpr uint32_t kFirstTypedNested = 8;
    int beginStateSlow(std::string_view name, Timestamp start);
    int endStateSlow(Timestamp end);
    // A state of the general way that ended: written at depth by the encoding.
    void writeState(StateParts &parts, int depth, Timestamp end);
    // A time as written: shifted when a test asks for it, then relative.
    int64_t relativeNanoseconds(Timestamp at) const {
        return (shiftTime_ ? shiftTime_(at.nanoseconds) : at.nanoseconds) - timeBaseNanoseconds_;
    }
    TextBuffer &attributeTarget() {
        StateParts &parts = frames_[depth_ - 1];
        return parts.childOpen ? parts.children : parts.head;
    }
    void fail(const char *what, int error);

    // What every state reads comes first, so that a state touches few cache
    // lines: calls that enter the kernel (file I/O) find them evicted.
    int depth_ = 0;
    int nestedDepth_ = 0;
    int innerFrameDepth_ = 0;  // the depth the open inner state is written at
    bool forceFlush_ = false;
    bool enabled_ = true;
    bool closed_ = true;  // until create() has opened both files
    // Atomic because closeForCrash() may set it from a signal handler.
    std::atomic<bool> failed_{false};
    std::atomic<bool> crashClosed_{false};
    bool frameWritten_[HD_LOG_MAX_DEPTH] = {};
    int64_t timeBaseNanoseconds_ = 0;
    int64_t (*shiftTime_)(int64_t nanoseconds) = nullptr;
    // The top-level call's typed values (see beginTypedCall); typedNext_ up
    // to typedEnd_ are the attributes still expected, an empty range when
    // none is.
    const compact::ShapeAttribute *typedNext_ = nullptr;
    const compact::ShapeAttribute *typedEnd_ = nullptr;
    int64_t *typedOut_ = nullptr;
    // Where typedOut_ stands once the call has every value of its plan,
    // and of its shorter plan (a library call without its error attribute)
    // or the same: the leaf call's test in endState.
    const int64_t *typedWhole_ = nullptr;
    const int64_t *typedShorterWhole_ = nullptr;
    const CallPlan *typedPlan_ = nullptr;
    bool typedCursorOnParent_ = false;
    // The rest of what a typed call holds, started afresh by one store.
    struct TypedCounts {
        uint32_t parentValues = 0;  // the call's values while the cursor is elsewhere
        uint32_t children = 0;      // complete typed children
        uint32_t childValuesUsed = 0;
        uint32_t nested = 0;  // complete typed nested states
        uint32_t nestedValuesUsed = 0;
        bool childOpen = false;   // the open child's values are typed (the cursor's on it)
        bool nestedOpen = false;  // the open nested state is typed (the cursor's on it)
        bool nestingOff = false;  // this call's nested states take the general way
    };
    TypedCounts typed_;
    // Names tables attributes() found typed, where, and how many: a few
    // slots by the table's address, so that a program whose calls take
    // turns (an Isend, an Irecv, a Waitall) finds each call's table again.
    // Beside the counts, which a call reads anyway.
    struct TypedNames {
        const compact::ShapeAttribute *at = nullptr;
        const std::string_view *names = nullptr;
        uint32_t count = 0;
    };
    static constexpr size_t kTypedNamesSlots = 8;
    static size_t typedNamesSlot(const std::string_view *names) {
        return reinterpret_cast<uintptr_t>(names) / sizeof(std::string_view) % kTypedNamesSlots;
    }
    TypedNames typedNames_[kTypedNamesSlots];
    int64_t typedValues_[kMaxTypedValues];
    const CallPlan *typedChildPlans_[kMaxTypedChildren];
    int64_t typedChildValues_[kMaxTypedChildValues];
    // The leaf innerLeafState last took, found once for its name, names and
    // count: the plan of that many values, and the room its full plan
    // asks. Beside the nested states' vectors, which it reads next.
    struct LeafFound {
        const char *name = nullptr;
        size_t nameLength = 0;
        const std::string_view *names = nullptr;
        uint32_t count = 0;
        uint32_t room = 0;
        const CallPlan *plan = nullptr;
    };
    LeafFound leafFound_;
    // The same, found: the plan, or nullptr (then leafFound_ is unchanged).
    const CallPlan *findLeaf(std::string_view name, const std::string_view *names, uint32_t count);
    std::vector<const CallPlan *> typedNestedPlans_ =
        std::vector<const CallPlan *>(kFirstTypedNested);
    // Start and end of each.
    std::vector<int64_t> typedNestedTimes_ = std::vector<int64_t>(2 * kFirstTypedNested);
    std::vector<int64_t> typedNestedValues_ = std::vector<int64_t>(8 * kFirstTypedNested);
    TextBuffer typedTexts_;  // the typed text values, which the values hold handles to
    Clock clock_;
    StateParts frames_[HD_LOG_MAX_DEPTH];
    StateParts untypedNested_;  // where untypeNested() puts a typed nested state together
    CallPlanCache plans_;
    std::unique_ptr<StateEncoding> encoding_;
    std::string tracePath_;
    std::string infoPath_;  // empty for a layer's trace, which has no .info
    bool hasInfo() const { return !infoPath_.empty(); }
    int infoFd_ = -1;
    int64_t timeAdjustmentSeconds_ = 0;
    Timestamp origin_;
    uint64_t droppedStates_ = 0;
    // --- The .info's lines on their way to the file (one half of
    // kInfoBufferBytes / 2, written by this thread).
    static constexpr size_t kInfoBufferBytes = 64 * 1024;
    OutputBuffer info_;
};

__attribute__((always_inline)) inline int TraceWriter::beginState(std::string_view name,
                                                                  Timestamp start) {
    if (depth_ == 0 && !closed_ && enabled_ && !failed_.load(std::memory_order_relaxed)) {
        frames_[0].open(name, start);
        frameWritten_[0] = true;
        depth_ = 1;
        beginTypedCall(name);
        return 0;
    }
    return beginStateSlow(name, start);
}

inline int TraceWriter::endState(Timestamp end) {
    // A call with every value of its plan and no typed child (endTypedLeaf
    // and endTypedWithNested ask the rest): a leaf, or a call whose nested
    // states were all kept typed, as the C library calls beneath an MPI-IO
    // call are.
    if (typedCursorOnParent_ && (typedOut_ == typedWhole_ || typedOut_ == typedShorterWhole_) &&
        typed_.children == 0 && depth_ == 1)
        return typed_.nested == 0 ? endTypedLeaf(end) : endTypedWithNested(end);
    return endStateSlow(end);
}

// Inline, always: integer attributes are most of what the MPI wrapper
// writes, and with a literal name the compare of the name becomes a few
// moves.
__attribute__((always_inline)) inline void TraceWriter::attribute(std::string_view name,
                                                                  int64_t value) {
    if (typedNext_ != typedEnd_ && typedNext_->coding != compact::kText &&
        compact_items::sameNameOrLiteral(typedNext_->name, name)) {
        *typedOut_++ = value;
        ++typedNext_;
        return;
    }
    attributeNotTyped(name, value);
}

__attribute__((always_inline)) inline void TraceWriter::attributes(const std::string_view *names,
                                                                   const int64_t *values,
                                                                   uint32_t count) {
    const TypedNames &known = typedNames_[typedNamesSlot(names)];
    if (HDTRACE_LIKELY(typedNext_ == known.at && names == known.names && count == known.count &&
                       typedEnd_ - typedNext_ >= count)) {
        for (uint32_t index = 0; index < count; ++index)
            typedOut_[index] = values[index];
        typedOut_ += count;
        typedNext_ += count;
        return;
    }
    attributesOneByOne(names, values, count);
}

}  // namespace hdtrace
