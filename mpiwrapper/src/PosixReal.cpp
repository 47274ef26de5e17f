#include "PosixReal.hpp"

#include <dlfcn.h>

#include <mutex>

namespace hdtracempi {

RealPosix gRealPosix{};
std::atomic<bool> gRealPosixResolved{false};

namespace {

thread_local bool tResolving = false;
std::mutex gResolveMutex;

template <typename Function>
void resolve(Function &pointer, const char *name) {
    pointer = reinterpret_cast<Function>(::dlsym(RTLD_NEXT, name));
}

}  // namespace

void resolveRealPosix() {
    if (tResolving) return;  // a call made by dlsym itself
    std::lock_guard<std::mutex> lock(gResolveMutex);
    if (gRealPosixResolved.load(std::memory_order_acquire)) return;
    tResolving = true;
    RealPosix found{};
    resolve(found.open, "open");
    resolve(found.open64, "open64");
    resolve(found.openat, "openat");
    resolve(found.openat64, "openat64");
    resolve(found.creat, "creat");
    resolve(found.creat64, "creat64");
    resolve(found.close, "close");
    resolve(found.read, "read");
    resolve(found.write, "write");
    resolve(found.pread, "pread");
    resolve(found.pread64, "pread64");
    resolve(found.pwrite, "pwrite");
    resolve(found.pwrite64, "pwrite64");
    resolve(found.readv, "readv");
    resolve(found.writev, "writev");
    resolve(found.preadv, "preadv");
    resolve(found.preadv64, "preadv64");
    resolve(found.pwritev, "pwritev");
    resolve(found.pwritev64, "pwritev64");
    resolve(found.lseek, "lseek");
    resolve(found.lseek64, "lseek64");
    resolve(found.fsync, "fsync");
    resolve(found.fdatasync, "fdatasync");
    resolve(found.ftruncate, "ftruncate");
    resolve(found.ftruncate64, "ftruncate64");
    resolve(found.fopen, "fopen");
    resolve(found.fopen64, "fopen64");
    resolve(found.fdopen, "fdopen");
    resolve(found.fclose, "fclose");
    resolve(found.fread, "fread");
    resolve(found.fwrite, "fwrite");
    resolve(found.fseek, "fseek");
    resolve(found.fseeko, "fseeko");
    resolve(found.fseeko64, "fseeko64");
    resolve(found.fflush, "fflush");
    gRealPosix = found;
    gRealPosixResolved.store(true, std::memory_order_release);
    tResolving = false;
}

}  // namespace hdtracempi
