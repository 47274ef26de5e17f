// OpenTrace: what the process-wide list of open traces (TraceRegistry) needs
// of a trace file, whatever its form: close it at exit, save it in a dying
// process, forget it in a fork() child.
#pragma once

namespace hdtrace {

class OpenTrace {
  public:
    // Completes and closes the file; 0 or an errno value. Idempotent.
    virtual int close() = 0;
    // Async-signal-safe: writes everything complete and ends the file so
    // that it reads back; the trace stops afterwards.
    virtual void closeForCrash() = 0;
    // In the child of fork(): forgets the file without writing to it.
    virtual void abandonAfterFork() = 0;

  protected:
    virtual ~OpenTrace() = default;
};

}  // namespace hdtrace
