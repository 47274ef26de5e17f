// ProcessExit: the traces are completed when an MPI library ends the process
// on a fatal MPI error, by either of the two ways the libraries use:
// - Open MPI's MPI_ERRORS_ARE_FATAL handler ends the process with _exit(),
//   which runs no atexit handler and raises no signal, so neither the
//   wrapper's exit close nor its crash handlers see it;
// - MPICH sends "cmd=abort" to its process manager over the simple PMI
//   socket (PMI_FD), and Hydra answers with SIGKILL to every rank at once, so
//   nothing in the process runs after that write.
#pragma once

#include <cstddef>

namespace hdtracempi {

// Called once tracing started: from then on, in this process (not in a
// child made by fork or vfork), _exit() and _Exit(), and the write of an
// abort request to the PMI socket, first write every complete element of
// every open trace and close its XML.
void completeTracesOnExit();

// Before every write(2) of the process (the POSIX layer's write): when it
// is the abort request to the process manager's socket, the traces are
// completed first. Costs one comparison of the descriptor.
void beforeWrite(int fd, const void *data, size_t size);

}  // namespace hdtracempi
