#include <signal.h>

#include <mutex>

#include <hdtrace/CrashHandlers.hpp>

#include "TraceRegistry.hpp"

namespace hdtrace {
namespace {

constexpr int kFatalSignals[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGTERM};
constexpr int kMaxSignal = 65;

struct sigaction previousActions[kMaxSignal];
std::once_flag installOnce;

void onFatalSignal(int signalNumber, siginfo_t *info, void *context) {
    closeAllTracesForCrash();
    const struct sigaction &previous = previousActions[signalNumber];
    if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
        previous.sa_sigaction(signalNumber, info, context);
        return;
    }
    if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(signalNumber);
        return;
    }
    // Default action: restore it and raise the signal again. It is blocked
    // while this handler runs, so it takes effect when the handler returns
    // (for a fault, before the faulting instruction runs again).
    sigaction(signalNumber, &previous, nullptr);
    raise(signalNumber);
}

void install() {
    for (int signalNumber : kFatalSignals) {
        struct sigaction current;
        if (sigaction(signalNumber, nullptr, &current) != 0) continue;
        if (!(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN) continue;
        previousActions[signalNumber] = current;
        struct sigaction handler = {};
        handler.sa_sigaction = onFatalSignal;
        handler.sa_flags = SA_SIGINFO | SA_RESTART | SA_ONSTACK;
        sigemptyset(&handler.sa_mask);
        sigaction(signalNumber, &handler, nullptr);
    }
}

}  // namespace

void closeAllTracesForCrash() {
    registry::closeAllForCrash();
}

void installCrashHandlers() {
    std::call_once(installOnce, install);
}

}  // namespace hdtrace
