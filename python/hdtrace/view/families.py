"""Function families: the colour groups of the timeline and the categories of the exports."""

POINT_TO_POINT = "point-to-point"
COLLECTIVE = "collective"
FILE_IO = "file I/O"
ONE_SIDED = "one-sided"
WAIT = "wait"
OTHER = "other"

#: In legend order.
FAMILIES = (POINT_TO_POINT, COLLECTIVE, FILE_IO, WAIT, OTHER, ONE_SIDED)

_POINT_TO_POINT = frozenset({
    "Send", "Bsend", "Ssend", "Rsend", "Isend", "Ibsend", "Issend", "Irsend", "Recv", "Irecv",
    "Sendrecv", "Sendrecv_replace", "Probe", "Iprobe", "Send_init", "Bsend_init", "Rsend_init",
    "Ssend_init", "Recv_init", "Start", "Startall",
})
_COLLECTIVE = frozenset({
    "Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv",
    "Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce", "Reduce_scatter",
    "Reduce_scatter_block", "Scan", "Exscan",
})
# Matched probes (MPI-3) are point-to-point; windows, their data calls and
# their synchronisation are one-sided communication.
_MATCHED_PROBES = frozenset({"Mprobe", "Improbe", "Mrecv", "Imrecv"})
_ONE_SIDED = frozenset({
    "Win_create", "Win_allocate", "Win_allocate_shared", "Win_create_dynamic", "Win_attach",
    "Win_detach", "Win_free", "Put", "Get", "Accumulate", "Get_accumulate", "Fetch_and_op",
    "Compare_and_swap", "Rput", "Rget", "Raccumulate", "Rget_accumulate", "Win_fence", "Win_lock",
    "Win_unlock", "Win_lock_all", "Win_unlock_all", "Win_flush", "Win_flush_local",
    "Win_flush_all", "Win_flush_local_all", "Win_sync", "Win_post", "Win_start", "Win_complete",
    "Win_wait", "Win_test",
})
# MPI-3.1: the nonblocking forms of these and the neighbourhood collectives
# (docs/format/mpi3.md, "MPI-3.1 calls") are collectives too.
NONBLOCKING_COLLECTIVES = {"I" + name[0].lower() + name[1:]: name for name in _COLLECTIVE}
NEIGHBOR_COLLECTIVES = frozenset(
    prefix + kind for prefix in ("Neighbor_", "Ineighbor_")
    for kind in ("allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"))
_COLLECTIVE = _COLLECTIVE | frozenset(NONBLOCKING_COLLECTIVES) | NEIGHBOR_COLLECTIVES
_WAIT = frozenset({"Wait", "Waitall", "Waitany", "Waitsome", "Test", "Testall", "Testany",
                   "Testsome"})


def family_of(name):
    """The family of a call name (the MPI function without MPI_)."""
    if name in _POINT_TO_POINT or name in _MATCHED_PROBES:
        return POINT_TO_POINT
    if name in _ONE_SIDED:
        return ONE_SIDED
    if name in _COLLECTIVE:
        return COLLECTIVE
    if name.startswith("File_"):
        return FILE_IO
    if name in _WAIT:
        return WAIT
    return OTHER
