#include <sys/stat.h>

#include <algorithm>
#include <set>

#include <hdtrace/clocks/ClockCorrection.hpp>
#include <hdtrace/clocks/MessagePairs.hpp>
#include <hdtrace/clocks/OrderConstraints.hpp>

namespace hdtrace::clocks {
namespace {

bool isFile(const std::string &path) {
    struct stat status {};
    return ::stat(path.c_str(), &status) == 0 && S_ISREG(status.st_mode);
}

// Every measured rank in rank 0's clock group (one host, or ranks sharing its
// clock): the times are on one clock already.
bool sharesOneClock(const std::map<int32_t, std::vector<ClockMeasurement>> &byRank) {
    for (const auto &[rank, measurements] : byRank)
        for (const ClockMeasurement &m : measurements)
            if (m.leader != 0 || m.exchanges != 0 || m.offsetNs != 0) return false;
    return true;
}

}  // namespace

RunClocks readRunClocks(const std::vector<RunTrace> &traces) {
    RunClocks clocks;
    std::set<int32_t> without;
    bool aligned = false;
    for (const RunTrace &trace : traces) {
        if (!isFile(trace.path)) continue;  // a missing trace (read partially): not part of the run
        const std::string info = infoPathOf(trace.path);
        if (!isFile(info)) {
            without.insert(trace.rank);
            continue;
        }
        InfoClock found = readInfoClock(info);
        if (found.alignedBackup) {
            aligned = true;
        } else if (!found.measurements.empty()) {
            auto &measurements = clocks.byRank[trace.rank];
            measurements.insert(measurements.end(), found.measurements.begin(),
                                found.measurements.end());
        } else {
            without.insert(trace.rank);
        }
        clocks.infos.push_back(std::move(found));
    }
    if (aligned) {
        clocks.state = RunClockState::AlreadyAligned;
    } else if (clocks.byRank.empty()) {
        clocks.state = RunClockState::NoMeasurements;
    } else {
        for (int32_t rank : without)
            if (!clocks.byRank.count(rank)) clocks.ranksWithout.push_back(rank);
        clocks.state =
            sharesOneClock(clocks.byRank) ? RunClockState::OneClock : RunClockState::Measured;
    }
    return clocks;
}

std::string ranksWithoutWarning(const std::string &projectPath, const RunClocks &clocks) {
    if (clocks.ranksWithout.empty()) return {};
    std::string ranks;
    for (int32_t rank : clocks.ranksWithout)
        ranks += (ranks.empty() ? "" : ", ") + std::to_string(rank);
    return projectPath + ": ranks [" + ranks +
           "] have no clock measurement; their times are read as written";
}

ClockCorrection::ClockCorrection(const std::map<int32_t, std::vector<ClockMeasurement>> &byRank) {
    for (const auto &[rank, measurements] : byRank)
        if (!measurements.empty()) offsets_.emplace(rank, ClockOffsets(measurements));
}

const ClockOffsets *ClockCorrection::offsetsOf(int32_t rank) const {
    const auto found = offsets_.find(rank);
    return found == offsets_.end() ? nullptr : &found->second;
}

const RepairSteps *ClockCorrection::stepsOf(int32_t rank, int32_t thread) const {
    const auto found = repair_.steps.find({rank, thread});
    return found == repair_.steps.end() ? nullptr : &found->second;
}

LaneCorrection ClockCorrection::lane(int32_t rank, int32_t thread) const {
    return LaneCorrection(offsetsOf(rank), stepsOf(rank, thread));
}

int64_t ClockCorrection::interpolate(int32_t rank, int64_t ns) const {
    return LaneCorrection(offsetsOf(rank), nullptr).interpolate(ns);
}

int64_t ClockCorrection::step(int32_t rank, int32_t thread, int64_t interpolatedNs) const {
    return LaneCorrection(nullptr, stepsOf(rank, thread)).step(interpolatedNs);
}

int64_t ClockCorrection::largestChangeNs() const {
    int64_t offsets = 0, shifts = 0;
    for (const auto &[rank, rankOffsets] : offsets_)
        offsets = std::max(offsets, rankOffsets.largest());
    for (const auto &[lane, steps] : repair_.steps)
        for (int64_t shift : steps.shifts)
            shifts = std::max(shifts, shift);
    // Drift moves the offset between measurements too: a margin.
    return offsets + shifts + 10'000'000;
}

namespace {

// The correction of a run whose clocks were measured, from its table.
RunCorrection correctMeasuredRun(const reader::Project &project,
                                 const std::vector<RunTrace> &traces, const RunReadOptions &options,
                                 RunClocks clocks, RunTable table) {
    RunCorrection result;
    result.clocks = std::move(clocks);
    ClockCorrection correction(result.clocks.byRank);
    // The order repair works on times already on rank 0's clock, in that order.
    result.events = table.rows();
    std::optional<LaneCorrection> rankCorrection;
    int32_t correctedRank = 0;
    for (size_t row = 0; row < table.rows(); ++row) {
        // The rows of a rank come in runs: its offsets found once a run.
        if (!rankCorrection || table.rank[row] != correctedRank) {
            correctedRank = table.rank[row];
            rankCorrection = correction.lane(correctedRank, 0);
        }
        table.startNs[row] = rankCorrection->interpolate(table.startNs[row]);
        table.endNs[row] = rankCorrection->interpolate(table.endNs[row]);
    }
    table.sortByStart();
    const CommunicatorIndex communicators(project);
    const std::vector<MessagePair> pairs = matchMessages(
        table, communicators, traces,
        [&correction](int32_t rank, int64_t ns) { return correction.interpolate(rank, ns); },
        options.partial);
    correction.setRepair(repairOrder(table, orderConstraints(table, pairs, communicators)));
    result.correction = std::move(correction);
    return result;
}

}  // namespace

RunCorrection correctRun(const reader::Project &project, const std::vector<RunTrace> &traces,
                         const RunReadOptions &options) {
    RunClocks clocks = readRunClocks(traces);
    if (clocks.state != RunClockState::Measured) return RunCorrection{std::move(clocks), {}, 0};
    return correctMeasuredRun(project, traces, options, std::move(clocks),
                              readRunTable(project, traces, options));
}

RunCorrection correctRun(const reader::Project &project, const std::vector<RunTrace> &traces,
                         const RunReadOptions &options, RunTable table) {
    RunClocks clocks = readRunClocks(traces);
    if (clocks.state != RunClockState::Measured) return RunCorrection{std::move(clocks), {}, 0};
    return correctMeasuredRun(project, traces, options, std::move(clocks), std::move(table));
}

}  // namespace hdtrace::clocks
