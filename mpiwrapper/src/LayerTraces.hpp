// The traces of layers kept beside the main trace (own_trace in the
// definition: HDF5): one per thread and layer, <base>.<layer>.trc, opened at
// the layer's first call on the thread, with the main trace's levels, form
// and timeAdjustment. Their states take their times from the main trace's
// clock, so that a reader nests the main trace's calls beneath them by time.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <hdtrace/TraceWriter.hpp>

namespace hdtracempi {

class LayerTraces {
  public:
    // The trace of layer (a name isLayerName accepts) beside main, created
    // with options (the main trace's) on first use; nullptr when it cannot
    // be created (reported once per process, and not tried again).
    hdtrace::TraceWriter *of(std::string_view layer, const hdtrace::TraceWriter &main,
                             const hdtrace::TraceOptions &options);
    void closeAll();

  private:
    struct Entry {
        std::string layer;
        std::unique_ptr<hdtrace::TraceWriter> writer;  // null: it could not be created
    };
    std::vector<Entry> entries_;
};

}  // namespace hdtracempi
