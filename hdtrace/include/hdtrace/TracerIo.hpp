// TracerIo: marks the C library calls a thread makes for the tracer itself
// (creating trace files, writing them), so that a layer that traces the
// program's file calls (the MPI wrapper's POSIX layer) leaves them out.
// They are not cancellation points of the program's either: a thread
// cancelled while its first traced call creates its trace ends at the
// program's call, not halfway through the tracer's files.
#pragma once

#include <pthread.h>

namespace hdtrace {

// > 0 while the calling thread does the tracer's own I/O. Initial-exec
// TLS: one load from the thread pointer, also in a preloaded library.
extern __thread int tTracerIoDepth __attribute__((tls_model("initial-exec")));

inline bool insideTracerIo() {
    return tTracerIoDepth > 0;
}

class TracerIoScope {
  public:
    TracerIoScope() {
        pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancelState_);
        ++tTracerIoDepth;
    }
    ~TracerIoScope() {
        --tTracerIoDepth;
        pthread_setcancelstate(cancelState_, nullptr);
    }
    TracerIoScope(const TracerIoScope &) = delete;
    TracerIoScope &operator=(const TracerIoScope &) = delete;

  private:
    int cancelState_ = PTHREAD_CANCEL_ENABLE;
};

}  // namespace hdtrace
