// Pull-style reading of a trace, one top-level call at a time; only the
// calls of the current chunk are held in memory.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>

#include <hdtrace/reader/TraceParser.hpp>

namespace hdtrace::reader {

class SliceLayout;

class TraceReader : private EventSink {
  public:
    explicit TraceReader(const std::string &path, TraceOptions options = {});
    // One slice: the calls whose top-level element starts in [begin, end)
    // (byte offsets; end past the file's size: to its end), the same calls
    // as readEventColumnsSlice's rows (TraceSlices.hpp), with its rules for
    // traces outside the writer's layout and its errors. Its events' line
    // is 0 (not known), but where the slice reads a whole trace.
    TraceReader(const std::string &path, TraceOptions options, uint64_t begin, uint64_t end);
    ~TraceReader() override;

    // The next top-level call, or false at the end of the trace.
    bool next(Event &event);

    const std::optional<std::string> &damage() const;
    int64_t timeAdjustmentNs() const { return parser_ ? parser_->timeAdjustmentNs() : 0; }
    int timeFractionDigits() const { return parser_ ? parser_->timeFractionDigits() : -1; }

  private:
    void onEvent(const Event &event) override { queue_.push_back(event); }
    // This reader as its parser's sink (a private base, which std::optional
    // cannot convert to by itself).
    EventSink &sink() { return *this; }

    std::deque<Event> queue_;
    std::unique_ptr<SliceLayout> layout_;  // of a slice read
    std::optional<TraceParser> parser_;    // none: an empty slice
};

}  // namespace hdtrace::reader
