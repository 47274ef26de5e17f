// TypeRegistry: datatype ids and their decoding through
// MPI_Type_get_envelope / MPI_Type_get_contents (seed section 2.3.5,
// Appendix B). Process-wide; records are immutable once made, and counted
// references keep them (issue 16): a record lives while its handle does or
// a living record is built from it, so that a program that makes and frees
// millions of types (parallel HDF5) does not grow the wrapper's memory.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <mpi.h>

#include "TypeArguments.hpp"

namespace hdtracempi {

struct TypeRecord {
    int64_t id = -1;
    // Predefined (MPI_Type_c2f id, which on MPICH lies above the derived
    // ids), or derived (ids from kFirstDerivedTypeId up, in sequence).
    bool predefined = false;
    // The types the line references; each entry holds a reference.
    std::vector<const TypeRecord *> children;
    std::string infoLine;
    // Counted references (TypeReference): the registry's, the parents',
    // and those of callers still reading the record.
    mutable std::atomic<int64_t> references{0};
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
    // from the one before, may be long).
    static void release(const TypeRecord *record);

  private:
    const TypeRecord *record_ = nullptr;
};

// Derived types are numbered from here, clear of every library's
// predefined MPI_Type_c2f values (TRACE-FORMAT.md).
constexpr int64_t kFirstDerivedTypeId = int64_t(1) << 24;

class TypeRegistry {
  public:
    // The record of type, decoded now (with every type it is built from) if
    // the handle is new; empty for MPI_DATATYPE_NULL.
    TypeReference find(MPI_Datatype type);
    // After a type constructor: the types newType is built from, as the
    // program passed them. MPI_Type_get_contents returns new handles for
    // them (Open MPI returns duplicates, named "Dup "), so the decoding of
    // newType refers to these records instead: the ids the program's own
    // types have in the trace. With the constructor's arguments (issue 16),
    // the decoding needs no MPI_Type_get_contents at all.
    void constructed(MPI_Datatype newType, int count, const MPI_Datatype inputs[],
                     TypeArguments arguments = {});
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
    struct Construction;
    TypeReference decode(MPI_Datatype type);
    TypeReference decodeConstructed(MPI_Datatype type, Construction &construction);
    const TypeReference &findLocked(MPI_Datatype type);

    std::mutex mutex_;
    std::unordered_map<MPI_Datatype, TypeReference> byHandle_;
    std::unordered_map<int64_t, TypeReference> namedById_;  // kept for good
    // How a type the program made through a traced constructor was built,
    // until it is decoded (or freed).
    struct Construction {
        std::vector<TypeReference> inputs;
        TypeArguments arguments;  // combiner MPI_COMBINER_NAMED: not known
    };
    std::unordered_map<MPI_Datatype, Construction> constructions_;
    std::unordered_map<MPI_Datatype, int64_t> extraReferences_;
    int64_t nextDerivedId_ = kFirstDerivedTypeId;
    std::atomic<uint64_t> generation_{0};
};

}  // namespace hdtracempi
