"""The calls of the trace dialect as the Python package sees them: which
family a call belongs to, which calls post or complete a message, which are
rooted, which move data or access a file, which attributes name a
communicator or a datatype.

Every table about call names in the package lives here, and nowhere else:
the statistics, the message matching, the views, the exports and
`hdtrace check` all ask this module. It takes them from `_dialect`, which
the build generates from the definition of the dialect
(format/dialect.toml), so that a call's tag and role are written in one
place. A call's name is its element's tag, the MPI function without "MPI_".
"""
import functools

from . import _dialect

# --- Point-to-point messages

SENDS = _dialect.SENDS
NONBLOCKING = _dialect.NONBLOCKING
BLOCKING_SENDS = SENDS - NONBLOCKING
NONBLOCKING_SENDS = SENDS & NONBLOCKING
#: Mrecv and Imrecv receive the message their probe (Mprobe, Improbe) matched.
RECEIVES = _dialect.RECEIVES
BLOCKING_RECEIVES = RECEIVES - NONBLOCKING
NONBLOCKING_RECEIVES = RECEIVES & NONBLOCKING
#: Both a send (toRank, toTag) and a receive (fromRank, fromTag).
SEND_RECEIVES = _dialect.SEND_RECEIVES
#: Persistent requests: each Start or Startall of their rid posts one message.
PERSISTENT_SENDS = _dialect.PERSISTENT_SENDS
PERSISTENT_RECEIVES = _dialect.PERSISTENT_RECEIVES
STARTS = _dialect.STARTS
#: Startall: its <For> children name the requests it starts (Start names its rid).
STARTS_THROUGH_CHILDREN = _dialect.STARTS_THROUGH_CHILDREN
MATCHED_RECEIVES = _dialect.MATCHED_RECEIVES
MATCHED_PROBES = _dialect.MATCHED_PROBES
PROBES = _dialect.PROBES
#: MPI's wildcards and null process as a trace writes them in peer and tag.
ANY_SOURCE, ANY_TAG, PROC_NULL = -1, -1, -2

#: Calls that complete requests: their <For rid=.../> children name them.
COMPLETIONS = _dialect.COMPLETIONS

# --- Collectives

_SHAPE = _dialect.COLLECTIVE_SHAPE
_OPERATION = _dialect.COLLECTIVE_OPERATION
NEIGHBOR_COLLECTIVES = frozenset(name for name, shape in _SHAPE.items()
                                 if shape == "neighbourhood")
BLOCKING_COLLECTIVES = frozenset(name for name in _SHAPE
                                 if name not in NEIGHBOR_COLLECTIVES and
                                 _OPERATION[name] == name)
#: {nonblocking collective: its blocking form} (Iallreduce: Allreduce).
NONBLOCKING_COLLECTIVES = {name: _OPERATION[name] for name in _SHAPE
                           if name not in NEIGHBOR_COLLECTIVES and _OPERATION[name] != name}
COLLECTIVES = frozenset(_SHAPE)
#: One rank sends to all (root= / rootRank=), or all send to one.
ONE_TO_ALL = frozenset(name for name in BLOCKING_COLLECTIVES if _SHAPE[name] == "one-to-all")
ALL_TO_ONE = frozenset(name for name in BLOCKING_COLLECTIVES if _SHAPE[name] == "all-to-one")
#: Rooted collectives, blocking and nonblocking: each carries rootRank.
ROOTED = _dialect.ROOTED

# --- One-sided communication

WINDOW_CONSTRUCTORS = _dialect.WINDOW_CONSTRUCTORS
WINDOW_DESTRUCTORS = _dialect.WINDOW_DESTRUCTORS


def _rma(kind):
    return frozenset(name for name, rma in _dialect.RMA.items() if rma == kind)


RMA_PUTS = _rma("put")
RMA_GETS = _rma("get")
RMA_ACCUMULATES = _rma("accumulate")
RMA_FETCHING_ATOMICS = _rma("fetch-and-accumulate")
RMA_COMPARE_AND_SWAPS = _rma("compare-and-swap")
#: The calls that move data to or from a window.
RMA_TRANSFERS = frozenset(_dialect.RMA)
#: Calls that complete a window's pending transfers: to one target, or all.
RMA_COMPLETE_TARGET = _dialect.RMA_COMPLETES_TARGET
RMA_COMPLETE_ALL = _dialect.RMA_COMPLETES_ALL

# --- File I/O

