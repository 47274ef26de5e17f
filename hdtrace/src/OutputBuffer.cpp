#include <errno.h>
#include <unistd.h>

#include <hdtrace/OutputBuffer.hpp>

#include "WriteFully.hpp"

namespace hdtrace {

void OutputBuffer::attach(int fd, size_t capacity) {
    fd_ = fd;
    capacity_ = capacity;
    data_.reset(new char[capacity]);
}

char *OutputBuffer::claim(size_t length) {
    if (length > capacity_) return nullptr;
    if (committed() + length > capacity_ && !flush()) return nullptr;
    return data_.get() + committed();
}

bool OutputBuffer::writeThrough(const char *text, size_t length) {
    if (!flush()) return false;
    lastError_ = writeFully(fd_, text, length);
    return lastError_ == 0;
}

bool OutputBuffer::flush() {
    const size_t length = committed();
    while (written_.load(std::memory_order_relaxed) < length) {
        const size_t done = written_.load(std::memory_order_relaxed);
        const ssize_t written = ::write(fd_, data_.get() + done, length - done);
        if (written < 0) {
            if (errno == EINTR) continue;
            lastError_ = errno;
            return false;
        }
        written_.store(done + static_cast<size_t>(written), std::memory_order_release);
    }
    // In this order, a crash in between sees written >= committed: nothing to add.
    committed_.store(0, std::memory_order_release);
    written_.store(0, std::memory_order_release);
    return true;
}

void OutputBuffer::writePendingForCrash() {
    const size_t length = committed();
    const size_t done = written_.load(std::memory_order_acquire);
    if (done < length) writeFully(fd_, data_.get() + done, length - done);
}

}  // namespace hdtrace
