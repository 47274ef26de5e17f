#include "TraceRegistry.hpp"

#include <pthread.h>
#include <stdlib.h>

#include <algorithm>
#include <hdtrace/TraceWriter.hpp>
#include <mutex>
#include <vector>

namespace hdtrace {
namespace registry {
namespace {

// Allocated once and never destroyed: the exit handler may run after static
// destructors, and the pointers keep the objects reachable for leak checkers.
std::mutex *registryMutex = nullptr;
std::vector<TraceWriter *> *openWriters = nullptr;
std::once_flag installOnce;

void closeAllAtExit() {
    std::vector<TraceWriter *> writers;
    {
        std::lock_guard<std::mutex> lock(*registryMutex);
        writers = *openWriters;
    }
    for (TraceWriter *writer : writers)
        writer->close();  // close() calls remove()
}

void abandonAllInForkChild() {
    // The child has one thread; the mutex may have been held by a thread that
    // no longer exists here, so it is replaced rather than taken.
    registryMutex = new std::mutex;
    for (TraceWriter *writer : *openWriters)
        writer->abandonAfterFork();
    openWriters->clear();
}

void install() {
    registryMutex = new std::mutex;
    openWriters = new std::vector<TraceWriter *>;
    atexit(closeAllAtExit);
    pthread_atfork(nullptr, nullptr, abandonAllInForkChild);
}

}  // namespace

void add(TraceWriter *writer) {
    std::call_once(installOnce, install);
    std::lock_guard<std::mutex> lock(*registryMutex);
    openWriters->push_back(writer);
}

void remove(TraceWriter *writer) {
    if (!registryMutex) return;
    std::lock_guard<std::mutex> lock(*registryMutex);
    auto found = std::find(openWriters->begin(), openWriters->end(), writer);
    if (found != openWriters->end()) openWriters->erase(found);
}

}  // namespace registry
}  // namespace hdtrace
