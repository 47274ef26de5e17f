#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <utility>

#include <hdtrace/clocks/ClockOffsets.hpp>

namespace hdtrace::clocks {

ClockOffsets::ClockOffsets(const std::vector<ClockMeasurement> &measurements) {
    if (measurements.empty()) throw std::invalid_argument("ClockOffsets needs a measurement");
    std::vector<std::pair<int64_t, int64_t>> points;
    for (const ClockMeasurement &measurement : measurements)
        points.emplace_back(measurement.timeNs, measurement.offsetNs);
    std::sort(points.begin(), points.end());
    origin_ = points.front().first;
    int64_t previous = 0;
    for (const auto &[time, offset] : points) {
        if (!times_.empty() && time == previous) continue;  // one offset per time
        previous = time;
        times_.push_back(static_cast<double>(time - origin_));
        offsets_.push_back(static_cast<double>(offset));
    }
}

int64_t ClockOffsets::at(int64_t ns) const {
    if (times_.size() == 1) return static_cast<int64_t>(offsets_[0]);
    const double relative = static_cast<double>(ns - origin_);
    // The segment whose end is the first point after `relative`, clamped to
    // the first and last segments (extrapolation).
    size_t segment = static_cast<size_t>(std::upper_bound(times_.begin(), times_.end(), relative) -
                                         times_.begin());
    segment = std::clamp<size_t>(segment, 1, times_.size() - 1);
    const double t0 = times_[segment - 1], t1 = times_[segment];
    const double o0 = offsets_[segment - 1], o1 = offsets_[segment];
    // Default rounding: to nearest, ties to even.
    return static_cast<int64_t>(std::nearbyint(o0 + (o1 - o0) * (relative - t0) / (t1 - t0)));
}

int64_t ClockOffsets::largest() const {
    double largest = 0;
    for (double offset : offsets_)
        largest = std::max(largest, std::fabs(offset));
    return static_cast<int64_t>(largest);
}

}  // namespace hdtrace::clocks
