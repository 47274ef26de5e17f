// ThreadContext: what belongs to one thread: its trace writer, the ids it
// already declared in its own .info, its pending requests, and caches that
// make the lookups of a call lock-free. Reached through a thread-local
// pointer.
#pragma once

#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <mpi.h>

#include <hdtrace/TraceWriter.hpp>

#include "HandleGeneration.hpp"
#include "LayerTraces.hpp"
#include "RequestRegistry.hpp"
#include "Runtime.hpp"

namespace hdtracempi {

struct ThreadContext {
    ThreadContext() : requests(gRuntime->requests) {}

    struct TypeInfo {
        int64_t id = -1;
        int64_t size = 0;
    };

  private:
    // What every call reads comes first, in as few cache lines as possible:
    // calls that enter the kernel (file I/O) find them evicted.
    MPI_Comm lastComm_ = MPI_COMM_NULL;
    const CommRecord *lastCommRecord_ = nullptr;
    uint64_t lastCommGeneration_ = 0;
    // The type cache holds a reference to each record; an entry
    // is valid while its record is not retired (TypeRecord::retired).
    struct TypeEntry {
        MPI_Datatype handle = MPI_DATATYPE_NULL;
        TypeReference record;
        TypeInfo info;
        bool valid(MPI_Datatype type) const {
            return handle == type && record && !record->retired.load(std::memory_order_acquire);
        }
    };
    TypeEntry lastType_;
    MPI_File lastFile_ = MPI_FILE_NULL;
    const FileRecord *lastFileRecord_ = nullptr;
    uint64_t lastFileGeneration_ = 0;

  public:
    std::unique_ptr<hdtrace::TraceWriter> writer;
    hdtrace::TraceOptions traceOptions;  // writer's, which the layers' traces copy
    LayerTraces layerTraces;             // beside writer's trace
    int threadIndex = 0;                 // the <thread> of the trace's name
    // > 0 while the wrapper's own code runs: MPI calls made then (by the MPI
    // library on the wrapper's behalf) are not traced.
    int internalDepth = 0;
    RequestTable requests;  // the requests this thread created

    // Each lookup first tries the handle of the thread's previous lookup
    // (programs use one communicator, type or file many times in a row),
    // valid while no registry forgot a handle since (gHandleGeneration; for
    // types, while the record is not retired); then the thread's table;
    // then the process-wide registry (under its lock). Every result is
    // already declared in this thread's .info.
    __attribute__((always_inline)) const CommRecord *comm(MPI_Comm handle) {
        if (handle == lastComm_ &&
            lastCommGeneration_ == gHandleGeneration.load(std::memory_order_acquire))
            return lastCommRecord_;
        return commSlow(handle);
    }
    __attribute__((always_inline)) TypeInfo type(MPI_Datatype handle) {
        if (lastType_.valid(handle)) return lastType_.info;
        return typeSlow(handle);
    }
    const FileRecord *file(MPI_File handle) {
        if (handle == lastFile_ &&
            lastFileGeneration_ == gHandleGeneration.load(std::memory_order_acquire))
            return lastFileRecord_;
        return fileSlow(handle);
    }
    // A loop of calls on one file (records are never freed, so one address
    // is one file) skips the lookup in declaredFiles_.
    int64_t declare(const FileRecord *file) {
        if (file == lastDeclaredFile_ && file) return file->id;
        return declareFile(file);
    }
    int64_t declare(const CommRecord *comm);

    // One-sided communication: the window's record (nullptr when unknown),
    // its Win line declared first, as for communicators.
    const WinRecord *win(MPI_Win handle) {
        if (handle == lastWin_ &&
            lastWinGeneration_ == gHandleGeneration.load(std::memory_order_acquire))
            return lastWinRecord_;
        return winSlow(handle);
    }
    int64_t declare(const WinRecord *win);

  private:
    const CommRecord *commSlow(MPI_Comm handle);
    TypeInfo typeSlow(MPI_Datatype handle);
    const FileRecord *fileSlow(MPI_File handle);
    int64_t declareFile(const FileRecord *file);
    const FileRecord *lastDeclaredFile_ = nullptr;
    void declare(const TypeRecord *type);

    uint64_t commGeneration_ = 0;
    std::unordered_map<MPI_Comm, const CommRecord *> commCache_;

    // A fixed table by handle, so that a program that makes and
    // frees types all the time (parallel HDF5) costs no allocation here.
    static constexpr size_t kTypeCacheSize = 64;
    TypeEntry typeCache_[kTypeCacheSize];

    std::vector<bool> declaredComms_;
    std::vector<bool> declaredFiles_;
    // Derived types by bit, as they are numbered in sequence
    // from kFirstDerivedTypeId (a program like parallel HDF5 makes
    // millions; a hash set of them cost a rehash now and then and 30 bytes
    // each); predefined ones by id.
    std::vector<bool> declaredDerivedTypes_;
    std::unordered_set<int64_t> declaredNamedTypes_;

    // One-sided communication
    const WinRecord *winSlow(MPI_Win handle);
    MPI_Win lastWin_ = MPI_WIN_NULL;
    const WinRecord *lastWinRecord_ = nullptr;
    uint64_t lastWinGeneration_ = 0;
    std::vector<bool> declaredWins_;
};

}  // namespace hdtracempi
