"""The calls of the trace dialect as the Python package sees them: which
family a call belongs to, which calls post or complete a message, which are
rooted, which move data or access a file, which attributes name a
communicator or a datatype.

Every table about call names in the package lives here, and nowhere else:
the statistics, the message matching, the views, the exports and
`hdtrace check` all ask this module. A call's name is its element's tag,
the MPI function without "MPI_" (Send, File_write_at, Iallreduce, ...).
"""
import re

# --- Point-to-point messages

BLOCKING_SENDS = frozenset({"Send", "Bsend", "Ssend", "Rsend"})
NONBLOCKING_SENDS = frozenset({"Isend", "Ibsend", "Issend", "Irsend"})
SENDS = BLOCKING_SENDS | NONBLOCKING_SENDS
#: Mrecv and Imrecv receive the message their probe (Mprobe, Improbe) matched.
BLOCKING_RECEIVES = frozenset({"Recv", "Mrecv"})
NONBLOCKING_RECEIVES = frozenset({"Irecv", "Imrecv"})
RECEIVES = BLOCKING_RECEIVES | NONBLOCKING_RECEIVES
#: Both a send (toRank, toTag) and a receive (fromRank, fromTag).
SEND_RECEIVES = frozenset({"Sendrecv", "Sendrecv_replace"})
#: Calls whose message completes in the Wait/Test naming their rid.
NONBLOCKING = NONBLOCKING_SENDS | NONBLOCKING_RECEIVES
#: Persistent requests: each Start or Startall of their rid posts one message.
PERSISTENT_SENDS = frozenset({"Send_init", "Bsend_init", "Rsend_init", "Ssend_init"})
PERSISTENT_RECEIVES = frozenset({"Recv_init"})
STARTS = frozenset({"Start", "Startall"})
MATCHED_RECEIVES = frozenset({"Mrecv", "Imrecv"})
MATCHED_PROBES = frozenset({"Mprobe", "Improbe"})
PROBES = frozenset({"Probe", "Iprobe"})
#: MPI's wildcards and null process as a trace writes them in peer and tag.
ANY_SOURCE, ANY_TAG, PROC_NULL = -1, -1, -2

#: Calls that complete requests: their <For rid=.../> children name them.
COMPLETIONS = frozenset({"Wait", "Waitall", "Waitany", "Waitsome", "Test", "Testall", "Testany",
                         "Testsome"})

# --- Collectives

BLOCKING_COLLECTIVES = frozenset({
    "Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv",
    "Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce", "Reduce_scatter",
    "Reduce_scatter_block", "Scan", "Exscan",
})
#: {nonblocking collective: its blocking form}. The tag is the MPI name
#: without MPI_, so the letter after the I is lower case (Iallreduce).
NONBLOCKING_COLLECTIVES = {"I" + name[0].lower() + name[1:]: name
                           for name in BLOCKING_COLLECTIVES}
NEIGHBOR_COLLECTIVES = frozenset(
    prefix + kind for prefix in ("Neighbor_", "Ineighbor_")
    for kind in ("allgather", "allgatherv", "alltoall", "alltoallv", "alltoallw"))
COLLECTIVES = BLOCKING_COLLECTIVES | frozenset(NONBLOCKING_COLLECTIVES) | NEIGHBOR_COLLECTIVES
#: One rank sends to all (root= / rootRank=), or all send to one.
ONE_TO_ALL = frozenset({"Bcast", "Scatter", "Scatterv"})
ALL_TO_ONE = frozenset({"Gather", "Gatherv", "Reduce"})
#: Rooted collectives, blocking and nonblocking: each carries rootRank.
ROOTED = frozenset(name for name in BLOCKING_COLLECTIVES | frozenset(NONBLOCKING_COLLECTIVES)
                   if NONBLOCKING_COLLECTIVES.get(name, name) in ONE_TO_ALL | ALL_TO_ONE)

# --- One-sided communication

WINDOW_CONSTRUCTORS = frozenset({"Win_create", "Win_allocate", "Win_allocate_shared",
                                 "Win_create_dynamic"})
