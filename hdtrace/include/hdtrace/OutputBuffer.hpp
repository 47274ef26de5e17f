// OutputBuffer: a fixed-size byte buffer in front of a file descriptor.
//
// Text is claimed, filled and then committed, one complete XML element at a
// time, so the committed prefix is always whole elements: writing it with a
// plain write(2) is all it takes to save a trace, even from a signal handler.
// The buffer never reallocates, for the same reason.
//
// Part of the public headers only because TraceWriter's inline fast path
// claims space in it; not an API of its own.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>

namespace hdtrace {

class OutputBuffer {
  public:
    OutputBuffer() = default;
    // Allocates the buffer; text goes to fd from then on.
    void attach(int fd, size_t capacity);

    // Room for length bytes after the committed text, flushing first when
    // needed. nullptr when length exceeds the capacity (use writeThrough) or
    // when flushing failed (see lastError).
    char *claim(size_t length);
    // Room for length bytes without flushing, or nullptr: the inline fast
    // path of TraceWriter, which leaves everything else to claim().
    char *claimWithoutFlush(size_t length) {
        const size_t used = committed_.load(std::memory_order_relaxed);
        return capacity_ - used >= length ? data_.get() + used : nullptr;
    }
    // Makes length bytes of the last claim part of the committed text.
    void commit(size_t length) {
        committed_.store(committed_.load(std::memory_order_relaxed) + length,
                         std::memory_order_release);
    }
    // Flushes, then writes text straight to the file.
    bool writeThrough(const char *text, size_t length);
    // Writes the committed text to the file. False on a write error.
    bool flush();
    // Async-signal-safe: writes the committed text that is not in the file
    // yet, leaving the buffer's bookkeeping alone (the process is dying).
    void writePendingForCrash();

    size_t committed() const { return committed_.load(std::memory_order_acquire); }
    int lastError() const { return lastError_; }

  private:
    int fd_ = -1;
    size_t capacity_ = 0;
    std::unique_ptr<char[]> data_;
    std::atomic<size_t> committed_{0};
    // How much of the committed text a flush in progress has written, so that
    // a crash in the middle of it writes only the rest.
    std::atomic<size_t> written_{0};
    int lastError_ = 0;
};

}  // namespace hdtrace
