"""The numpy table of a project: one row per top-level call, filled by the C++ reader."""
import concurrent.futures
import warnings
from dataclasses import dataclass

import numpy as np

from . import native
from .errors import TraceDamageWarning

#: peer or tag where a call has none (MPI's own wildcards stay -1, PROC_NULL -2, ROOT -3).
NO_PEER = native.NO_VALUE_32
NO_TAG = native.NO_VALUE_32

#: The columns of Project.to_numpy(). size, offset, cid, fid and rid are -1
#: where the call has no such value; peer and tag are NO_PEER / NO_TAG.
TABLE_COLUMNS = (
    ("rank", np.int32), ("thread", np.int32), ("name", None),
    ("start", np.float64), ("end", np.float64), ("duration", np.float64),
    ("size", np.int64), ("peer", np.int32), ("tag", np.int32), ("cid", np.int32),
    ("fid", np.int32), ("offset", np.int64), ("rid", np.int64),
    ("start_ns", np.int64), ("end_ns", np.int64),
)
_COPIED = ("size", "peer", "tag", "cid", "fid", "offset", "rid", "start_ns", "end_ns")


@dataclass
class Table:
    array: np.ndarray           # the structured array of to_numpy()
    recv_peer: np.ndarray       # Sendrecv's source (world), NO_PEER elsewhere
    recv_tag: np.ndarray
    completion_row: np.ndarray  # rows of Wait/Test calls ...
    completion_rid: np.ndarray  # ... and the rid of each <For> child
    open_row: np.ndarray        # File_open rows, their fid and file name
    open_fid: np.ndarray
    open_name: list
    names: list = None           # the distinct call names, sorted ...
    name_code: np.ndarray = None  # ... and each row's index in them (for the C++ clock correction)


def table_dtype(name_width):
    """The dtype of the table, its name column name_width characters wide."""
    return np.dtype([(column, kind if kind is not None else f"U{max(name_width, 1)}")
                     for column, kind in TABLE_COLUMNS])


def read_trace_columns(path, names, from_ns, to_ns, partial, local_to_world, begin=None,
                       end=None, stacklevel=4):
    """The C++ reader's columns of one trace (or of the byte range [begin, end)
    of it), with a TraceDamageWarning where a partial read stopped at damage."""
    bounds = {} if begin is None and end is None else {"begin": begin, "end": end}
    columns = native.read_columns(path, list(names or ()), from_ns, to_ns, partial,
                                  local_to_world, **bounds)
    if columns["damage"]:
        warnings.warn(f"trace is damaged, kept every complete call before the damage: "
                      f"{columns['damage']}", TraceDamageWarning, stacklevel=stacklevel)
    return columns


def read_leaf_columns(project, leaf, names=None, window=None):
    """The C++ reader's columns of one leaf's trace, its ranks as the project's."""
    from_ns, to_ns = project._window_ns(window)
    table = None
    if project.ranks_in_traces == "local":
        table = project.communicators.local_to_world_table(leaf.rank)
    return read_trace_columns(leaf.path, names, from_ns, to_ns, project.partial, table,
                              stacklevel=5)


#: A project of at most this many traces is read trace by trace.
TRACES_READ_ONE_BY_ONE = 64
#: A project of more traces, whose traces are on average smaller than this
#: (bytes; calls take about 100-250 bytes each in XML and 1-5 in compact
#: form), is read in one call into a run table. Per trace, Python's work
#: costs about 0.3 ms, as much as about 2,000 calls cost in the run table's
#: own sort and copies (0.15 us a call): 16,384 traces of 9 calls take 0.8-1.5
#: s as a run against 4.7 s trace by trace, two traces of 500,000 calls
#: 0.23-0.38 s against 0.13-0.21 s.
SMALL_TRACE_BYTES = {"xml": 256 << 10, "compact": 8 << 10}


def read_table(project, names, window):
    """The project's Table, in start order (stable; traces in (rank,
    thread) order, the topology's)."""
    if reads_as_one_run(project):
        return read_table_as_run(project, names, window)
    return read_table_trace_by_trace(project, names, window)


def reads_as_one_run(project):
    """Whether the project's traces are read into one run table
    (read_table_as_run): more than TRACES_READ_ONE_BY_ONE of them, small on
    average."""
    paths = [leaf.path for leaf in project.topology.leaves
             if leaf.path not in project.missing_traces]
    return len(paths) > TRACES_READ_ONE_BY_ONE and _mostly_small(paths, project.trace_bytes)


def _mostly_small(paths, trace_bytes):
    """Whether the traces at paths are on average small (SMALL_TRACE_BYTES),
    by their sizes when the project was opened."""
    compact = sum(1 for path in paths if path.endswith(".ctrc"))
    limit = (SMALL_TRACE_BYTES["compact"] * compact +
             SMALL_TRACE_BYTES["xml"] * (len(paths) - compact))
    return sum(trace_bytes.get(path, 0) for path in paths) <= limit


