// Pull-style reading of a trace, one top-level call at a time; only the
// calls of the current chunk are held in memory.
#pragma once

#include <deque>
#include <string>

#include <hdtrace/reader/TraceParser.hpp>

namespace hdtrace::reader {

class TraceReader : private EventSink {
  public:
    explicit TraceReader(const std::string &path, TraceOptions options = {});

    // The next top-level call, or false at the end of the trace.
    bool next(Event &event);

    const std::optional<std::string> &damage() const { return parser_.damage(); }
    int64_t timeAdjustmentNs() const { return parser_.timeAdjustmentNs(); }
    int timeFractionDigits() const { return parser_.timeFractionDigits(); }

  private:
    void onEvent(const Event &event) override { queue_.push_back(event); }

    std::deque<Event> queue_;
    TraceParser parser_;
};

}  // namespace hdtrace::reader
