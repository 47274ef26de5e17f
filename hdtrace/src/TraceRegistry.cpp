#include "TraceRegistry.hpp"

#include <pthread.h>
#include <stdlib.h>

#include <atomic>
#include <cstdio>
#include <mutex>

#include <hdtrace/OpenTrace.hpp>

namespace hdtrace {
namespace registry {
namespace {

// A fixed array of atomic slots rather than a container behind a mutex: a
// signal handler must be able to walk it without taking a lock or seeing a
// reallocation.
std::atomic<OpenTrace *> slots[kMaxRegisteredTraces];
std::once_flag installOnce;
std::atomic<bool> overflowReported{false};

void closeAllAtExit() {
    for (auto &slot : slots) {
        if (OpenTrace *trace = slot.load()) trace->close();  // close() calls remove()
    }
}

void abandonAllInForkChild() {
    for (auto &slot : slots) {
        if (OpenTrace *trace = slot.exchange(nullptr)) trace->abandonAfterFork();
    }
}

void install() {
    atexit(closeAllAtExit);
    pthread_atfork(nullptr, nullptr, abandonAllInForkChild);
}

}  // namespace

void add(OpenTrace *trace) {
    std::call_once(installOnce, install);
    for (auto &slot : slots) {
        OpenTrace *expected = nullptr;
        if (slot.compare_exchange_strong(expected, trace)) return;
    }
    if (!overflowReported.exchange(true)) {
        std::fprintf(stderr,
                     "hdtrace: more than %d traces open; the others are not closed at exit "
                     "or on a crash\n",
                     kMaxRegisteredTraces);
    }
}

void remove(OpenTrace *trace) {
    for (auto &slot : slots) {
        OpenTrace *expected = trace;
        if (slot.compare_exchange_strong(expected, nullptr)) return;
    }
}

void closeAllForCrash() {
    for (auto &slot : slots) {
        if (OpenTrace *trace = slot.load()) trace->closeForCrash();
    }
}

}  // namespace registry
}  // namespace hdtrace
