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
        setters = np.isin(io["call"], view_calls)
        pairs = set(zip(io["rank"][setters].tolist(), io["file"][setters].tolist()))
        candidates = np.flatnonzero(mpi_io & rows)
        for row in candidates[[pair in pairs for pair in zip(
                io["rank"][candidates].tolist(), io["file"][candidates].tolist())]]:
            viewed[row] = True
    return rows & ~(mpi_io & (has_children | viewed))
