#include "LayerTraces.hpp"

#include <atomic>
#include <cstdio>

namespace hdtracempi {

namespace {
std::atomic<bool> gFailureReported{false};
}  // namespace

hdtrace::TraceWriter *LayerTraces::find(std::string_view layer, const hdtrace::TraceWriter &main,
                                        const hdtrace::TraceOptions &options) {
    lastLayer_ = layer;
    // Few layers have traces of their own: a search beats a map.
    for (Entry &entry : entries_)
        if (entry.layer == layer) return lastWriter_ = entry.writer.get();
    hdtrace::TraceOptions layerOptions = options;
    layerOptions.layer = std::string(layer);
    layerOptions.earliestTime = main.origin();
    std::string error;
    std::unique_ptr<hdtrace::TraceWriter> writer =
        hdtrace::TraceWriter::create(layerOptions, &error);
    if (!writer && !gFailureReported.exchange(true))
        std::fprintf(stderr,
                     "hdtracempi: warning: %s; the %.*s layer is not traced on this thread\n",
                     error.c_str(), static_cast<int>(layer.size()), layer.data());
    if (writer && writer->timeAdjustment() != main.timeAdjustment()) writer.reset();
    entries_.push_back(Entry{std::string(layer), std::move(writer)});
    return lastWriter_ = entries_.back().writer.get();
}

void LayerTraces::closeAll() {
    for (Entry &entry : entries_)
        if (entry.writer) entry.writer->close();
}

}  // namespace hdtracempi
