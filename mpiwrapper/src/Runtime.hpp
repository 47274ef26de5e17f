// Runtime: the process-wide state of the wrapper (configuration, registries,
// naming of the traces) and its life cycle from MPI_Init to MPI_Finalize.
#pragma once

#include <atomic>
#include <string>

#include <mpi.h>

#include "CommRegistry.hpp"
#include "Config.hpp"
#include "FileRegistry.hpp"
#include "RequestRegistry.hpp"
#include "TypeRegistry.hpp"

namespace hdtracempi {

struct ThreadContext;

struct Runtime {
    Config config;
    CommRegistry comms;
    TypeRegistry types;
    FileRegistry files;
    RequestRegistry requests;
    std::string program;  // trace file name parts
    std::string host;
    int worldRank = 0;
    std::string mpiLibraryLine;          // first line of every .info
    bool backgroundWrites = true;        // see Config::WriterThread
    std::string backgroundWritesReason;  // for HDTRACE_VERBOSE
    std::atomic<int> nextThreadIndex{0};
};

// Set while traces are written: from the end of MPI_Init to MPI_Finalize.
extern std::atomic<bool> gTracing;
// Set between MPI_Pcontrol(0) and the next MPI_Pcontrol(level != 0): calls
// are not written, but the registries still follow them.
extern std::atomic<bool> gWritingPaused;
// Valid once tracing started; never destroyed, so that exit handlers may use it.
extern Runtime *gRuntime;

// After PMPI_Init/PMPI_Init_thread: reads the configuration, names the
// traces and opens the calling thread's trace (thread 0).
void startTracing(int initResult, int *argc, char ***argv);
// Closes every thread's trace; later calls are not traced.
void stopTracing();

// The calling thread's context once it has one. Initial-exec TLS: one load
// from the thread pointer, no __tls_get_addr call, on every MPI call.
extern __thread ThreadContext *tThreadContext __attribute__((tls_model("initial-exec")));

// Creates the calling thread's context and trace on its first call.
ThreadContext *tracedThreadSlow();

// The calling thread's context while it is traced, creating its trace on its
// first call; nullptr when tracing is off or the trace could not be made.
inline ThreadContext *tracedThread() {
    if (!gTracing.load(std::memory_order_acquire)) return nullptr;
    if (ThreadContext *context = tThreadContext) return context;
    return tracedThreadSlow();
}

}  // namespace hdtracempi
