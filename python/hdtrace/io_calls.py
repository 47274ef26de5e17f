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
from dataclasses import dataclass

import numpy as np

from .calls import FILE_OPENS, IO_LAYERS, POSIX_ASKED_ATTRIBUTE, POSIX_CALLS, READ, WRITE, \
    file_access, io_layer_of

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


def _data_child(event):
    for child in event.elements:  # split collectives: <Data offset= size=>
        if child.name == "Data":
            return child.attrs
    return {}


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
        fid = _integer(attrs.get("fid"))
        if event.name in FILE_OPENS and "name" in attrs and fid >= 0:
            file_of_fid[fid] = str(attrs["name"])
        op = file_access(event.name)
        kind = KIND_META if op is None else (KIND_READ if op == READ else KIND_WRITE)
        posix = event.name in POSIX_CALLS
        source = attrs if posix or "size" in attrs else _data_child(event)
        done = max(_integer(source.get("size"), 0), 0) if op is not None else 0
        requested = max(_integer(attrs.get(POSIX_ASKED_ATTRIBUTE), 0), 0) if posix else done
        if op is not None and not posix:
            requested = done
        offset = _integer(source.get("offset"))
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
                ("depth", depth), ("parent", parent_row), ("failed", "errno" in attrs)):
            values[column][row] = value

    for event in events:
        if event.start_ns is not None:
            visit(event, 0, NO_VALUE, NO_VALUE)


def project_io_calls(project):
    """The IoCalls of every trace of an hdtrace.Project, trace by trace in
    topology order (times as the project gives them: aligned when it aligns
    its clocks)."""
    builder = _Builder()
    for leaf in project.topology.leaves:
        if leaf.path in project.missing_traces:
            continue
        add_trace(builder, project.trace(leaf.rank, leaf.thread), leaf.rank, leaf.thread,
                  info_file_names(leaf.path))
    return builder.finish()
