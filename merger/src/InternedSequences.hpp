// Sequences of small values (a canonical rank map's runs, a member set's
// ranges) kept back to back in one array, each distinct sequence once under
// a dense id: equal sequences get equal ids. The unifier interns one map per
// distinct Comm line, a number that grows with the ranks (every rank's SELF,
// its pair's and quad's maps), so a map costs its elements and one slot of
// the index, not a vector and a hash node of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "FlatMap.hpp"
#include "Span.hpp"

namespace hdtrace::merger {

// ElementHash gives a 64-bit hash of one value; values compare with ==.
template <class T, class ElementHash>
class InternedSequences {
  public:
    InternedSequences() : index_(0, KeyEqual{this}) {}
    // The index refers back to this object.
    InternedSequences(const InternedSequences &) = delete;
    InternedSequences &operator=(const InternedSequences &) = delete;

    // The id of the sequence of `values` (anything with begin() and end()).
    template <class Values>
    uint32_t intern(const Values &values) {
        // Appended as the next id; taken back when it was there before.
        const size_t first = values_.size();
        uint64_t hash = 1469598103934665603ull;
        for (const T &value : values) {
            values_.push_back(value);
            hash = (hash ^ ElementHash()(value)) * 1099511628211ull;
        }
        const auto candidate = static_cast<uint32_t>(stretches_.size());
        stretches_.push_back({first, values_.size() - first});
        const auto [found, added] = index_.tryEmplace(Key{hash, candidate}, candidate);
        if (!added) {
            values_.resize(first);
            stretches_.pop_back();
        }
        return *found;
    }

    Span<T> operator[](uint32_t id) const {
        const Stretch &stretch = stretches_[id];
        return Span<T>(values_.data() + stretch.first, stretch.size);
    }

    size_t size() const { return stretches_.size(); }

  private:
    struct Stretch {
        size_t first;
        size_t size;
    };
    struct Key {
        uint64_t hash;
        uint32_t id;
    };
    struct KeyHash {
        size_t operator()(const Key &key) const { return static_cast<size_t>(key.hash); }
    };
    struct KeyEqual {
        const InternedSequences *owner;
        bool operator()(const Key &a, const Key &b) const {
            return a.hash == b.hash && owner->same(a.id, b.id);
        }
    };

    bool same(uint32_t a, uint32_t b) const {
        const Span<T> first = (*this)[a], second = (*this)[b];
        if (first.size() != second.size()) return false;
        for (size_t i = 0; i < first.size(); ++i)
            if (!(first[i] == second[i])) return false;
        return true;
    }

    std::vector<T> values_;
    std::vector<Stretch> stretches_;  // by id
    FlatMap<Key, uint32_t, KeyHash, KeyEqual> index_;
};

}  // namespace hdtrace::merger
