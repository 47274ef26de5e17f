"""The report's view of the file I/O a library traced apart (HDF5) did on
its own: the file calls its calls made that move none of the program's
data. For HDF5 that is the superblock, object headers, B-trees and heaps
it reads when a file or dataset is opened and writes when one is created,
flushed or closed, and the fill values of a chunked dataset's chunks when
it is created or extended; H5Dwrite and H5Dread (the calls that move the
program's data) are counted per dataset instead.

Counted at the layer right beneath the library (its MPI-IO calls, or its C
library calls where it used no MPI-IO), so that each access counts once.
Darshan counts the same accesses without knowing which HDF5 call made
them; here each is tied to the call that made it.
"""
import numpy as np

from ..calls import file_access
from ..io_calls import KIND_READ, KIND_WRITE


def library_rows(io, apart):
    """The rows of io of the library's own file calls: those directly
    beneath a call of a layer traced apart (apart: per row, whether it is
    one) that moves none of the program's data."""
    if not apart.any():  # no layer traced apart: a pass over every call saved
        return np.zeros(0, dtype=np.int64)
    moving = np.array([file_access(name) is not None for name in io.names] + [False],
                      dtype=bool)[io["call"]]
    owners = apart & ~moving
    parent = io["parent"]
    beneath = np.flatnonzero(parent >= 0)
    return beneath[owners[parent[beneath]] & ~apart[beneath]]


def library_io(io, beneath):
    """One dict per call name of a layer traced apart whose calls made file
    calls without moving the program's data (beneath: those file calls'
    rows, library_rows), most time first: the layer, the call, how many of
    its calls made file calls, on how many ranks, the reads and writes
    beneath with their bytes, the other file calls (opens, syncs, sizes,
    views), and the time in all of them."""
    if not len(beneath):
        return []
    parent = io["parent"]
    owner = parent[beneath]
    kind = io["kind"][beneath]
    done = np.maximum(io["done"][beneath], 0)
    duration = (io["end_ns"][beneath] - io["start_ns"][beneath]).astype(np.float64) / 1e9
    # Per (layer, call name) of the owner.
    names = io["call"][owner].astype(np.int64)
    keys, group = np.unique(io["layer"][owner].astype(np.int64) * len(io.names) + names,
                            return_inverse=True)
    group = group.reshape(-1)
    count = len(keys)

    def summed(rows, weights=None):
        found = np.bincount(group[rows], weights=None if weights is None else weights[rows],
                            minlength=count)
        return found if weights is not None else found.astype(np.int64)

    everything = np.ones(len(beneath), dtype=bool)
    reads, writes = kind == KIND_READ, kind == KIND_WRITE
    time_s = summed(everything, duration)
    # Distinct owners and ranks per group: each (group, owner) and (group,
    # rank) pair as one integer.
    rows, world = len(io), int(io["rank"].max(initial=0)) + 1
    made = np.bincount(np.unique(group.astype(np.int64) * rows + owner) // rows, minlength=count)
    rank_pairs = np.unique(group.astype(np.int64) * world + io["rank"][owner])
    ranks = np.bincount(rank_pairs // world, minlength=count)
    read_count, write_count = summed(reads), summed(writes)
    bytes_read, bytes_written = summed(reads, done), summed(writes, done)
    other = summed(~reads & ~writes)
    entries = []
    for index, key in enumerate(keys.tolist()):
        layer, name = divmod(key, len(io.names))
        entries.append({"layer": io.layers[layer], "call": io.names[name],
                        "calls": int(made[index]), "ranks": int(ranks[index]),
                        "reads": int(read_count[index]), "bytes_read": int(bytes_read[index]),
                        "writes": int(write_count[index]),
                        "bytes_written": int(bytes_written[index]),
                        "other": int(other[index]), "time_s": float(time_s[index])})
    entries.sort(key=lambda entry: (-entry["time_s"], entry["layer"], entry["call"]))
    return entries
