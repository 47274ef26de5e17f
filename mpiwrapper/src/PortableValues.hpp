// PortableValues: special ranks and tags written the same whatever the MPI
// library's own values are (docs/format/README.md, "Ids"): MPI_ANY_SOURCE -1,
// MPI_PROC_NULL -2, MPI_ROOT -3, MPI_ANY_TAG -1.
#pragma once

#include <cstdint>

#include <mpi.h>

namespace hdtracempi {

inline int64_t portableRank(int rank) {
    if (rank == MPI_ANY_SOURCE) return -1;
    if (rank == MPI_PROC_NULL) return -2;
    if (rank == MPI_ROOT) return -3;
    return rank;
}

inline int64_t portableTag(int tag) {
    return tag == MPI_ANY_TAG ? -1 : tag;
}

inline const char *whenceName(int whence) {
    if (whence == MPI_SEEK_SET) return "Set";
    if (whence == MPI_SEEK_CUR) return "Cur";
    if (whence == MPI_SEEK_END) return "End";
    return "Unknown";
}

// MPI_Win_lock's lock type (docs/format/mpi3.md, "One-sided communication").
inline const char *lockTypeName(int lockType) {
    if (lockType == MPI_LOCK_SHARED) return "shared";
    if (lockType == MPI_LOCK_EXCLUSIVE) return "exclusive";
    return "unknown";
}

}  // namespace hdtracempi
