// Runtime: the process-wide state of the wrapper (configuration, registries,
// naming of the traces) and its life cycle from MPI_Init to MPI_Finalize.
//
// The MPI calls the wrapper makes on its own behalf. A tracer must leave the
// library as the program would find it without the tracer: it
// creates no communicator, window, file, datatype or request of its own, so
// that the program's handles and context ids are the same traced and
// untraced. (The generated wrappers forward each program call to its PMPI_
// twin; those are the program's calls, not the wrapper's.)
// tests/mpiwrapper/test_own_objects.py checks that every PMPI_ call in src/
// and wrapper_conf.py is listed here, and every entry is used.
//   own-mpi-call PMPI_Comm_rank, PMPI_Comm_size, PMPI_Comm_test_inter,
//     PMPI_Comm_get_name, PMPI_Group_size, PMPI_Type_size_x,
//     PMPI_Type_get_envelope, PMPI_Type_get_name, PMPI_File_get_size,
//     PMPI_File_get_position, PMPI_File_get_position_shared,
//     PMPI_File_get_byte_offset, PMPI_Info_get_nkeys, PMPI_Info_get_nthkey,
//     PMPI_Info_get_valuelen, PMPI_Info_get, PMPI_Get_library_version,
//     PMPI_Get_elements_x:
//     queries; they create and change nothing.
//   own-mpi-call PMPI_Allgather: once in MPI_Init over MPI_COMM_WORLD, only
//     when HDTRACE_WRITER_THREAD=auto and the launcher does not say how many
//     ranks share the node (NodeRanks.hpp), or when the clocks are measured
//     (ClockSync.hpp; then it carries host and clock ids, and serves both).
//     A collective allocates no context id and no handle; every rank is
//     inside MPI_Init.
//   own-mpi-call PMPI_Allreduce, PMPI_Finalize: in MPI_Init, only when
//     HDTRACE_FILTER names a filter file (CallSelection.hpp): one Allreduce
//     over MPI_COMM_WORLD, every rank inside MPI_Init, tells whether every
//     rank could read it; when one could not, every rank finalizes and the
//     program ends there, before anything is traced.
//   own-mpi-call PMPI_Comm_group, PMPI_Comm_remote_group,
//     PMPI_Group_translate_ranks, PMPI_Group_free: a communicator's members
//     as world ranks, once per communicator. The group is the
//     communicator's own, returned with its reference count raised, and is
//     released at once; no communicator, no context id. MPICH makes a
//     communicator's group on first request and keeps it with the
//     communicator, so group handles the program makes later may have other
//     values than untraced (tests/mpiwrapper/test_own_objects.py).
//   own-mpi-call PMPI_Type_get_extent_x, PMPI_Pack_size, PMPI_Pack: the size,
//     extent and byte blocks of a predefined type (TypeRegistry.cpp): a
//     pack into the wrapper's own buffer on MPI_COMM_SELF; no object.
//     PMPI_Type_size_x and PMPI_Type_get_extent_x also give every derived
//     type's size, lower bound and extent for its .info line: queries.
//   own-mpi-call PMPI_File_seek_shared: after the program's collective
//     MPI_File_seek_shared with SEEK_CUR or SEEK_END, every rank seeks by 0
//     from the current position (SharedSeek.cpp), so that no rank moves the
//     shared pointer before all have read it; the pointer stays where the
//     program's seek put it, and every rank makes the extra call.
//   own-mpi-call PMPI_Type_get_contents, PMPI_Type_get_envelope_c,
//     PMPI_Type_get_contents_c, PMPI_Type_free: decoding a derived
//     type. get_contents hands back the program's own constituent types
//     with their reference count raised (MPI-3.1 section 4.1.13; the _c
//     forms, MPI-4, for types made by large-count constructors), and
//     Type_free of those returns the count to where it was; no type is made.
//   own-mpi-call PMPI_Send, PMPI_Recv, PMPI_Bcast, PMPI_Comm_get_attr: the
//     clock measurement (ClockSync.hpp), inside MPI_Init after PMPI_Init and
//     inside MPI_Finalize before PMPI_Finalize, on MPI_COMM_WORLD, unless
//     HDTRACE_CLOCK_SYNC=0. Blocking sends and receives between rank 0 and
//     each host's lowest rank, with explicit source and the largest tag
//     (MPI_TAG_UB, read with Comm_get_attr, a query), each received before
//     the call returns, then one Bcast: no request, no handle, no message
//     left behind. No receive of the program can take them: in MPI_Init
//     none exists yet, and before MPI_Finalize the program must have
//     completed all its communication (docs/user/clocks.md, also on
//     why there is no periodic measurement during the run).
#pragma once

#include <atomic>
#include <string>

#include <mpi.h>

#include <hdtrace/Timestamp.hpp>

#include "ClockSync.hpp"
#include "CommRegistry.hpp"
#include "Config.hpp"
#include "FileRegistry.hpp"
#include "MessageRegistry.hpp"
#include "RequestRegistry.hpp"
#include "TypeRegistry.hpp"
#include "WinRegistry.hpp"

namespace hdtracempi {

struct ThreadContext;

struct Runtime {
    Config config;
    CommRegistry comms;
    TypeRegistry types;
    FileRegistry files;
    RequestRegistry requests;
    // Matched probes and one-sided communication (docs/format/mpi3.md).
    MessageRegistry messages;
    WinRegistry wins;
    std::string program;  // trace file name parts
    std::string host;
    int worldRank = 0;
    std::string mpiLibraryLine;          // first line of every .info
    bool backgroundWrites = true;        // see Config::WriterThread
    std::string backgroundWritesReason;  // for HDTRACE_VERBOSE
    std::atomic<int> nextThreadIndex{0};
    // --- Clocks (ClockSync.hpp, docs/user/clocks.md)
    ClockShift clockShift;       // none but in a test build (TestHooks.hpp)
    bool clockMeasured = false;  // every rank measured in MPI_Init: again in MPI_Finalize
    ClockGroups clockGroups;
    ClockMeasurement clockAtInit;
    // --- end of Clocks
};

// Set while traces are written: from the end of MPI_Init to MPI_Finalize.
extern std::atomic<bool> gTracing;
// Set between MPI_Pcontrol(0) and the next MPI_Pcontrol(level != 0): calls
// are not written, but the registries still follow them.
extern std::atomic<bool> gWritingPaused;
// Valid once tracing started; never destroyed, so that exit handlers may use it.
extern Runtime *gRuntime;

// After PMPI_Init/PMPI_Init_thread: reads the configuration, names the
// traces and opens the calling thread's trace (thread 0), whose
// timeAdjustment is at or before initStart, the start of the MPI_Init call.
void startTracing(int initResult, int *argc, char ***argv, hdtrace::Timestamp initStart);
// Closes every thread's trace; later calls are not traced.
void stopTracing();

// --- Clocks: in MPI_Finalize before PMPI_Finalize, on every rank, traced
// or not: measures the clock offsets again if MPI_Init did, and writes the
// result to the calling thread's .info (collective over MPI_COMM_WORLD).
void measureClocksAtFinalize();

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
