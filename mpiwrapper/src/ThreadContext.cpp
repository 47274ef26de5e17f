#include "ThreadContext.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace hdtracempi {
namespace {

template <typename Handle>
uint64_t handleBits(Handle handle) {
    if constexpr (std::is_pointer_v<Handle>)
        return reinterpret_cast<uintptr_t>(handle);
    else
        return static_cast<uint64_t>(handle);
}

// Marks index in a growable bit list; true when it was not marked before.
bool markNew(std::vector<bool> &marks, int64_t index) {
    const size_t at = static_cast<size_t>(index);
    // Grown by half at least: derived type ids come one by one.
    if (at >= marks.size()) marks.resize(std::max(at + 1, marks.size() + marks.size() / 2), false);
    if (marks[at]) return false;
    marks[at] = true;
    return true;
}

}  // namespace

int64_t ThreadContext::declare(const CommRecord *record) {
    if (!record) return -1;
    if (markNew(declaredComms_, record->id)) writer->writeInfo(record->infoLine);
    return record->id;
}

int64_t ThreadContext::declareFile(const FileRecord *record) {
    if (!record) return -1;
    if (markNew(declaredFiles_, record->id)) writer->writeInfo(record->infoLine);
    lastDeclaredFile_ = record;
    return record->id;
}

void ThreadContext::declare(const TypeRecord *record) {
    const bool isNew = record->predefined
                           ? declaredNamedTypes_.insert(record->id).second
                           : markNew(declaredDerivedTypes_, record->id - kFirstDerivedTypeId);
    if (!isNew) return;
    for (const TypeRecord *child : record->children)
        declare(child);  // children first
    writer->writeInfo(record->infoLine);
}

const CommRecord *ThreadContext::commSlow(MPI_Comm handle) {
    if (handle == MPI_COMM_NULL) return nullptr;
    // Read before the lookup: a change made meanwhile invalidates the cache.
    const uint64_t handleGeneration = gHandleGeneration.load(std::memory_order_acquire);
    const uint64_t generation = gRuntime->comms.generation();
    if (generation != commGeneration_) {
        commCache_.clear();
        commGeneration_ = generation;
    }
    const CommRecord *record;
    auto cached = commCache_.find(handle);
    if (cached != commCache_.end()) {
        record = cached->second;
    } else {
        record = gRuntime->comms.find(handle);
        declare(record);
        commCache_.emplace(handle, record);
    }
    lastComm_ = handle;
    lastCommRecord_ = record;
    lastCommGeneration_ = handleGeneration;
    return record;
}

ThreadContext::TypeInfo ThreadContext::typeSlow(MPI_Datatype handle) {
    if (handle == MPI_DATATYPE_NULL) return TypeInfo{};
    // Handles are pointers (Open MPI) or integers (MPICH): both spread over
    // the table by their bits above the alignment.
    const uint64_t bits = handleBits(handle);
    TypeEntry &entry = typeCache_[(bits ^ (bits >> 6) ^ (bits >> 12)) % kTypeCacheSize];
    if (!entry.valid(handle)) {
        // The reference keeps the record (and its children) while it is
        // declared, whatever other threads free meanwhile, and while cached.
        TypeReference record = gRuntime->types.find(handle);
        declare(record.get());
        entry.info = TypeInfo{record->id, record->size};
        entry.handle = handle;
        entry.record = std::move(record);
    }
    lastType_ = entry;
    return entry.info;
}

const FileRecord *ThreadContext::fileSlow(MPI_File handle) {
    const uint64_t handleGeneration = gHandleGeneration.load(std::memory_order_acquire);
    const FileRecord *record = gRuntime->files.find(handle);
    declare(record);
    if (record) {  // unknown handles are not cached: they may be opened later
        lastFile_ = handle;
        lastFileRecord_ = record;
        lastFileGeneration_ = handleGeneration;
    }
    return record;
}

// --- One-sided communication

int64_t ThreadContext::declare(const WinRecord *record) {
    if (!record) return -1;
    declare(record->comm);  // the Win line names its communicator
    if (markNew(declaredWins_, record->id)) writer->writeInfo(record->infoLine);
    return record->id;
}

const WinRecord *ThreadContext::winSlow(MPI_Win handle) {
    const uint64_t handleGeneration = gHandleGeneration.load(std::memory_order_acquire);
    const WinRecord *record = gRuntime->wins.find(handle);
    declare(record);
    if (record) {  // unknown handles are not cached: they may be created later
        lastWin_ = handle;
        lastWinRecord_ = record;
        lastWinGeneration_ = handleGeneration;
    }
    return record;
}

}  // namespace hdtracempi
