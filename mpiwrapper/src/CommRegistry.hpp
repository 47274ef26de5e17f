// CommRegistry: communicator ids in creation order, with the world rank of
// every member (docs/format/info.md). Process-wide; a record never changes
// after it is made and is never deleted, so threads may keep pointers to it.
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

struct CommRecord {
    int64_t id = -1;
    bool isInter = false;
    int localRank = -1;              // this process's rank in the local group
    std::vector<int> localToWorld;   // local group: world rank of local rank i
    std::vector<int> remoteToWorld;  // remote group of an intercommunicator
    std::string infoLine;

    // The world rank of a rank as a call names it: in the remote group for
    // intercommunicators, as MPI defines. Special values become portable.
    int64_t worldRankOfPeer(int rank) const;
};

class CommRegistry {
  public:
    // Records MPI_COMM_WORLD (id 0) and MPI_COMM_SELF (id 1).
    void start();
    // The record of comm, made now if comm was never seen; nullptr for MPI_COMM_NULL.
    const CommRecord *find(MPI_Comm comm);
    // A communicator a constructor returned: always a new record.
    const CommRecord *created(MPI_Comm comm);
    // A duplicate of original's communicator (MPI_Comm_idup) whose handle
    // may not be queried yet: a new record with original's groups, no name.
    const CommRecord *duplicated(const CommRecord &original, MPI_Comm comm);
    // World rank of every member of group, in group order.
    static std::vector<int> worldRanksOf(MPI_Group group);
    // Before MPI_Comm_free: the handle may name another communicator later.
    void forget(MPI_Comm comm);
    // Changes whenever a handle is forgotten, so that per-thread caches know
    // when to drop their entries.
    uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

  private:
    const CommRecord *makeRecord(MPI_Comm comm, const char *nameOverride);

    std::mutex mutex_;
    std::unordered_map<MPI_Comm, const CommRecord *> byHandle_;
    std::deque<CommRecord> records_;
    std::atomic<uint64_t> generation_{0};
};

}  // namespace hdtracempi
