// The progress of a merge on a terminal: a bar on stderr for the .info files
// read, the ranks unified, then the ranks written with the size of the
// project so far. Shown only when stderr is a terminal and the run has more
// than kMinimumFiles traces (a merge that takes a moment); otherwise silent.
#pragma once

#include <cstddef>
#include <string>
#include <utility>

#include <hdtrace/merger/Merger.hpp>

namespace hdtrace::merger {

class ProgressBar {
  public:
    static constexpr size_t kMinimumFiles = 300;

    // prefix: what the lines begin with, e.g. "project-merger".
    explicit ProgressBar(std::string prefix) : prefix_(std::move(prefix)) {}

    void update(const MergeProgress &progress);
    // Ends a bar left open by a merge that failed.
    void finish();

  private:
    std::string prefix_;
    bool shown_ = false;
    bool lineOpen_ = false;
};

}  // namespace hdtrace::merger
