// TextBuffer: a growable byte buffer that is written through a raw pointer.
//
// A writer reserves the most it may write in one step, writes it, and
// commits where it ended: one capacity check per step instead of one per
// append, which is what keeps the per-state cost of the trace writer low.
// The buffer only grows, so once warm it never allocates.
#pragma once

#include <cstddef>
#include <cstring>
#include <memory>
#include <string_view>

namespace hdtrace {

// Copies text to out and returns the end: 16 bytes per step, the last step
// overlapping the one before, so that the copy of a state's head (usually 30
// to 100 bytes) needs no call into the C library.
inline char *copyText(char *out, std::string_view text) {
    const char *in = text.data();
    const size_t size = text.size();
    if (size < 16) {
        std::memcpy(out, in, size);
        return out + size;
    }
    size_t done = 0;
    for (; done + 16 <= size; done += 16)
        std::memcpy(out + done, in + done, 16);
    if (done < size) std::memcpy(out + size - 16, in + size - 16, 16);
    return out + size;
}

class TextBuffer {
  public:
    TextBuffer() = default;
    explicit TextBuffer(size_t initialCapacity) { grow(initialCapacity); }

    // The write position, with room for at least length more bytes.
    __attribute__((always_inline)) char *reserve(size_t length) {
        if (capacity_ - size_ < length) grow(length);
        return data_.get() + size_;
    }
    // Ends the step begun by reserve(): end is one past the last byte written.
    void commit(char *end) { size_ = static_cast<size_t>(end - data_.get()); }

    void append(std::string_view text) {
        std::memcpy(reserve(text.size()), text.data(), text.size());
        size_ += text.size();
    }
    void append(char c) {
        *reserve(1) = c;
        ++size_;
    }

    void clear() { size_ = 0; }
    bool empty() const { return size_ == 0; }
    size_t size() const { return size_; }
    const char *data() const { return data_.get(); }
    std::string_view view() const { return std::string_view(data_.get(), size_); }

  private:
    // Rare once warm: kept out of line so that reserve() stays small.
    __attribute__((noinline, cold)) void grow(size_t length) {
        size_t capacity = capacity_ ? capacity_ : 256;
        while (capacity - size_ < length)
            capacity *= 2;
        std::unique_ptr<char[]> data(new char[capacity]);
        if (size_) std::memcpy(data.get(), data_.get(), size_);
        data_ = std::move(data);
        capacity_ = capacity;
    }

    std::unique_ptr<char[]> data_;
    size_t size_ = 0;
    size_t capacity_ = 0;
};

}  // namespace hdtrace