READ, WRITE = "read", "write"
#: Calls that open a file: their fid and name.
FILE_OPENS = _dialect.FILE_OPENS
#: Calls that delete a file by name: their fid need not be of an open file.
FILE_DELETES = _dialect.FILE_DELETES
#: Calls that make a file's writes visible to the other processes (MPI_File_sync,
#: MPI_File_close).
FILE_SYNCS = _dialect.FILE_SYNCS


def file_access(name):
    """READ or WRITE for a call that reads or writes a file, else None."""
    if name in _dialect.FILE_READS:
        return READ
    if name in _dialect.FILE_WRITES:
        return WRITE
    return None


# --- Bytes moved

#: Calls whose `size` is data they moved (besides file reads and writes).
DATA_CALLS = _dialect.MOVES_DATA - _dialect.FILE_READS - _dialect.FILE_WRITES


def moves_data(name):
    """Whether a call's `size` is data it moved: a message, a collective, a
    file read or write, an RMA transfer. Other calls' `size` is no data
    moved: File_get_size's is the file's size, File_set_size's and
    File_preallocate's the size asked for, a persistent *_init's the size of
    each later Start."""
    return name in DATA_CALLS or file_access(name) is not None


# --- Families: the colour groups of the timeline and the categories of the exports

POINT_TO_POINT, COLLECTIVE, FILE_IO, WAIT, OTHER, ONE_SIDED_FAMILY = (
    "point-to-point", "collective", "file I/O", "wait", "other", "one-sided")
#: In legend order.
FAMILIES = _dialect.FAMILIES
FAMILY_COLOURS = _dialect.FAMILY_COLOURS
ONE_SIDED = frozenset(name for name, family in _dialect.FAMILY_OF.items()
                      if family == ONE_SIDED_FAMILY)


def family_of(name):
    """The family of a call name; a name the dialect does not define (a
    state of the C API) is file I/O when it starts so, else other."""
    family = _dialect.FAMILY_OF.get(name)
    if family is not None:
        return family
    return FILE_IO if name.startswith("File_") else OTHER


# --- Layers: the MPI calls, and the C library's calls beneath or beside them

#: {layer key: (name, part_of, io, c_library, own_trace)}, outermost first, as the
#: dialect's [layers] declare them.
LAYERS = _dialect.LAYERS
MPI_LAYER, POSIX_LAYER = LAYERS["mpi"][0], LAYERS["posix"][0]
#: The C library calls on files (open, pwrite, fwrite, ...): a trace holds
#: them inside the <Nested> block of the MPI call that made them, or at the
#: top level when no MPI call was running.
POSIX_CALLS = _dialect.C_LIBRARY_CALLS


def layer_key(name):
    """The key of a call's layer in the dialect ("mpi", "posix", "stdio",
    ...); "mpi" for a name the dialect does not define (a state of the C API)."""
    return _dialect.LAYER_OF.get(name, "mpi")


def layer_of(name):
    """POSIX_LAYER for a C library call (POSIX or stdio), MPI_LAYER for every
    other call (MPI calls, and the states a program writes through libhdtrace)."""
    return POSIX_LAYER if name in POSIX_CALLS else MPI_LAYER


# --- What attributes mean: the roles of each call and the meanings of its layer


# Cached: the dialect's tables do not change, and the exports and the
# readers in Python ask this for every call they see.
@functools.lru_cache(maxsize=None)
def attribute_names(name, meaning):
    """The attributes that carry a meaning of the call's layer (file, offset,
    asked, done, peer, tag, communicator, request, error, opened_name), the
    first present to be taken; a call's role key of the dialect (sends_to,
    receives_from, rooted_by, creates_request, ...) names its one attribute."""
    named = _dialect.ROLE_ATTRIBUTES.get(meaning)
    if named is not None:
        attribute = named.get(name)
        return () if attribute is None else (attribute,)
    return _dialect.MEANINGS[layer_key(name)].get(meaning, ())


def carries(name, meaning):
    """Whether the call has an attribute that carries a meaning of its layer
    (an HDF5 call may have the layer's opened_name, or not)."""
    return bool(set(attribute_names(name, meaning)) & set(_dialect.ATTRIBUTES.get(name, ())))


def attribute_value(name, attrs, meaning, default=None):
    """The value of the first attribute of attrs (a call's, or a child
    element's of that call) carrying the meaning or role; default if none."""
    for attribute in attribute_names(name, meaning):
        value = attrs.get(attribute)
        if value is not None:
            return value
    return default


