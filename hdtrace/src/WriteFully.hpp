// writeFully / writeFullyAt: write(2) or pwrite(2) until every byte is
// written, retrying after signals. Stateless and async-signal-safe, so the
// crash path can use them too.
#pragma once

#include <errno.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace hdtrace {

// 0 when all length bytes were written, else the errno of the failed write.
inline int writeFully(int fd, const char *text, size_t length) {
    while (length > 0) {
        const ssize_t written = ::write(fd, text, length);
        if (written < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        text += written;
        length -= static_cast<size_t>(written);
    }
    return 0;
}

// The same at a file offset; the file position is neither used nor moved.
inline int writeFullyAt(int fd, const char *text, size_t length, int64_t offset) {
    while (length > 0) {
        const ssize_t written = ::pwrite(fd, text, length, static_cast<off_t>(offset));
        if (written < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        text += written;
        offset += written;
        length -= static_cast<size_t>(written);
    }
    return 0;
}

// text at offset, then ending right after it, in one pwritev(2) when the
// kernel takes it whole (so that no moment lies between the two).
inline int writeFullyAtThenEnding(int fd, const char *text, size_t length, const char *ending,
                                  size_t endingLength, int64_t offset) {
    iovec parts[2] = {{const_cast<char *>(text), length},
                      {const_cast<char *>(ending), endingLength}};
    ssize_t written;
    do {
        written = ::pwritev(fd, parts, 2, static_cast<off_t>(offset));
    } while (written < 0 && errno == EINTR);
    if (written < 0) return errno;
    const size_t done = static_cast<size_t>(written);
    if (done >= length + endingLength) return 0;
    if (done < length) {
        if (const int error = writeFullyAt(fd, text + done, length - done, offset + done))
            return error;
        return writeFullyAt(fd, ending, endingLength, offset + static_cast<int64_t>(length));
    }
    return writeFullyAt(fd, ending + (done - length), endingLength - (done - length),
                        offset + static_cast<int64_t>(done));
}

}  // namespace hdtrace
