// PosixReal: the C library's own file functions, which the POSIX layer's
// definitions of the same names (generated from posix_conf.py) call. Found with
// dlsym(RTLD_NEXT), in the program (libhdtracempi.a) as when preloaded
// (libhdtracempi.so), the first time any of them is needed.
#pragma once

#include <stdio.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <atomic>

#include "PosixFunctions.hpp"  // generated: struct RealPosix, lookUpEach

namespace hdtracempi {

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
