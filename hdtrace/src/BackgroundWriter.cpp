#include "BackgroundWriter.hpp"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>

#include <hdtrace/TracerIo.hpp>

namespace hdtrace {
namespace {

// Plain pthread objects, so that a fork() child can reset them (one of them
// may have been locked by the writer thread, which the child does not have).
pthread_mutex_t gMutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t gWork = PTHREAD_COND_INITIALIZER;  // something queued, or released
pthread_cond_t gDone = PTHREAD_COND_INITIALIZER;  // a half was written
OutputBuffer *gQueueHead = nullptr;
OutputBuffer *gQueueTail = nullptr;
BackgroundJob *gJobsHead = nullptr;
BackgroundJob *gJobsTail = nullptr;
bool gHeld = false;

enum State { kNotStarted, kStarting, kRunning, kCannotStart };
std::atomic<int> gState{kNotStarted};
bool gForkHandlerInstalled = false;  // set once, inherited by children

void resetInForkChild() {
    gMutex = PTHREAD_MUTEX_INITIALIZER;
    gWork = PTHREAD_COND_INITIALIZER;
    gDone = PTHREAD_COND_INITIALIZER;
    gQueueHead = gQueueTail = nullptr;
    gJobsHead = gJobsTail = nullptr;
    gHeld = false;
    gState.store(kNotStarted);
}

}  // namespace

bool BackgroundWriter::start() {
    int state = gState.load(std::memory_order_acquire);
    if (state == kRunning) return true;
    if (state == kCannotStart) return false;
    int expected = kNotStarted;
    if (gState.compare_exchange_strong(expected, kStarting)) {
        if (!gForkHandlerInstalled) {
            pthread_atfork(nullptr, nullptr, resetInForkChild);
            gForkHandlerInstalled = true;
        }
        // The thread inherits this mask: all signals blocked.
        sigset_t all, previous;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &previous);
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        pthread_t thread;
        const bool started = pthread_create(&thread, &attributes, threadMain, nullptr) == 0;
        pthread_attr_destroy(&attributes);
        pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        gState.store(started ? kRunning : kCannotStart, std::memory_order_release);
        return started;
    }
    while ((state = gState.load(std::memory_order_acquire)) == kStarting)
        sched_yield();
    return state == kRunning;
}

void *BackgroundWriter::threadMain(void *) {
    pthread_setname_np(pthread_self(), "hdtrace-writer");
    // Everything this thread does is the tracer's own I/O.
    TracerIoScope tracerIo;
    // Not bound to the core of the thread that started it (MPI launchers bind
    // each rank to one): on a CPU of its own the kernel's copy of the trace
    // neither takes the rank's time nor evicts the rank's caches. The kernel
    // narrows the set to the CPUs this process's cpuset allows.
    cpu_set_t everywhere;
    CPU_ZERO(&everywhere);
    const long cpus = ::sysconf(_SC_NPROCESSORS_CONF);
    for (long cpu = 0; cpu < cpus && cpu < CPU_SETSIZE; ++cpu)
        CPU_SET(static_cast<int>(cpu), &everywhere);
    ::sched_setaffinity(0, sizeof everywhere, &everywhere);
    run();
    return nullptr;
}

void BackgroundWriter::run() {
    pthread_mutex_lock(&gMutex);
    for (;;) {
        while ((!gQueueHead && !gJobsHead) || gHeld)
            pthread_cond_wait(&gWork, &gMutex);
        // Halves first: a write is short, a compression job is not.
        if (!gQueueHead) {
            BackgroundJob *job = gJobsHead;
            gJobsHead = job->nextQueued;
            if (!gJobsHead) gJobsTail = nullptr;
            pthread_mutex_unlock(&gMutex);
            job->run(job);
            pthread_mutex_lock(&gMutex);
            job->queued.store(false, std::memory_order_release);
            pthread_cond_broadcast(&gDone);
            continue;
        }
        OutputBuffer *buffer = gQueueHead;
        gQueueHead = buffer->nextQueued_;
        if (!gQueueHead) gQueueTail = nullptr;
        OutputBuffer::Half *half = buffer->queuedHalf_;
        pthread_mutex_unlock(&gMutex);
        buffer->writeQueuedHalf(*half);
        pthread_mutex_lock(&gMutex);
        pthread_cond_broadcast(&gDone);
    }
}

void BackgroundWriter::enqueue(OutputBuffer &buffer, OutputBuffer::Half &half) {
    pthread_mutex_lock(&gMutex);
    buffer.queuedHalf_ = &half;
    buffer.nextQueued_ = nullptr;
    if (gQueueTail)
        gQueueTail->nextQueued_ = &buffer;
    else
        gQueueHead = &buffer;
    gQueueTail = &buffer;
    pthread_cond_signal(&gWork);
    pthread_mutex_unlock(&gMutex);
}

void BackgroundWriter::waitUntilWritten(const OutputBuffer::Half &half) {
    pthread_mutex_lock(&gMutex);
    while (half.length.load(std::memory_order_acquire) != 0)
        pthread_cond_wait(&gDone, &gMutex);
    pthread_mutex_unlock(&gMutex);
}

void BackgroundWriter::enqueue(BackgroundJob &job) {
    pthread_mutex_lock(&gMutex);
    job.queued.store(true, std::memory_order_relaxed);
    job.nextQueued = nullptr;
    if (gJobsTail)
        gJobsTail->nextQueued = &job;
    else
        gJobsHead = &job;
    gJobsTail = &job;
    pthread_cond_signal(&gWork);
    pthread_mutex_unlock(&gMutex);
}

void BackgroundWriter::waitUntilDone(const BackgroundJob &job) {
    if (!job.queued.load(std::memory_order_acquire)) return;
    pthread_mutex_lock(&gMutex);
    while (job.queued.load(std::memory_order_acquire))
        pthread_cond_wait(&gDone, &gMutex);
    pthread_mutex_unlock(&gMutex);
}

void BackgroundWriter::holdForTesting(bool hold) {
    pthread_mutex_lock(&gMutex);
    gHeld = hold;
    pthread_cond_broadcast(&gWork);
    pthread_mutex_unlock(&gMutex);
}

}  // namespace hdtrace
