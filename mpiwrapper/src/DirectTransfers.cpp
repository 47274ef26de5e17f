#include "DirectTransfers.hpp"

#include <dlfcn.h>

#if HDTRACE_DIRECT_TRANSFERS
#include <gnu/lib-names.h>  // LIBC_SO
#endif

namespace hdtracempi {

CLibraryTransfers gCLibraryTransfers{};

void findCLibraryTransfers() {
#if HDTRACE_DIRECT_TRANSFERS
    // Only a C library already loaded: the program's own, never a second one.
    void *library = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD);
    if (!library) return;
    // The 64 forms stand for the plain ones only where they are one function.
    const auto own = [library](const char *name, const char *alias) -> const void * {
        void *function = dlsym(library, name);
        return alias && dlsym(library, alias) != function ? nullptr : function;
    };
    CLibraryTransfers found;
    found.read = own("read", nullptr);
    found.write = own("write", nullptr);
    found.pread = own("pread64", "pread");
    found.pwrite = own("pwrite64", "pwrite");
    found.readv = own("readv", nullptr);
    found.writev = own("writev", nullptr);
    found.preadv = own("preadv64", "preadv");
    found.pwritev = own("pwritev64", "pwritev");
    gCLibraryTransfers = found;
    dlclose(library);
#endif
}

}  // namespace hdtracempi
