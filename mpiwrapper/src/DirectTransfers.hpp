// DirectTransfers: the data transfers (read, write, pread, pwrite and their
// vector forms) made by the POSIX layer's wrapper itself, as the C library
// makes them, where the function the wrapper would call next is the C
// library's own.
//
// Why: calling the C library's pread puts the wrapper's frame between the
// program and the kernel. The kernel's own calls overwrite the processor's
// predictions of the returns beneath it, and each frame more than the
// program had costs a mispredicted return once the kernel is back (26-41
// ns for the first such frame on the development machine;
// docs/dev/performance.md, "A frame less beneath the kernel"). Made here,
// the system call is as deep as the program made it.
//
// The same call: the same system call with the same arguments, errno from
// its result, and a cancellation point as the C library's is (the thread's
// cancel type asynchronous around the call, as the C library sets it).
// Only on x86-64 Linux with the GNU C library; elsewhere, and where another
// library's function comes next (a second tool's, the program's own), the
// wrapper calls that function.
#pragma once

#include <errno.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <sys/types.h>

namespace hdtracempi {

#if defined(__x86_64__) && defined(__linux__) && defined(__GLIBC__)
#define HDTRACE_DIRECT_TRANSFERS 1
#else
#define HDTRACE_DIRECT_TRANSFERS 0
#endif

// The C library's own transfer functions (where a 64 form and the plain
// one are one function, that one), or null: set with the rest of
// PosixReal.hpp's pointers.
struct CLibraryTransfers {
    const void *read = nullptr, *write = nullptr;
    const void *pread = nullptr, *pwrite = nullptr;
    const void *readv = nullptr, *writev = nullptr;
    const void *preadv = nullptr, *pwritev = nullptr;
};
extern CLibraryTransfers gCLibraryTransfers;
// Looks them up in the loaded C library (PosixReal.cpp calls it).
void findCLibraryTransfers();

// Whether function, the next definition of the call made by system call
// number, is the C library's own, so that directTransfer() may stand for it.
inline bool transfersDirectly(const void *function, long number) {
    if (!HDTRACE_DIRECT_TRANSFERS || !function) return false;
    const CLibraryTransfers &own = gCLibraryTransfers;
    switch (number) {
        case SYS_read:
            return function == own.read;
        case SYS_write:
            return function == own.write;
        case SYS_pread64:
            return function == own.pread;
        case SYS_pwrite64:
            return function == own.pwrite;
        case SYS_readv:
            return function == own.readv;
        case SYS_writev:
            return function == own.writev;
        case SYS_preadv:
            return function == own.preadv;
        case SYS_pwritev:
            return function == own.pwritev;
        default:
            return false;
    }
}

#if HDTRACE_DIRECT_TRANSFERS
// The system call number with its arguments (up to five; the kernel reads
// no more than the call takes), as the C library makes it.
__attribute__((always_inline)) inline ssize_t directTransfer(long number, long first, long second,
                                                             long third, long fourth = 0,
                                                             long fifth = 0) {
    int previousType = PTHREAD_CANCEL_DEFERRED;
    // A pending cancellation ends the thread here, as in the C library.
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &previousType);
    long result;
    register long inR10 asm("r10") = fourth;
    register long inR8 asm("r8") = fifth;
    asm volatile("syscall"
                 : "=a"(result)
                 : "0"(number), "D"(first), "S"(second), "d"(third), "r"(inR10), "r"(inR8)
                 : "rcx", "r11", "memory");
    if (previousType != PTHREAD_CANCEL_ASYNCHRONOUS) pthread_setcanceltype(previousType, nullptr);
    if (result < 0 && result > -4096) {
        errno = static_cast<int>(-result);
        return -1;
    }
    return result;
}
#else
inline ssize_t directTransfer(long, long, long, long, long = 0, long = 0) {
    errno = ENOSYS;
    return -1;
}
#endif

}  // namespace hdtracempi
