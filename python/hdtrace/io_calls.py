"""Every call of a run that works on a file, of every I/O layer, as columns.

One row per call: the MPI-IO calls (the file I/O family of the dialect), and
the POSIX and stdio calls, at the top level or nested under the call that
made them. A row knows its layer, whether it read, wrote or did neither
(metadata: open, close, seek, sync, set_size, ...), its file, offset and
bytes, its times, its depth, and the row of the I/O call it is nested in.
The report, the layer statistics and the access plots all start from it.

Bytes, as io_layers defines them: an MPI call's `requested` and `done` are
both the bytes it asked for (its `size`, or its <Data> child's); a POSIX or
stdio call's `requested` is `asked` and `done` its result (0 when it
failed). Offsets are -1 where the trace gives none (or a POSIX call on a
file that cannot seek).

File names come from the opens in the trace (File_open's name) and, for the
C library's files, from the File lines of the rank's .info beside the trace
(the id space is shared); a file named by neither is "fid N of rank R".
"""
import os
import re
import warnings
from dataclasses import dataclass

import numpy as np

from . import native
from .calls import FILE_OPENS, IO_LAYERS, READ, WRITE, attribute_value, file_access, \
    file_access_values, has_done_count, io_layer_of
from .clocks import AS_WRITTEN
from .errors import TraceDamageWarning

#: kind column: what a call did to its file.
KIND_READ, KIND_WRITE, KIND_META = 0, 1, 2
KINDS = (READ, WRITE, "meta")
NO_VALUE = -1

COLUMNS = (
    ("rank", np.int32), ("thread", np.int32), ("call", np.int32), ("layer", np.int8),
    ("kind", np.int8), ("fid", np.int32), ("file", np.int32), ("offset", np.int64),
    ("requested", np.int64), ("done", np.int64), ("start_ns", np.int64), ("end_ns", np.int64),
    ("depth", np.int8), ("parent", np.int64), ("failed", np.bool_),
)


@dataclass
class IoCalls:
    """The columns (COLUMNS), and the tables their codes index.

    call   -- index in names
    layer  -- index in layers (calls.IO_LAYERS)
    file   -- index in files, -1: no file id
    parent -- the row of the I/O call this one is nested in; -1 at the top
              level, and under a call that is not an I/O call (its name is
              in parent_call)
    parent_call -- index in names of the call this one is nested in, -1 at
              the top level
    """
    columns: dict
    names: list
    files: list
    layers: tuple = IO_LAYERS

    def __len__(self):
        return len(self.columns["rank"])

    def __getitem__(self, column):
        return self.columns[column]

    def layer_code(self, layer):
        return self.layers.index(layer)


_INFO_FILE_LINE = re.compile(r'^File name="((?:[^"\\]|\\.)*)" Size=\S* id=(-?\d+)')


def info_file_names(trace_path):
    """{fid: name} of the File lines of the .info beside a trace ({} where
    there is none: a project's traces need not travel with their .info)."""
    base, _ = os.path.splitext(trace_path)
    names = {}
    try:
        with open(base + ".info", encoding="utf-8", errors="replace") as info:
            for line in info:
                match = _INFO_FILE_LINE.match(line)
                if match:
                    names[int(match.group(2))] = match.group(1).replace('\\"', '"')
    except OSError:
        pass
    return names


class _Builder:
    def __init__(self):
        self.values = {column: [] for column, _ in COLUMNS}
        self.parent_call = []
        self.names, self.name_code = [], {}
        self.files, self.file_code = [], {}

    def code(self, name):
        code = self.name_code.get(name)
        if code is None:
            code = self.name_code[name] = len(self.names)
            self.names.append(name)
        return code

    def file(self, name):
        code = self.file_code.get(name)
        if code is None:
            code = self.file_code[name] = len(self.files)
            self.files.append(name)
        return code

    def finish(self):
        columns = {column: np.asarray(self.values[column], dtype=kind)
                   for column, kind in COLUMNS}
        columns["parent_call"] = np.asarray(self.parent_call, dtype=np.int32)
        return IoCalls(columns, self.names, self.files)


def _integer(value, default=NO_VALUE):
    return default if value is None else int(value)


def add_trace(builder, events, rank, thread, info_names):
    """Adds the I/O calls of one trace's top-level Events (and of their
    nested blocks) to builder, in document order but for nesting: a call's
    row comes before the rows of the calls nested in it."""
    file_of_fid = dict(info_names)

    def visit(event, depth, parent_row, parent_code):
        layer = io_layer_of(event.name)
        row = None
        if layer is not None:
            # The row is taken before the nested calls are added, so that
            # they can name it; its values are filled in after them.
            row = len(builder.parent_call)
            for column, _ in COLUMNS:
                builder.values[column].append(0)
            builder.parent_call.append(parent_code)
        code = builder.code(event.name)
        for child in event.nested:
            visit(child, depth + 1, parent_row if row is None else row, code)
        if row is None:
            return
        attrs = event.attrs
        fid, offset, asked, done = file_access_values(event.name, attrs, event.data_attrs)
        fid = _integer(fid)
        opened = attribute_value(event.name, attrs, "opened_name")
        if event.name in FILE_OPENS and opened is not None and fid >= 0:
            file_of_fid[fid] = str(opened)
        op = file_access(event.name)
        kind = KIND_META if op is None else (KIND_READ if op == READ else KIND_WRITE)
        done = max(_integer(done, 0), 0) if op is not None else 0
        requested = max(_integer(asked, 0), 0) if op is not None else 0
        if has_done_count(event.name) and op is None:
            requested = max(_integer(asked, 0), 0)
        offset = _integer(offset)
        if op is None or offset < 0:
            offset = NO_VALUE
        name = file_of_fid.get(fid) if fid >= 0 else None
        if name is None and fid >= 0:
            name = f"fid {fid} of rank {rank}"
        values = builder.values
        for column, value in (
                ("rank", rank), ("thread", thread), ("call", code),
                ("layer", IO_LAYERS.index(layer)), ("kind", kind), ("fid", fid),
                ("file", NO_VALUE if name is None else builder.file(name)), ("offset", offset),
                ("requested", requested), ("done", done), ("start_ns", event.start_ns),
                ("end_ns", event.end_ns if event.end_ns is not None else event.start_ns),
                ("depth", depth), ("parent", parent_row), ("failed", attribute_value(event.name, attrs, "error") is not None)):
            values[column][row] = value

    for event in events:
        if event.start_ns is not None:
            visit(event, 0, NO_VALUE, NO_VALUE)


