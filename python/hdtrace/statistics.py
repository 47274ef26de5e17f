"""stats: where the time and the bytes of a run went.

functions -- per call name: calls, total, mean and max time (s), bytes: the
             sum of `size` over the calls that move data (calls.moves_data):
             a message, a collective, a file read or write, an RMA transfer.
ranks     -- per rank: time inside MPI (sum of its top-level calls over all
             threads, POSIX calls made outside MPI calls left out), the span
             from its first call's start to its last call's end, and the time
             outside MPI (span - mpi, at least 0)
files     -- per file: bytes and operations read and written, from the
             File_read*/File_iread* and File_write*/File_iwrite* calls. The
             file's name comes from the File_open that gave its fid on that rank.
layers    -- per I/O layer and rank, and for all ranks (rank -1): bytes and
             calls read and written. MPI: the top-level MPI-IO calls, bytes
             as asked (their `size`, as in files); POSIX: the POSIX and stdio
             reads and writes, nested under MPI calls or not, bytes as done
             (their result); a layer traced apart (HDF5) first: its reads and
             writes, by the bytes of their selections. The functions table
             has the top-level calls, and the calls of the layers traced
             apart (an H5Dwrite, its time holding the MPI calls it made): a
             POSIX call inside an MPI call is counted in its layer.

Computed in two steps, so that a table in this process and the partitions
of a Dask frame run the same code: part_stats reduces one part of a table
(the whole table, or one partition) to small sums, combine_stats adds the
parts' sums up into a Stats.
"""
import concurrent.futures
import warnings
from dataclasses import dataclass

import numpy as np

from . import native
from .calls import MPI_LAYER, POSIX_LAYER, READ, file_access, io_layer_of, layer_of, \
    moves_data
from .clocks import AS_WRITTEN
from .errors import TraceDamageWarning
from .io_layers import posix_sums_of_trace, posix_sums_of_traces
from .layer_traces import OWN_TRACE_LAYER_NAMES, layer_trace_paths
from .table import read_leaf_columns, reads_as_one_run
from .text_tables import format_table

FUNCTION_DTYPE = np.dtype([("name", "U64"), ("calls", np.int64), ("total", np.float64),
                           ("mean", np.float64), ("max", np.float64), ("bytes", np.int64)])
RANK_DTYPE = np.dtype([("rank", np.int32), ("mpi", np.float64), ("outside", np.float64),
                       ("span", np.float64), ("calls", np.int64)])
FILE_DTYPE = np.dtype([("file", "U256"), ("bytes_read", np.int64), ("reads", np.int64),
                       ("bytes_written", np.int64), ("writes", np.int64)])
#: rank -1: the layer's sums over all ranks.
LAYER_DTYPE = np.dtype([("layer", "U8"), ("rank", np.int32), ("bytes_read", np.int64),
                        ("reads", np.int64), ("bytes_written", np.int64), ("writes", np.int64)])
ALL_RANKS = -1


@dataclass
class Stats:
    functions: np.ndarray  # FUNCTION_DTYPE, by total time, largest first
    ranks: np.ndarray      # RANK_DTYPE, by rank
    files: np.ndarray      # FILE_DTYPE, by file name
    layers: np.ndarray     # LAYER_DTYPE, by layer (MPI, POSIX), then rank, all ranks last

    def format(self):
        """The four tables as aligned text."""
        parts = [
            "Functions", format_table(self.functions, {"total": "{:.6f}", "mean": "{:.6f}",
                                                       "max": "{:.6f}"}),
            "", "Ranks", format_table(self.ranks, {"mpi": "{:.6f}", "outside": "{:.6f}",
                                                   "span": "{:.6f}"}),
            "", "Files", format_table(self.files, {}),
            "", "Layers (HDF5: bytes of the selections; MPI: bytes asked by MPI-IO calls; "
                "POSIX: bytes done)",
            format_table(self._layers_as_text(), {}),
        ]
        return "\n".join(parts)

    def _layers_as_text(self):
        text = self.layers.astype([(name, "U16" if name == "rank" else kind)
                                   for name, kind in LAYER_DTYPE.descr])
        text["rank"][self.layers["rank"] == ALL_RANKS] = "all"
        return text