RMA_PUTS = frozenset({"Put", "Rput"})
RMA_GETS = frozenset({"Get", "Rget"})
RMA_ACCUMULATES = frozenset({"Accumulate", "Raccumulate"})
RMA_FETCHING_ATOMICS = frozenset({"Get_accumulate", "Rget_accumulate", "Fetch_and_op"})
RMA_COMPARE_AND_SWAPS = frozenset({"Compare_and_swap"})
#: The calls that move data to or from a window.
RMA_TRANSFERS = RMA_PUTS | RMA_GETS | RMA_ACCUMULATES | RMA_FETCHING_ATOMICS | \
    RMA_COMPARE_AND_SWAPS
#: Calls that complete a window's pending transfers: to one target, or all.
RMA_COMPLETE_TARGET = frozenset({"Win_unlock", "Win_flush", "Win_flush_local"})
RMA_COMPLETE_ALL = frozenset({"Win_fence", "Win_unlock_all", "Win_flush_all",
                              "Win_flush_local_all", "Win_complete", "Win_free"})
ONE_SIDED = WINDOW_CONSTRUCTORS | RMA_TRANSFERS | RMA_COMPLETE_TARGET | RMA_COMPLETE_ALL | \
    frozenset({"Win_attach", "Win_detach", "Win_lock", "Win_lock_all", "Win_sync", "Win_post",
               "Win_start", "Win_wait", "Win_test"})

# --- File I/O

READ, WRITE = "read", "write"
# File_read, File_iwrite_at_all, File_read_all_begin, ...
_FILE_ACCESS = re.compile(r"File_i?(read|write)")


def file_access(name):
    """READ or WRITE for a call that reads or writes a file, else None."""
    found = _FILE_ACCESS.match(name)
    return None if found is None else found.group(1)


# --- Bytes moved

#: Calls whose `size` is data they moved (besides file reads and writes).
DATA_CALLS = SENDS | RECEIVES | SEND_RECEIVES | \
    (COLLECTIVES - {"Barrier", "Ibarrier"}) | RMA_TRANSFERS


def moves_data(name):
    """Whether a call's `size` is data it moved: a message, a collective, a
    file read or write, an RMA transfer. Other calls' `size` is no data
    moved: File_get_size's is the file's size, File_set_size's and
    File_preallocate's the size asked for, a persistent *_init's the size of
    each later Start."""
    return name in DATA_CALLS or file_access(name) is not None


# --- Families: the colour groups of the timeline and the categories of the exports

POINT_TO_POINT = "point-to-point"
COLLECTIVE = "collective"
FILE_IO = "file I/O"
ONE_SIDED_FAMILY = "one-sided"
WAIT = "wait"
OTHER = "other"
#: In legend order.
FAMILIES = (POINT_TO_POINT, COLLECTIVE, FILE_IO, WAIT, OTHER, ONE_SIDED_FAMILY)

_POINT_TO_POINT_CALLS = SENDS | RECEIVES | SEND_RECEIVES | PROBES | MATCHED_PROBES | \
    PERSISTENT_SENDS | PERSISTENT_RECEIVES | STARTS


def family_of(name):
    """The family of a call name."""
    if name in _POINT_TO_POINT_CALLS:
        return POINT_TO_POINT
    if name in ONE_SIDED:
        return ONE_SIDED_FAMILY
    if name in COLLECTIVES:
        return COLLECTIVE
    if name.startswith("File_"):
        return FILE_IO
    if name in COMPLETIONS:
        return WAIT
    return OTHER


# --- Attributes that refer to ids defined elsewhere

#: Attributes holding a communicator id (cid) of the rank's CommunicatorList.
COMMUNICATOR_ATTRIBUTES = ("cid", "newCid")
#: Attributes holding a datatype id of the rank's <Datatypes>.
DATATYPE_ATTRIBUTES = ("tid", "recvtid", "etid", "filetid", "oldTid", "sendTid", "recvTid")
