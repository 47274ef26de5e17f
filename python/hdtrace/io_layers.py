"""The file accesses of a run in both layers: the MPI-IO calls the program
made, and the POSIX and stdio calls that reached the file system, nested
under the MPI call that issued them or standing alone.

The table (Project.to_numpy(), the C++ reader's columns) holds the top-level
calls only, so that its rows, the message matching and the clocks are those
of the MPI calls whatever a trace nests. The calls inside a <Nested> block
are the children of the call that follows the block: a POSIX pwrite under a
File_write_all is one FileAccess with depth 1 and parent File_write_all.
project_accesses takes them from the C++ reader's call trees
(hdtrace.io_calls); accesses_of_events walks the Events of one trace.

What each layer's bytes are:
- MPI: `size`, the bytes the call asked for (the trace has no count of what
  an MPI call did), or its <Data> child's for a split collective;
- POSIX: `size`, the call's result, the bytes it did (0 where it failed);
  `requested` is what it asked for (its `asked`).
The dialect's layers say which attribute is which (calls.file_access_values).
"""
import warnings
from dataclasses import dataclass

import numpy as np

from . import native
from .calls import (FILE_OPENS, LAYERS, MPI_IO_LAYER, MPI_LAYER, POSIX_CALLS, POSIX_LAYER, READ,
                    WRITE, attribute_names, attribute_value, file_access, file_access_values,
                    layer_of)
from .errors import TraceDamageWarning
from .io_calls import KIND_META, KIND_READ, KIND_WRITE, finish_order, project_io_calls


@dataclass(frozen=True)
class FileAccess:
    rank: int
    thread: int
    layer: str       # calls.MPI_LAYER or calls.POSIX_LAYER
    op: str          # calls.READ or calls.WRITE
    call: str        # the call's name, e.g. File_write_all, pwrite
    fid: int         # -1 where the call names no file id
    file: str        # the name its open gave the fid, else "fid N of rank R"
    offset: object   # int, or None where the trace gives no offset
    requested: int   # bytes asked for
    done: int        # bytes moved (see the module's text)
    start_ns: int    # absolute, as the events give them
    end_ns: int
    depth: int       # 0: a top-level call; 1: inside the <Nested> block of one ...
    parent: str      # the name of the call whose <Nested> block holds it; "" at the top level


def _integer(value, default):
    return default if value is None else int(value)


def _access(event, rank, thread, depth, parent, file_of_fid):
    op = file_access(event.name)
    if op is None:
        return None
    layer = layer_of(event.name)
    fid, offset, asked, done = file_access_values(event.name, event.attrs, event.data_attrs)
    done = max(_integer(done, 0), 0)
    requested = max(_integer(asked, 0), 0)
    if layer == POSIX_LAYER and offset is not None and int(offset) < 0:
        offset = None  # a POSIX call on a file that cannot seek: no position
    fid = _integer(fid, -1)
    name = file_of_fid.get(fid) or f"fid {fid} of rank {rank}"
    end_ns = event.end_ns if event.end_ns is not None else event.start_ns
    return FileAccess(rank, thread, layer, op, event.name, fid, name,
                      None if offset is None else int(offset), requested, done, event.start_ns,
                      end_ns, depth, parent)


def accesses_of_events(events, rank, thread, layers=(MPI_LAYER, POSIX_LAYER)):
    """The file accesses of one trace's top-level Events and their nested
    calls, in document order (a call's nested calls before it, as they are
    written). File names come from the opens of the trace, of either layer:
    both name their file by the same id."""
    file_of_fid = {}
    wanted = frozenset(layers)

    def visit(event, depth, parent):
        for child in event.nested:
            yield from visit(child, depth + 1, event.name)
        if event.name in FILE_OPENS:
            fid = attribute_value(event.name, event.attrs, "file")
            opened = attribute_value(event.name, event.attrs, "opened_name")
            if fid is not None and opened is not None:
                file_of_fid[int(fid)] = str(opened)
            return
        access = _access(event, rank, thread, depth, parent, file_of_fid)
        if access is not None and access.layer in wanted:
            yield access

    for event in events:
        if event.start_ns is not None:
            yield from visit(event, 0, "")


def _end_order(io):
    """Rows of an IoCalls in the order a walk of the traces meets the calls'
    ends: trace by trace, a call after the calls nested in it."""
    parent = io["parent"]
    depth = np.zeros(len(io), dtype=np.int64)
    above = parent.copy()
    while (above >= 0).any():  # a call's depth among the I/O calls above it
        nested = above >= 0
        depth[nested] += 1
        above[nested] = parent[above[nested]]
    return np.argsort(finish_order(depth, parent), kind="stable")


