#include "DirectTransfers.hpp"

#include <dlfcn.h>

#if HDTRACE_DIRECT_TRANSFERS
#include <gnu/lib-names.h>  // LIBC_SO
#endif

#include "PosixReal.hpp"

namespace hdtracempi {

CLibraryTransfers gCLibraryTransfers{};

namespace {

// A 64 form stands for the plain one only where they are one function.
template <typename Function>
const void *theSame(Function large, Function plain) {
    return large == plain ? reinterpret_cast<const void *>(large) : nullptr;
}

}  // namespace

void findCLibraryTransfers() {
#if HDTRACE_DIRECT_TRANSFERS
    // Only a C library already loaded: the program's own, never a second one.
    void *library = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD);
    if (!library) return;
    RealPosix own{};  // every function of the layer, as the C library defines it
    lookUpEach(own, library);
    CLibraryTransfers found;
    found.read = reinterpret_cast<const void *>(own.read);
    found.write = reinterpret_cast<const void *>(own.write);
    found.pread = theSame(own.pread64, own.pread);
    found.pwrite = theSame(own.pwrite64, own.pwrite);
    found.readv = reinterpret_cast<const void *>(own.readv);
    found.writev = reinterpret_cast<const void *>(own.writev);
    found.preadv = theSame(own.preadv64, own.preadv);
    found.pwritev = theSame(own.pwritev64, own.pwritev);
    gCLibraryTransfers = found;
    dlclose(library);
#endif
}

}  // namespace hdtracempi
