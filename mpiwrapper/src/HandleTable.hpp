// HandleTable: an open-addressed map from MPI handles to values, for the
// type registry. A program like parallel HDF5 enters and removes
// a dozen handles per transfer; std::unordered_map cost a 64-bit division
// per lookup and a node per entry. Here the size is a power of two, a
// handle's bits are spread by a multiplicative hash (the top bits of the
// product pick the slot), collisions probe the next slots, and a removal
// shifts the entries after it back so that no tombstone is left.
//
// A slot is free when its value is empty (contextually false): the caller
// never enters an empty value. Not thread-safe: the owner locks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

namespace hdtracempi {

template <typename Handle, typename Value>
class HandleTable {
  public:
    HandleTable() { resize(kInitialSlots); }

    // The value entered under handle, or nullptr. Valid until the next
    // insert or erase (both may move entries).
    Value *find(Handle handle) {
        for (size_t at = home(handle);; at = (at + 1) & mask_) {
            Slot &slot = slots_[at];
            if (!slot.value) return nullptr;
            if (slot.handle == handle) return &slot.value;
        }
    }

    // Enters value (not empty) under handle, which must not be entered.
    void insert(Handle handle, Value value) {
        // At most half full: probes stay short.
        if (2 * (count_ + 1) > slots_.size()) resize(2 * slots_.size());
        place(handle, std::move(value));
        ++count_;
    }

    // Removes the entry find returned; returns its value.
    Value erase(Value *entry) {
        size_t hole = static_cast<size_t>(reinterpret_cast<Slot *>(entry) - slots_.data());
        Value removed = std::move(slots_[hole].value);
        slots_[hole].value = Value();
        --count_;
        // Backward shift: an entry after the hole moves into it unless its
        // home lies cyclically in (hole, at], where it is found without it.
        for (size_t at = (hole + 1) & mask_; slots_[at].value; at = (at + 1) & mask_) {
            const size_t wanted = home(slots_[at].handle);
            const bool reachable =
                hole <= at ? (hole < wanted && wanted <= at) : (hole < wanted || wanted <= at);
            if (reachable) continue;
            slots_[hole].handle = slots_[at].handle;
            slots_[hole].value = std::move(slots_[at].value);
            slots_[at].value = Value();
            hole = at;
        }
        return removed;
    }

    size_t size() const { return count_; }

  private:
    static_assert(std::is_default_constructible_v<Value>, "an empty Value marks a free slot");
    // Value must be the first member: erase finds the slot from the value.
    struct Slot {
        Value value{};
        Handle handle{};
    };
    static_assert(std::is_standard_layout_v<Slot>, "erase converts a Value * to its Slot *");
    static constexpr size_t kInitialSlots = 64;

    static uint64_t bitsOf(Handle handle) {
        if constexpr (std::is_pointer_v<Handle>)
            return reinterpret_cast<uintptr_t>(handle);
        else
            return static_cast<uint64_t>(handle);
    }
    // Fibonacci hashing: the product's top bits depend on all of the
    // handle's bits (pointers differ above their alignment, MPICH's integer
    // handles in their low bits).
    size_t home(Handle handle) const {
        return static_cast<size_t>((bitsOf(handle) * UINT64_C(0x9E3779B97F4A7C15)) >> shift_);
    }
    void place(Handle handle, Value value) {
        size_t at = home(handle);
        while (slots_[at].value)
            at = (at + 1) & mask_;
        slots_[at].handle = handle;
        slots_[at].value = std::move(value);
    }
    void resize(size_t slotCount) {
        std::vector<Slot> old;
        old.swap(slots_);
        slots_.resize(slotCount);
        mask_ = slotCount - 1;
        shift_ = 64;
        for (size_t n = slotCount; n > 1; n >>= 1)
            --shift_;
        for (Slot &slot : old)
            if (slot.value) place(slot.handle, std::move(slot.value));
    }

    std::vector<Slot> slots_;
    size_t mask_ = 0;
    unsigned shift_ = 64;
    size_t count_ = 0;
};

}  // namespace hdtracempi
