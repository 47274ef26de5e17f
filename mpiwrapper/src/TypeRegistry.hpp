// TypeRegistry: datatype ids and their decoding through
// MPI_Type_get_envelope / MPI_Type_get_contents (docs/format/info.md,
// docs/format/project.md). Process-wide; records are immutable once made, and counted
// references keep them: a record lives while its handle does or
// a living record is built from it, so that a program that makes and frees
// millions of types (parallel HDF5) does not grow the wrapper's memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <mpi.h>

#include "HandleTable.hpp"
#include "SpinLock.hpp"
#include "TypeArguments.hpp"
#include "TypeDefinitions.hpp"

namespace hdtracempi {

struct TypeRecord {
    int64_t id = -1;  // -1 while pending (see pending)
    // Predefined (MPI_Type_c2f id, which on MPICH lies above the derived
    // ids), or derived (ids from kFirstDerivedTypeId up, in sequence).
    bool predefined = false;
    // Bytes of data (MPI_Type_size_x; 0 where MPI leaves it undefined), set
    // with the id: a definition's size, so that a thread's first lookup of
    // a handle needs no MPI call for it.
    int64_t size = 0;
    // The types the line references; each entry holds a reference.
    std::vector<const TypeRecord *> children;
    std::string infoLine;
    // Counted references (TypeReference): the registry's, the parents',
    // the threads' caches, and those of callers still reading the record.
    mutable std::atomic<int64_t> references{0};
    // Set when the registry lets go of the handle (MPI_Type_free): a thread
    // that cached the record under that handle must look it up again, as
    // the handle may name another type now (a flag per record
    // instead of a counter that every free advanced, which emptied every
    // thread's caches at each MPI_Type_free of a program like HDF5).
    mutable std::atomic<bool> retired{false};
    // A type made by a traced constructor is entered as soon as
    // it is made, with its children and the constructor's arguments, and
    // gets its id and line (the one MPI_Type_get_contents would give) when
    // first needed, as every type did before: ids stay in order of first
    // use, and the name is the one the type has then (MPI_Type_set_name,
    // Open MPI's "Dup " names). While it is pending (id -1), infoLine holds
    // its arguments packed (packTypeArguments: formatted only if the
    // definition is new) and pendingCombiner its combiner. Only the
    // registry sees a pending record, under its lock.
    int pendingCombiner = MPI_COMBINER_NAMED;
    // Dead records are kept for reuse (TypeRegistry.cpp), with
    // the memory of their children and line; this links them.
    TypeRecord *nextFree = nullptr;
};

// A counted reference to a record: the record, and each record it is built
// from, stays while one exists. Copying and releasing are atomic, so a
// thread may drop one outside the registry's lock.
class TypeReference {
  public:
    TypeReference() = default;
    explicit TypeReference(const TypeRecord *record) : record_(record) {
        if (record_) record_->references.fetch_add(1, std::memory_order_relaxed);
    }
    TypeReference(const TypeReference &other) : TypeReference(other.record_) {}
    TypeReference(TypeReference &&other) noexcept : record_(other.record_) {
        other.record_ = nullptr;
    }
    TypeReference &operator=(TypeReference other) noexcept {
        std::swap(record_, other.record_);
        return *this;
    }
    ~TypeReference() { release(record_); }

    const TypeRecord *get() const { return record_; }
    const TypeRecord *operator->() const { return record_; }
    explicit operator bool() const { return record_ != nullptr; }
    // Gives up the reference without dropping it (a parent's children
    // entry takes it over).
    const TypeRecord *detach() {
        const TypeRecord *record = record_;
        record_ = nullptr;
        return record;
    }
    // Drops one reference to record; the last one deletes it, and so on
    // down its children, without recursion (a chain of types, each built
    // from the one before, may be long). Inline for the common case, a
    // reference that is not the last.
    static void release(const TypeRecord *record) {
        if (record && record->references.fetch_sub(1, std::memory_order_acq_rel) == 1)
            releaseLast(record);
    }

  private:
    // record's last reference was dropped.
    static void releaseLast(const TypeRecord *record);
    const TypeRecord *record_ = nullptr;
};

// Derived types are numbered from here, clear of every library's
// predefined MPI_Type_c2f values (docs/format/info.md).
constexpr int64_t kFirstDerivedTypeId = int64_t(1) << 24;

class TypeRegistry {
  public:
    // The record of type, decoded now (with every type it is built from) if
    // the handle is new; empty for MPI_DATATYPE_NULL.
    TypeReference find(MPI_Datatype type);
    // After a type constructor: the types newType is built from, as the
    // program passed them, and what the constructor's arguments say of it.
    // MPI_Type_get_contents would return new handles for the inputs (Open
    // MPI returns duplicates, named "Dup ") and cost a duplicate of each
    //; the line refers to the ids the program's own types have
    // in the trace, and needs no MPI_Type_get_contents at all.
    void constructed(MPI_Datatype newType, int count, const MPI_Datatype inputs[],
                     const TypeArguments &arguments);
    // After the program's MPI_Type_get_contents: a returned handle that
    // names a type this registry knows is another reference to it (MPICH
    // returns the same handle with its count raised), which the program
    // frees on its own; that MPI_Type_free must not forget the type.
    void contentsReturned(int count, const MPI_Datatype types[]);
    // Before MPI_Type_free: the handle may name another type later, unless
    // this frees one of the extra references contentsReturned counted.
    void forget(MPI_Datatype type);

  private:
    TypeReference decode(MPI_Datatype type);
    void decodePending(MPI_Datatype type, TypeRecord &record);
    // The id and line of a derived type (either way of decoding it): those
    // of its definition if the table knows it, else a new id and the line
    // formatted, and the table told.
    void identify(MPI_Datatype type, int combiner, std::string_view name,
                  const std::string &packedArguments, const int64_t *childIds, size_t childCount,
                  TypeRecord &record);
    TypeReference findLocked(MPI_Datatype type);
    // Lets go of the record the handle names (retired for the threads).
    void dropHandle(TypeReference *entry);

    SpinLock lock_;
    // Decoded and pending records by handle; a pending record's entry is
    // the only reference to it, so the registry may complete it.
    // open-addressed (HandleTable.hpp), no division and no node per entry.
    HandleTable<MPI_Datatype, TypeReference> byHandle_;
    std::unordered_map<int64_t, TypeReference> namedById_;  // kept for good
    std::unordered_map<MPI_Datatype, int64_t> extraReferences_;
    int64_t nextDerivedId_ = kFirstDerivedTypeId;
    TypeDefinitions definitions_;
    // Scratch for a definition's key and a type's arguments, packed and as
    // text, kept for their memory.
    std::string key_;
    std::string packed_;
    std::vector<int64_t> integers_;
    std::vector<int64_t> addresses_;
    std::string arguments_;
};

}  // namespace hdtracempi
