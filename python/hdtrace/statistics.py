"""stats: where the time and the bytes of a run went.

functions -- per call name: calls, total, mean and max time (s), bytes: the
             sum of `size` over the calls that move data (moves_data): a
             message, a collective, a file read or write, an RMA transfer.
             Other calls' `size` is no data moved: File_get_size's is the
             file's size, File_set_size's and File_preallocate's the size
             asked for, a persistent *_init's the size of each later Start.
ranks     -- per rank: time inside MPI (sum of its top-level calls over all
             threads), the span from its first call's start to its last call's
             end, and the time outside MPI (span - mpi, at least 0)
files     -- per file: bytes and operations read and written, from the
             File_read*/File_iread* and File_write*/File_iwrite* calls. The
             file's name comes from the File_open that gave its fid on that rank.
"""
import re
from dataclasses import dataclass

import numpy as np

FUNCTION_DTYPE = np.dtype([("name", "U64"), ("calls", np.int64), ("total", np.float64),
                           ("mean", np.float64), ("max", np.float64), ("bytes", np.int64)])
RANK_DTYPE = np.dtype([("rank", np.int32), ("mpi", np.float64), ("outside", np.float64),
                       ("span", np.float64), ("calls", np.int64)])
FILE_DTYPE = np.dtype([("file", "U256"), ("bytes_read", np.int64), ("reads", np.int64),
                       ("bytes_written", np.int64), ("writes", np.int64)])


@dataclass
class Stats:
    functions: np.ndarray  # FUNCTION_DTYPE, by total time, largest first
    ranks: np.ndarray      # RANK_DTYPE, by rank
    files: np.ndarray      # FILE_DTYPE, by file name

    def format(self):
        """The three tables as aligned text."""
        from .cli import format_table
        parts = [
            "Functions", format_table(self.functions, {"total": "{:.6f}", "mean": "{:.6f}",
                                                       "max": "{:.6f}"}),
            "", "Ranks", format_table(self.ranks, {"mpi": "{:.6f}", "outside": "{:.6f}",
                                                   "span": "{:.6f}"}),
            "", "Files", format_table(self.files, {}),
        ]
        return "\n".join(parts)


_MESSAGES = {"Send", "Bsend", "Ssend", "Rsend", "Isend", "Ibsend", "Issend", "Irsend",
             "Recv", "Irecv", "Sendrecv", "Sendrecv_replace", "Mrecv", "Imrecv"}
_COLLECTIVES = {"Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather", "Allgatherv",
                "Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce", "Reduce_scatter",
                "Reduce_scatter_block", "Scan", "Exscan", "Neighbor_allgather",
                "Neighbor_allgatherv", "Neighbor_alltoall", "Neighbor_alltoallv",
                "Neighbor_alltoallw"}
_RMA = {"Put", "Get", "Accumulate", "Get_accumulate", "Fetch_and_op", "Compare_and_swap",
        "Rput", "Rget", "Raccumulate", "Rget_accumulate"}
# Their nonblocking forms: Iallgather, Ineighbor_alltoallv, ... (the tag is
# the MPI name without MPI_, so the letter after the I is lower case).
_NONBLOCKING_COLLECTIVES = {"I" + name[0].lower() + name[1:] for name in _COLLECTIVES}
_DATA_CALLS = _MESSAGES | _COLLECTIVES | _NONBLOCKING_COLLECTIVES | _RMA
# File_read, File_iwrite_at_all, File_read_all_begin (its <Data> child), ...
_FILE_ACCESS = re.compile(r"File_i?(read|write)")


def moves_data(name):
    """Whether a call's `size` is data it moved (see the module's docstring)."""
    return name in _DATA_CALLS or _FILE_ACCESS.match(name) is not None


def _is_read(name):
    return name.startswith("File_read") or name.startswith("File_iread")


def _is_write(name):
    return name.startswith("File_write") or name.startswith("File_iwrite")


def stats(project):
    """The stats of a Project, or of the frame of Project.to_dask() (computed
    per partition, then combined)."""
    # --- Dask
    from .distributed_frames import frame_stats, run_of
    run = run_of(project)
    if run is not None:
        return frame_stats(run)
    # --- end Dask
    table = project._full_table()
    array = table.array

    functions = []
    names, inverse = np.unique(array["name"], return_inverse=True)
    moving = np.array([moves_data(name) for name in names.tolist()], dtype=bool)[inverse]
    sizes = np.where(moving & (array["size"] > 0), array["size"], 0)
    for code, name in enumerate(names.tolist()):
        mask = inverse == code
        durations = array["duration"][mask]
        functions.append((name, mask.sum(), durations.sum(), durations.mean(), durations.max(),
                          sizes[mask].sum()))
    functions = np.array(functions, dtype=FUNCTION_DTYPE)
    functions = functions[np.argsort(-functions["total"], kind="stable")]

    ranks = []
    for rank in np.unique(array["rank"]).tolist():
        mask = array["rank"] == rank
        mpi = array["duration"][mask].sum()
        span = (array["end_ns"][mask].max() - array["start_ns"][mask].min()) / 1e9
        ranks.append((rank, mpi, max(span - mpi, 0.0), span, mask.sum()))
    ranks = np.array(ranks, dtype=RANK_DTYPE)

    file_names = {}
    for row, fid, name in zip(table.open_row.tolist(), table.open_fid.tolist(), table.open_name):
        file_names[(int(array["rank"][row]), fid)] = name
    per_file = {}
    for row in np.flatnonzero(array["fid"] >= 0).tolist():
        name = str(array["name"][row])
        reading, writing = _is_read(name), _is_write(name)
        if not (reading or writing):
            continue
        rank, fid = int(array["rank"][row]), int(array["fid"][row])
        file_name = file_names.get((rank, fid), f"fid {fid} of rank {rank}")
        entry = per_file.setdefault(file_name, [0, 0, 0, 0])
        size = max(int(array["size"][row]), 0)
        if reading:
            entry[0] += size
            entry[1] += 1
        else:
            entry[2] += size
            entry[3] += 1
    files = np.array([(name, *values) for name, values in sorted(per_file.items())],
                     dtype=FILE_DTYPE)
    return Stats(functions, ranks, files)
