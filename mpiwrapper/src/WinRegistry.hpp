// WinRegistry: one-sided communication windows. Each window gets an id
// `wid` in creation order per process and an .info line (docs/format/info.md,
// "One-sided communication"). A window keeps the record of the
// communicator it was made on, so that target ranks become world ranks
// even after the program freed that communicator. Process-wide; records
// never change and are never deleted, so threads may keep pointers to them.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include <mpi.h>

#include "CommRegistry.hpp"

namespace hdtracempi {

// How a window was made: the Win line's kind.
enum class WinKind { Create, Allocate, Shared, Dynamic };
const char *winKindName(WinKind kind);

struct WinRecord {
    int64_t id = -1;
    const CommRecord *comm = nullptr;
    std::string infoLine;

    int64_t worldRankOfTarget(int rank) const;
};

class WinRegistry {
  public:
    // After a window constructor succeeded: always a new record.
    const WinRecord *created(MPI_Win win, const CommRecord *comm, int64_t size, int64_t dispUnit,
                             WinKind kind);
    const WinRecord *find(MPI_Win win);  // nullptr for unknown handles
    void forget(MPI_Win win);            // before MPI_Win_free
    // Changes whenever a handle is forgotten (per-thread caches).
    uint64_t generation() const { return generation_.load(std::memory_order_acquire); }

  private:
    std::mutex mutex_;
    std::unordered_map<MPI_Win, const WinRecord *> byHandle_;
    std::deque<WinRecord> records_;
    std::atomic<uint64_t> generation_{0};
};

// The name of a predefined reduction operation (MPI_SUM, ...), else "user".
const char *opName(MPI_Op op);

}  // namespace hdtracempi
