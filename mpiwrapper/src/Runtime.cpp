#include "Runtime.hpp"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include <hdtrace/CrashHandlers.hpp>

#include "CallSelection.hpp"
#include "ClockSync.hpp"
#include "InfoLines.hpp"
#include "NodeRanks.hpp"
#include "PosixFiles.hpp"
#include "ProcessExit.hpp"
#include "TestHooks.hpp"
#include "ThreadContext.hpp"

namespace hdtracempi {

// Together: every traced call reads both.
alignas(64) std::atomic<bool> gTracing{false};
std::atomic<bool> gWritingPaused{false};
std::atomic<uint64_t> gHandleGeneration{0};
Runtime *gRuntime = nullptr;

__thread ThreadContext *tThreadContext = nullptr;

namespace {

thread_local bool tThreadUntraced = false;  // creating this thread's trace failed

// Every context made, so that MPI_Finalize can close their traces.
std::mutex gContextsMutex;
std::vector<ThreadContext *> *gContexts = nullptr;
// Contexts whose thread ended, each with its trace still open: the next new
// thread continues that trace (docs/format/trace.md, "Threads"). Under
// gContextsMutex.
std::vector<ThreadContext *> *gFreeContexts = nullptr;
// Its destructor hands a thread's context back when the thread ends.
pthread_key_t gThreadEndKey;
// One warning per process when a thread's trace cannot be made.
std::atomic<bool> gUntracedThreadReported{false};

std::string programName(int *argc, char ***argv) {
    std::string path;
    if (argc && argv && *argv && *argc > 0 && (*argv)[0]) {
        path = (*argv)[0];
    } else {
        char buffer[4096];
        const ssize_t length = ::readlink("/proc/self/exe", buffer, sizeof buffer - 1);
        path = length > 0 ? std::string(buffer, static_cast<size_t>(length)) : "program";
    }
    const size_t slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The calling thread's context from now on, handed back when it ends.
ThreadContext *attachToThisThread(ThreadContext *context) {
    tThreadContext = context;
    pthread_setspecific(gThreadEndKey, context);
    return context;
}

// earliestTime: a time the trace will hold that was taken before it existed.
ThreadContext *createThreadContext(hdtrace::Timestamp earliestTime = {}) {
    const int threadIndex = gRuntime->nextThreadIndex.fetch_add(1, std::memory_order_relaxed);
    hdtrace::TraceOptions options;
    options.directory = gRuntime->config.directory;
    options.program = gRuntime->program;
    options.levels = {gRuntime->host, std::to_string(gRuntime->worldRank),
                      std::to_string(threadIndex)};
    options.forceFlush = gRuntime->config.forceFlush;
    options.format = gRuntime->config.compact ? hdtrace::TraceOptions::Format::Compact
                                              : hdtrace::TraceOptions::Format::Xml;
    options.compactLevel = gRuntime->config.compactLevel;
    options.nestedDepth = gRuntime->config.nested ? HD_LOG_MAX_DEPTH - 1 : 0;
    options.clock =
        gRuntime->config.tscClock ? hdtrace::Clock::Source::Tsc : hdtrace::Clock::Source::Realtime;
    options.backgroundWrites = gRuntime->backgroundWrites;
    options.earliestTime = earliestTime;
    options.shiftTime = gRuntime->clockShift.apply;  // none but in a test build
    std::string error;
    std::unique_ptr<hdtrace::TraceWriter> writer = hdtrace::TraceWriter::create(options, &error);
    if (!writer) {
        if (!gUntracedThreadReported.exchange(true))
            std::fprintf(stderr,
                         "hdtracempi: warning: %s; rank %d thread %d runs untraced (later "
                         "threads that fail so are not reported)\n",
                         error.c_str(), gRuntime->worldRank, threadIndex);
        tThreadUntraced = true;
        return nullptr;
    }
    if (gRuntime->config.verbose)
        std::fprintf(
            stderr,
            "hdtracempi: rank %d thread %d traces into %s (clock: %s; written by: %s, %s)\n",
            gRuntime->worldRank, threadIndex, writer->tracePath().c_str(),
            writer->clockUsesTsc() ? "TSC anchored to CLOCK_REALTIME" : "clock_gettime",
            options.backgroundWrites ? "a background thread" : "the traced thread",
            gRuntime->backgroundWritesReason.c_str());
    writer->writeInfo(gRuntime->mpiLibraryLine);
    auto *context = new ThreadContext;
    context->writer = std::move(writer);
    context->traceOptions = options;
    context->threadIndex = threadIndex;
    {
        std::lock_guard<std::mutex> lock(gContextsMutex);
        gContexts->push_back(context);
    }
    return attachToThisThread(context);
}

// A context left by a thread that ended, the one with the lowest thread
// number, so that the traces in use stay few and their numbers small.
ThreadContext *takeFreeContext() {
    std::lock_guard<std::mutex> lock(gContextsMutex);
    if (gFreeContexts->empty()) return nullptr;
    const auto lowest = std::min_element(gFreeContexts->begin(), gFreeContexts->end(),
                                         [](const ThreadContext *a, const ThreadContext *b) {
                                             return a->threadIndex < b->threadIndex;
                                         });
    ThreadContext *context = *lowest;
    gFreeContexts->erase(lowest);
    return context;
}

// At the end of a thread with a context: another thread may continue its
// trace. A thread that ends inside an MPI call (pthread_exit from a
// callback) keeps its context: its trace has a state still open.
void threadEnded(void *value) {
    const auto *context = static_cast<const ThreadContext *>(value);
    if (context->internalDepth != 0 || context->writer->depth() != 0) return;
    std::lock_guard<std::mutex> lock(gContextsMutex);
    gFreeContexts->push_back(static_cast<ThreadContext *>(value));
}

// Whether a background thread writes this process's traces. Auto: when the
// node has a CPU to spare for it, that is more CPUs than ranks; otherwise the
// thread would take turns with a rank.
bool decideBackgroundWrites(Config::WriterThread choice, int worldSize,
                            const std::vector<uint64_t> *hostIds, std::string *reason) {
    if (choice != Config::WriterThread::Auto) {
        const bool on = choice == Config::WriterThread::On;
        *reason = on ? "HDTRACE_WRITER_THREAD=1" : "HDTRACE_WRITER_THREAD=0";
        return on;
    }
    const NodeRanks ranks = countNodeRanks(worldSize, hostIds);
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    *reason = "auto: " + std::to_string(ranks.count) + " ranks on " + std::to_string(cpus) +
              " CPUs of this node, from " + ranks.source;
    return cpus > ranks.count;
}

// --- Clocks (ClockSync.hpp, docs/user/clocks.md)
void reportClockMeasurement(const ClockMeasurement &measurement, int64_t tookNanoseconds) {
    if (!gRuntime->config.verbose) return;
    std::fprintf(stderr,
                 "hdtracempi: rank %d: clock offset at %s: %lld ns against rank 0 (round trip "
                 "%lld ns, measured by rank %d; %zu clock group(s), %d exchanges each, %.3f ms)\n",
                 gRuntime->worldRank, measurement.occasion,
                 static_cast<long long>(measurement.offset),
                 static_cast<long long>(measurement.roundTrip), measurement.leader,
                 gRuntime->clockGroups.leaders.size(), measurement.exchanges,
                 static_cast<double>(tookNanoseconds) / 1e6);
}

// In MPI_Init, on every rank: a test build's clock shift, then (unless
// HDTRACE_CLOCK_SYNC=0 or a world of one) one Allgather of host and clock
// ids and the first measurement. *hostIds gets every rank's host id.
void measureClocksAtInit(int worldSize, hdtrace::Timestamp initStart,
                         std::vector<uint64_t> *hostIds) {
    std::string problem;
    gRuntime->clockShift = testClockShift(gRuntime->worldRank, initStart.nanoseconds, &problem);
    if (!problem.empty() && gRuntime->worldRank == 0)
        std::fprintf(stderr, "hdtracempi: warning: %s\n", problem.c_str());
    if (!gRuntime->config.clockSync || worldSize <= 1) return;
    const uint64_t own[2] = {hostId(), clockIdOf(hostId(), gRuntime->clockShift)};
    std::vector<uint64_t> all(2 * static_cast<size_t>(worldSize));
    if (PMPI_Allgather(own, 2, MPI_UINT64_T, all.data(), 2, MPI_UINT64_T, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
        return;
    std::vector<uint64_t> clockIds(static_cast<size_t>(worldSize));
    hostIds->resize(static_cast<size_t>(worldSize));
    for (size_t rank = 0; rank < clockIds.size(); ++rank) {
        (*hostIds)[rank] = all[2 * rank];
        clockIds[rank] = all[2 * rank + 1];
    }
    gRuntime->clockGroups = clockGroupsOf(clockIds, gRuntime->worldRank);
    const int64_t began = hdtrace::Timestamp::now().nanoseconds;
    gRuntime->clockMeasured =
        measureClockOffset(gRuntime->clockGroups, gRuntime->worldRank, gRuntime->clockShift, "init",
                           &gRuntime->clockAtInit);
    if (gRuntime->clockMeasured)
        reportClockMeasurement(gRuntime->clockAtInit,
                               hdtrace::Timestamp::now().nanoseconds - began);
}
// --- end of Clocks

}  // namespace

// --- Clocks
void measureClocksAtFinalize() {
    if (!gRuntime || !gRuntime->clockMeasured) return;
    gRuntime->clockMeasured = false;  // once, even if the program calls MPI_Finalize twice
    ClockMeasurement measurement;
    const int64_t began = hdtrace::Timestamp::now().nanoseconds;
    if (!measureClockOffset(gRuntime->clockGroups, gRuntime->worldRank, gRuntime->clockShift,
                            "finalize", &measurement))
        return;
    reportClockMeasurement(measurement, hdtrace::Timestamp::now().nanoseconds - began);
    if (ThreadContext *context = tracedThread()) context->writer->writeInfo(clockLine(measurement));
}
// --- end of Clocks

void startTracing(int initResult, int *argc, char ***argv, hdtrace::Timestamp initStart) {
    if (initResult != MPI_SUCCESS || gRuntime) return;
    gRuntime = new Runtime;
    gContexts = new std::vector<ThreadContext *>;
    gFreeContexts = new std::vector<ThreadContext *>;
    pthread_key_create(&gThreadEndKey, threadEnded);
    PMPI_Comm_rank(MPI_COMM_WORLD, &gRuntime->worldRank);
    int worldSize = 1;
    PMPI_Comm_size(MPI_COMM_WORLD, &worldSize);
    // One warning per process group is enough: only rank 0 reports bad values.
    gRuntime->config = readConfig(gRuntime->worldRank == 0);
    if (!selectCalls(gRuntime->config, gRuntime->worldRank, worldSize)) {
        // A filter no rank can use: every rank stops here, before any trace
        // or directory is made (the reason is on stderr).
        PMPI_Finalize();
        std::exit(1);
    }
    std::vector<uint64_t> hostIds;  // filled when the clocks are measured
    measureClocksAtInit(worldSize, initStart, &hostIds);
    gRuntime->backgroundWrites = decideBackgroundWrites(gRuntime->config.writerThread, worldSize,
                                                        hostIds.empty() ? nullptr : &hostIds,
                                                        &gRuntime->backgroundWritesReason);
    gRuntime->program = programName(argc, argv);
    char host[256] = "localhost";
    if (::gethostname(host, sizeof host - 1) != 0) std::snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = '\0';
    gRuntime->host = host;
    gRuntime->mpiLibraryLine = mpiLibraryLine();
    gRuntime->comms.start();

    // Made before tracing is switched on, so that this thread is thread 0.
    // Without it the whole process runs untraced, after one warning.
    testHookBeforeTrace(initStart);
    ThreadContext *context = createThreadContext(initStart);
    if (!context) return;
    // WORLD and SELF are declared at once, in this order (docs/format/info.md).
    context->comm(MPI_COMM_WORLD);
    context->comm(MPI_COMM_SELF);
    if (gRuntime->clockMeasured) context->writer->writeInfo(clockLine(gRuntime->clockAtInit));
    // After MPI's own handlers, which ours then call: a fatal signal first
    // completes the traces, then proceeds as without the wrapper.
    hdtrace::installCrashHandlers();
    completeTracesOnExit();
    gTracing.store(true, std::memory_order_release);
    startPosixLayer();
}

void stopTracing() {
    if (!gTracing.exchange(false, std::memory_order_acq_rel)) return;
    stopPosixLayer();
    std::lock_guard<std::mutex> lock(gContextsMutex);
    for (ThreadContext *context : *gContexts) {
        if (gRuntime->config.verbose)
            std::fprintf(stderr,
                         "hdtracempi: %s: requests completed in Wait/Test calls: %llu traced, "
                         "%llu created by no traced call (without <For>)\n",
                         context->writer->tracePath().c_str(),
                         static_cast<unsigned long long>(context->requests.completedCount()),
                         static_cast<unsigned long long>(context->requests.unseenCount()));
        if (gRuntime->config.verbose && context->writer->droppedStates() > 0)
            std::fprintf(stderr, "hdtracempi: %s: %llu nested calls not written\n",
                         context->writer->tracePath().c_str(),
                         static_cast<unsigned long long>(context->writer->droppedStates()));
        context->layerTraces.closeAll();
        context->writer->close();
    }
}

ThreadContext *tracedThreadSlow() {
    if (tThreadUntraced) return nullptr;
    if (ThreadContext *context = takeFreeContext()) return attachToThisThread(context);
    ThreadContext *context = createThreadContext();
    if (context) {
        // A new thread's .info starts with WORLD and SELF, as thread 0's does.
        context->comm(MPI_COMM_WORLD);
        context->comm(MPI_COMM_SELF);
    }
    return context;
}

}  // namespace hdtracempi
