// TypeContents: what MPI_Type_get_contents says of a derived datatype, in
// the classic layout of its three arrays (MPI-3.1 section 4.1.13), also for
// a type made by an MPI-4 large-count constructor (MPI_Type_vector_c, ...),
// whose counts only MPI_Type_get_contents_c returns (MPICH refuses the
// classic call for such a type). The .info line stays the same either way.
#pragma once

#include <cstdint>
#include <vector>

#include <mpi.h>

namespace hdtracempi {

struct TypeContents {
    int combiner = MPI_COMBINER_NAMED;
    std::vector<int64_t> integers;
    std::vector<MPI_Aint> addresses;
    // Derived ones are the caller's to free (MPI_Type_free), as with
    // MPI_Type_get_contents.
    std::vector<MPI_Datatype> types;
};

// For a named type only `combiner` is set.
TypeContents typeContents(MPI_Datatype type);

// The combiner alone (MPI_COMBINER_NAMED for a predefined type).
int typeCombiner(MPI_Datatype type);

}  // namespace hdtracempi