def matched_message(name, attrs):
    """The id of the message a matched probe found or a matched receive took
    (Mprobe, Mrecv, ...): -1 where the call names none."""
    role = "probes_message" if name in _dialect.MATCHED_PROBES else "receives_message"
    return attribute_value(name, attrs, role, -1)


def has_done_count(name):
    """Whether the call's layer writes the bytes it moved apart from those it
    asked for (the C library's); an MPI call's asked bytes are all the trace
    has."""
    return bool(attribute_names(name, "done"))


def file_access_values(name, attrs, data_attrs=None):
    """(fid, offset, asked, done) of a call on a file, each None where the
    trace gives none, by the meanings of the call's layer: a C library call
    writes what it asked for and what it did; an MPI call what it asked for
    only, which is then both. A call without its own (a split collective's
    begin) has them in its <Data> child: data_attrs, a callable giving that
    child's attributes, is called only then."""
    fid = attribute_value(name, attrs, "file")
    source = attrs
    if attribute_value(name, attrs, "asked") is None and not has_done_count(name) and data_attrs:
        source = data_attrs()
    asked = attribute_value(name, source, "asked")
    done = attribute_value(name, source, "done") if has_done_count(name) else asked
    return fid, attribute_value(name, source, "offset"), asked, done


# --- I/O layers as the report and the I/O tables name them

MPI_IO_LAYER, STDIO_LAYER = LAYERS["mpiio"][0], LAYERS["stdio"][0]
#: The C library's buffered file calls, which the report counts apart from
#: the descriptor calls (as Darshan does).
STDIO_CALLS = frozenset(name for name, key in _dialect.LAYER_OF.items() if key == "stdio")
#: In the order the report lists them: the dialect's layers that work on files.
IO_LAYERS = tuple(layer[0] for layer in LAYERS.values() if layer[2])


#: The reads and writes whose layer says how they moved their data (the
#: transfer meaning: HDF5's H5Dwrite and H5Dread, collective or independent).
TRANSFER_CALLS = frozenset(name for name in _dialect.LAYER_OF
                           if file_access(name) is not None and carries(name, "transfer"))
#: The value of the transfer meaning for a collective transfer (the other
#: value the HDF5 layer writes is "independent").
COLLECTIVE_TRANSFER = "collective"
#: The calls that name a dataset of their layer (the dataset meaning:
#: HDF5's H5Dcreate2, H5Dopen2, H5Dwrite, H5Dclose, ...).
DATASET_CALLS = frozenset(name for name in _dialect.LAYER_OF if carries(name, "dataset"))


def io_layer_of(name):
    """The I/O layer of a call that works on files: MPI_IO_LAYER for the
    MPI calls of the file I/O family, POSIX_LAYER or STDIO_LAYER for the C
    library's; None for every other call."""
    key = _dialect.IO_LAYER_OF.get(name)
    return None if key is None else LAYERS[key][0]


# --- Attributes that refer to ids defined elsewhere

#: Attributes holding a communicator id (cid) of the rank's CommunicatorList.
COMMUNICATOR_ATTRIBUTES = _dialect.ATTRIBUTES_OF_KIND["cid"]
#: Attributes holding a datatype id of the rank's <Datatypes>: ours, and the
#: original implementation's Sendrecv attributes.
DATATYPE_ATTRIBUTES = _dialect.ATTRIBUTES_OF_KIND["tid"] + ("sendTid", "recvTid")
#: Calls that set a file's view (File_set_view): those that give it a filetype.
FILE_VIEW_SETTERS = frozenset(name for name, attributes in _dialect.ATTRIBUTES.items()
                              if "filetid" in attributes)
#: The MPI-IO reads and writes all ranks of the file's communicator make
#: together (File_write_all, File_read_at_all_begin, File_write_ordered, ...),
#: and the nonblocking ones (File_iwrite, File_iread_at_all, ...).
_MPI_IO_ACCESSES = _dialect.FILE_READS | _dialect.FILE_WRITES
COLLECTIVE_FILE_ACCESSES = frozenset(
    name for name in _MPI_IO_ACCESSES
    if name.startswith("File_") and ("_all" in name or "_ordered" in name))
NONBLOCKING_FILE_ACCESSES = frozenset(
    name for name in _MPI_IO_ACCESSES if name.startswith("File_i"))
#: Blocking collectives in which every rank gives to and takes from every
#: other (Barrier, Allreduce, Alltoall, ...): none can leave before the last
#: has come.
N_TO_N_COLLECTIVES = frozenset(name for name in BLOCKING_COLLECTIVES
                               if _SHAPE[name] == "all-to-all")
