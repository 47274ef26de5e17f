// project-merger as a library: unify the .info files of a traced run into
// the project description <program>.proj (its layout: docs/format/project.md).
//
// One entry point, merge(). It reads every trace of the run, unifies the
// communicators across ranks, decodes the datatypes and writes the .proj
// through a temporary file that is renamed into place, so a failed merge
// never leaves a partial project file behind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace hdtrace::merger {

constexpr const char *kDefaultDistributionClass =
    "de.hd.pvs.piosim.model.inputOutput.distribution.SimpleStripe";
constexpr const char *kDefaultChunkSize = "64K";

// Where a merge is, for a progress display.
struct MergeProgress {
    enum class Stage { Reading, Unifying, Writing };
    Stage stage = Stage::Reading;
    // Reading: .info files read of all; Unifying: ranks whose communicators
    // are unified; Writing: ranks whose datatypes are written.
    size_t done = 0;
    size_t total = 0;
    uint64_t bytesWritten = 0;  // Writing: the project file so far
};

struct MergeOptions {
    // .info files, .trc files, base names ("dir/app_host_0_0"), directories
    // or program prefixes ("dir/app"), in any mix.
    std::vector<std::string> inputs;
    // Empty: <program>.proj in the directory of the traces.
    std::string outputPath;
    std::string description;
    std::string distributionClass = kDefaultDistributionClass;
    std::string chunkSize = kDefaultChunkSize;
    // Write what can be merged; every problem becomes a warning that says
    // what was dropped, instead of an error.
    bool force = false;
    // Threads that read and parse the .info files; 0: one per core. The
    // project is the same byte for byte whatever the number.
    unsigned jobs = 0;
    // Called as the merge goes on (MergeProgress); may be empty.
    std::function<void(const MergeProgress &)> progress;
};

struct MergeResult {
    std::string outputPath;             // the .proj that was written
    std::vector<std::string> warnings;  // "file:line: what" where a place is known
    std::string program;
    size_t traceCount = 0;  // .trc files (processes x threads) in the Topology
    size_t rankCount = 0;
    size_t fileCount = 0;
    size_t communicatorCount = 0;
    size_t datatypeCount = 0;  // type elements over all ranks
};

// A problem that stops the merge. file() is empty when no file is concerned
// (e.g. no input at all), line() is 0 when no line is.
class MergeError : public std::runtime_error {
  public:
    MergeError(std::string file, size_t line, std::string detail);
    const std::string &file() const { return file_; }
    size_t line() const { return line_; }
    const std::string &detail() const { return detail_; }

  private:
    std::string file_;
    size_t line_;
    std::string detail_;
};

// Throws MergeError on bad input (unless options.force) and on output errors.
MergeResult merge(const MergeOptions &options);

}  // namespace hdtrace::merger
