#include "CommRegistry.hpp"

#include <hdtrace/codec/Inlining.hpp>

#include "HandleGeneration.hpp"
#include "InfoLines.hpp"
#include "PortableValues.hpp"

namespace hdtracempi {
// Through one translation call.
std::vector<int> CommRegistry::worldRanksOf(MPI_Group group) {
    int size = 0;
    PMPI_Group_size(group, &size);
    std::vector<int> local(static_cast<size_t>(size)), world(static_cast<size_t>(size));
    for (int i = 0; i < size; ++i)
        local[static_cast<size_t>(i)] = i;
    MPI_Group worldGroup;
    PMPI_Comm_group(MPI_COMM_WORLD, &worldGroup);
    PMPI_Group_translate_ranks(group, size, local.data(), worldGroup, world.data());
    PMPI_Group_free(&worldGroup);
    return world;
}

HDTRACE_CALL_PATH int64_t CommRecord::worldRankOfPeer(int rank) const {
    if (rank < 0) return portableRank(rank);
    const std::vector<int> &peers = isInter ? remoteToWorld : localToWorld;
    if (static_cast<size_t>(rank) >= peers.size()) return rank;  // erroneous; logged as given
    return peers[static_cast<size_t>(rank)];
}

void CommRegistry::start() {
    std::lock_guard<std::mutex> lock(mutex_);
    byHandle_[MPI_COMM_WORLD] = makeRecord(MPI_COMM_WORLD, "WORLD");
    byHandle_[MPI_COMM_SELF] = makeRecord(MPI_COMM_SELF, "SELF");
}

const CommRecord *CommRegistry::makeRecord(MPI_Comm comm, const char *nameOverride) {
    CommRecord &record = records_.emplace_back();
    record.id = static_cast<int64_t>(records_.size()) - 1;
    int isInter = 0;
    PMPI_Comm_test_inter(comm, &isInter);
    record.isInter = isInter != 0;
    if (PMPI_Comm_rank(comm, &record.localRank) != MPI_SUCCESS) record.localRank = -1;
    MPI_Group group;
    PMPI_Comm_group(comm, &group);
    record.localToWorld = worldRanksOf(group);
    PMPI_Group_free(&group);
    if (record.isInter) {
        PMPI_Comm_remote_group(comm, &group);
        record.remoteToWorld = worldRanksOf(group);
        PMPI_Group_free(&group);
    }
    char name[MPI_MAX_OBJECT_NAME] = "";
    int nameLength = 0;
    if (!nameOverride) PMPI_Comm_get_name(comm, name, &nameLength);
    record.infoLine = commLine(record.id, nameOverride ? nameOverride : name, record.localToWorld,
                               record.isInter ? &record.remoteToWorld : nullptr);
    return &record;
}

const CommRecord *CommRegistry::find(MPI_Comm comm) {
    if (comm == MPI_COMM_NULL) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = byHandle_.find(comm);
    if (found != byHandle_.end()) return found->second;
    const CommRecord *record = makeRecord(comm, nullptr);
    byHandle_[comm] = record;
    return record;
}

const CommRecord *CommRegistry::created(MPI_Comm comm) {
    if (comm == MPI_COMM_NULL) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    const CommRecord *record = makeRecord(comm, nullptr);
    if (byHandle_.count(comm)) bumpGeneration(generation_);
    byHandle_[comm] = record;
    return record;
}

const CommRecord *CommRegistry::duplicated(const CommRecord &original, MPI_Comm comm) {
    if (comm == MPI_COMM_NULL) return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    CommRecord &record = records_.emplace_back();
    record.id = static_cast<int64_t>(records_.size()) - 1;
    record.isInter = original.isInter;
    record.localRank = original.localRank;
    record.localToWorld = original.localToWorld;
    record.remoteToWorld = original.remoteToWorld;
    record.infoLine = commLine(record.id, "", record.localToWorld,
                               record.isInter ? &record.remoteToWorld : nullptr);
    if (byHandle_.count(comm)) bumpGeneration(generation_);
    byHandle_[comm] = &record;
    return &record;
}

void CommRegistry::forget(MPI_Comm comm) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (byHandle_.erase(comm)) bumpGeneration(generation_);
}

}  // namespace hdtracempi
