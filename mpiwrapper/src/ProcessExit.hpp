// ProcessExit: the traces are completed when an MPI library ends the process
// on a fatal MPI error. Open MPI's MPI_ERRORS_ARE_FATAL handler ends the
// process with _exit(), which runs no atexit handler and raises no signal,
// so neither the wrapper's exit close nor its crash handlers see it.
#pragma once

namespace hdtracempi {

// Called once tracing started: from then on, _exit() and _Exit() in this
// process (not in a child made by fork or vfork) first write every complete
// element of every open trace and close its XML.
void completeTracesOnExit();

}  // namespace hdtracempi
