// PosixCall: what a wrapper of the POSIX layer (PosixShapes.hpp) uses to
// record one C library call on a file as a state of the calling thread's
// trace: inside the MPI call the thread is in (its <Nested> block), else at
// the top level. Active only for a traced file, on a traced thread that is
// not inside the wrapper's or the tracer's own code; errno is what the C
// library left, whatever the recording does.
#pragma once

#include <errno.h>
#include <stdio.h>

#include <iterator>
#include <string_view>

#include <hdtrace/TraceWriter.hpp>
#include <hdtrace/TracerIo.hpp>
#include <hdtrace/codec/Inlining.hpp>

#include "CallSelection.hpp"
#include "PosixFiles.hpp"
#include "Runtime.hpp"
#include "ThreadContext.hpp"

namespace hdtracempi {

// A C library call as its state is named: its index among the dialect's
// calls (which the filter chooses by) and its tag.
struct PosixCallName {
    uint16_t index;
    std::string_view tag;
};

class PosixCall {
  public:
    // A call on an open descriptor.
    HDTRACE_CALL_PATH PosixCall(PosixCallName name, int fd) : name_(name) {
        if (!traces(name)) return;
        const int savedErrno = errno;
        const FileRecord *record = fileOfDescriptor(fd);
        if (record != &kUntracedFile) start(record);
        errno = savedErrno;
    }
    // A call that opens a file: the file is known after it.
    struct Opening {};
    PosixCall(PosixCallName name, Opening) : name_(name) {
        if (!traces(name)) return;
        const int savedErrno = errno;
        start(nullptr);
        errno = savedErrno;
    }
    // A stdio call: the stream's descriptor (fileno), looked up only when
    // the layer is on.
    PosixCall(PosixCallName name, FILE *stream) : name_(name) {
        if (!traces(name) || !stream) return;
        const int savedErrno = errno;
        const int fd = ::fileno(stream);
        const FileRecord *record = fd >= 0 ? fileOfDescriptor(fd) : &kUntracedFile;
        if (record != &kUntracedFile) start(record);
        errno = savedErrno;
    }
    PosixCall(const PosixCall &) = delete;
    PosixCall &operator=(const PosixCall &) = delete;

    bool active() const { return context_ != nullptr; }
    const FileRecord *file() const { return record_; }
    // An opening call: the file it opened, or nullptr to write nothing.
    void setFile(const FileRecord *record) {
        record_ = record == &kUntracedFile ? nullptr : record;
    }

    // At once after the C library returned: the end time and its errno.
    void ended() {
        if (!context_ || endedAlready_) return;
        callErrno_ = errno;
        end_ = context_->writer->now();
        endedAlready_ = true;
    }
    // Writes the state as Record (generated from the dialect) says: the file
    // id, the attributes it takes from values, and errno when the call
    // failed. Leaves errno as the C library did.
    template <class Record, class Values>
    __attribute__((always_inline)) void write(bool failed, const Values &values) {
        if (!context_) return;
        ended();
        if (record_ && !gWritingPaused.load(std::memory_order_relaxed)) {
            hdtrace::TraceWriter &writer = *context_->writer;
            const int64_t fid = record_ == &kUnopenedFile ? -1 : context_->declare(record_);
            bool whole = false;
            if constexpr (Record::kNumbersOnly)
                whole = writeWhole<Record>(writer, fid, failed, values);
            if (!whole) {
                if (writer.beginInnerState(name_.tag, start_) == 0) {
                    writer.attribute(Record::kFileAttribute, fid);
                    Record::writeAttributes(writer, values);
                    if (failed) writer.attribute(Record::kErrorAttribute, callErrno_);
                    writer.endInnerState(end_);
                }
            }
        }
        errno = callErrno_;
    }

    static bool layerOn() {
        return gPosixTracing.load(std::memory_order_relaxed) && !hdtrace::insideTracerIo();
    }
    // The layer is on and the filter keeps the call. A call the filter
    // leaves out still lets an opening call record its descriptor's file.
    static bool traces(PosixCallName name) { return callTraced(name.index) && layerOn(); }

  private:
    // The values of a call whose attributes are all numbers, gathered in
    // the order of Record::kAttributeNames (the generated writeAttributes
    // gives them in that order) for TraceWriter::innerLeafState.
    struct LeafValues {
        static constexpr uint32_t kMaxValues = 8;
        // Left unset until given: zeroing them all cost a call more than
        // filling the few it gets.
        union {
            int64_t values[kMaxValues];
        };
        uint32_t count = 0;
        LeafValues() {}
        __attribute__((always_inline)) void attribute(std::string_view, int64_t value) {
            values[count++] = value;
        }
        __attribute__((always_inline)) void attributes(const std::string_view *,
                                                       const int64_t *given, uint32_t number) {
            for (uint32_t index = 0; index < number; ++index)
                values[count++] = given[index];
        }
    };

    // The state given whole; false where the writer refuses it.
    template <class Record, class Values>
    __attribute__((always_inline)) bool writeWhole(hdtrace::TraceWriter &writer, int64_t fid,
                                                   bool failed, const Values &values) {
        constexpr size_t kNames = std::size(Record::kAttributeNames);
        static_assert(kNames <= LeafValues::kMaxValues);
        static_assert(Record::kAttributeNames[0] == Record::kFileAttribute &&
                      Record::kAttributeNames[kNames - 1] == Record::kErrorAttribute);
        LeafValues leaf;
        leaf.attribute(Record::kFileAttribute, fid);
        Record::writeAttributes(leaf, values);
        if (failed) leaf.attribute(Record::kErrorAttribute, callErrno_);
        return writer.innerLeafState(name_.tag, start_, end_, Record::kAttributeNames, leaf.values,
                                     leaf.count);
    }

    void start(const FileRecord *record) {
        ThreadContext *context = tracedThread();
        // internalDepth > 0: the wrapper's own code (its MPI queries, the
        // trace written by this thread) is running, not the program's.
        if (!context || context->internalDepth != 0) return;
        context_ = context;
        record_ = record;
        start_ = context->writer->now();
    }

    PosixCallName name_;
    ThreadContext *context_ = nullptr;
    const FileRecord *record_ = nullptr;
    hdtrace::Timestamp start_;
    hdtrace::Timestamp end_;
    int callErrno_ = 0;
    bool endedAlready_ = false;
};

}  // namespace hdtracempi
