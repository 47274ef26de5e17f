// Config: the environment variables that steer the wrapper (docs/user/tracing.md).
#pragma once

#include <string>

namespace hdtracempi {

struct Config {
    std::string directory;     // HDTRACE_DIR; empty: the working directory
    bool forceFlush = false;   // HDTRACE_FORCE_FLUSH
    bool nested = false;       // HDTRACE_NESTED: write nested calls
    bool fileInfo = false;     // HDTRACE_FILE_INFO: <Info> children of file calls
    bool allFunctions = true;  // HDTRACE_ALL_FUNCTIONS: write ordinary functions
    bool verbose = false;      // HDTRACE_VERBOSE
    bool tscClock = true;      // HDTRACE_CLOCK=tsc (default) or realtime
    // HDTRACE_WRITER_THREAD: write traces from a background thread; Auto: when
    // this node has more CPUs than ranks.
    enum class WriterThread { Auto, Off, On } writerThread = WriterThread::Auto;
    // --- Clocks (ClockSync.hpp). HDTRACE_CLOCK_SYNC: 1 (default) measures
    // each host's clock offset in MPI_Init and MPI_Finalize, 0 never.
    // Periodic measurement (N > 1 seconds) is not offered: docs/user/clocks.md
    // "Clocks" says why; such a value warns and measures as 1 does.
    bool clockSync = true;
    // HDTRACE_FORMAT: xml (default) or compact (docs/format/compact.md).
    bool compact = false;
    // HDTRACE_COMPACT_LEVEL: zstd's level for compact frames (default 1),
    // 0 for frames stored uncompressed.
    int compactLevel = 1;
    // --- The POSIX layer (PosixFiles.hpp). HDTRACE_POSIX: trace the C
    // library's file calls (1, default) or not (0). HDTRACE_POSIX_EXCLUDE:
    // directories, separated by ':', whose files are not traced, beside
    // the defaults (/proc, /sys, /dev, the MPI libraries' session files).
    bool posix = true;
    std::string posixExclude;
    // HDTRACE_FILTER: a filter file (docs/user/filters.md). HDTRACE_POSIX,
    // HDTRACE_POSIX_EXCLUDE and HDTRACE_ALL_FUNCTIONS are shorthands for
    // rules that come before its own (CallSelection.hpp).
    std::string filter;
};

// Reads the environment. A value that is not valid (a switch that is not 0
// or 1, a clock that is not tsc or realtime, a writer thread that is not 0,
// 1 or auto, a format that is not xml or compact, a compact level that is not
// a level of zstd's nor 0) keeps the default and, when
// reportProblems is set, gets one warning on stderr.
Config readConfig(bool reportProblems);

// A switch of a layer's own (HDTRACE_HDF5): 0 or 1 in variable sets value;
// another value keeps it, with a warning when reportProblems is set.
void readSwitch(const char *variable, bool &value, bool reportProblems);

}  // namespace hdtracempi
