#include "ProcessExit.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

#include <hdtrace/CrashHandlers.hpp>

namespace hdtracempi {
namespace {

// The traced process. A child of fork or vfork has another pid: it must not
// touch the writers (a vfork child even shares the parent's memory).
std::atomic<pid_t> gTracedProcess{0};

// The simple PMI socket of the process manager (MPICH's Hydra sets PMI_FD),
// or -1.
std::atomic<int> gProcessManagerSocket{-1};

void completeTracesOfTracedProcess() {
    const pid_t traced = gTracedProcess.load(std::memory_order_acquire);
    if (traced != 0 && ::getpid() == traced) hdtrace::closeAllTracesForCrash();
}

[[noreturn]] void endProcess(int status) {
    completeTracesOfTracedProcess();
    // What the C library's _exit does: end every thread of the process.
    for (;;)
        ::syscall(SYS_exit_group, status);
}

int processManagerSocket() {
    const char *text = std::getenv("PMI_FD");
    if (text == nullptr || *text == '\0') return -1;
    char *end = nullptr;
    const long fd = std::strtol(text, &end, 10);
    return (*end == '\0' && fd >= 0 && fd <= 1 << 20) ? static_cast<int>(fd) : -1;
}

bool isAbortRequest(int fd, const void *data, size_t size) {
    static constexpr char kAbort[] = "cmd=abort";
    const int socket = gProcessManagerSocket.load(std::memory_order_relaxed);
    return fd == socket && socket >= 0 && size >= sizeof kAbort - 1 &&
           std::memcmp(data, kAbort, sizeof kAbort - 1) == 0;
}

}  // namespace

void beforeWrite(int fd, const void *data, size_t size) {
    if (isAbortRequest(fd, data, size)) completeTracesOfTracedProcess();
}

void completeTracesOnExit() {
    gProcessManagerSocket.store(processManagerSocket(), std::memory_order_relaxed);
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
