// A hash map with its entries inline in one array (open addressing, linear
// probing), for the merger's tables that grow with the ranks of a run: a
// lookup reads one slot, usually one cache line, where a node-based map
// reads a bucket, then a node allocated somewhere else; and the table is one
// allocation, freed at once, not one per entry. Keys and values are small
// and copyable; entries are never erased, only the whole table cleared.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace hdtrace::merger {

template <class Key, class Value, class Hash, class Equal>
class FlatMap {
  public:
    // Room for `expected` entries before the first growth. An equality with
    // state (one that looks keys up elsewhere) is given here.
    explicit FlatMap(size_t expected = 0, Equal equal = Equal()) : equal_(std::move(equal)) {
        reserve(expected);
    }

    void reserve(size_t expected) {
        size_t capacity = 16;
        while (capacity < 2 * expected)
            capacity *= 2;
        if (capacity > slots_.size()) rehash(capacity);
    }

    // The value of key, or nullptr.
    Value *find(const Key &key) { return const_cast<Value *>(std::as_const(*this).find(key)); }

    const Value *find(const Key &key) const { return findEntry(key).second; }

    // The stored key equal to key and its value, or two nullptrs: for a key
    // that refers to storage (a text), the table's is the one kept.
    std::pair<const Key *, const Value *> findEntry(const Key &key) const {
        if (size_ == 0) return {nullptr, nullptr};
        for (size_t slot = startOf(key);; slot = (slot + 1) & mask()) {
            const Slot &at = slots_[slot];
            if (!at.used) return {nullptr, nullptr};
            if (equal_(at.key, key)) return {&at.key, &at.value};
        }
    }

    // The value of key, inserted as `value` when key was not there; second
    // says whether it was inserted.
    std::pair<Value *, bool> tryEmplace(const Key &key, const Value &value) {
        if (2 * (size_ + 1) > slots_.size()) rehash(2 * slots_.size());
        size_t slot = startOf(key);
        for (;; slot = (slot + 1) & mask()) {
            Slot &at = slots_[slot];
            if (!at.used) break;
            if (equal_(at.key, key)) return {&at.value, false};
        }
        slots_[slot] = Slot{key, value, true};
        ++size_;
        return {&slots_[slot].value, true};
    }

    // Empties the table. Its array is kept when it is no more than eight
    // times the room `expected` entries need, so that a table cleared for
    // each rank costs in proportion to that rank's entries.
    void clear(size_t expected) {
        size_t capacity = 16;
        while (capacity < 2 * expected)
            capacity *= 2;
        if (slots_.size() > 8 * capacity) {
            slots_.assign(capacity, Slot{});
            slots_.shrink_to_fit();
        } else if (size_ > 0) {
            slots_.assign(slots_.size(), Slot{});
        }
        size_ = 0;
        reserve(expected);
    }

    size_t size() const { return size_; }

  private:
    struct Slot {
        Key key{};
        Value value{};
        bool used = false;
    };

    size_t mask() const { return slots_.size() - 1; }
    size_t startOf(const Key &key) const {
        // The high bits mixed in: a hash whose low bits vary little (a
        // pointer, a small id) still spreads over the table.
        const uint64_t hash = static_cast<uint64_t>(Hash()(key)) * 0x9e3779b97f4a7c15ull;
        return static_cast<size_t>((hash >> 32) ^ hash) & mask();
    }

    void rehash(size_t capacity) {
        std::vector<Slot> old(capacity);
        old.swap(slots_);
        for (const Slot &slot : old) {
            if (!slot.used) continue;
            size_t at = startOf(slot.key);
            while (slots_[at].used)
                at = (at + 1) & mask();
            slots_[at] = slot;
        }
    }

    Equal equal_;
    std::vector<Slot> slots_;
    size_t size_ = 0;
};

}  // namespace hdtrace::merger
