// NodeRanks: how many ranks of MPI_COMM_WORLD share this node, counted
// without creating any MPI object (a communicator of the
// wrapper's own takes a context id the program would otherwise get).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hdtracempi {

struct NodeRanks {
    int count = 1;       // ranks on this node, this one included
    std::string source;  // where the count came from, for HDTRACE_VERBOSE
};

// From the launcher's environment when it says (Open MPI's mpiexec,
// MPICH's Hydra, Cray PALS); otherwise from hostIds, the host ids of all
// ranks when the caller already exchanged them (the clock measurement
// does), else one PMPI_Allgather of host ids over MPI_COMM_WORLD. Called
// inside MPI_Init on every rank; collective there.
NodeRanks countNodeRanks(int worldSize, const std::vector<uint64_t> *hostIds = nullptr);

// A hash of this host's name: equal on the ranks of one node.
uint64_t hostId();

// The launcher variable that names the number of ranks on this node, as
// countNodeRanks reads it: a positive number, or 0 when none is set.
int nodeRanksFromEnvironment(std::string *variable);

}  // namespace hdtracempi
