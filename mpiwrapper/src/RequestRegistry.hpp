// RequestRegistry: request ids (docs/format/README.md, "Ids"). A rid is given when a
// nonblocking call or a persistent-request constructor returns its request,
// and is never given again. A completed request is forgotten; a persistent
// one keeps its rid, inactive, until MPI_Request_free.
//
// One handle value may stand for several pending requests: Open MPI returns
// one shared, already completed request object for every send that finished
// at once. Such requests are told apart by the address of the program's
// request variable when it is still the same, else by age (oldest first).
//
// Each thread keeps the requests it created in its own RequestTable, an
// open-addressing hash table that only its owner inserts into: the calls of
// one thread take no lock. A request that completes in another thread than
// the one that created it is found through the process-wide list of tables,
// under a mutex, on that slow path only.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include <mpi.h>

namespace hdtracempi {

class RequestTable;

class RequestRegistry {
  public:
    // A fresh rid, not bound to a request (split collectives).
    int64_t newId() { return nextId_.fetch_add(1, std::memory_order_relaxed); }

    struct Entry {
        int64_t rid = -1;
        bool persistent = false;
        bool active = false;
        const MPI_Request *variable = nullptr;
        MPI_Request handle = MPI_REQUEST_NULL;
        RequestTable *table = nullptr;  // where it was found
        // The call that made it was written; else (left out by the filter
        // or MPI_Pcontrol) no <For> may name its rid.
        bool written = false;
    };

    // The slow path: the entry of handle in another thread's table than
    // own, skipping the excluded rids; rid -1 when no table has it.
    Entry findElsewhere(const RequestTable *own, MPI_Request handle, const MPI_Request *variable,
                        const int64_t *excluded, int excludedCount);
    // Updates the entry found by findElsewhere (started, completed, freed).
    enum class Change { Start, Complete, Free };
    void changeElsewhere(const Entry &entry, Change change);

    void add(RequestTable *table);
    // A table swaps its slot array under this lock, so that no other
    // thread reads an array that is being freed.
    std::mutex &tablesMutex() { return mutex_; }

  private:
    std::atomic<int64_t> nextId_{0};
    std::mutex mutex_;
    std::vector<RequestTable *> tables_;
    std::atomic<size_t> tableCount_{0};  // tables_.size(), read without the lock
};

// The pending requests one thread created. Only the owning thread inserts;
// other threads read and remove entries under RequestRegistry::tablesMutex().
class RequestTable {
  public:
    explicit RequestTable(RequestRegistry &registry);
    ~RequestTable();
    RequestTable(const RequestTable &) = delete;
    RequestTable &operator=(const RequestTable &) = delete;

    // After a call returned *variable: its new rid. written: whether the
    // call was written, so that its completions may name the rid.
    int64_t created(const MPI_Request *variable, bool persistent, bool written);
    // The entry of the request in *variable, skipping the rids in excluded
    // (already matched to other elements of the same array); rid -1 for
    // MPI_REQUEST_NULL and unknown requests. Looks in other threads' tables
    // when this one does not hold the request.
    RequestRegistry::Entry find(const MPI_Request *variable, const int64_t *excluded = nullptr,
                                int excludedCount = 0);
    // What happened to an entry find() returned.
    void started(const RequestRegistry::Entry &entry);    // a persistent request is active
    void completed(const RequestRegistry::Entry &entry);  // forgets it, or makes it inactive
    void freed(const RequestRegistry::Entry &entry);      // MPI_Request_free

    // The proof that no <For> is lost (docs/format/mpi3.md, "MPI-3.1 calls", HDTRACE_VERBOSE):
    // requests this thread saw complete in Wait*/Test*, and those among them
    // that no traced call created (they complete without a <For>).
    void countUnseen() { ++unseen_; }
    uint64_t completedCount() const { return completed_; }
    uint64_t unseenCount() const { return unseen_; }

  private:
    friend class RequestRegistry;
    enum State : uint8_t { kEmpty = 0, kLive = 1, kRemoved = 2 };
    struct Slot {
        // Written before state becomes kLive and read after seeing kLive.
        // Atomic (relaxed: plain moves) because the owner may refill an
        // emptied slot while another thread's probe passes it.
        std::atomic<MPI_Request> handle;
        std::atomic<const MPI_Request *> variable;
        std::atomic<int64_t> rid;
        std::atomic<bool> persistent;
        std::atomic<bool> active;
        std::atomic<bool> written;
        std::atomic<uint8_t> state;
    };

    static size_t hashOf(MPI_Request handle) {
        // Handles are pointers (Open MPI) or integers (MPICH); mix their bits.
        uint64_t bits = 0;
        std::memcpy(&bits, &handle, sizeof handle < sizeof bits ? sizeof handle : sizeof bits);
        bits ^= bits >> 29;
        bits *= 0xbf58476d1ce4e5b9ULL;
        return static_cast<size_t>(bits ^ (bits >> 32));
    }
    // The live slot of handle that the rules above choose; nullptr if none.
    Slot *lookup(MPI_Request handle, const MPI_Request *variable, const int64_t *excluded,
                 int excludedCount) const;
    Slot *slotOf(const RequestRegistry::Entry &entry) const;
    void apply(Slot *slot, RequestRegistry::Change change);
    void remove(Slot *slot);  // by the owner only
    void rebuild();           // drops removed slots, grows when needed

    RequestRegistry &registry_;
    std::unique_ptr<Slot[]> slots_;
    size_t mask_ = 0;
    size_t used_ = 0;  // live and removed slots: the probe sequences' length
    uint64_t completed_ = 0;
    uint64_t unseen_ = 0;
};

}  // namespace hdtracempi
