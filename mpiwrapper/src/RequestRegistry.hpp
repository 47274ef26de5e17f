// RequestRegistry: request ids (seed section 2.3.7). A rid is given when a
// nonblocking call or a persistent-request constructor returns its request,
// and is never given again. A completed request is forgotten; a persistent
// one keeps its rid, inactive, until MPI_Request_free.
//
// One handle value may stand for several pending requests: Open MPI returns
// one shared, already completed request object for every send that finished
// at once. Such requests are told apart by the address of the program's
// request variable when it is still the same, else by age (oldest first).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <mpi.h>

namespace hdtracempi {

class RequestRegistry {
  public:
    // A fresh rid, not bound to a request (split collectives).
    int64_t newId() { return nextId_.fetch_add(1, std::memory_order_relaxed); }
    // After a call returned *variable: its new rid.
    int64_t created(const MPI_Request *variable, bool persistent);

    struct Entry {
        int64_t rid = -1;
        bool persistent = false;
        bool active = false;
        const MPI_Request *variable = nullptr;
    };
    // The entry of the request in *variable, skipping the rids in excluded
    // (already matched to other elements of the same array); rid -1 for
    // MPI_REQUEST_NULL and unknown requests.
    Entry find(const MPI_Request *variable, const int64_t *excluded = nullptr,
               int excludedCount = 0);
    void started(MPI_Request request, int64_t rid);    // a persistent request is active
    void completed(MPI_Request request, int64_t rid);  // forgets it, or makes it inactive
    void freed(MPI_Request request, int64_t rid);      // MPI_Request_free

  private:
    std::atomic<int64_t> nextId_{0};
    std::mutex mutex_;
    std::unordered_map<MPI_Request, std::vector<Entry>> pending_;  // oldest first
};

}  // namespace hdtracempi