def read_table_as_run(project, names, window):
    """read_table's Table from every trace read in C++ on every core into
    one run table sorted by start (native.read_run_table, RunTable.hpp),
    whose columns then fill the rows in one pass."""
    from_ns, to_ns = project._window_ns(window)
    run = native.read_run_table(project.path, list(names or ()), from_ns, to_ns,
                                project.partial, project.ranks_in_traces == "local")
    for damage in run["damage"]:
        warnings.warn(f"trace is damaged, kept every complete call before the damage: {damage}",
                      TraceDamageWarning, stacklevel=5)
    run_names = list(run["names"])
    all_names = sorted(set(run_names))
    code_of = {name: code for code, name in enumerate(all_names)}
    rows = len(run["name_code"])
    # Memory that a table freed earlier in the process had, where there is
    # some: fresh pages cost the kernel's zeroing, up to a third of the read.
    array = native.empty_array(rows, table_dtype(max((len(name) for name in all_names),
                                                     default=1)))
    name_code = native.empty_array(rows, np.int32)
    # Each row's rank and thread from the run's columns.
    native.fill_table(array, 0, run, None, None, run_names, name_code_out=name_code,
                      code_map=[code_of[name] for name in run_names])
    return Table(array, run["recv_peer"], run["recv_tag"], run["completion_row"],
                 run["completion_rid"], run["open_row"], run["open_fid"], list(run["open_name"]),
                 all_names, name_code)


def read_table_trace_by_trace(project, names, window):
    """read_table's Table built trace by trace (each trace's columns read in
    C++, then written into the rows where they go)."""
    leaves = [leaf for leaf in project.topology.leaves if leaf.path not in project.missing_traces]
    # The C++ reader and fill_table release the GIL: traces are read, and
    # their rows written, on every core at once.
    workers = min(len(leaves), native.usable_cores())
    pool = concurrent.futures.ThreadPoolExecutor(workers) if workers > 1 else None
    try:
        run = pool.map if pool else map
        read = list(run(lambda leaf: read_leaf_columns(project, leaf, names, window), leaves))
        return _build_table(leaves, read, run)
    finally:
        if pool:
            pool.shutdown()


def _build_table(leaves, read, run):
    parts = list(zip(leaves, read))
    all_names = sorted({name for _, columns in parts for name in columns["names"]})
    width = max((len(name) for name in all_names), default=1)

    dtype = table_dtype(width)
    counts = [len(columns["name_code"]) for _, columns in parts]
    starts = np.cumsum([0] + counts)
    rows = int(starts[-1])
    # A project's calls in start order (stable: ties keep trace order): each
    # row is written once, straight to its place, rather than the table
    # being built in trace order and then gathered (a second pass over it).
    new_row = None
    if len(parts) > 1:
        new_row = native.start_order_rows([columns["start_ns"] for _, columns in parts])
    # Memory that a table freed earlier in the process had, where there is
    # some: fresh pages cost the kernel's zeroing, up to a third of the read.
    array = native.empty_array(rows, dtype)
    extra = {key: native.empty_array(rows, np.int32) for key in ("recv_peer", "recv_tag")}
    name_index = {name: code for code, name in enumerate(all_names)}
    name_code = native.empty_array(rows, np.int32)

    def fill(index):
        (leaf, columns), position = parts[index], int(starts[index])
        part = slice(position, position + counts[index])
        destination = None if new_row is None else new_row[part]
        # One pass in C++ writes whole rows, and each row's project-wide
        # name code and receive side (see TableFill.cpp).
        native.fill_table(array, position, columns, leaf.rank, leaf.thread, columns["names"],
                          destination, name_code_out=name_code,
                          code_map=[name_index[name] for name in columns["names"]],
                          recv_peer_out=extra["recv_peer"], recv_tag_out=extra["recv_tag"])

    list(run(fill, range(len(parts))))
    completion_row = [columns["completion_row"] + starts[index]
                      for index, (_, columns) in enumerate(parts)]
    completion_rid = [columns["completion_rid"] for _, columns in parts]
    open_row = [columns["open_row"] + starts[index] for index, (_, columns) in enumerate(parts)]
    open_fid = [columns["open_fid"] for _, columns in parts]
    open_name = [name for _, columns in parts for name in columns["open_name"]]

    join = lambda chunks: np.concatenate(chunks) if chunks else np.empty(0, np.int64)  # noqa: E731
    completion_row, completion_rid = join(completion_row), join(completion_rid)
    open_row, open_fid = join(open_row), join(open_fid)
    if new_row is not None:
        completion_row = new_row[completion_row]
        open_row = new_row[open_row]
    return Table(array, extra["recv_peer"], extra["recv_tag"], completion_row, completion_rid,
                 open_row, open_fid, open_name, all_names, name_code)
