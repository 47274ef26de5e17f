"""Which file calls' bytes the overlap and redundancy checks take as the
file's own (report/byte_ranges.py), on I/O call columns made by hand: an
MPI-IO call on a file whose view its rank set is left out (its offset
counts the view's etypes), on the same file by another rank or on another
file by the same rank it is kept, and one with a C library call beneath it
gives way to that call."""
import numpy as np

from hdtrace.calls import IO_LAYERS, MPI_IO_LAYER, POSIX_LAYER
from hdtrace.io_calls import KIND_META, KIND_WRITE, IoCalls
from hdtrace.report.byte_ranges import byte_accesses

NAMES = ["File_set_view", "File_write_at", "pwrite"]
MPI_IO, POSIX = IO_LAYERS.index(MPI_IO_LAYER), IO_LAYERS.index(POSIX_LAYER)

# rank, file, call, layer, kind, offset, parent, kept
ROWS = [
    (0, 0, 0, MPI_IO, KIND_META, -1, -1, False),   # rank 0 sets a view on file 0
    (0, 0, 1, MPI_IO, KIND_WRITE, 0, -1, False),   # so its write there is in etypes
    (1, 0, 1, MPI_IO, KIND_WRITE, 64, -1, True),   # rank 1 set no view on file 0
    (0, 1, 1, MPI_IO, KIND_WRITE, 128, -1, True),  # nor rank 0 on file 1
    (1, 1, 1, MPI_IO, KIND_WRITE, 0, -1, False),   # its pwrite beneath says the bytes
    (1, 1, 2, POSIX, KIND_WRITE, 0, 4, True),
    (1, -1, 1, MPI_IO, KIND_WRITE, 0, -1, False),  # no file
]


def io_calls(rows):
    columns = {name: np.array([row[index] for row in rows], dtype) for index, (name, dtype) in
               enumerate((("rank", np.int32), ("file", np.int32), ("call", np.int32),
                          ("layer", np.int8), ("kind", np.int8), ("offset", np.int64),
                          ("parent", np.int64)))}
    return IoCalls(columns, NAMES, ["a.dat", "b.dat"])


def test_views_and_calls_beneath():
    assert byte_accesses(io_calls(ROWS)).tolist() == [row[-1] for row in ROWS]


def test_a_call_that_sets_no_view_leaves_the_write_in():
    io = io_calls(ROWS)
    io.names = ["File_sync"] + NAMES[1:]
    kept = [row[-1] for row in ROWS]
    kept[1] = True
    assert byte_accesses(io).tolist() == kept
