#include "ThreadContext.hpp"

namespace hdtracempi {
namespace {

// Marks index in a growable bit list; true when it was not marked before.
bool markNew(std::vector<bool> &marks, int64_t index) {
    const size_t at = static_cast<size_t>(index);
    if (at >= marks.size()) marks.resize(at + 1, false);
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

int64_t ThreadContext::declare(const FileRecord *record) {
    if (!record) return -1;
    if (markNew(declaredFiles_, record->id)) writer->writeInfo(record->infoLine);
    return record->id;
}

void ThreadContext::declare(const TypeRecord *record) {
    if (!declaredTypes_.insert(record).second) return;
    for (const TypeRecord *child : record->children)
        declare(child);  // children first
    writer->writeInfo(record->infoLine);
}

const CommRecord *ThreadContext::comm(MPI_Comm handle) {
    if (handle == MPI_COMM_NULL) return nullptr;
    const uint64_t generation = gRuntime->comms.generation();
    if (generation != commGeneration_) {
        commCache_.clear();
        commGeneration_ = generation;
    }
    auto cached = commCache_.find(handle);
    if (cached != commCache_.end()) return cached->second;
    const CommRecord *record = gRuntime->comms.find(handle);
    declare(record);
    commCache_.emplace(handle, record);
    return record;
}

ThreadContext::TypeInfo ThreadContext::type(MPI_Datatype handle) {
    if (handle == MPI_DATATYPE_NULL) return TypeInfo{};
    const uint64_t generation = gRuntime->types.generation();
    if (generation != typeGeneration_) {
        typeCache_.clear();
        typeGeneration_ = generation;
    }
    auto cached = typeCache_.find(handle);
    if (cached != typeCache_.end()) return cached->second;
    const TypeRecord *record = gRuntime->types.find(handle);
    declare(record);
    MPI_Count size = 0;
    if (PMPI_Type_size_x(handle, &size) != MPI_SUCCESS || size == MPI_UNDEFINED) size = 0;
    const TypeInfo info{record->id, static_cast<int64_t>(size)};
    typeCache_.emplace(handle, info);
    return info;
}

}  // namespace hdtracempi
