// OutputBuffer: the text of a trace on its way to the file.
//
// Two halves: the program's thread fills one while a background thread
// (BackgroundWriter) writes the other, so the program never waits for the
// kernel to copy its trace into the page cache. Text is claimed, filled and
// committed one complete XML element at a time, and every byte has a fixed
// place in the file (each half knows its file offset; writes are pwrite(2)).
// So a crash handler saves the trace by writing whatever both halves hold at
// their offsets: a byte written twice lands in the same place. The halves
// never reallocate, for the same reason.
//
// Without the background thread (attach(..., background = false), or when it
// cannot be started) the caller writes a full half itself and fills it again.
//
// Part of the public headers only because TraceWriter's inline fast path
// claims space in it; not an API of its own.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include <hdtrace/MappedMemory.hpp>

namespace hdtrace {

class OutputBuffer {
  public:
    OutputBuffer() = default;
    ~OutputBuffer();  // waits for a half still being written
    OutputBuffer(const OutputBuffer &) = delete;
    OutputBuffer &operator=(const OutputBuffer &) = delete;

    // Allocates two halves of capacity / 2 bytes (only one without the
    // background thread, which is all that is used then); text goes to fd,
    // from file offset 0, from then on.
    void attach(int fd, size_t capacity, bool background);
    // --- A buffer whose text must reach its file first.
    // From now on, before this buffer writes or hands on any of its text,
    // it writes everything committed in `before` (flush()): a trace element
    // never reaches the .trc ahead of the .info lines that define its ids,
    // so even a trace cut by SIGKILL refers only to ids its .info holds.
    // `before` must be used by the same thread and not write through a
    // background thread.
    void writeFirst(OutputBuffer *before) { before_ = before; }
    // Whether the last failure was in writing the `before` buffer (its
    // lastError() says why).
    bool failedInBefore() const { return failedInBefore_; }

    // Room for length bytes after the committed text, handing a full half to
    // the background writer (or writing it) first when needed. nullptr when
    // length exceeds a half (use writeThrough) or writing failed (lastError).
    char *claim(size_t length);
    // Room for length bytes without any writing, or nullptr: the inline fast
    // path of TraceWriter, which leaves everything else to claim().
    char *claimWithoutFlush(size_t length) {
        const size_t used = active_->length.load(std::memory_order_relaxed);
        return halfCapacity_ - used >= length ? active_->data.get() + used : nullptr;
    }
    // Makes length bytes of the last claim part of the committed text.
    void commit(size_t length) {
        active_->length.store(active_->length.load(std::memory_order_relaxed) + length,
                              std::memory_order_release);
    }
    // Writes everything committed, then text, to the file, and waits until
    // both are there.
    bool writeThrough(const char *text, size_t length);
    // Writes the committed text to the file and waits until it is there.
    bool flush();
    // Async-signal-safe, for a dying process: writes what both halves hold,
    // then epilog after the last committed byte, and cuts the file there.
    // The buffer is not used afterwards.
    void closeForCrash(const char *epilog, size_t epilogLength);
    // Returns once the background writer has nothing of this buffer left.
    void waitForBackgroundWrites() {
        if (background_) waitUntilWritten(other());
    }
    // In a fork() child: forgets both halves without writing them.
    void abandon();
    // From now on every write made on the filling thread puts ending right
    // after the text it writes, where the next write overwrites it: the file
    // always ends in ending, so a process killed without any warning
    // (SIGKILL) leaves a complete file up to its last flush. The background
    // writer's writes leave it out (a crash handler may be writing the
    // following half at the same moment). nullptr stops it; ending must
    // outlive the buffer.
    void keepFileEndingWith(const char *ending, size_t length) {
        ending_ = ending;
        endingLength_ = ending == nullptr ? 0 : length;
    }

    // The errno of the first failed write, 0 while all went well.
    int lastError() const { return lastError_; }

  private:
    friend class BackgroundWriter;

    struct Half {
        MappedArray<char> data;
        // Committed bytes. For the half not being filled: > 0 while it is
        // queued or being written, set to 0 by whoever wrote it.
        std::atomic<size_t> length{0};
        // File offset of data[0]; changed only while length is 0.
        std::atomic<int64_t> offset{0};
    };
    static MappedArray<char> mapHalf(size_t bytes);

    Half &other() { return active_ == &halves_[0] ? halves_[1] : halves_[0]; }
    // Makes sure the other half is written, then fills that one next.
    bool switchHalves();
    bool writeHalf(Half &half);  // pwrite, then empties the half
    void waitUntilWritten(Half &half);
    bool takeBackgroundError();
    // pwrite(2)s all of text at offset, and the ending after it when asked
    // and set; on success, notes the text in writtenEnd_.
    int writeAt(const char *text, size_t length, int64_t offset, bool withEnding);
    void noteWrittenUpTo(int64_t end);
    void writeQueuedHalf(Half &half);  // on the background writer's thread

    Half *active_ = &halves_[0];  // hot: the fast path reads it first
    size_t halfCapacity_ = 0;
    Half halves_[2];
    int fd_ = -1;
    bool background_ = false;
    int lastError_ = 0;
    const char *ending_ = nullptr;
    size_t endingLength_ = 0;
    // Everything before this file offset is written: where the epilog goes
    // when no half holds anything.
    std::atomic<int64_t> writtenEnd_{0};
    // Set by the background writer when its pwrite failed.
    std::atomic<int> backgroundError_{0};
    // See writeFirst().
    OutputBuffer *before_ = nullptr;
    bool failedInBefore_ = false;
    bool flushBefore();
    // The background writer's queue is a list through these fields.
    OutputBuffer *nextQueued_ = nullptr;
    Half *queuedHalf_ = nullptr;
};

}  // namespace hdtrace
