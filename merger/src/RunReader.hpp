// Reads the .info files of the discovered traces into a RunModel: the files
// of the run, and per rank its communicators and datatypes.
#pragma once

#include <functional>

#include "Diagnostics.hpp"
#include "InputDiscovery.hpp"
#include "RunModel.hpp"

namespace hdtrace::merger {

// Work is linear in the number of lines. The files are read and parsed on
// `jobs` threads (at least 1) and added to the RunModel in trace order, so the
// model and the order of the messages are those of a reading on one thread.
// progress(done, total) is called as files are read.
RunModel readRun(DiscoveredRun discovered, Diagnostics &diagnostics,
                 const std::function<void(size_t, size_t)> &progress, unsigned jobs);

}  // namespace hdtrace::merger
