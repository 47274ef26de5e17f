// The POSIX layer: the C library's file functions, defined here so that the
// program's calls and the MPI library's (its MPI-IO layer, also in
// components it loads later) reach them: as the preloaded library's
// exports, or, linked, as the program's exports (the link flags of
// hdtrace-mpi.pc and of the CMake target export them). Each calls the C
// library's function (PosixReal.hpp) and records the call (PosixCall.hpp):
// the program sees the same results, errno and file positions.
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include <string>

#include <hdtrace/TracerIo.hpp>

#include "PosixCall.hpp"
#include "PosixFiles.hpp"
#include "PosixReal.hpp"
#include "ProcessExit.hpp"

// Linked into every program that links the wrapper (PosixFiles.cpp reads it),
// so that a static link always takes these definitions.
extern "C" const char hdtracempi_posix = 0;

namespace hdtracempi {
namespace {

using hdtrace::TraceWriter;

// The mode argument of open: there only when the flags create a file.
bool takesMode(int flags) {
    return (flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE;
}

const char *whenceName(int whence) {
    switch (whence) {
        case SEEK_SET:
            return "SET";
        case SEEK_CUR:
            return "CUR";
        case SEEK_END:
            return "END";
        default:
            return nullptr;
    }
}

void writeWhence(TraceWriter &writer, int whence) {
    if (const char *name = whenceName(whence))
        writer.attribute("whence", name);
    else
        writer.attribute("whence", std::to_string(whence).c_str());
}

int64_t requested(const struct iovec *vector, int count) {
    int64_t total = 0;
    for (int i = 0; vector && i < count; ++i)
        total += static_cast<int64_t>(vector[i].iov_len);
    return total;
}

// A data call's attributes after fid: offset, asked, size.
auto access(int64_t offset, int64_t asked, int64_t done) {
    return [=](TraceWriter &writer) {
        writer.attribute("offset", offset);
        writer.attribute("asked", asked);
        writer.attribute("size", done < 0 ? 0 : done);
    };
}

// The position a read or write without an offset used: where the file
// position is now, less what it moved (right also with O_APPEND).
int64_t positionUsed(int fd, ssize_t moved) {
    if (!gRealPosix.lseek) return -1;  // still being resolved
    const off_t now = gRealPosix.lseek(fd, 0, SEEK_CUR);
    if (now < 0) return -1;
    return moved > 0 ? static_cast<int64_t>(now) - moved : static_cast<int64_t>(now);
}

template <typename Open>
int openFile(Open open, long fallbackSyscall, int dirFd, const char *path, int flags, mode_t mode) {
    if (!open) return static_cast<int>(::syscall(fallbackSyscall, dirFd, path, flags, mode));
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
    PosixCall call{PosixCallName{callIndex::open, "open"}, PosixCall::Opening{}};
    const int fd = open(dirFd, path, flags, mode);
    call.ended();
    const int savedErrno = errno;
    const FileRecord *record =
        fd >= 0 ? descriptorOpened(fd, path, dirFd)
                : (call.active() ? fileOfFailedOpen(path, dirFd) : &kUntracedFile);
    errno = savedErrno;
    call.setFile(record);
    call.write(fd < 0, [=](TraceWriter &writer) { writer.attribute("flags", flags); });
    return fd;
}

// The C library's open functions, as one with a directory.
int realOpen(int dirFd, const char *path, int flags, mode_t mode) {
    return dirFd == AT_FDCWD ? gRealPosix.open(path, flags, mode)
                             : gRealPosix.openat(dirFd, path, flags, mode);
}
int realOpen64(int dirFd, const char *path, int flags, mode_t mode) {
    return dirFd == AT_FDCWD ? gRealPosix.open64(path, flags, mode)
                             : gRealPosix.openat64(dirFd, path, flags, mode);
}
using OpenFunction = int (*)(int, const char *, int, mode_t);
OpenFunction openOf(bool large) {
    const RealPosix &real = realPosix();
    if (large) return real.open64 && real.openat64 ? realOpen64 : nullptr;
    return real.open && real.openat ? realOpen : nullptr;
}

mode_t modeArgument(int flags, va_list arguments) {
    return takesMode(flags) ? static_cast<mode_t>(va_arg(arguments, int)) : 0;
}

template <typename Close>
int closeDescriptor(Close close, int fd) {
    PosixCall call(PosixCallName{callIndex::close, "close"}, fd);
    descriptorClosed(fd);
    const int result = close ? close(fd) : static_cast<int>(::syscall(SYS_close, fd));
    call.write(result != 0);
    return result;
}

// The data calls are the hot ones: while the layer is off or the filter
// leaves them out, they go straight to the C library (one load and a branch
// each), without a PosixCall.
template <typename Read>
ssize_t readOrWrite(PosixCallName name, Read transfer, int fd, int64_t asked) {
    if (!PosixCall::traces(name)) return transfer();
    PosixCall call(name, fd);
    const ssize_t result = transfer();
    if (call.active()) {
        call.ended();
        const int64_t offset = positionUsed(fd, result);
        call.write(result < 0, access(offset, asked, result));
    }
    return result;
}

template <typename Transfer>
ssize_t transferAt(PosixCallName name, Transfer transfer, int fd, off_t offset, int64_t asked) {
    if (!PosixCall::traces(name)) return transfer();
    PosixCall call(name, fd);
    const ssize_t result = transfer();
    call.write(result < 0, access(offset, asked, result));
    return result;
}

// pread and pread64, pwrite and pwrite64: the same call, another symbol.
ssize_t readAt(ssize_t (*real)(int, void *, size_t, off_t), int fd, void *data, size_t size,
               off_t offset) {
    return transferAt(
        PosixCallName{callIndex::pread, "pread"},
        [&] {
            return real ? real(fd, data, size, offset)
                        : ::syscall(SYS_pread64, fd, data, size, offset);
        },
        fd, offset, static_cast<int64_t>(size));
}

ssize_t writeAt(ssize_t (*real)(int, const void *, size_t, off_t), int fd, const void *data,
                size_t size, off_t offset) {
    return transferAt(
        PosixCallName{callIndex::pwrite, "pwrite"},
        [&] {
            return real ? real(fd, data, size, offset)
                        : ::syscall(SYS_pwrite64, fd, data, size, offset);
        },
        fd, offset, static_cast<int64_t>(size));
}

// preadv, pwritev and their 64 forms.
ssize_t vectorAt(PosixCallName name, ssize_t (*real)(int, const struct iovec *, int, off_t),
                 long fallbackSyscall, int fd, const struct iovec *vector, int count,
                 off_t offset) {
    return transferAt(
        name,
        [&] {
            return real ? real(fd, vector, count, offset)
                        : ::syscall(fallbackSyscall, fd, vector, count, offset, 0);
        },
        fd, offset, requested(vector, count));
}

// fsync and fdatasync.
int syncDescriptor(PosixCallName name, int (*real)(int), long fallbackSyscall, int fd) {
    PosixCall call(name, fd);
    const int result = real ? real(fd) : static_cast<int>(::syscall(fallbackSyscall, fd));
    call.write(result != 0);
    return result;
}

template <typename Seek>
off_t seekDescriptor(Seek seek, int fd, off_t offset, int whence) {
    PosixCall call(PosixCallName{callIndex::lseek, "lseek"}, fd);
    const off_t result = seek ? seek(fd, offset, whence)
                              : static_cast<off_t>(::syscall(SYS_lseek, fd, offset, whence));
    call.write(result < 0, [=](TraceWriter &writer) {
        writer.attribute("relative-offset", offset);
        writeWhence(writer, whence);
        writer.attribute("offset", result);
    });
    return result;
}

template <typename Truncate>
int truncateDescriptor(Truncate truncate, int fd, off_t length) {
    PosixCall call(PosixCallName{callIndex::ftruncate, "ftruncate"}, fd);
    const int result =
        truncate ? truncate(fd, length) : static_cast<int>(::syscall(SYS_ftruncate, fd, length));
    call.write(result != 0, [=](TraceWriter &writer) { writer.attribute("size", length); });
    return result;
}

template <typename Open>
FILE *openStream(Open open, const char *path, const char *mode) {
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
    PosixCall call{PosixCallName{callIndex::fopen, "fopen"}, PosixCall::Opening{}};
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
    call.write(stream == nullptr, [=](TraceWriter &writer) { writer.attribute("mode", mode); });
    return stream;
}

template <typename Seek, typename Offset>
int seekStream(Seek seek, FILE *stream, Offset offset, int whence) {
    if (!seek) {
        errno = ENOSYS;
        return -1;
    }
    PosixCall call(PosixCallName{callIndex::fseek, "fseek"}, stream);
    const int result = seek(stream, offset, whence);
    if (call.active()) {
        call.ended();
        const int64_t position = result == 0 ? static_cast<int64_t>(::ftello(stream)) : -1;
        call.write(result != 0, [=](TraceWriter &writer) {
            writer.attribute("relative-offset", static_cast<int64_t>(offset));
            writeWhence(writer, whence);
            writer.attribute("offset", position);
        });
    }
    return result;
}

template <typename Transfer>
size_t transferStream(PosixCallName name, Transfer transfer, FILE *stream, size_t size,
                      size_t count) {
    if (!PosixCall::traces(name)) return transfer();
    PosixCall call(name, stream);
    if (!call.active()) return transfer();
    const int savedErrno = errno;
    const bool errorBefore = ::ferror(stream) != 0;
    const int64_t offset = static_cast<int64_t>(::ftello(stream));
    errno = savedErrno;
    const size_t result = transfer();
    call.ended();
    const bool failed = result < count && !errorBefore && ::ferror(stream) != 0;
    call.write(failed, access(offset, static_cast<int64_t>(size * count),
                              static_cast<int64_t>(result * size)));
    return result;
}

}  // namespace
}  // namespace hdtracempi

using hdtracempi::gRealPosix;
using hdtracempi::PosixCall;
using hdtracempi::PosixCallName;
namespace callIndex = hdtrace::filter::callIndex;
using hdtracempi::realPosix;

// --- Opening and closing descriptors.

extern "C" int open(const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    const mode_t mode = hdtracempi::modeArgument(flags, arguments);
    va_end(arguments);
    return hdtracempi::openFile(hdtracempi::openOf(false), SYS_openat, AT_FDCWD, path, flags, mode);
}

extern "C" int open64(const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    const mode_t mode = hdtracempi::modeArgument(flags, arguments);
    va_end(arguments);
    return hdtracempi::openFile(hdtracempi::openOf(true), SYS_openat, AT_FDCWD, path, flags, mode);
}

extern "C" int openat(int dirFd, const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    const mode_t mode = hdtracempi::modeArgument(flags, arguments);
    va_end(arguments);
    return hdtracempi::openFile(hdtracempi::openOf(false), SYS_openat, dirFd, path, flags, mode);
}

extern "C" int openat64(int dirFd, const char *path, int flags, ...) {
    va_list arguments;
    va_start(arguments, flags);
    const mode_t mode = hdtracempi::modeArgument(flags, arguments);
    va_end(arguments);
    return hdtracempi::openFile(hdtracempi::openOf(true), SYS_openat, dirFd, path, flags, mode);
}

extern "C" int creat(const char *path, mode_t mode) {
    return hdtracempi::openFile(hdtracempi::openOf(false), SYS_openat, AT_FDCWD, path,
                                O_CREAT | O_WRONLY | O_TRUNC, mode);
}

extern "C" int creat64(const char *path, mode_t mode) {
    return hdtracempi::openFile(hdtracempi::openOf(true), SYS_openat, AT_FDCWD, path,
                                O_CREAT | O_WRONLY | O_TRUNC, mode);
}

extern "C" int close(int fd) {
    return hdtracempi::closeDescriptor(realPosix().close, fd);
}

// --- Reads and writes.

extern "C" ssize_t read(int fd, void *data, size_t size) {
    auto real = realPosix().read;
    return hdtracempi::readOrWrite(
        PosixCallName{callIndex::read, "read"},
        [&] { return real ? real(fd, data, size) : ::syscall(SYS_read, fd, data, size); }, fd,
        static_cast<int64_t>(size));
}

extern "C" ssize_t write(int fd, const void *data, size_t size) {
    hdtracempi::beforeWrite(fd, data, size);
    auto real = realPosix().write;
    return hdtracempi::readOrWrite(
        PosixCallName{callIndex::write, "write"},
        [&] { return real ? real(fd, data, size) : ::syscall(SYS_write, fd, data, size); }, fd,
        static_cast<int64_t>(size));
}

extern "C" ssize_t pread(int fd, void *data, size_t size, off_t offset) {
    return hdtracempi::readAt(realPosix().pread, fd, data, size, offset);
}

extern "C" ssize_t pread64(int fd, void *data, size_t size, off_t offset) {
    return hdtracempi::readAt(realPosix().pread64, fd, data, size, offset);
}

extern "C" ssize_t pwrite(int fd, const void *data, size_t size, off_t offset) {
    return hdtracempi::writeAt(realPosix().pwrite, fd, data, size, offset);
}

extern "C" ssize_t pwrite64(int fd, const void *data, size_t size, off_t offset) {
    return hdtracempi::writeAt(realPosix().pwrite64, fd, data, size, offset);
}

extern "C" ssize_t readv(int fd, const struct iovec *vector, int count) {
    auto real = realPosix().readv;
    return hdtracempi::readOrWrite(
        PosixCallName{callIndex::readv, "readv"},
        [&] { return real ? real(fd, vector, count) : ::syscall(SYS_readv, fd, vector, count); },
        fd, hdtracempi::requested(vector, count));
}

extern "C" ssize_t writev(int fd, const struct iovec *vector, int count) {
    auto real = realPosix().writev;
    return hdtracempi::readOrWrite(
        PosixCallName{callIndex::writev, "writev"},
        [&] { return real ? real(fd, vector, count) : ::syscall(SYS_writev, fd, vector, count); },
        fd, hdtracempi::requested(vector, count));
}

extern "C" ssize_t preadv(int fd, const struct iovec *vector, int count, off_t offset) {
    return hdtracempi::vectorAt(PosixCallName{callIndex::preadv, "preadv"}, realPosix().preadv,
                                SYS_preadv, fd, vector, count, offset);
}

extern "C" ssize_t preadv64(int fd, const struct iovec *vector, int count, off_t offset) {
    return hdtracempi::vectorAt(PosixCallName{callIndex::preadv, "preadv"}, realPosix().preadv64,
                                SYS_preadv, fd, vector, count, offset);
}

extern "C" ssize_t pwritev(int fd, const struct iovec *vector, int count, off_t offset) {
    return hdtracempi::vectorAt(PosixCallName{callIndex::pwritev, "pwritev"}, realPosix().pwritev,
                                SYS_pwritev, fd, vector, count, offset);
}

extern "C" ssize_t pwritev64(int fd, const struct iovec *vector, int count, off_t offset) {
    return hdtracempi::vectorAt(PosixCallName{callIndex::pwritev, "pwritev"}, realPosix().pwritev64,
                                SYS_pwritev, fd, vector, count, offset);
}

// --- Positions, sync and size.

extern "C" off_t lseek(int fd, off_t offset, int whence) {
    return hdtracempi::seekDescriptor(realPosix().lseek, fd, offset, whence);
}

extern "C" off_t lseek64(int fd, off_t offset, int whence) {
    return hdtracempi::seekDescriptor(realPosix().lseek64, fd, offset, whence);
}

extern "C" int fsync(int fd) {
    return hdtracempi::syncDescriptor(PosixCallName{callIndex::fsync, "fsync"}, realPosix().fsync,
                                      SYS_fsync, fd);
}

extern "C" int fdatasync(int fd) {
    return hdtracempi::syncDescriptor(PosixCallName{callIndex::fdatasync, "fdatasync"},
                                      realPosix().fdatasync, SYS_fdatasync, fd);
}

extern "C" int ftruncate(int fd, off_t length) {
    return hdtracempi::truncateDescriptor(realPosix().ftruncate, fd, length);
}

extern "C" int ftruncate64(int fd, off_t length) {
    return hdtracempi::truncateDescriptor(realPosix().ftruncate64, fd, length);
}

// --- Streams.

extern "C" FILE *fopen(const char *path, const char *mode) {
    return hdtracempi::openStream(realPosix().fopen, path, mode);
}

extern "C" FILE *fopen64(const char *path, const char *mode) {
    return hdtracempi::openStream(realPosix().fopen64, path, mode);
}

extern "C" FILE *fdopen(int fd, const char *mode) {
    auto real = realPosix().fdopen;
    if (!real) {
        errno = ENOSYS;
        return nullptr;
    }
    PosixCall call(PosixCallName{callIndex::fdopen, "fdopen"}, fd);
    FILE *stream = real(fd, mode);
    call.write(stream == nullptr,
               [=](hdtrace::TraceWriter &writer) { writer.attribute("mode", mode); });
    return stream;
}

extern "C" int fclose(FILE *stream) {
    auto real = realPosix().fclose;
    if (!real) {
        errno = ENOSYS;
        return EOF;
    }
    PosixCall call(PosixCallName{callIndex::fclose, "fclose"}, stream);
    if (stream) {
        // The C library closes the descriptor itself, not through close().
        const int savedErrno = errno;
        hdtracempi::descriptorClosed(::fileno(stream));
        errno = savedErrno;
    }
    const int result = real(stream);
    call.write(result != 0);
    return result;
}

extern "C" size_t fread(void *data, size_t size, size_t count, FILE *stream) {
    auto real = realPosix().fread;
    if (!real) {
        errno = ENOSYS;
        return 0;
    }
    return hdtracempi::transferStream(
        PosixCallName{callIndex::fread, "fread"}, [&] { return real(data, size, count, stream); },
        stream, size, count);
}

extern "C" size_t fwrite(const void *data, size_t size, size_t count, FILE *stream) {
    auto real = realPosix().fwrite;
    if (!real) {
        errno = ENOSYS;
        return 0;
    }
    return hdtracempi::transferStream(
        PosixCallName{callIndex::fwrite, "fwrite"}, [&] { return real(data, size, count, stream); },
        stream, size, count);
}

extern "C" int fseek(FILE *stream, long offset, int whence) {
    return hdtracempi::seekStream(realPosix().fseek, stream, offset, whence);
}

extern "C" int fseeko(FILE *stream, off_t offset, int whence) {
    return hdtracempi::seekStream(realPosix().fseeko, stream, offset, whence);
}

extern "C" int fseeko64(FILE *stream, off_t offset, int whence) {
    return hdtracempi::seekStream(realPosix().fseeko64, stream, offset, whence);
}

extern "C" int fflush(FILE *stream) {
    auto real = realPosix().fflush;
    if (!real) {
        errno = ENOSYS;
        return EOF;
    }
    PosixCall call(PosixCallName{callIndex::fflush, "fflush"},
                   stream);  // fflush(NULL), every stream: not traced
    const int result = real(stream);
    call.write(result != 0);
    return result;
}
