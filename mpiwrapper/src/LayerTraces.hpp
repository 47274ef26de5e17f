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
    // be created (reported once per process, and not tried again). layer's
    // text must live as long as the traces do: the records pass literals.
    hdtrace::TraceWriter *of(std::string_view layer, const hdtrace::TraceWriter &main,
                             const hdtrace::TraceOptions &options) {
        // A layer's records pass its name as one literal, so the last
        // layer's pointer and length mostly match without a compare of text.
        if (layer.data() == lastLayer_.data() && layer.size() == lastLayer_.size())
            return lastWriter_;
        return find(layer, main, options);
    }
    void closeAll();

  private:
    hdtrace::TraceWriter *find(std::string_view layer, const hdtrace::TraceWriter &main,
                               const hdtrace::TraceOptions &options);

    struct Entry {
        std::string layer;
        std::unique_ptr<hdtrace::TraceWriter> writer;  // null: it could not be created
    };
    std::vector<Entry> entries_;
    std::string_view lastLayer_;  // as the caller passed it
    hdtrace::TraceWriter *lastWriter_ = nullptr;
};

}  // namespace hdtracempi
