// Keeps one parsed record per distinct Comm or Type line text of a run.
// The ranks of a run repeat most of their lines (WORLD and the other shared
// communicators, a row's or a column's map, the predefined and the common
// derived types), so each distinct line is parsed and held once, however
// many ranks write it; a rank keeps references. Safe to use from several
// reading threads at once.
#pragma once

#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "InfoLine.hpp"

namespace hdtrace::merger {

// A line's text with its hash, computed once outside any lock.
struct HashedText {
    explicit HashedText(std::string_view lineText);
    std::string_view text;
    size_t hash;
};

template <class Record>
class RecordsByText {
  public:
    // The record of an earlier line with this text, or nullptr.
    const Record *find(const HashedText &line) {
        Shard &shard = shardOf(line);
        std::lock_guard<std::mutex> lock(shard.mutex);
        const auto found = shard.byText.find(Key{line.hash, line.text});
        return found == shard.byText.end() ? nullptr : found->second;
    }

    // Keeps the record parsed from the line; when another thread added the
    // same text meanwhile, that one's record (equal to this) is returned.
    const Record &add(const HashedText &line, Record &&record) {
        Shard &shard = shardOf(line);
        std::lock_guard<std::mutex> lock(shard.mutex);
        const auto found = shard.byText.find(Key{line.hash, line.text});
        if (found != shard.byText.end()) return *found->second;
        Stored &stored =
            shard.stored.emplace_back(Stored{std::string(line.text), std::move(record)});
        shard.byText.emplace(Key{line.hash, stored.text}, &stored.record);
        return stored.record;
    }

  private:
    struct Key {
        size_t hash;
        std::string_view text;
        bool operator==(const Key &other) const { return hash == other.hash && text == other.text; }
    };
    struct KeyHash {
        size_t operator()(const Key &key) const { return key.hash; }
    };
    struct Stored {
        std::string text;
        Record record;
    };
    struct Shard {
        std::mutex mutex;
        std::unordered_map<Key, const Record *, KeyHash> byText;
        std::deque<Stored> stored;  // a deque keeps its elements in place
    };
    static constexpr size_t kShards = 16;

    Shard &shardOf(const HashedText &line) { return shards_[(line.hash >> 7) % kShards]; }

    Shard shards_[kShards];
};

struct InfoRecordPool {
    RecordsByText<CommRecord> comms;
    RecordsByText<TypeRecord> types;
};

}  // namespace hdtrace::merger
