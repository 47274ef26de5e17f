#include "ProcessExit.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>

#include <hdtrace/CrashHandlers.hpp>

namespace hdtracempi {
namespace {

// The traced process. A child of fork or vfork has another pid: it must not
// touch the writers (a vfork child even shares the parent's memory).
std::atomic<pid_t> gTracedProcess{0};

[[noreturn]] void endProcess(int status) {
    const pid_t traced = gTracedProcess.load(std::memory_order_acquire);
    if (traced != 0 && ::getpid() == traced) hdtrace::closeAllTracesForCrash();
    // What the C library's _exit does: end every thread of the process.
    for (;;)
        ::syscall(SYS_exit_group, status);
}

}  // namespace

void completeTracesOnExit() {
    gTracedProcess.store(::getpid(), std::memory_order_release);
}

}  // namespace hdtracempi

// These definitions take the place of the C library's for the whole process,
// in the program (libhdtracempi.a) as when preloaded (libhdtracempi.so), so
// the MPI library's own call reaches them.
extern "C" void _exit(int status) {
    hdtracempi::endProcess(status);
}
extern "C" void _Exit(int status) {
    hdtracempi::endProcess(status);
}
