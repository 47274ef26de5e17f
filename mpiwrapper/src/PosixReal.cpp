#include "PosixReal.hpp"

#include <dlfcn.h>

#include <mutex>

#include "DirectTransfers.hpp"

namespace hdtracempi {

RealPosix gRealPosix{};
std::atomic<bool> gRealPosixResolved{false};

namespace {

thread_local bool tResolving = false;
std::mutex gResolveMutex;

}  // namespace

void resolveRealPosix() {
    if (tResolving) return;  // a call made by dlsym itself
    std::lock_guard<std::mutex> lock(gResolveMutex);
    if (gRealPosixResolved.load(std::memory_order_acquire)) return;
    tResolving = true;
    RealPosix found{};
    lookUpEach(found, RTLD_NEXT);
    findCLibraryTransfers();
    gRealPosix = found;
    gRealPosixResolved.store(true, std::memory_order_release);
    tResolving = false;
}

}  // namespace hdtracempi
