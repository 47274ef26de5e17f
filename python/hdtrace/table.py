"""The numpy table of a project: one row per top-level call, filled by the C++ reader."""
import concurrent.futures
import os
import warnings
from dataclasses import dataclass

import numpy as np

from . import _core
from .errors import TraceDamageWarning

#: peer or tag where a call has none (MPI's own wildcards stay -1, PROC_NULL -2, ROOT -3).
NO_PEER = _core.NO_VALUE_32
NO_TAG = _core.NO_VALUE_32

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


def _read_one(project, leaf, names, window):
    from_ns, to_ns = project._window_ns(window)
    table = None
    if project.ranks_in_traces == "local":
        table = project.communicators.local_to_world_table(leaf.rank)
    columns = _core.read_columns(leaf.path, list(names or ()), from_ns, to_ns, project.partial,
                                 table)
    if columns["damage"]:
        warnings.warn(f"trace is damaged, kept every complete call before the damage: "
                      f"{columns['damage']}", TraceDamageWarning, stacklevel=4)
    return columns


def read_table(project, names, window):
    leaves = [leaf for leaf in project.topology.leaves if leaf.path not in project.missing_traces]
    # The C++ reader releases the GIL: traces are read on every core at once.
    workers = min(len(leaves), os.cpu_count() or 1)
    if workers > 1:
        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            read = list(pool.map(lambda leaf: _read_one(project, leaf, names, window), leaves))
    else:
        read = [_read_one(project, leaf, names, window) for leaf in leaves]
    parts = list(zip(leaves, read))
    all_names = sorted({name for _, columns in parts for name in columns["names"]})
    width = max((len(name) for name in all_names), default=1)

    dtype = [(column, kind if kind is not None else f"U{width}") for column, kind in TABLE_COLUMNS]
    rows = sum(len(columns["name_code"]) for _, columns in parts)
    array = np.empty(rows, dtype=dtype)
    extra = {key: np.empty(rows, dtype=np.int32) for key in ("recv_peer", "recv_tag")}
    completion_row, completion_rid, open_row, open_fid, open_name = [], [], [], [], []
    name_index = {name: code for code, name in enumerate(all_names)}
    name_code = np.empty(rows, dtype=np.int32)
    position = 0
    for leaf, columns in parts:
        count = len(columns["name_code"])
        part = slice(position, position + count)
        # One pass in C++ writes whole rows (see TableFill.cpp).
        _core.fill_table(array, position, columns, leaf.rank, leaf.thread, columns["names"])
        for key, values in extra.items():
            values[part] = columns[key]
        recode = np.array([name_index[name] for name in columns["names"]], dtype=np.int32)
        name_code[part] = recode[columns["name_code"]] if len(recode) else 0
        completion_row.append(columns["completion_row"] + position)
        completion_rid.append(columns["completion_rid"])
        open_row.append(columns["open_row"] + position)
        open_fid.append(columns["open_fid"])
        open_name.extend(columns["open_name"])
        position += count

    join = lambda chunks: np.concatenate(chunks) if chunks else np.empty(0, np.int64)  # noqa: E731
    completion_row, completion_rid = join(completion_row), join(completion_rid)
    open_row, open_fid = join(open_row), join(open_fid)
    if len(parts) > 1:
        order = np.argsort(array["start_ns"], kind="stable")
        array = array[order]
        for key in extra:
            extra[key] = extra[key][order]
        name_code = name_code[order]
        new_row = np.empty(rows, dtype=np.int64)
        new_row[order] = np.arange(rows)
        completion_row = new_row[completion_row]
        open_row = new_row[open_row]
    return Table(array, extra["recv_peer"], extra["recv_tag"], completion_row, completion_rid,
                 open_row, open_fid, open_name, all_names, name_code)
