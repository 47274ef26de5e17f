// BackgroundWriter: the one thread per process that writes full halves of
// every trace's OutputBuffer, and runs the jobs of compact traces (compress
// a full frame, then write it), so that the traced threads never spend their
// time in write(2) or in compression.
//
// Started with the first full half, named "hdtrace-writer", and free to run
// on any CPU of the process's cpuset (not only on the core the launcher bound
// the rank to). It blocks every signal, so that signals meant for the
// program reach the program's threads. A fork() child starts without it
// (threads do not survive fork) and gets a new one on demand.
#pragma once

#include <atomic>

#include <hdtrace/OutputBuffer.hpp>

namespace hdtrace {

// Work for the writer thread other than an OutputBuffer's half: run(job) is
// called on the writer thread, once per enqueue().
struct BackgroundJob {
    void (*run)(BackgroundJob *job) = nullptr;
    // True from enqueue() until run() has returned.
    std::atomic<bool> queued{false};
    BackgroundJob *nextQueued = nullptr;
};

class BackgroundWriter {
  public:
    // Starts the process's writer thread unless it runs already; false when
    // no thread can be started (the caller then writes itself).
    static bool start();

    // Queues half of buffer; the writer pwrites it and then sets its length
    // to 0. A buffer has at most one half queued at a time.
    static void enqueue(OutputBuffer &buffer, OutputBuffer::Half &half);
    // Returns once half's length is 0.
    static void waitUntilWritten(const OutputBuffer::Half &half);

    // Queues job, which must not be queued already.
    static void enqueue(BackgroundJob &job);
    // Returns once job is not queued (at once if it never was).
    static void waitUntilDone(const BackgroundJob &job);

    // For tests: while held, queued halves and jobs stay queued (and unrun).
    static void holdForTesting(bool hold);

  private:
    static void run();
    static void *threadMain(void *);
};

}  // namespace hdtrace
