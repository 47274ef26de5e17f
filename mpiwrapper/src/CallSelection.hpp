// CallSelection: which calls, files and ranks this process writes, from the
// filter file (HDTRACE_FILTER) and the variables that are shorthands for its
// rules (docs/user/filters.md). Chosen once in MPI_Init; a call then pays one
// load from a table by call index, a file one test when it is opened.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include <hdtrace/filter/TraceFilter.hpp>

#include "Config.hpp"
#include "DialectCallTable.hpp"  // generated: the call indexes

namespace hdtracempi {

namespace callIndex = hdtrace::filter::callIndex;

// By call index: 1 written, 0 left out; all 0 before MPI_Init. Filled in
// MPI_Init before tracing is switched on; a relaxed load is a plain load.
extern std::atomic<uint8_t> gTracedCalls[hdtrace::filter::kCallCount];
inline bool callTraced(uint16_t index) {
    return gTracedCalls[index].load(std::memory_order_relaxed) != 0;
}

// The shorthands' rules, then the filter file's.
const hdtrace::filter::TraceFilter &traceFilter();

// In MPI_Init after PMPI_Init, on every rank. Reads the rules, and, when a
// filter file is named, agrees over MPI_COMM_WORLD whether every rank read
// it (one Allreduce). false: some rank could not use it; the lowest such rank
// said why on stderr, and the caller stops the program before anything is
// written. true: gTracedCalls holds this rank's choice (all 0 on a rank the
// ranks rule leaves out), and rank 0 warned once of patterns that match
// nothing and of a filter that leaves out everything.
bool selectCalls(const Config &config, int worldRank, int worldSize);

// Whether this rank writes any C library call (the POSIX layer is started
// only then).
bool tracesCLibraryCalls();

// Whether this rank writes any call that names requests other calls made
// (group request-completions). When none is, a request made by a call left
// out need not be followed: nothing written can name it. Set in MPI_Init.
extern std::atomic<bool> gRequestsNamed;

}  // namespace hdtracempi
