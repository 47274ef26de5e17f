// The process-wide list of open traces (XML and compact), for the moments
// when the library must act on all of them: process exit (close them, so
// that every trace is complete), fork (the child must not write into the parent's files)
// and a fatal signal (write what is complete). Touched when a trace is
// created or closed, never per state.
#pragma once

namespace hdtrace {

class OpenTrace;

namespace registry {

// Open traces beyond this many are still written and closed by their owner,
// but not at exit or on a crash (one warning says so).
constexpr int kMaxRegisteredTraces = 4096;

void add(OpenTrace *trace);
void remove(OpenTrace *trace);

// Async-signal-safe: closeForCrash() on every open trace.
void closeAllForCrash();

}  // namespace registry
}  // namespace hdtrace
