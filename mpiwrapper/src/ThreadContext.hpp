// ThreadContext: what belongs to one thread: its trace writer, the ids it
// already declared in its own .info, and caches that make the lookups of a
// call lock-free hash probes. Reached through a thread_local pointer.
#pragma once

#include <memory>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <mpi.h>

#include <hdtrace/TraceWriter.hpp>

#include "Runtime.hpp"

namespace hdtracempi {

struct ThreadContext {
    std::unique_ptr<hdtrace::TraceWriter> writer;
    // > 0 while the wrapper's own code runs: MPI calls made then (by the MPI
    // library on the wrapper's behalf) are not traced.
    int internalDepth = 0;

    const CommRecord *comm(MPI_Comm comm);  // declared in this thread's .info
    struct TypeInfo {
        int64_t id = -1;
        int64_t size = 0;
    };
    TypeInfo type(MPI_Datatype type);  // declared in this thread's .info
    int64_t declare(const FileRecord *file);
    int64_t declare(const CommRecord *comm);

  private:
    void declare(const TypeRecord *type);

    std::unordered_map<MPI_Comm, const CommRecord *> commCache_;
    uint64_t commGeneration_ = 0;
    std::unordered_map<MPI_Datatype, TypeInfo> typeCache_;
    uint64_t typeGeneration_ = 0;
    std::vector<bool> declaredComms_;
    std::vector<bool> declaredFiles_;
    std::unordered_set<const TypeRecord *> declaredTypes_;
};

}  // namespace hdtracempi
