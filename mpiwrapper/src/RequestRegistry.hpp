// RequestRegistry: request ids (seed section 2.3.7). A rid is given when a
// nonblocking call or a persistent-request constructor returns its request,
// and is never given again. A completed request is forgotten; a persistent
// one keeps its rid, inactive, until MPI_Request_free.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include <mpi.h>

namespace hdtracempi {

class RequestRegistry {
  public:
    // A fresh rid, not bound to a request (split collectives).
    int64_t newId() { return nextId_.fetch_add(1, std::memory_order_relaxed); }
    int64_t created(MPI_Request request, bool persistent);

    struct Entry {
        int64_t rid = -1;
        bool persistent = false;
        bool active = false;
    };
    // The entry of a request; rid -1 for MPI_REQUEST_NULL and unknown requests.
    Entry find(MPI_Request request);
    void started(MPI_Request request);    // MPI_Start: a persistent request is active
    void completed(MPI_Request request);  // forgets it, or makes it inactive
    void freed(MPI_Request request);      // MPI_Request_free

  private:
    std::atomic<int64_t> nextId_{0};
    std::mutex mutex_;
    std::unordered_map<MPI_Request, Entry> pending_;
};

}  // namespace hdtracempi