def walked_io_calls(project, layers=True):
    """project_io_calls by a walk over every Event in Python: the reference
    the columns are tested against (slow: for tests only)."""
    builder = _Builder()
    for leaf in project.topology.leaves:
        if leaf.path in project.missing_traces:
            continue
        add_trace(builder, project.trace(leaf.rank, leaf.thread, layers=layers), leaf.rank,
                  leaf.thread, info_file_names(leaf.path))
    return builder.finish()


def finish_order(depth, parent):
    """Per row of a tree in pre-order (each row's depth, and its parent's
    row): a key that sorts the rows as the calls end, a call after the calls
    nested in it."""
    # last: the last row of each call's subtree, from the deepest level up.
    # In pre-order the rows of a level have their parents in rising order,
    # and a parent's last child holds the subtree's last row: one
    # assignment per parent, no ufunc.at.
    last = np.arange(len(depth), dtype=np.int64)
    deepest = int(depth.max(initial=0))
    for level in range(deepest, 0, -1):
        rows = np.flatnonzero(depth == level)
        if not len(rows):
            continue
        parents = parent[rows]
        last_child = np.flatnonzero(np.append(parents[1:] != parents[:-1], True))
        last[parents[last_child]] = last[rows[last_child]]
    return last * (deepest + 1) + (deepest - depth.astype(np.int64))


class _NameTable:
    """Per call name: its layer, kind, whether its layer counts bytes done,
    and its code in the project's columns."""

    def __init__(self):
        self.known = {}
        self.names = []

    def of(self, names):
        rows = [self.known.get(name) or self.known.setdefault(name, self._describe(name))
                for name in names]
        if not rows:
            return (np.zeros(0, np.int8),) * 3 + (np.zeros(0, np.int32),)
        layer, kind, counts_done, code = zip(*rows)
        return np.array(layer, np.int8), np.array(kind, np.int8), \
            np.array(counts_done, bool), np.array(code, np.int32)

    def _describe(self, name):
        layer = io_layer_of(name)
        op = file_access(name)
        self.names.append(name)
        return (NO_VALUE if layer is None else IO_LAYERS.index(layer),
                KIND_META if op is None else (KIND_READ if op == READ else KIND_WRITE),
                has_done_count(name), len(self.names) - 1)


def project_io_calls(project, layers=True):
    """The IoCalls of every trace of an hdtrace.Project, trace by trace in
    topology order (times as the project gives them: aligned when it aligns
    its clocks), from the C++ reader's call trees; with layers, the calls of
    the layers traced beside a trace (HDF5) too, with the calls they made
    nested beneath them."""
    files, file_codes = [], {}
    names_table = _NameTable()

    def file_code(name):
        found = file_codes.get(name)
        if found is None:
            found = file_codes[name] = len(files)
            files.append(name)
        return found

    leaves = [leaf for leaf in project.topology.leaves
              if leaf.path not in project.missing_traces]

    def name_files(index, open_names, unnamed_fids):
        # A file is named by an open in the trace, else by the .info beside
        # it, else "fid N of rank R".
        leaf = leaves[index]
        info_names = info_file_names(leaf.path) if unnamed_fids else {}
        return [file_code(name) for name in open_names] + \
            [file_code(info_names.get(fid) or f"fid {fid} of rank {leaf.rank}")
             for fid in unnamed_fids]

    io = native.read_io_calls([(leaf.path, leaf.rank, leaf.thread) for leaf in leaves],
                              names_table.of, name_files, project.partial, layers)
    for leaf, damage in zip(leaves, io["damage"]):
        if damage:
            warnings.warn(f"trace is damaged, kept every complete call before the damage: "
                          f"{damage}", TraceDamageWarning, stacklevel=2)
    columns = {column: io[column] for column, _ in COLUMNS + (("parent_call", np.int32),)}
    columns["failed"] = columns["failed"].view(np.bool_)
    times = project.times
    if times is not AS_WRITTEN:
        first = 0
        for leaf, rows in zip(leaves, io["rows"]):
            for column in ("start_ns", "end_ns"):
                part = columns[column][first:first + rows]
                part[:] = np.asarray(times.apply(leaf.rank, leaf.thread, part), dtype=np.int64)
            first += rows
    return IoCalls(columns, names_table.names, files)
