#include "RequestRegistry.hpp"

#include <algorithm>
#include <cstring>

namespace hdtracempi {
namespace {

constexpr size_t kInitialSlots = 64;

bool isExcluded(int64_t rid, const int64_t *excluded, int excludedCount) {
    for (int i = 0; i < excludedCount; ++i)
        if (excluded[i] == rid) return true;
    return false;
}

}  // namespace

// --- RequestTable: the owner's lock-free path.

RequestTable::RequestTable(RequestRegistry &registry)
    : registry_(registry), slots_(new Slot[kInitialSlots]()), mask_(kInitialSlots - 1) {
    registry_.add(this);
}

RequestTable::~RequestTable() = default;  // contexts live until the process ends

int64_t RequestTable::created(const MPI_Request *variable, bool persistent, bool written) {
    const int64_t rid = registry_.newId();
    const MPI_Request handle = *variable;
    if (handle == MPI_REQUEST_NULL) return rid;
    if (4 * (used_ + 1) > 3 * (mask_ + 1)) rebuild();
    size_t at = hashOf(handle) & mask_;
    while (slots_[at].state.load(std::memory_order_relaxed) != kEmpty)
        at = (at + 1) & mask_;
    Slot &slot = slots_[at];
    slot.handle.store(handle, std::memory_order_relaxed);
    slot.variable.store(variable, std::memory_order_relaxed);
    slot.rid.store(rid, std::memory_order_relaxed);
    slot.persistent.store(persistent, std::memory_order_relaxed);
    slot.active.store(!persistent, std::memory_order_relaxed);
    slot.written.store(written, std::memory_order_relaxed);
    slot.state.store(kLive, std::memory_order_release);
    ++used_;
    return rid;
}

RequestTable::Slot *RequestTable::lookup(MPI_Request handle, const MPI_Request *variable,
                                         const int64_t *excluded, int excludedCount) const {
    Slot *oldest = nullptr;
    for (size_t at = hashOf(handle) & mask_;; at = (at + 1) & mask_) {
        Slot &slot = slots_[at];
        const uint8_t state = slot.state.load(std::memory_order_acquire);
        if (state == kEmpty) break;
        if (state != kLive || slot.handle != handle) continue;
        if (excludedCount && isExcluded(slot.rid, excluded, excludedCount)) continue;
        if (slot.variable == variable) return &slot;
        if (!oldest || slot.rid < oldest->rid) oldest = &slot;
    }
    return oldest;
}

RequestRegistry::Entry RequestTable::find(const MPI_Request *variable, const int64_t *excluded,
                                          int excludedCount) {
    const MPI_Request handle = *variable;
    if (handle == MPI_REQUEST_NULL) return RequestRegistry::Entry{};
    if (const Slot *slot = lookup(handle, variable, excluded, excludedCount)) {
        return RequestRegistry::Entry{slot->rid,
                                      slot->persistent,
                                      slot->active.load(std::memory_order_relaxed),
                                      slot->variable,
                                      handle,
                                      this,
                                      slot->written.load(std::memory_order_relaxed)};
    }
    return registry_.findElsewhere(this, handle, variable, excluded, excludedCount);
}

// The slot of an entry of this table, found again: nested calls may have
// rebuilt the table since find().
RequestTable::Slot *RequestTable::slotOf(const RequestRegistry::Entry &entry) const {
    for (size_t at = hashOf(entry.handle) & mask_;; at = (at + 1) & mask_) {
        Slot &slot = slots_[at];
        const uint8_t state = slot.state.load(std::memory_order_acquire);
        if (state == kEmpty) return nullptr;
        if (state == kLive && slot.rid == entry.rid) return &slot;
    }
}

void RequestTable::apply(Slot *slot, RequestRegistry::Change change) {
    if (!slot) return;
    switch (change) {
        case RequestRegistry::Change::Start:
            slot->active.store(true, std::memory_order_relaxed);
            break;
        case RequestRegistry::Change::Complete:
            if (slot->persistent) {
                slot->active.store(false, std::memory_order_relaxed);
                break;
            }
            slot->state.store(kRemoved, std::memory_order_release);
            break;
        case RequestRegistry::Change::Free:
            slot->state.store(kRemoved, std::memory_order_release);
            break;
    }
}

// The owner's removal: a removed slot that ends a probe sequence (the next
// slot is empty) becomes empty again, and so do the removed slots before it.
// MPI libraries reuse request objects, so without this one handle's probe
// sequence would grow with every request that came and went.
void RequestTable::remove(Slot *slot) {
    slot->state.store(kRemoved, std::memory_order_release);
    size_t at = static_cast<size_t>(slot - slots_.get());
    if (slots_[(at + 1) & mask_].state.load(std::memory_order_relaxed) != kEmpty) return;
    while (slots_[at].state.load(std::memory_order_relaxed) == kRemoved) {
        slots_[at].state.store(kEmpty, std::memory_order_release);
        --used_;
        at = (at - 1) & mask_;
    }
}

void RequestTable::started(const RequestRegistry::Entry &entry) {
    if (entry.rid < 0) return;
    if (entry.table != this)
        return registry_.changeElsewhere(entry, RequestRegistry::Change::Start);
    apply(slotOf(entry), RequestRegistry::Change::Start);
}

void RequestTable::completed(const RequestRegistry::Entry &entry) {
    if (entry.rid < 0) return;
    ++completed_;
    if (entry.table != this)
        return registry_.changeElsewhere(entry, RequestRegistry::Change::Complete);
    Slot *slot = slotOf(entry);
    if (slot && !slot->persistent)
        remove(slot);
    else
        apply(slot, RequestRegistry::Change::Complete);
}

void RequestTable::freed(const RequestRegistry::Entry &entry) {
    if (entry.rid < 0) return;
    if (entry.table != this) return registry_.changeElsewhere(entry, RequestRegistry::Change::Free);
    if (Slot *slot = slotOf(entry)) remove(slot);
}

// Rare (once per many creations): a new slot array without the removed
// slots, twice as large when more than half of the old one is live.
void RequestTable::rebuild() {
    size_t live = 0;
    for (size_t i = 0; i <= mask_; ++i)
        if (slots_[i].state.load(std::memory_order_relaxed) == kLive) ++live;
    size_t capacity = mask_ + 1;
    while (4 * (live + 1) > capacity)
        capacity *= 2;
    std::unique_ptr<Slot[]> fresh(new Slot[capacity]());
    const size_t freshMask = capacity - 1;
    std::lock_guard<std::mutex> lock(registry_.tablesMutex());
    // Under the lock: another thread may have removed a slot meanwhile.
    size_t moved = 0;
    for (size_t i = 0; i <= mask_; ++i) {
        const Slot &old = slots_[i];
        if (old.state.load(std::memory_order_acquire) != kLive) continue;
        size_t at = hashOf(old.handle) & freshMask;
        while (fresh[at].state.load(std::memory_order_relaxed) != kEmpty)
            at = (at + 1) & freshMask;
        Slot &slot = fresh[at];
        slot.handle.store(old.handle, std::memory_order_relaxed);
        slot.variable.store(old.variable, std::memory_order_relaxed);
        slot.rid.store(old.rid, std::memory_order_relaxed);
        slot.persistent.store(old.persistent, std::memory_order_relaxed);
        slot.active.store(old.active.load(std::memory_order_relaxed), std::memory_order_relaxed);
        slot.written.store(old.written.load(std::memory_order_relaxed), std::memory_order_relaxed);
        slot.state.store(kLive, std::memory_order_relaxed);
        ++moved;
    }
    slots_ = std::move(fresh);
    mask_ = freshMask;
    used_ = moved;
}

// --- RequestRegistry: the slow path across threads.

void RequestRegistry::add(RequestTable *table) {
    std::lock_guard<std::mutex> lock(mutex_);
    tables_.push_back(table);
    tableCount_.store(tables_.size(), std::memory_order_release);
}

RequestRegistry::Entry RequestRegistry::findElsewhere(const RequestTable *own, MPI_Request handle,
                                                      const MPI_Request *variable,
                                                      const int64_t *excluded, int excludedCount) {
    // One thread's table alone: no other to look in, and no lock to take
    // for the requests no traced call made (left out by a filter, or made
    // around the wrapper).
    if (tableCount_.load(std::memory_order_acquire) <= 1) return Entry{};
    std::lock_guard<std::mutex> lock(mutex_);
    const RequestTable::Slot *best = nullptr;
    RequestTable *bestTable = nullptr;
    for (RequestTable *table : tables_) {
        if (table == own) continue;
        const RequestTable::Slot *slot = table->lookup(handle, variable, excluded, excludedCount);
        if (!slot) continue;
        const bool better =
            !best || (slot->variable == variable && best->variable != variable) ||
            ((slot->variable == variable) == (best->variable == variable) && slot->rid < best->rid);
        if (better) {
            best = slot;
            bestTable = table;
        }
    }
    if (!best) return Entry{};
    return Entry{
        best->rid, best->persistent, best->active.load(std::memory_order_relaxed), best->variable,
        handle,    bestTable,        best->written.load(std::memory_order_relaxed)};
}

void RequestRegistry::changeElsewhere(const Entry &entry, Change change) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (std::find(tables_.begin(), tables_.end(), entry.table) == tables_.end()) return;
    entry.table->apply(entry.table->slotOf(entry), change);
}

}  // namespace hdtracempi
