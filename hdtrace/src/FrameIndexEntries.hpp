// FrameIndexEntries: the frames a FrameWriter has written, in order, kept in
// memory until the index is written at close. Three threads touch it: the
// owner and the background writer append (one at a time: a frame is written
// by whoever holds the buffer), and a signal handler on any thread may read
// it to write the index of a dying process. So entries live in chunks that
// never move, the owner allocates chunks ahead of need (reserve), and an
// entry is published by one atomic store of the count.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

namespace hdtrace {

struct FrameIndexEntry {
    uint64_t offset = 0;      // of the frame header
    uint32_t frameBytes = 0;  // header and payload
    uint32_t headerBytes = 0;
    uint32_t records = 0;
    uint32_t rawBytes = 0;
    int64_t earliest = 0;
    int64_t latest = 0;
};

class FrameIndexEntries {
  public:
    static constexpr uint32_t kChunkEntries = 4096;
    static constexpr uint32_t kMaxChunks = 16384;  // 67 M frames

    FrameIndexEntries() : chunks_(new std::atomic<FrameIndexEntry *>[kMaxChunks]) {
        for (uint32_t i = 0; i < kMaxChunks; ++i)
            chunks_[i].store(nullptr, std::memory_order_relaxed);
    }
    ~FrameIndexEntries() {
        for (uint32_t i = 0; i < allocatedChunks_; ++i)
            delete[] chunks_[i].load(std::memory_order_relaxed);
    }
    FrameIndexEntries(const FrameIndexEntries &) = delete;
    FrameIndexEntries &operator=(const FrameIndexEntries &) = delete;

    // Owner thread only: room for `more` entries beyond those published.
    // False when the index is full.
    bool reserve(uint32_t more) {
        const uint64_t needed = uint64_t{size()} + more;
        while (uint64_t{allocatedChunks_} * kChunkEntries < needed) {
            if (allocatedChunks_ == kMaxChunks) return false;
            chunks_[allocatedChunks_].store(new FrameIndexEntry[kChunkEntries],
                                            std::memory_order_release);
            ++allocatedChunks_;
        }
        return true;
    }

    // By whoever writes the frame; room must have been reserved.
    void publish(const FrameIndexEntry &entry) {
        const uint32_t position = count_.load(std::memory_order_relaxed);
        chunks_[position / kChunkEntries].load(
            std::memory_order_acquire)[position % kChunkEntries] = entry;
        count_.store(position + 1, std::memory_order_release);
    }

    uint32_t size() const { return count_.load(std::memory_order_acquire); }
    const FrameIndexEntry &at(uint32_t position) const {
        return chunks_[position / kChunkEntries].load(
            std::memory_order_acquire)[position % kChunkEntries];
    }

  private:
    std::unique_ptr<std::atomic<FrameIndexEntry *>[]> chunks_;
    uint32_t allocatedChunks_ = 0;
    std::atomic<uint32_t> count_{0};
};

}  // namespace hdtrace
