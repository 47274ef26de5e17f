#include "CompactRecords.hpp"

namespace hdtrace::reader {

// --- CompactTraceReader

void CompactTraceReader::read(CompactHandler &handler) {
    std::vector<size_t> positions(file_.frames().size());
    for (size_t position = 0; position < positions.size(); ++position)
        positions[position] = position;
    readFrames(handler, positions);
}

void CompactTraceReader::startProgram(CompactHandler &handler, int64_t timeAdjustmentSeconds) {
    startProgramElement(handler, timeAdjustmentSeconds);
}

void CompactTraceReader::failFrame(size_t position, const CompactRecordProblem &problem) const {
    throw FrameError(file_.path(), file_.frames()[position].offset,
                     "frame " + std::to_string(position) + ": record byte " +
                         std::to_string(problem.position) + ": " + problem.problem);
}

}  // namespace hdtrace::reader
