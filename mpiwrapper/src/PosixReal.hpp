// PosixReal: the C library's own file functions, which the POSIX layer's
// definitions of the same names (PosixWrappers.cpp) call. Found with
// dlsym(RTLD_NEXT), in the program (libhdtracempi.a) as when preloaded
// (libhdtracempi.so), the first time any of them is needed.
#pragma once

#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <atomic>

namespace hdtracempi {

struct RealPosix {
    int (*open)(const char *, int, ...);
    int (*open64)(const char *, int, ...);
    int (*openat)(int, const char *, int, ...);
    int (*openat64)(int, const char *, int, ...);
    int (*creat)(const char *, mode_t);
    int (*creat64)(const char *, mode_t);
    int (*close)(int);
    ssize_t (*read)(int, void *, size_t);
    ssize_t (*write)(int, const void *, size_t);
    ssize_t (*pread)(int, void *, size_t, off_t);
    ssize_t (*pread64)(int, void *, size_t, off_t);
    ssize_t (*pwrite)(int, const void *, size_t, off_t);
    ssize_t (*pwrite64)(int, const void *, size_t, off_t);
    ssize_t (*readv)(int, const struct iovec *, int);
    ssize_t (*writev)(int, const struct iovec *, int);
    ssize_t (*preadv)(int, const struct iovec *, int, off_t);
    ssize_t (*preadv64)(int, const struct iovec *, int, off_t);
    ssize_t (*pwritev)(int, const struct iovec *, int, off_t);
    ssize_t (*pwritev64)(int, const struct iovec *, int, off_t);
    off_t (*lseek)(int, off_t, int);
    off_t (*lseek64)(int, off_t, int);
    int (*fsync)(int);
    int (*fdatasync)(int);
    int (*ftruncate)(int, off_t);
    int (*ftruncate64)(int, off_t);
    FILE *(*fopen)(const char *, const char *);
    FILE *(*fopen64)(const char *, const char *);
    FILE *(*fdopen)(int, const char *);
    int (*fclose)(FILE *);
    size_t (*fread)(void *, size_t, size_t, FILE *);
    size_t (*fwrite)(const void *, size_t, size_t, FILE *);
    int (*fseek)(FILE *, long, int);
    int (*fseeko)(FILE *, off_t, int);
    int (*fseeko64)(FILE *, off_t, int);
    int (*fflush)(FILE *);
};

// Every pointer, resolved on the first call (from any thread; resolving
// twice is harmless). While a thread resolves them, calls it makes from
// inside dlsym find them null: the wrappers then make the system call
// themselves (the descriptor functions) or fail with ENOSYS (stdio, which
// dlsym does not use).
extern RealPosix gRealPosix;
extern std::atomic<bool> gRealPosixResolved;
void resolveRealPosix();

inline const RealPosix &realPosix() {
    if (!gRealPosixResolved.load(std::memory_order_acquire)) resolveRealPosix();
    return gRealPosix;
}

}  // namespace hdtracempi
