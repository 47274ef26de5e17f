// Saving traces when the process dies of a signal.
#pragma once

namespace hdtrace {

// Async-signal-safe: writes every complete element of every open trace and
// closes its XML. For programs that handle fatal signals themselves.
void closeAllTracesForCrash();

// Installs handlers for SIGSEGV, SIGBUS, SIGABRT, SIGFPE and SIGTERM that
// call closeAllTracesForCrash() and then let the signal proceed as before:
// a handler installed earlier is called; otherwise the default action is
// restored and the signal raised again, so that the exit status and core
// dump are unchanged. Signals the program ignores stay ignored. Idempotent.
void installCrashHandlers();

}  // namespace hdtrace
