// writeFully / writeFullyAt: write(2) or pwrite(2) until every byte is
// written, retrying after signals. Stateless and async-signal-safe, so the
// crash path can use them too.
#pragma once

#include <errno.h>
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

}  // namespace hdtrace