def part_stats(names, codes, columns, open_row, open_fid, open_name):
    """One part's sums. names: name code -> call name; codes: each row's
    code; columns: the rows' rank, duration, size, fid, start_ns and end_ns
    (arrays); open_row, open_fid, open_name: the part's File_open calls.
    A part is the whole table, a partition of it, or one trace. Returns
    small dicts only (what travels back from a worker)."""
    codes = np.asarray(codes, dtype=np.int64)
    # Contiguous copies: a table's columns are fields of one record array,
    # and every pass over a strided field is several times slower.
    rank, duration = (np.ascontiguousarray(columns[key]) for key in ("rank", "duration"))
    size, fid = (np.ascontiguousarray(columns[key]) for key in ("size", "fid"))
    start_ns, end_ns = (np.ascontiguousarray(columns[key]) for key in ("start_ns", "end_ns"))

    count = np.bincount(codes, minlength=len(names))
    longest = np.full(len(names), -np.inf)
    moving = np.array([moves_data(name) for name in names], dtype=bool)
    moved = np.zeros(len(names), dtype=np.int64)
    if len(codes):
        # Per name: rows sorted by name, then reduced (ufunc.at is a tenth as
        # fast); the bytes as int64, exact, where bincount would sum floats.
        order = np.argsort(codes, kind="stable")
        by_name = codes[order]
        firsts = np.flatnonzero(np.r_[True, by_name[1:] != by_name[:-1]])
        longest[by_name[firsts]] = np.maximum.reduceat(duration[order], firsts)
        data = np.where(moving[codes] & (size > 0), size, 0)
        moved[by_name[firsts]] = np.add.reduceat(data[order], firsts)
    # Whole nanoseconds add up exactly in float64 in any order, so totals (and
    # the table's order) do not depend on how the calls were split into parts.
    total_ns = np.bincount(codes, weights=end_ns - start_ns, minlength=len(names))
    functions = {name: (int(count[code]), int(total_ns[code]), float(longest[code]),
                        int(moved[code]))
                 for code, name in enumerate(names) if count[code]}

    posix = np.array([layer_of(name) == POSIX_LAYER for name in names], dtype=bool)
    in_mpi = ~posix[codes] if len(codes) else np.zeros(0, dtype=bool)
    ranks = {}
    if len(rank):
        # Per rank: rows sorted by rank (they mostly are), then reduced.
        order = np.argsort(rank, kind="stable")
        by_rank = rank[order]
        firsts = np.flatnonzero(np.r_[True, by_rank[1:] != by_rank[:-1]])
        in_mpi_time = np.add.reduceat(np.where(in_mpi, duration, 0.0)[order], firsts)
        first_start = np.minimum.reduceat(start_ns[order], firsts)
        last_end = np.maximum.reduceat(end_ns[order], firsts)
        rows = np.diff(np.r_[firsts, len(rank)])
        for index, one in enumerate(by_rank[firsts].tolist()):
            ranks[one] = (float(in_mpi_time[index]), int(first_start[index]),
                          int(last_end[index]), int(rows[index]))

    access_of_name = [file_access(name) if layer_of(name) == MPI_LAYER else None
                      for name in names]
    access = {}
    for kind in ("read", "write"):
        mask = np.array([found == kind for found in access_of_name], dtype=bool)
        mask = (mask[codes] if len(codes) else np.zeros(0, dtype=bool)) & (fid >= 0)
        if not mask.any():
            continue
        # (rank, fid) pairs as one integer each, summed in one pass.
        fids = int(fid[mask].max()) + 1
        keys, inverse = np.unique(rank[mask].astype(np.int64) * fids + fid[mask],
                                  return_inverse=True)
        inverse = inverse.reshape(-1)
        order = np.argsort(inverse, kind="stable")
        firsts = np.flatnonzero(np.r_[True, inverse[order][1:] != inverse[order][:-1]])
        sizes = np.add.reduceat(np.maximum(size[mask], 0)[order], firsts)
        calls = np.bincount(inverse, minlength=len(keys))
        for key, total, number in zip(keys.tolist(), sizes.tolist(), calls.tolist()):
            access[(key // fids, key % fids, kind)] = (total, number)
    open_rows = np.asarray(open_row, dtype=np.int64)
    open_rank = rank[open_rows].tolist() if len(open_row) else []
    open_start = start_ns[open_rows].tolist() if len(open_row) else []
    opens = list(zip(open_rank, np.asarray(open_fid).tolist(), open_name, open_start))
    return {"functions": functions, "ranks": ranks, "access": access, "opens": opens}


def _trace_part(names, codes, rank, start_ns, end_ns, size, fid, open_row=(), open_fid=(),
                open_name=()):
    """part_stats of the calls of one trace of one rank, from its columns."""
    columns = {"rank": np.full(len(codes), rank, dtype=np.int32),
               "duration": (end_ns - start_ns) / 1e9, "size": size, "fid": fid,
               "start_ns": start_ns, "end_ns": end_ns}
    return part_stats(names, codes, columns, open_row, open_fid, open_name)


def layer_part_stats(path, rank, partial=False):
    """The sums of the calls of the layers traced apart beside one trace
    (HDF5, <base>.hdf5.trc; a path and plain values: a Dask task runs it
    too): "functions" as part_stats gives them, and "layers", {layer name:
    {(rank, op): [bytes, calls]}} of their reads and writes (an HDF5 call's
    bytes: its selection's). Empty where the trace has none."""
    functions, layers = {}, {}
    for _, layer_path in layer_trace_paths(path):
        tree = native.read_call_tree(layer_path, partial)
        if tree["damage"]:
            warnings.warn(f"trace is damaged, kept every complete call before the damage: "
                          f"{tree['damage']}", TraceDamageWarning, stacklevel=2)
        names, codes = tree["names"], tree["name_code"]
        part = _trace_part(names, codes, rank, tree["start_ns"], tree["end_ns"], tree["size"],
                           tree["fid"])
        for name, sums in part["functions"].items():
            functions[name] = _add_function(functions.get(name), sums)
        for code, name in enumerate(names):
            op = file_access(name)
            rows = codes == code
            if op is None or not rows.any():
                continue
            sums = layers.setdefault(io_layer_of(name), {}).setdefault((rank, op), [0, 0])
            sums[0] += int(np.maximum(tree["size"][rows], 0).sum())
            sums[1] += int(rows.sum())
    return {"functions": functions, "layers": layers}


def _add_function(entry, sums):
    """One call name's (calls, total_ns, longest, bytes) with another part's added."""
    if entry is None:
        return tuple(sums)
    return (entry[0] + sums[0], entry[1] + sums[1], max(entry[2], sums[2]), entry[3] + sums[3])


def combine_stats(parts, posix_parts=(), layer_parts=()):
    """The Stats of parts' sums (part_stats), parts in trace order, of the
    POSIX sums of traces (io_layers.posix_sums_of_trace), and of the layers
    traced apart (layer_part_stats): their calls join the functions, not
    the ranks' time in MPI, which holds the MPI calls they made."""
    functions = {}
    for part in list(parts) + list(layer_parts):
        for name, (calls, total_ns, longest, moved) in part["functions"].items():
            entry = functions.setdefault(name, [0, 0, -np.inf, 0])
            entry[0] += calls
            entry[1] += total_ns
            entry[2] = max(entry[2], longest)
            entry[3] += moved
    functions = np.array([(name, calls, total_ns / 1e9, total_ns / 1e9 / calls, longest, moved)
                          for name, (calls, total_ns, longest, moved)
                          in sorted(functions.items())], dtype=FUNCTION_DTYPE)
    functions = functions[np.argsort(-functions["total"], kind="stable")]

    ranks = {}
    for part in parts:
        for rank, (mpi, first, last, calls) in part["ranks"].items():
            entry = ranks.setdefault(rank, [0.0, first, last, 0])
            entry[0] += mpi
            entry[1], entry[2] = min(entry[1], first), max(entry[2], last)
            entry[3] += calls
    rank_rows = []
    for rank, (mpi, first, last, calls) in sorted(ranks.items()):
        span = (last - first) / 1e9
        rank_rows.append((rank, mpi, max(span - mpi, 0.0), span, calls))
    ranks = np.array(rank_rows, dtype=RANK_DTYPE)

    # The File_open of a (rank, fid) that started last names it (of those
    # that started together, the last in the parts' order): the same
    # whether the parts are traces or slices of the table in start order.
    file_names, opened_at = {}, {}
    for part in parts:
        for rank, fid, name, start_ns in part["opens"]:
            if start_ns >= opened_at.get((rank, fid), start_ns):
                file_names[(rank, fid)], opened_at[(rank, fid)] = name, start_ns
    per_file = {}
    for part in parts:
        for (rank, fid, kind), (size, calls) in part["access"].items():
            name = file_names.get((rank, fid), f"fid {fid} of rank {rank}")
            entry = per_file.setdefault(name, [0, 0, 0, 0])
            at = 0 if kind == READ else 2
            entry[at] += size
            entry[at + 1] += calls
    files = np.array([(name, *values) for name, values in sorted(per_file.items())],
                     dtype=FILE_DTYPE)

    mpi = {}
    for part in parts:
        for (rank, _, kind), (size, calls) in part["access"].items():
            _add_layer_sums(mpi, rank, kind, size, calls)
    posix = {}
    for sums in posix_parts:
        for (rank, kind), (size, calls) in sums.items():
            _add_layer_sums(posix, rank, kind, size, calls)
    apart = {}
    for part in layer_parts:
        for layer, sums in part["layers"].items():
            for (rank, kind), (size, calls) in sums.items():
                _add_layer_sums(apart.setdefault(layer, {}), rank, kind, size, calls)
    rows = []
    for layer in OWN_TRACE_LAYER_NAMES:
        rows += _layer_rows(layer, apart.get(layer, {}))
    layers = np.array(rows + _layer_rows(MPI_LAYER, mpi) + _layer_rows(POSIX_LAYER, posix),
                      dtype=LAYER_DTYPE)
    return Stats(functions, ranks, files, layers)


def _add_layer_sums(sums, rank, kind, size, calls):
    at = 0 if kind == READ else 2
    for key in (rank, ALL_RANKS):
        entry = sums.setdefault(key, [0, 0, 0, 0])
        entry[at] += size
        entry[at + 1] += calls


def _layer_rows(layer, sums):
    """One layer's rows: by rank, then all ranks (none when it did no I/O)."""
    ranks = sorted(rank for rank in sums if rank != ALL_RANKS)
    return [(layer, rank, *sums[rank]) for rank in ranks + ([ALL_RANKS] if ranks else [])]


def stats(project):
    """The stats of a Project: from its table where it has been read, else
    trace by trace, each trace's calls one part (no table is built)."""
    leaves = [leaf for leaf in project.topology.leaves if leaf.path not in project.missing_traces]
    # A run whose clocks are corrected has had its table read to work the
    # correction out (clocks.load_correction): the table, corrected, serves
    # it. The times are loaded here, once, not by the workers at once. So
    # does the table of a run of many small traces, read in one pass, where
    # a part per trace cost Python's work per trace (some 0.3 ms).
    from_table = project.times is not AS_WRITTEN or project._table is not None or \
        project._raw is not None or reads_as_one_run(project)
    # The traces and the layer traces are read trace by trace, on every core
    # at once (the C++ reader releases the GIL); the nested calls of them all
    # by one C++ call, on every core too.
    workers = min(len(leaves), native.usable_cores())
    with concurrent.futures.ThreadPoolExecutor(max(workers, 1)) as pool:
        if from_table:
            table = project._full_table()
            array = table.array
            names, codes = table.names, table.name_code
            if codes is None:
                names, codes = np.unique(array["name"], return_inverse=True)
                names = names.tolist()
            parts = [part_stats(names, codes, array, table.open_row, table.open_fid,
                                table.open_name)]
            posix = _posix_sums(project, leaves, names, codes, array)
        else:
            by_trace = list(pool.map(lambda leaf: _trace_sums(project, leaf), leaves))
            parts = [part for part, _ in by_trace]
            posix = [sums for _, sums in by_trace]
        # Only the traces with a layer trace beside them go to the workers:
        # a task per trace costs more than the look for its layer traces.
        layered = [leaf for leaf in leaves if layer_trace_paths(leaf.path)]
        layer_parts = list(pool.map(
            lambda leaf: layer_part_stats(leaf.path, leaf.rank, project.partial), layered))
    return combine_stats(parts, posix, layer_parts)


def _trace_sums(project, leaf):
    """(part_stats of one trace's calls, its POSIX sums), of a project whose
    times are as written."""
    columns = read_leaf_columns(project, leaf)
    names, codes = list(columns["names"]), columns["name_code"]
    part = _trace_part(names, codes, leaf.rank, columns["start_ns"], columns["end_ns"],
                       columns["size"], columns["fid"], columns["open_row"],
                       columns["open_fid"], columns["open_name"])
    posix_codes = _posix_codes(names)
    top_level = bool(posix_codes) and bool(np.isin(codes, posix_codes).any())
    return part, posix_sums_of_trace(leaf.path, leaf.rank, leaf.thread, project.partial,
                                     top_level)


def _posix_codes(names):
    """The codes of the POSIX calls among names (code: index in names)."""
    return [code for code, name in enumerate(names) if layer_of(name) == POSIX_LAYER]


def _posix_sums(project, leaves, names, codes, array):
    """The POSIX sums of each trace, read on every core. A trace whose rows
    hold no POSIX call and that nests no call has none: it is not read again."""
    posix_codes = _posix_codes(names)
    with_top_level = set()
    if posix_codes:
        rows = np.isin(np.asarray(codes), posix_codes)
        with_top_level = set(zip(array["rank"][rows].tolist(), array["thread"][rows].tolist()))
    return posix_sums_of_traces(
        [(leaf.path, leaf.rank, leaf.thread, (leaf.rank, leaf.thread) in with_top_level)
         for leaf in leaves], project.partial)
