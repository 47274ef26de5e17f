// Pull-style reading of a trace, one top-level call at a time; only the
// calls of the current chunk are held in memory.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <hdtrace/reader/Event.hpp>
#include <hdtrace/reader/TraceOptions.hpp>

namespace hdtrace::reader {

class TraceReader {
  public:
    explicit TraceReader(const std::string &path, TraceOptions options = {});
    // One slice: the calls whose top-level element starts in [begin, end)
    // (byte offsets; end past the file's size: to its end), the same calls
    // as readEventColumnsSlice's rows (TraceSlices.hpp), with its rules for
    // traces outside the writer's layout and its errors. Its events' line
    // is 0 (not known), but where the slice reads a whole trace.
    TraceReader(const std::string &path, TraceOptions options, uint64_t begin, uint64_t end);
    ~TraceReader();
    TraceReader(TraceReader &&) noexcept;
    TraceReader &operator=(TraceReader &&) noexcept;

    // The next top-level call, or false at the end of the trace.
    bool next(Event &event);

    // The error that ended a partial read, if any ("file:line:column: problem").
    const std::optional<std::string> &damage() const;
    // Whole-second base of the times (0 when the root has no timeAdjustment).
    int64_t timeAdjustmentNs() const;
    // Digits after the point in the first time value seen (9: our writer; 6:
    // the original implementation's); -1 before any time was read.
    int timeFractionDigits() const;

  private:
    class Parsing;  // the parser and the calls it handed over (TraceReader.cpp)
    std::unique_ptr<Parsing> parsing_;
};

}  // namespace hdtrace::reader
