// Copies of many short texts kept for as long as the arena (or until it is
// cleared): each copy goes into the current block of 64 KiB (a longer text
// gets a block of its own), so that keeping a text costs no allocation of
// its own and the arena is freed a block at a time.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace hdtrace::merger {

class TextArena {
  public:
    // A copy of text that stays in place as long as the arena.
    std::string_view keep(std::string_view text) {
        if (text.size() > room_) {
            const size_t size = text.size() > kBlockBytes ? text.size() : kBlockBytes;
            if (blocks_.empty()) firstBlockBytes_ = size;
            blocks_.push_back(std::make_unique<char[]>(size));
            next_ = blocks_.back().get();
            room_ = size;
        }
        if (!text.empty()) std::memcpy(next_, text.data(), text.size());
        const std::string_view kept(next_, text.size());
        next_ += text.size();
        room_ -= text.size();
        return kept;
    }

    // Forgets every text kept; the first block stays, for the texts kept
    // next, so that an arena cleared again and again allocates nothing.
    void clear() {
        if (blocks_.empty()) return;
        blocks_.resize(1);
        next_ = blocks_.front().get();
        room_ = firstBlockBytes_;
    }

  private:
    static constexpr size_t kBlockBytes = size_t(64) << 10;
    std::vector<std::unique_ptr<char[]>> blocks_;
    char *next_ = nullptr;
    size_t room_ = 0;
    size_t firstBlockBytes_ = 0;
};

}  // namespace hdtrace::merger