def accesses_of_io_calls(io, layers=(MPI_LAYER, POSIX_LAYER)):
    """The FileAccess of each read and write of an IoCalls in the given
    layers (MPI: MPI-IO; POSIX: the C library's, stdio included), trace by
    trace, each call's nested calls before it."""
    mpi_io = io.layer_code(MPI_IO_LAYER)
    c_library = {layer[0] for layer in LAYERS.values() if layer[3]}
    wanted = [code for code, name in enumerate(io.layers)
              if (code == mpi_io and MPI_LAYER in layers) or
              (name in c_library and POSIX_LAYER in layers)]
    rows = _end_order(io)
    rows = rows[np.isin(io["layer"][rows], wanted) & (io["kind"][rows] != KIND_META)]
    columns = {name: io[name][rows].tolist() for name in (
        "rank", "thread", "layer", "kind", "call", "fid", "file", "offset", "requested", "done",
        "start_ns", "end_ns", "depth", "parent_call")}
    ops = {KIND_READ: READ, KIND_WRITE: WRITE}
    for index in range(len(rows)):
        fid = columns["fid"][index]
        file_code = columns["file"][index]
        offset = columns["offset"][index]
        parent = columns["parent_call"][index]
        yield FileAccess(
            columns["rank"][index], columns["thread"][index],
            MPI_LAYER if columns["layer"][index] == mpi_io else POSIX_LAYER,
            ops[columns["kind"][index]], io.names[columns["call"][index]], fid,
            io.files[file_code] if file_code >= 0 else f"fid {fid} of rank {columns['rank'][index]}",
            None if offset < 0 else offset, columns["requested"][index], columns["done"][index],
            columns["start_ns"][index], columns["end_ns"][index], columns["depth"][index],
            io.names[parent] if parent >= 0 else "")


def project_accesses(project, layers=(MPI_LAYER, POSIX_LAYER)):
    """Every file access of an hdtrace.Project, trace by trace (times as the
    project gives them: aligned when it aligns its clocks), from the C++
    reader's call trees (io_calls) rather than a walk over Events. The
    accesses are those of the main traces, their depth and parent as there:
    a layer traced apart (HDF5) names datasets, not a file's bytes."""
    yield from accesses_of_io_calls(project_io_calls(project, layers=False), layers)


def has_nested_block(path):
    """Whether a trace may have a <Nested> block: for an XML trace a search of
    its bytes, much faster than parsing, so that of the traces whose
    top-level calls hold no POSIX call only those that nest anything are
    walked call by call. A compact trace's blocks are not text to search
    for: it is taken to have them, and is walked."""
    if native.trace_form(path) == "compact":
        return True
    marker = b"<Nested>"
    overlap = len(marker) - 1
    with open(path, "rb") as trace:
        tail = b""
        while True:
            block = trace.read(1 << 24)
            if not block:
                return False
            if marker in tail + block[:overlap] or marker in block:
                return True
            tail = block[-overlap:]


def posix_sums_of_trace(path, rank, thread, partial=False, top_level=True):
    """{(rank, op): [bytes done, calls]} of the POSIX reads and writes of one
    trace, at every depth (a path and plain values: a Dask task runs it too);
    as posix_sums_of_traces."""
    return posix_sums_of_traces([(path, rank, thread, top_level)], partial)[0]


def posix_sums_of_traces(traces, partial=False):
    """[{(rank, op): [bytes done, calls]}] of the POSIX reads and writes of
    each trace of traces ((path, rank, thread, top_level)), at every depth.
    Summed from the traces' call trees in C++ on every core
    (native.sum_call_sizes), without an Event per call; a trace is not read at
    all when it nests nothing and top_level says its top-level calls hold no
    POSIX call. A trace where a read or write has a size that is missing or no
    number is left to native.sum_call_bytes, which says which one."""
    if not POSIX_CALLS:
        return [{} for _ in traces]
    read = [index for index, (path, _, _, top_level) in enumerate(traces)
            if top_level or has_nested_block(path)]
    sums = [{} for _ in traces]
    totals = native.sum_call_sizes([traces[index][0] for index in read], partial, _POSIX_KIND)
    for index, total in zip(read, totals):
        path, rank = traces[index][0], traces[index][1]
        if total["unsized"]:
            sums[index] = _posix_sums_by_events(path, rank, partial)
            continue
        if total["damage"]:
            warnings.warn(f"trace is damaged, kept every complete call before the damage: "
                          f"{total['damage']}", TraceDamageWarning, stacklevel=3)
        sums[index] = {(rank, op): [size, calls] for op in (READ, WRITE)
                       for size, calls in [total[op]] if calls}
    return sums


#: The POSIX calls that read (0) or write (1).
_POSIX_KIND = {name: 0 if file_access(name) == READ else 1
               for name in POSIX_CALLS if file_access(name) is not None}


def _posix_sums_by_events(path, rank, partial):
    reads = sorted(name for name, kind in _POSIX_KIND.items() if kind == 0)
    writes = sorted(name for name, kind in _POSIX_KIND.items() if kind == 1)
    done_by = {name: attribute_names(name, "done")[0] for name in _POSIX_KIND}
    sums = native.sum_call_bytes(path, [], reads, writes, done_by, partial)
    if sums["damage"]:
        warnings.warn(f"trace is damaged, kept every complete call before the damage: "
                      f"{sums['damage']}", TraceDamageWarning, stacklevel=4)
    return {(rank, op): [bytes_done, calls] for op in (READ, WRITE)
            for bytes_done, calls in [sums[op]] if calls}
