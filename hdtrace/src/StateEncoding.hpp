// StateEncoding: how one form of trace writes the states TraceWriter
// tracks. TraceWriter decides what is written, where and when (depth,
// nesting, enabling, failures, the .info); an encoding decides the bytes
// and owns the trace file they go to. There are two: XmlEncoding (the
// .trc text) and CompactEncoding (the .ctrc's records); create() is the
// only place that chooses between them.
//
// A state reaches an encoding in one of two ways:
// - typed: a call of the dialect whose attributes came in its plan's order
//   (CallPlans.hpp), as values without names; writeLeafCall or writeCall.
// - general: anything else, as StateParts whose head, children and nested
//   states the encoding itself filled through the put and begin methods
//   while the state was open; writeState when it ends.
// Times given to an encoding are nanoseconds after the trace's
// timeAdjustment. Writes return 0, or EIO once the trace has failed (fail()
// said why). A state that cannot be written alone (a compact record larger
// than a frame) is left out, said on stderr and counted (droppedStates()),
// and the trace goes on: 0.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include <hdtrace/OutputBuffer.hpp>
#include <hdtrace/StateParts.hpp>
#include <hdtrace/codec/CallPlans.hpp>
#include <hdtrace/codec/TextBuffer.hpp>

namespace hdtrace {

struct TraceOptions;

class StateEncoding {
  public:
    // What an encoding shares with its TraceWriter.
    struct Trace {
        std::string tracePath;
        std::string infoPath;       // empty for a layer's trace
        OutputBuffer *info;         // the .info's buffer, written before the trace; null without
        std::atomic<bool> *failed;  // the writer's: set once, by fail()
        int64_t timeAdjustmentSeconds;
        int64_t createdNanoseconds;  // the trace's creation, after timeAdjustment
    };
    // The encoding options.format asks for, with its file created. nullptr
    // on failure, with a message naming the file and the reason in *error.
    static std::unique_ptr<StateEncoding> create(const TraceOptions &options, const Trace &trace,
                                                 std::string *error);
    // The memory an encoding of these options holds while it is open.
    static size_t memoryBytes(const TraceOptions &options);
    virtual ~StateEncoding() = default;

    // --- Typed calls.
    virtual int writeLeafCall(const CallPlan &plan, const int64_t *values, int64_t start,
                              int64_t end, std::string_view texts) = 0;
    // A typed call with typed child elements and nested states.
    virtual int writeCall(const CallPlan &plan, const int64_t *values, int64_t start, int64_t end,
                          const TypedChildren &children, const TypedNested &nested,
                          std::string_view texts) = 0;

    // --- The general way: the parts of an open state at depth (1: top
    // level), and the state once it ended.
    virtual void putNumber(TextBuffer &out, std::string_view name, int64_t value) = 0;
    virtual void putText(TextBuffer &out, std::string_view name, std::string_view text) = 0;
    // Attribute text as XML writes it (" a='1' b='x'").
    virtual void putRawAttributes(TextBuffer &out, std::string_view text) = 0;
    // A child element of a state at depth; returns what endChild takes.
    virtual size_t beginChild(TextBuffer &children, std::string_view name, int depth) = 0;
    virtual void endChild(TextBuffer &children, size_t beganAt) = 0;
    virtual void putEvent(TextBuffer &children, std::string_view name, int64_t time, int depth) = 0;
    // A state that ended, written at depth (0: top level, to the trace;
    // else into parentNested, the nested states of the state it is in).
    virtual int writeState(StateParts &parts, int depth, int64_t start, int64_t end,
                           TextBuffer *parentNested) = 0;
    virtual int writeEvent(std::string_view name, int64_t time) = 0;  // at the top level

    // --- The trace file. flush() and close() write the .info's buffer
    // first, so that every id the trace uses is declared before it.
    virtual int flush() = 0;
    virtual int close() = 0;  // the trace's end, and the file closed
    // Async-signal-safe: every complete state to the file, as a readable
    // trace; later writes are dropped.
    virtual void closeForCrash() = 0;
    virtual void abandonAfterFork() = 0;  // the file forgotten, not written
    // On: the file is readable after every flush(), up to its end.
    virtual void setForceFlush(bool on) = 0;
    // States left out for their size.
    uint64_t droppedStates() const { return droppedStates_; }

  protected:
    explicit StateEncoding(const Trace &trace) : trace_(std::make_unique<const Trace>(trace)) {}
    bool failed() const { return trace_->failed->load(std::memory_order_relaxed); }
    // Stops the trace, once, saying which file could not be written.
    void fail(const std::string &path, int error) const;
    // Behind a pointer, so that what each encoding reads for every call
    // shares the cache line of the object's table of functions.
    std::unique_ptr<const Trace> trace_;
    uint64_t droppedStates_ = 0;
};

// Sets failed and, the first time, says on stderr that the file named path
// cannot be written and why.
void failTrace(std::atomic<bool> &failed, const char *path, int error);

}  // namespace hdtrace
