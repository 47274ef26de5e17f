// TracerIo: marks the C library calls a thread makes for the tracer itself
// (creating trace files, writing them), so that a layer that traces the
// program's file calls (the MPI wrapper's POSIX layer) leaves them out.
#pragma once

namespace hdtrace {

// > 0 while the calling thread does the tracer's own I/O. Initial-exec
// TLS: one load from the thread pointer, also in a preloaded library.
extern __thread int tTracerIoDepth __attribute__((tls_model("initial-exec")));

inline bool insideTracerIo() {
    return tTracerIoDepth > 0;
}

class TracerIoScope {
  public:
    TracerIoScope() { ++tTracerIoDepth; }
    ~TracerIoScope() { --tTracerIoDepth; }
    TracerIoScope(const TracerIoScope &) = delete;
    TracerIoScope &operator=(const TracerIoScope &) = delete;
};

}  // namespace hdtrace
