// Keeps one parsed record per distinct Comm or Type line text of a run.
// The ranks of a run repeat most of their lines (WORLD and the other shared
// communicators, a row's or a column's map, the predefined and the common
// derived types), so each distinct line is parsed and held once, however
// many ranks write it; a rank keeps references. Safe to use from several
// reading threads at once; each thread looks lines up through a
// RecentRecords of its own.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string_view>
#include <vector>

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

// A kept record with the pool's copy of its line's text, which lives as
// long as the pool.
template <class Record>
struct PooledRecord {
    const Record *record = nullptr;
    std::string_view text;
};

template <class Record>
class RecordsByText {
  public:
    // The record of an earlier line with this text; record is nullptr when
    // there was none.
    PooledRecord<Record> find(const HashedText &line) {
        Shard &shard = shardOf(line);
        std::lock_guard<std::mutex> lock(shard.mutex);
        const auto [key, record] = shard.byText.findEntry(TextKey{line.hash, line.text});
        return key ? PooledRecord<Record>{*record, key->text} : PooledRecord<Record>();
    }

    // Keeps the record parsed from the line and gives it the next ordinal;
    // when another thread added the same text meanwhile, that one's record
    // (equal to this) is returned.
    PooledRecord<Record> add(const HashedText &line, Record &&record) {
        Shard &shard = shardOf(line);
        std::lock_guard<std::mutex> lock(shard.mutex);
        const auto [key, found] = shard.byText.findEntry(TextKey{line.hash, line.text});
        if (key) return {*found, key->text};
        record.ordinal = count_.fetch_add(1, std::memory_order_relaxed);
        const PooledRecord<Record> stored{&shard.records.emplace_back(std::move(record)),
                                          shard.texts.keep(line.text)};
        shard.byText.tryEmplace(TextKey{line.hash, stored.text}, stored.record);
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

// One reading thread's way into a RecordsByText: the records of the lines
// it met last, in a small table of its own. The ranks of a run repeat most
// lines rank after rank (WORLD, a row's map, the common types), and such a
// line is found here without taking a shard's lock, which the other threads
// take as often (on two cores, a tenth of the reading threads' time went to
// locking and unlocking). A line that is not here is looked up in the pool.
template <class Record>
class RecentRecords {
  public:
    explicit RecentRecords(RecordsByText<Record> &pool) : pool_(pool), slots_(kSlots) {}

    // As RecordsByText::find.
    const Record *find(const HashedText &line) {
        Slot &slot = slotOf(line);
        if (slot.record && slot.hash == line.hash && slot.text == line.text) return slot.record;
        const PooledRecord<Record> found = pool_.find(line);
        if (found.record) slot = {line.hash, found};
        return found.record;
    }

    // As RecordsByText::add.
    const Record &add(const HashedText &line, Record &&record) {
        const PooledRecord<Record> added = pool_.add(line, std::move(record));
        slotOf(line) = {line.hash, added};
        return *added.record;
    }

  private:
    // Direct-mapped: a line takes the place of the last one with the same
    // low bits of the hash.
    static constexpr size_t kSlots = 4096;
    struct Slot : PooledRecord<Record> {
        Slot() = default;
        Slot(size_t hashOfLine, PooledRecord<Record> pooled)
            : PooledRecord<Record>(pooled), hash(hashOfLine) {}
        size_t hash = 0;
    };

    Slot &slotOf(const HashedText &line) { return slots_[line.hash & (kSlots - 1)]; }

    RecordsByText<Record> &pool_;
    std::vector<Slot> slots_;
};

struct InfoRecordPool {
    RecordsByText<CommRecord> comms;
    RecordsByText<TypeRecord> types;
};

}  // namespace hdtrace::merger
