// The offset of one rank's clock against rank 0's, at any time of that
// rank's clock: piecewise linear through its measurements, extrapolated
// along the nearest segment, constant with a single measurement.
#pragma once

#include <cstdint>
#include <vector>

#include <hdtrace/clocks/ClockLines.hpp>

namespace hdtrace::clocks {

class ClockOffsets {
  public:
    // measurements must not be empty. Several measurements at one time keep
    // the smallest offset.
    explicit ClockOffsets(const std::vector<ClockMeasurement> &measurements);

    // The offset at this rank's time ns, rounded to a nanosecond (half to even).
    int64_t at(int64_t ns) const;
    // The largest |offset| measured.
    int64_t largest() const;

    // The measurement points: times relative to origin(), and offsets.
    int64_t origin() const { return origin_; }
    const std::vector<double> &times() const { return times_; }
    const std::vector<double> &offsets() const { return offsets_; }

  private:
    int64_t origin_ = 0;  // the first measurement's time: relative times keep float64 exact
    std::vector<double> times_;
    std::vector<double> offsets_;
};

}  // namespace hdtrace::clocks
