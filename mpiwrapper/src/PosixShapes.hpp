// PosixShapes: how the POSIX and stdio layers record each kind of C library
// call, as templates over the call's record (generated from posix_conf.py
// and the dialect: its name, and the writing of its attributes from the
// values a shape knows). The generated wrappers (PosixWrappers.cpp in the
// build tree) are one line each: the C library's function, and the shape.
// Each shape calls the C library's function (PosixReal.hpp) and records the
// call (PosixCall.hpp): the program sees the same results, errno and file
// positions; while the C library's functions are still being looked up, the
// descriptor shapes make the system call themselves and the stream shapes
// fail with ENOSYS. A recorded data transfer is made by the shape itself,
// as the C library makes it, where the C library's own function is next
// (DirectTransfers.hpp).
#pragma once

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <string_view>

#include <hdtrace/TracerIo.hpp>

#include "DirectTransfers.hpp"
#include "PosixCall.hpp"
#include "PosixFiles.hpp"
#include "PosixReal.hpp"
#include "ProcessExit.hpp"

namespace hdtracempi {

// --- The values each shape gives its record (posix_conf.SHAPE_VALUES).
struct OpenValues {
    int flags;
};
struct NoValues {};
struct AccessValues {
    int64_t offset;  // where it happened; -1: unknown (not seekable)
    int64_t asked;
    int64_t done;  // the call's result; negative where it failed
};
struct SeekValues {
    int64_t relative;
    int whence;
    int64_t position;  // the result; -1 where it failed
};
struct TruncateValues {
    int64_t length;
};
struct StreamOpenValues {
    const char *mode;
};

// whence as the dialect writes it: SET, CUR, END, or the number passed.
struct WhenceText {
    char text[24];
    std::string_view view() const { return text; }
};
inline WhenceText whenceText(int whence) {
    WhenceText out{};
    switch (whence) {
        case SEEK_SET:
            std::snprintf(out.text, sizeof out.text, "SET");
            break;
        case SEEK_CUR:
            std::snprintf(out.text, sizeof out.text, "CUR");
            break;
        case SEEK_END:
            std::snprintf(out.text, sizeof out.text, "END");
            break;
        default:
            std::snprintf(out.text, sizeof out.text, "%d", whence);
    }
    return out;
}

// open's mode argument: there only when the flags create a file.
inline bool takesMode(int flags) {
    return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}
inline mode_t modeArgument(int flags, va_list arguments) {
    return takesMode(flags) ? static_cast<mode_t>(va_arg(arguments, int)) : 0;
}

inline int64_t requested(const struct iovec *vector, int count) {
    int64_t total = 0;
    for (int i = 0; vector && i < count; ++i)
        total += static_cast<int64_t>(vector[i].iov_len);
    return total;
}

// The position a read or write without an offset used: where the file
// position is now, less what it moved (right also with O_APPEND).
inline int64_t positionUsed(int fd, ssize_t moved) {
    if (!gRealPosix.lseek) return -1;  // still being resolved
    const off_t now = gRealPosix.lseek(fd, 0, SEEK_CUR);
    if (now < 0) return -1;
    return moved > 0 ? static_cast<int64_t>(now) - moved : static_cast<int64_t>(now);
}

// The C library's open functions, as one with a directory: the plain or the
// 64 pair, nullptr while they are being looked up.
using OpenFunction = int (*)(int, const char *, int, mode_t);
inline int realOpen(int dirFd, const char *path, int flags, mode_t mode) {
    return dirFd == AT_FDCWD ? gRealPosix.open(path, flags, mode)
                             : gRealPosix.openat(dirFd, path, flags, mode);
}
inline int realOpen64(int dirFd, const char *path, int flags, mode_t mode) {
    return dirFd == AT_FDCWD ? gRealPosix.open64(path, flags, mode)
                             : gRealPosix.openat64(dirFd, path, flags, mode);
}
inline OpenFunction openOf(bool large) {
    const RealPosix &real = realPosix();
    if (large) return real.open64 && real.openat64 ? realOpen64 : nullptr;
    return real.open && real.openat ? realOpen : nullptr;
}

// --- Descriptors.

template <class Record>
int openFile(OpenFunction open, int dirFd, const char *path, int flags, mode_t mode) {
    if (!open) return static_cast<int>(::syscall(SYS_openat, dirFd, path, flags, mode));
    if (hdtrace::insideTracerIo()) {
        const int fd = open(dirFd, path, flags, mode);
        const int savedErrno = errno;
        if (fd >= 0) descriptorUntraced(fd);
        errno = savedErrno;
        return fd;
    }
    if (!PosixCall::layerOn()) {
        const int fd = open(dirFd, path, flags, mode);
        const int savedErrno = errno;
        descriptorClosed(fd);  // whatever the number was before, unknown now
        errno = savedErrno;
        return fd;
    }
    PosixCall call{Record::kName, PosixCall::Opening{}};
    const int fd = open(dirFd, path, flags, mode);
    call.ended();
    const int savedErrno = errno;
    const FileRecord *record =
        fd >= 0 ? descriptorOpened(fd, path, dirFd)
                : (call.active() ? fileOfFailedOpen(path, dirFd) : &kUntracedFile);
    errno = savedErrno;
    call.setFile(record);
    call.write<Record>(fd < 0, OpenValues{flags});
    return fd;
}

template <class Record>
int closeDescriptor(int (*close)(int), int fd) {
    PosixCall call(Record::kName, fd);
    descriptorClosed(fd);
    const int result = close ? close(fd) : static_cast<int>(::syscall(SYS_close, fd));
    call.write<Record>(result != 0, NoValues{});
    return result;
}

// The data calls are the hot ones: while the layer is off or the filter
// leaves them out, they go straight to the C library (one load and a branch
// each), without a PosixCall. Their recording is inlined into the wrapper,
// down to the record's attributes, so that what runs after the kernel
// returned lies in one function, on few pages (the kernel's page-table
// isolation flushes the TLB at every system call). Each shape below gives
// two ways of making the call: untraced, while the layer is off or the
// filter leaves it out; traced, as the recorded call makes it.
template <class Record, typename Untraced, typename Traced>
__attribute__((always_inline)) inline ssize_t atPosition(Untraced untraced, Traced traced, int fd,
                                                         int64_t asked) {
    if (!PosixCall::traces(Record::kName)) return untraced();
    PosixCall call(Record::kName, fd);
    const ssize_t result = traced();
    if (call.active()) {
        call.ended();
        const int64_t offset = positionUsed(fd, result);
        call.write<Record>(result < 0, AccessValues{offset, asked, result});
    }
    return result;
}

template <class Record, typename Untraced, typename Traced>
__attribute__((always_inline)) inline ssize_t atOffset(Untraced untraced, Traced traced, int fd,
                                                       off_t offset, int64_t asked) {
    if (!PosixCall::traces(Record::kName)) return untraced();
    PosixCall call(Record::kName, fd);
    const ssize_t result = traced();
    call.write<Record>(result < 0, AccessValues{offset, asked, result});
    return result;
}

// A recorded transfer is made here where the C library's own function is
// next (DirectTransfers.hpp): the wrapper's frame then stands for the C
// library's between the program and the kernel. Else as untraced.
template <typename Function, typename Untraced>
__attribute__((always_inline)) inline ssize_t tracedTransfer(Function real, long number,
                                                             Untraced untraced, long first,
                                                             long second, long third,
                                                             long fourth = 0, long fifth = 0) {
    if (transfersDirectly(reinterpret_cast<const void *>(real), number))
        return directTransfer(number, first, second, third, fourth, fifth);
    return untraced();
}

// read: at the descriptor's position.
template <class Record, typename Data>
__attribute__((always_inline)) inline ssize_t transferAtPosition(ssize_t (*real)(int, Data, size_t),
                                                                 long fallbackSyscall, int fd,
                                                                 Data data, size_t size) {
    const auto untraced = [&]() __attribute__((always_inline)) {
        return real ? real(fd, data, size) : ::syscall(fallbackSyscall, fd, data, size);
    };
    const auto traced = [&]() __attribute__((always_inline)) {
        return tracedTransfer(real, fallbackSyscall, untraced, fd, reinterpret_cast<long>(data),
                              static_cast<long>(size));
    };
    return atPosition<Record>(untraced, traced, fd, static_cast<int64_t>(size));
}

// write: also what the process's exit handling watches for.
template <class Record>
__attribute__((always_inline)) inline ssize_t writeAtPosition(
    ssize_t (*real)(int, const void *, size_t), int fd, const void *data, size_t size) {
    beforeWrite(fd, data, size);
    return transferAtPosition<Record>(real, SYS_write, fd, data, size);
}

// pread and pread64, pwrite and pwrite64: the same call, another symbol.
template <class Record, typename Data>
__attribute__((always_inline)) inline ssize_t transferAt(ssize_t (*real)(int, Data, size_t, off_t),
                                                         long fallbackSyscall, int fd, Data data,
                                                         size_t size, off_t offset) {
    const auto untraced = [&]() __attribute__((always_inline)) {
        return real ? real(fd, data, size, offset)
                    : ::syscall(fallbackSyscall, fd, data, size, offset);
    };
    const auto traced = [&]() __attribute__((always_inline)) {
        return tracedTransfer(real, fallbackSyscall, untraced, fd, reinterpret_cast<long>(data),
                              static_cast<long>(size), offset);
    };
    return atOffset<Record>(untraced, traced, fd, offset, static_cast<int64_t>(size));
}

// readv and writev.
template <class Record>
__attribute__((always_inline)) inline ssize_t vectorAtPosition(
    ssize_t (*real)(int, const struct iovec *, int), long fallbackSyscall, int fd,
    const struct iovec *vector, int count) {
    const auto untraced = [&]() __attribute__((always_inline)) {
        return real ? real(fd, vector, count) : ::syscall(fallbackSyscall, fd, vector, count);
    };
    const auto traced = [&]() __attribute__((always_inline)) {
        return tracedTransfer(real, fallbackSyscall, untraced, fd, reinterpret_cast<long>(vector),
                              count);
    };
    return atPosition<Record>(untraced, traced, fd, requested(vector, count));
}

// preadv, pwritev and their 64 forms: the offset as the system call takes
// it, its low and high halves (all of it in the first on 64-bit systems).
template <class Record>
__attribute__((always_inline)) inline ssize_t vectorAt(
    ssize_t (*real)(int, const struct iovec *, int, off_t), long fallbackSyscall, int fd,
    const struct iovec *vector, int count, off_t offset) {
    const auto untraced = [&]() __attribute__((always_inline)) {
        return real ? real(fd, vector, count, offset)
                    : ::syscall(fallbackSyscall, fd, vector, count, offset, 0);
    };
    const auto traced = [&]() __attribute__((always_inline)) {
        return tracedTransfer(real, fallbackSyscall, untraced, fd, reinterpret_cast<long>(vector),
                              count, offset, 0);
    };
    return atOffset<Record>(untraced, traced, fd, offset, requested(vector, count));
}

// fsync and fdatasync.
template <class Record>
int syncDescriptor(int (*real)(int), long fallbackSyscall, int fd) {
    PosixCall call(Record::kName, fd);
    const int result = real ? real(fd) : static_cast<int>(::syscall(fallbackSyscall, fd));
    call.write<Record>(result != 0, NoValues{});
    return result;
}

template <class Record>
off_t seekDescriptor(off_t (*seek)(int, off_t, int), int fd, off_t offset, int whence) {
    PosixCall call(Record::kName, fd);
    const off_t result = seek ? seek(fd, offset, whence)
                              : static_cast<off_t>(::syscall(SYS_lseek, fd, offset, whence));
    call.write<Record>(result < 0, SeekValues{offset, whence, result});
    return result;
}

template <class Record>
int truncateDescriptor(int (*truncate)(int, off_t), int fd, off_t length) {
    PosixCall call(Record::kName, fd);
    const int result =
        truncate ? truncate(fd, length) : static_cast<int>(::syscall(SYS_ftruncate, fd, length));
    call.write<Record>(result != 0, TruncateValues{length});
    return result;
}

// --- Streams.

template <class Record>
FILE *openStream(FILE *(*open)(const char *, const char *), const char *path, const char *mode) {
    if (!open) {
        errno = ENOSYS;
        return nullptr;
    }
    if (hdtrace::insideTracerIo()) {
        FILE *stream = open(path, mode);
        const int savedErrno = errno;
        if (stream) descriptorUntraced(::fileno(stream));
        errno = savedErrno;
        return stream;
    }
    if (!PosixCall::layerOn()) {
        FILE *stream = open(path, mode);
        const int savedErrno = errno;
        if (stream) descriptorClosed(::fileno(stream));
        errno = savedErrno;
        return stream;
    }
    PosixCall call{Record::kName, PosixCall::Opening{}};
    FILE *stream = open(path, mode);
    call.ended();
    const int savedErrno = errno;
    const FileRecord *record = &kUntracedFile;
    if (stream) {
        const int fd = ::fileno(stream);
        if (fd >= 0) record = descriptorOpened(fd, path, AT_FDCWD);
    } else if (call.active()) {
        record = fileOfFailedOpen(path, AT_FDCWD);
    }
    errno = savedErrno;
    call.setFile(record);
    call.write<Record>(stream == nullptr, StreamOpenValues{mode});
    return stream;
}

template <class Record>
FILE *streamOfDescriptor(FILE *(*open)(int, const char *), int fd, const char *mode) {
    if (!open) {
        errno = ENOSYS;
        return nullptr;
    }
    PosixCall call(Record::kName, fd);
    FILE *stream = open(fd, mode);
    call.write<Record>(stream == nullptr, StreamOpenValues{mode});
    return stream;
}

template <class Record>
int closeStream(int (*close)(FILE *), FILE *stream) {
    if (!close) {
        errno = ENOSYS;
        return EOF;
    }
    PosixCall call(Record::kName, stream);
    if (stream) {
        // The C library closes the descriptor itself, not through close().
        const int savedErrno = errno;
        descriptorClosed(::fileno(stream));
        errno = savedErrno;
    }
    const int result = close(stream);
    call.write<Record>(result != 0, NoValues{});
    return result;
}

template <class Record, typename Data>
size_t transferStream(size_t (*real)(Data, size_t, size_t, FILE *), Data data, size_t size,
                      size_t count, FILE *stream) {
    if (!real) {
        errno = ENOSYS;
        return 0;
    }
    const auto transfer = [&] { return real(data, size, count, stream); };
    if (!PosixCall::traces(Record::kName)) return transfer();
    PosixCall call(Record::kName, stream);
    if (!call.active()) return transfer();
    const int savedErrno = errno;
    const bool errorBefore = ::ferror(stream) != 0;
    const int64_t offset = static_cast<int64_t>(::ftello(stream));
    errno = savedErrno;
    const size_t result = transfer();
    call.ended();
    const bool failed = result < count && !errorBefore && ::ferror(stream) != 0;
    call.write<Record>(failed, AccessValues{offset, static_cast<int64_t>(size * count),
                                            static_cast<int64_t>(result * size)});
    return result;
}

template <class Record, typename Offset>
int seekStream(int (*seek)(FILE *, Offset, int), FILE *stream, Offset offset, int whence) {
    if (!seek) {
        errno = ENOSYS;
        return -1;
    }
    PosixCall call(Record::kName, stream);
    const int result = seek(stream, offset, whence);
    if (call.active()) {
        call.ended();
        const int64_t position = result == 0 ? static_cast<int64_t>(::ftello(stream)) : -1;
        call.write<Record>(result != 0, SeekValues{static_cast<int64_t>(offset), whence, position});
    }
    return result;
}

template <class Record>
int flushStream(int (*flush)(FILE *), FILE *stream) {
    if (!flush) {
        errno = ENOSYS;
        return EOF;
    }
    PosixCall call(Record::kName, stream);  // fflush(NULL), every stream: not traced
    const int result = flush(stream);
    call.write<Record>(result != 0, NoValues{});
    return result;
}

}  // namespace hdtracempi
