// Reads the .info files of the discovered traces into a RunModel: the files
// of the run, and per rank its communicators and datatypes.
#pragma once

#include <functional>

#include "Diagnostics.hpp"
#include "InputDiscovery.hpp"
#include "RunModel.hpp"

namespace hdtrace::merger {

// Work is linear in the number of lines. progress(done, total) is called as
// files are read.
RunModel readRun(DiscoveredRun discovered, Diagnostics &diagnostics,
                 const std::function<void(size_t, size_t)> &progress);

}  // namespace hdtrace::merger
