// Keeps one parsed record per distinct Comm or Type line text of a run.
// The ranks of a run repeat most of their lines (WORLD and the other shared
// communicators, a row's or a column's map, the predefined and the common
// derived types), so each distinct line is parsed and held once, however
// many ranks write it; a rank keeps references. Safe to use from several
// reading threads at once.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string_view>

#include "FlatMap.hpp"
#include "InfoLine.hpp"
#include "TextArena.hpp"
#include "TextKey.hpp"

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
        const Record *const *found = shard.byText.find(TextKey{line.hash, line.text});
        return found ? *found : nullptr;
    }

    // Keeps the record parsed from the line and gives it the next ordinal;
    // when another thread added the same text meanwhile, that one's record
    // (equal to this) is returned.
    const Record &add(const HashedText &line, Record &&record) {
        Shard &shard = shardOf(line);
        std::lock_guard<std::mutex> lock(shard.mutex);
        if (const Record *const *found = shard.byText.find(TextKey{line.hash, line.text}))
            return **found;
        record.ordinal = count_.fetch_add(1, std::memory_order_relaxed);
        const Record &stored = shard.records.emplace_back(std::move(record));
        shard.byText.tryEmplace(TextKey{line.hash, shard.texts.keep(line.text)}, &stored);
        return stored;
    }

    // How many records were kept: their ordinals are 0..size()-1.
    size_t size() const { return count_.load(std::memory_order_relaxed); }

  private:
    struct Shard {
        std::mutex mutex;
        FlatMap<TextKey, const Record *, TextKeyHash, TextKeyEqual> byText;
        TextArena texts;
        std::deque<Record> records;  // a deque keeps its elements in place
    };
    static constexpr size_t kShards = 16;

    Shard &shardOf(const HashedText &line) { return shards_[(line.hash >> 7) % kShards]; }

    Shard shards_[kShards];
    std::atomic<uint32_t> count_{0};
};

struct InfoRecordPool {
    RecordsByText<CommRecord> comms;
    RecordsByText<TypeRecord> types;
};

}  // namespace hdtrace::merger
