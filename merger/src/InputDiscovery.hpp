// From the command line's inputs (.info or .trc files, base names,
// directories, program prefixes) to the set of traces of one run.
#pragma once

#include <string>
#include <vector>

#include "Diagnostics.hpp"
#include "RunModel.hpp"

namespace hdtrace::merger {

struct DiscoveredRun {
    std::string program;
    std::string directory;
    std::vector<TraceSource> traces;  // by rank, then thread; unique
};

// Each directory is listed once, so discovery costs one readdir per
// directory, not a stat per file.
DiscoveredRun discoverTraces(const std::vector<std::string> &inputs, Diagnostics &diagnostics);

}  // namespace hdtrace::merger
