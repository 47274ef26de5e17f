// The correction of every trace of a run onto rank 0's clock:
//
//   corrected(t) = t - offset_r(t) + repair_(r,h)(t - offset_r(t))
//
// for a time t of rank r, thread h: offset_r interpolates rank r's clock
// measurements (ClockOffsets.hpp), and repair_(r,h) is the order repair's step
// function for that trace (OrderRepair.hpp).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <hdtrace/clocks/ClockLines.hpp>
#include <hdtrace/clocks/ClockOffsets.hpp>
#include <hdtrace/clocks/OrderRepair.hpp>
#include <hdtrace/clocks/RunTable.hpp>

namespace hdtrace::clocks {

// What the .info files of a run say about its clocks.
enum class RunClockState {
    Measured,        // there is something to correct
    NoMeasurements,  // no trace has a Clock line (HDTRACE_CLOCK_SYNC=0, an older wrapper)
    OneClock,        // every measured rank is in rank 0's clock group: nothing to correct
    AlreadyAligned,  // rewritten by an alignment before (ClockAligned lines)
};

struct RunClocks {
    RunClockState state = RunClockState::NoMeasurements;
    std::map<int32_t, std::vector<ClockMeasurement>> byRank;
    // Ranks with a trace but no measurement while others have some: their
    // times stay as written.
    std::vector<int32_t> ranksWithout;
    std::vector<InfoClock> infos;  // one per trace with a .info, in trace order
};

// Reads the clock lines of every trace's .info; throws ReadError on a damaged line.
RunClocks readRunClocks(const std::vector<RunTrace> &traces);

// The warning for RunClocks::ranksWithout (empty when there are none).
std::string ranksWithoutWarning(const std::string &projectPath, const RunClocks &clocks);

// The correction of one trace (rank, thread), its rank's offsets and its
// repair found once, for correcting many of its times.
class LaneCorrection {
  public:
    LaneCorrection(const ClockOffsets *offsets, const RepairSteps *steps)
        : offsets_(offsets), steps_(steps) {}
    int64_t interpolate(int64_t ns) const { return offsets_ ? ns - offsets_->at(ns) : ns; }
    int64_t step(int64_t interpolatedNs) const { return steps_ ? steps_->at(interpolatedNs) : 0; }
    int64_t apply(int64_t ns) const {
        const int64_t interpolated = interpolate(ns);
        return interpolated + step(interpolated);
    }

  private:
    const ClockOffsets *offsets_;  // null: the rank's times stay
    const RepairSteps *steps_;     // null: no repair moved the trace
};

class ClockCorrection {
  public:
    explicit ClockCorrection(const std::map<int32_t, std::vector<ClockMeasurement>> &byRank);

    // Rank 0's clock at time ns of rank's clock, without the order repair.
    int64_t interpolate(int32_t rank, int64_t ns) const;
    // The repair's shift at an interpolated time of one trace.
    int64_t step(int32_t rank, int32_t thread, int64_t interpolatedNs) const;
    // The corrected time: interpolated, then repaired.
    int64_t apply(int32_t rank, int32_t thread, int64_t ns) const {
        return lane(rank, thread).apply(ns);
    }
    // The correction of one trace; valid while this object lives unchanged.
    LaneCorrection lane(int32_t rank, int32_t thread) const;
    // A bound on |corrected - written| over the run (with a margin for drift).
    int64_t largestChangeNs() const;

    void setRepair(RepairResult repair) { repair_ = std::move(repair); }
    const std::map<int32_t, ClockOffsets> &offsets() const { return offsets_; }
    const RepairResult &repair() const { return repair_; }

  private:
    const ClockOffsets *offsetsOf(int32_t rank) const;               // null: none
    const RepairSteps *stepsOf(int32_t rank, int32_t thread) const;  // null: none

    std::map<int32_t, ClockOffsets> offsets_;
    RepairResult repair_;
};

struct RunCorrection {
    RunClocks clocks;
    std::optional<ClockCorrection> correction;  // set when clocks.state is Measured
    size_t events = 0;                          // top-level calls read for the repair
};

// Reads the run's clock lines and, where there is something to correct, its
// traces, and computes the correction with its order repair.
RunCorrection correctRun(const reader::Project &project, const std::vector<RunTrace> &traces,
                         const RunReadOptions &options);

// The same with the traces' table read already (as readRunTable gives it, so
// by the Python package's reader): the traces are not read again.
RunCorrection correctRun(const reader::Project &project, const std::vector<RunTrace> &traces,
                         const RunReadOptions &options, RunTable table);

}  // namespace hdtrace::clocks
