// Hdf5Call: what a wrapper of the HDF5 layer (Hdf5Shapes.hpp) uses to record
// one HDF5 call as a state of the calling thread's HDF5 trace, beside its
// main trace (LayerTraces.hpp). Only the outermost HDF5 call of a thread is
// recorded (HDF5 calls itself rarely through its API, but may), while the
// MPI and C library calls it makes go to the main trace as without the
// layer; their times lie within its own, which is how readers nest them.
// The times come from the main trace's clock.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <hdtrace/TraceWriter.hpp>

#include "CallSelection.hpp"
#include "Config.hpp"
#include "FileRegistry.hpp"
#include "Runtime.hpp"
#include "ThreadContext.hpp"

namespace hdtracempi {

// An HDF5 call as its state is named: its index among the dialect's calls
// (which the filter chooses by) and its tag.
struct Hdf5CallName {
    uint16_t index;
    std::string_view tag;
};

// What the shapes learn of a call; each record writes the fields its
// attributes take (hdf5_conf.py SHAPE_VALUES).
struct Hdf5Values {
    const FileRecord *file = nullptr;  // written as fid: its id in the main .info
    int64_t fid = -1;
    int64_t flags = 0;
    std::string_view name;
    int64_t dataset = -1;
    std::string_view layout;
    int64_t fileTypeSize = 0;
    int64_t memTypeSize = 0;
    int64_t elements = 0;
    int64_t size = 0;
    std::string_view transfer;
    int64_t cid = -1;
};

// HDTRACE_HDF5: 1 (default) traces the layer, 0 does not.
inline bool hdf5LayerSwitch() {
    static const bool on = [] {
        bool value = true;
        readSwitch("HDTRACE_HDF5", value, true);
        return value;
    }();
    return on;
}

class Hdf5Call {
  public:
    explicit Hdf5Call(Hdf5CallName name) : name_(name) {
        if (tDepth++ != 0 || !callTraced(name.index) || !hdf5LayerSwitch()) return;
        ThreadContext *context = tracedThread();
        // internalDepth > 0: the wrapper's own code is running.
        if (!context || context->internalDepth != 0) return;
        context_ = context;
        start_ = context->writer->now();
    }
    ~Hdf5Call() { --tDepth; }
    Hdf5Call(const Hdf5Call &) = delete;
    Hdf5Call &operator=(const Hdf5Call &) = delete;

    bool active() const { return context_ != nullptr; }
    ThreadContext *context() const { return context_; }
    // At once after HDF5 returned.
    void ended() { end_ = context_->writer->now(); }

    // Writes the state as Record (generated from the dialect) says, with
    // the error when result is negative.
    template <class Record>
    void write(int64_t result, Hdf5Values &values) {
        if (gWritingPaused.load(std::memory_order_relaxed)) return;
        hdtrace::TraceWriter *writer =
            context_->layerTraces.of(Record::kLayer, *context_->writer, context_->traceOptions);
        if (!writer) return;
        if (values.file) values.fid = context_->declare(values.file);
        if (writer->beginState(name_.tag, start_) != 0) return;
        Record::writeAttributes(*writer, values);
        if (result < 0) writer->attribute(Record::kErrorAttribute, result);
        writer->endState(end_);
    }

  private:
    inline static thread_local int tDepth = 0;
    Hdf5CallName name_;
    ThreadContext *context_ = nullptr;
    hdtrace::Timestamp start_;
    hdtrace::Timestamp end_;
};

}  // namespace hdtracempi
