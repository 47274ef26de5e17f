"""Which file calls' offsets and bytes are the file's own bytes, as the
checks on byte ranges (redundant reads, overlapping accesses) need them."""
import numpy as np

from ..calls import FILE_VIEW_SETTERS, MPI_IO_LAYER
from ..io_calls import KIND_META


def byte_accesses(io):
    """Rows whose [offset, offset + done) are the file's own bytes: the C
    library's reads and writes, and the MPI-IO ones that made none of them
    (their bytes reached the file some other way) on a file whose view the
    rank never set (a view makes the offset count etypes of the view, and
    its data need not be one run of bytes)."""
    rows = (io["kind"] != KIND_META) & (io["offset"] >= 0) & (io["file"] >= 0)
    mpi_io = io["layer"] == io.layer_code(MPI_IO_LAYER)
    has_children = np.zeros(len(io), dtype=bool)
    parents = io["parent"][io["parent"] >= 0]
    has_children[parents] = True
    names = io.names
    view_calls = [code for code, name in enumerate(names) if name in FILE_VIEW_SETTERS]
    viewed = np.zeros(len(io), dtype=bool)
    if view_calls:
        # Each (rank, file) pair as one integer: a set view is looked up per
        # row by numpy, not by a Python loop over every MPI-IO call.
        setters = np.isin(io["call"], view_calls) & (io["file"] >= 0)
        width = len(io.files)
        pair = io["rank"].astype(np.int64) * width + io["file"]
        viewed = mpi_io & rows & np.isin(pair, pair[setters])
    return rows & ~(mpi_io & (has_children | viewed))
