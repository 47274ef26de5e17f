#include "NodeRanks.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include <mpi.h>

namespace hdtracempi {

namespace {

// Set by each launcher on every rank it starts, so all ranks of a job take
// the same branch below and either all or none enter the collective.
constexpr const char *kLocalSizeVariables[] = {
    "OMPI_COMM_WORLD_LOCAL_SIZE",  // Open MPI's mpiexec (ORTE/PRRTE)
    "MPI_LOCALNRANKS",             // MPICH's Hydra
    "PALS_LOCAL_SIZE",             // Cray PALS (aprun's successor)
};

}  // namespace

uint64_t hostId() {
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) != 0) return 0;
    uint64_t hash = 1469598103934665603ull;  // FNV-1a
    for (const char *c = host; *c; ++c)
        hash = (hash ^ static_cast<unsigned char>(*c)) * 1099511628211ull;
    return hash;
}

int nodeRanksFromEnvironment(std::string *variable) {
    for (const char *name : kLocalSizeVariables) {
        const char *text = std::getenv(name);
        if (!text || !*text) continue;
        errno = 0;
        char *end = nullptr;
        const long value = std::strtol(text, &end, 10);
        if (errno != 0 || *end != '\0' || value < 1 || value > 1 << 30) continue;
        *variable = name;
        return static_cast<int>(value);
    }
    return 0;
}

NodeRanks countNodeRanks(int worldSize, const std::vector<uint64_t> *hostIds) {
    NodeRanks ranks;
    if (worldSize <= 1) {
        ranks.source = "a world of one rank";
        return ranks;
    }
    std::string variable;
    if (const int count = nodeRanksFromEnvironment(&variable)) {
        ranks.count = count;
        ranks.source = variable;
        return ranks;
    }
    // A collective on MPI_COMM_WORLD allocates no context id, handle or
    // tag the program could see (docs/dev/wrapper.md, "Writing").
    const uint64_t own = hostId();
    if (hostIds && hostIds->size() == static_cast<size_t>(worldSize)) {
        ranks.count = 0;
        for (uint64_t id : *hostIds)
            ranks.count += id == own;
        ranks.source = "host names exchanged over MPI_COMM_WORLD";  // with the clock ids
        return ranks;
    }
    std::vector<uint64_t> all(static_cast<size_t>(worldSize));
    if (PMPI_Allgather(&own, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD) !=
        MPI_SUCCESS) {
        ranks.source = "unknown (host exchange failed)";
        return ranks;
    }
    ranks.count = 0;
    for (uint64_t id : all)
        ranks.count += id == own;
    ranks.source = "host names exchanged over MPI_COMM_WORLD";
    return ranks;
}

}  // namespace hdtracempi
