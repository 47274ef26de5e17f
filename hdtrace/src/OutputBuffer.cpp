#include <errno.h>
#include <unistd.h>

#include <initializer_list>
#include <new>

#include <hdtrace/MappedMemory.hpp>
#include <hdtrace/OutputBuffer.hpp>

#include "BackgroundWriter.hpp"
#include "WriteFully.hpp"

namespace hdtrace {

OutputBuffer::~OutputBuffer() {
    waitForBackgroundWrites();
}

// A half at a huge page's boundary, its pages faulted in now rather than
// inside the traced calls that first fill them.
MappedArray<char> OutputBuffer::mapHalf(size_t bytes) {
    MappedArray<char> half = mapResident<char>(bytes);
    if (!half) throw std::bad_alloc();
    return half;
}

void OutputBuffer::attach(int fd, size_t capacity, bool background) {
    fd_ = fd;
    halfCapacity_ = capacity / 2;
    halves_[0].data = mapHalf(halfCapacity_);
    // Without the background writer the second half is never filled.
    if (background) halves_[1].data = mapHalf(halfCapacity_);
    background_ = background;
}

bool OutputBuffer::flushBefore() {
    if (!before_ || before_->flush()) return true;
    failedInBefore_ = true;
    return false;
}

char *OutputBuffer::claim(size_t length) {
    if (length > halfCapacity_) return nullptr;
    if (char *space = claimWithoutFlush(length)) return space;
    if (!switchHalves()) return nullptr;
    return claimWithoutFlush(length);
}

bool OutputBuffer::switchHalves() {
    if (!flushBefore()) return false;
    Half &full = *active_;
    if (!background_ || !BackgroundWriter::start()) return writeHalf(full);  // and fill it again
    Half &next = other();
    waitUntilWritten(next);  // long done, unless the disk is slower than the program
    if (takeBackgroundError()) return false;
    // next is empty, so moving its offset cannot mislead a crash handler.
    next.offset.store(full.offset.load(std::memory_order_relaxed) +
                          static_cast<int64_t>(full.length.load(std::memory_order_relaxed)),
                      std::memory_order_relaxed);
    active_ = &next;
    BackgroundWriter::enqueue(*this, full);
    return true;
}

int OutputBuffer::writeAt(const char *text, size_t length, int64_t offset, bool withEnding) {
    if (length == 0) return 0;
    const int error =
        withEnding && ending_ != nullptr
            ? writeFullyAtThenEnding(fd_, text, length, ending_, endingLength_, offset)
            : writeFullyAt(fd_, text, length, offset);
    if (error == 0) noteWrittenUpTo(offset + static_cast<int64_t>(length));
    return error;
}

bool OutputBuffer::writeHalf(Half &half) {
    const size_t length = half.length.load(std::memory_order_relaxed);
    const int64_t offset = half.offset.load(std::memory_order_relaxed);
    if (const int error = writeAt(half.data.get(), length, offset, true)) {
        lastError_ = error;
        return false;
    }
    // In this order: a crash handler in between sees an empty half, and the
    // end of the file in writtenEnd_.
    half.length.store(0, std::memory_order_release);
    half.offset.store(offset + static_cast<int64_t>(length), std::memory_order_relaxed);
    return true;
}

void OutputBuffer::writeQueuedHalf(Half &half) {
    const size_t length = half.length.load(std::memory_order_acquire);
    const int64_t offset = half.offset.load(std::memory_order_relaxed);
    if (const int error = writeAt(half.data.get(), length, offset, false)) {
        int none = 0;
        backgroundError_.compare_exchange_strong(none, error);
    }
    half.length.store(0, std::memory_order_release);
}

void OutputBuffer::waitUntilWritten(Half &half) {
    // A half that is not being filled holds text only while it is queued,
    // so the writer thread runs.
    if (half.length.load(std::memory_order_acquire) != 0) BackgroundWriter::waitUntilWritten(half);
}

bool OutputBuffer::takeBackgroundError() {
    const int error = backgroundError_.load(std::memory_order_acquire);
    if (error == 0) return false;
    lastError_ = error;
    return true;
}

void OutputBuffer::noteWrittenUpTo(int64_t end) {
    int64_t known = writtenEnd_.load(std::memory_order_relaxed);
    while (known < end && !writtenEnd_.compare_exchange_weak(known, end)) {
    }
}

bool OutputBuffer::flush() {
    if (!flushBefore()) return false;
    if (background_) {
        waitUntilWritten(other());
        if (takeBackgroundError()) return false;
    }
    return writeHalf(*active_);
}

bool OutputBuffer::writeThrough(const char *text, size_t length) {
    if (!flush()) return false;
    const int64_t offset = active_->offset.load(std::memory_order_relaxed);
    lastError_ = writeAt(text, length, offset, true);
    if (lastError_ != 0) return false;
    active_->offset.store(offset + static_cast<int64_t>(length), std::memory_order_relaxed);
    return true;
}

void OutputBuffer::closeForCrash(const char *epilog, size_t epilogLength) {
    int64_t end = writtenEnd_.load(std::memory_order_acquire);
    // Older half first; a half the background writer is writing right now
    // gets the same bytes at the same place twice.
    for (Half *half : {&other(), active_}) {
        const size_t length = half->length.load(std::memory_order_acquire);
        if (length == 0) continue;
        const int64_t offset = half->offset.load(std::memory_order_relaxed);
        writeFullyAt(fd_, half->data.get(), length, offset);
        if (offset + static_cast<int64_t>(length) > end)
            end = offset + static_cast<int64_t>(length);
    }
    writeFullyAt(fd_, epilog, epilogLength, end);
    // Whatever lies beyond (the start of an oversized state that was being
    // written) would follow the epilog; cut it off.
    if (::ftruncate(fd_, end + static_cast<int64_t>(epilogLength)) != 0) {
        // Nothing more can be done in a dying process.
    }
}

void OutputBuffer::abandon() {
    background_ = false;
    for (Half &half : halves_)
        half.length.store(0, std::memory_order_relaxed);
}

}  // namespace hdtrace
