// TypeRegistry: datatype ids and their decoding through
// MPI_Type_get_envelope / MPI_Type_get_contents (seed section 2.3.5,
// Appendix B). Process-wide; records are immutable and never deleted.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <mpi.h>

namespace hdtracempi {

struct TypeRecord {
    int64_t id = -1;
    // Predefined (MPI_Type_c2f id, which on MPICH lies above the derived
    // ids), or derived (ids from kFirstDerivedTypeId up, in sequence).
    bool predefined = false;
    std::vector<const TypeRecord *> children;  // the types the line references
    std::string infoLine;
};

// Derived types are numbered from here, clear of every library's
// predefined MPI_Type_c2f values (TRACE-FORMAT.md).
constexpr int64_t kFirstDerivedTypeId = int64_t(1) << 24;

class TypeRegistry {
  public:
    // The record of type, decoded now (with every type it is built from) if
    // the handle is new; nullptr for MPI_DATATYPE_NULL.
    const TypeRecord *find(MPI_Datatype type);
    // After a type constructor: the types newType is built from, as the
    // program passed them. MPI_Type_get_contents returns new handles for
    // them (Open MPI returns duplicates, named "Dup "), so the decoding of
    // newType refers to these records instead: the ids the program's own
    // types have in the trace.
    void constructed(MPI_Datatype newType, int count, const MPI_Datatype inputs[]);
    // After the program's MPI_Type_get_contents: a returned handle that
    // names a type this registry knows is another reference to it (MPICH
    // returns the same handle with its count raised), which the program
    // frees on its own; that MPI_Type_free must not forget the type.
    void contentsReturned(int count, const MPI_Datatype types[]);
    // Before MPI_Type_free: the handle may name another type later, unless
    // this frees one of the extra references contentsReturned counted.
    void forget(MPI_Datatype type);
    uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

  private:
    const TypeRecord *decode(MPI_Datatype type);
    const TypeRecord *findLocked(MPI_Datatype type);

    std::mutex mutex_;
    std::unordered_map<MPI_Datatype, const TypeRecord *> byHandle_;
    std::unordered_map<int64_t, const TypeRecord *> namedById_;
    std::unordered_map<MPI_Datatype, std::vector<const TypeRecord *>> inputsOf_;
    std::unordered_map<MPI_Datatype, int64_t> extraReferences_;
    std::deque<TypeRecord> records_;
    int64_t nextDerivedId_ = kFirstDerivedTypeId;
    std::atomic<uint64_t> generation_{0};
};

}  // namespace hdtracempi
