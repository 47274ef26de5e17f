// Aligning a run in place (`hdtrace align`, `project-merger --align-clocks`):
// every trace of the project rewritten on rank 0's clock (ClockCorrection.hpp).
//
// Each trace keeps its form: an XML trace's time text is rewritten in place,
// a compact trace is aligned through its XML form and coded again, so that
// its XML form is byte for byte the aligned XML form of the same calls.
// Each trace and its .info are written to temporary files beside them first;
// only once all are written is each original kept as <trace>.unaligned (a
// hard link where the file system allows, else a copy) and each new file
// renamed into place. The .info gets a line ClockAligned backup='<file>',
// which makes a second alignment change nothing and lets undoAlignment put
// the originals back. A run without measurements, on one clock, or already
// aligned is left as it is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace hdtrace::clocks {

// The run cannot be aligned (or restored) as asked; nothing was changed.
class AlignError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

enum class AlignOutcome {
    Rewritten,       // traces rewritten (or restored, for undo)
    AlreadyAligned,  // nothing changed
    OneClock,        // every rank on rank 0's clock: nothing changed
    NoMeasurements,  // nothing changed (a warning)
    NotAligned,      // undo: nothing to restore
};

struct AlignReport {
    AlignOutcome outcome = AlignOutcome::NoMeasurements;
    size_t traces = 0;  // traces rewritten or restored
    size_t events = 0;  // top-level calls read for the order repair
    std::vector<std::string> warnings;
};

constexpr const char *kBackupSuffix = ".unaligned";

// Throws ReadError (bad input: damaged Clock lines or traces) or AlignError;
// nothing is changed then.
AlignReport alignRun(const std::string &projectPath);
AlignReport undoAlignment(const std::string &projectPath);

// One line for a user: what happened (for the outcomes other than Rewritten).
std::string describeOutcome(const std::string &projectPath, const AlignReport &report);

}  // namespace hdtrace::clocks
