// BackgroundWriter: the one thread per process that writes full halves of
// every trace's OutputBuffer, so that the traced threads never spend their
// time in write(2).
//
// Started with the first full half, named "hdtrace-writer", and free to run
// on any CPU of the process's cpuset (not only on the core the launcher bound
// the rank to). It blocks every signal, so that signals meant for the
// program reach the program's threads. A fork() child starts without it
// (threads do not survive fork) and gets a new one on demand.
#pragma once

#include <hdtrace/OutputBuffer.hpp>

namespace hdtrace {

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

    // For tests: while held, queued halves stay queued (and unwritten).
    static void holdForTesting(bool hold);

  private:
    static void run();
    static void *threadMain(void *);
};

}  // namespace hdtrace
