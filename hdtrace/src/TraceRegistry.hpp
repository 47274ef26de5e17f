// The process-wide list of open traces, for the two moments when the library
// must act on all of them: process exit (close them, so that every trace is
// well-formed XML) and fork (the child must not write into the parent's
// files). Touched only when a trace is created or closed, never per state.
#pragma once

namespace hdtrace {

class TraceWriter;

namespace registry {

void add(TraceWriter *writer);
void remove(TraceWriter *writer);

}  // namespace registry
}  // namespace hdtrace
