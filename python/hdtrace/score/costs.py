"""What each call of a traced run cost: visits, time and trace bytes in
both forms, per trace, as the reader measures them in the trace itself
(native.call_costs: an XML trace's elements byte by byte, a compact
trace's records with their frames' compressed bytes shared out; the
other form by converting the trace)."""
import concurrent.futures
import os
from dataclasses import dataclass

import numpy as np

from .. import native
from ..layer_traces import layer_trace_paths

#: The columns of RunCosts.calls.
CALL_COLUMNS = ("rank", "thread", "tag", "nested", "apart", "visits", "time_ns", "bytes_xml",
                "bytes_compact")


@dataclass
class RunCosts:
    """calls  -- one row per trace and (tag, nested): CALL_COLUMNS; apart: a
              call of a layer traced apart (HDF5), in the layer trace beside
              the main trace, whose time holds the MPI calls it made
    traces -- one row per trace, the layer traces beside the main ones
              too (apart): rank, thread, path, apart, fixed_xml,
              fixed_compact (bytes outside calls), file_xml, file_compact
              (the whole trace in each form), info_bytes (its .info; 0 for
              a layer trace, which has none), span_ns (first call's start
              to last call's end)
    ranks  -- every rank of the project, traced or not (a rank left out by
              a filter has a trace without calls)"""
    calls: "pandas.DataFrame"
    traces: "pandas.DataFrame"
    ranks: list


def _info_bytes(trace_path):
    base, _ = os.path.splitext(trace_path)
    try:
        return os.path.getsize(base + ".info")
    except OSError:
        return 0


@dataclass
class TraceFile:
    """One trace file of a thread: its main trace, or a layer trace beside it."""
    rank: int
    thread: int
    path: str
    apart: bool = False


def trace_files(project):
    """Every trace file of a project's traces that are there: each main
    trace, then the layer traces beside it."""
    files = []
    for leaf in project.topology.leaves:
        if leaf.path in project.missing_traces:
            continue
        files.append(TraceFile(leaf.rank, leaf.thread, leaf.path))
        files += [TraceFile(leaf.rank, leaf.thread, path, True)
                  for _, path in layer_trace_paths(leaf.path)]
    return files


#: The dtypes of CALL_COLUMNS but tag (object: str).
_COLUMN_TYPES = {"rank": np.int32, "thread": np.int32, "nested": bool, "apart": bool,
                 "visits": np.int64, "time_ns": np.int64, "bytes_xml": np.int64,
                 "bytes_compact": np.int64}


class CostRows:
    """The rows of traces' costs (native.call_costs) as CALL_COLUMNS,
    gathered trace by trace and made one DataFrame at the end: a DataFrame
    per trace cost pandas more than reading a small trace."""

    def __init__(self):
        self._columns = {column: [] for column in CALL_COLUMNS}

    def add(self, leaf, costs):
        count = len(costs["tag"])
        columns = self._columns
        columns["tag"] += list(costs["tag"])
        for column in ("rank", "thread", "apart"):  # the trace's, on each of its rows
            columns[column].append(np.full(count, getattr(leaf, column),
                                           dtype=_COLUMN_TYPES[column]))
        for column in ("nested", "visits", "time_ns", "bytes_xml", "bytes_compact"):
            columns[column].append(np.asarray(costs[column], dtype=_COLUMN_TYPES[column]))

    def frame(self):
        import pandas as pd  # slow to import: only a score needs it
        frame = {}
        for column in CALL_COLUMNS:
            values = self._columns[column]
            if column == "tag":
                frame[column] = np.array(values, dtype=object)
            else:
                frame[column] = np.concatenate(values) if values else \
                    np.empty(0, dtype=_COLUMN_TYPES[column])
        return pd.DataFrame(frame)


def trace_row(leaf, costs, info_bytes):
    """One row of RunCosts.traces: a trace's costs outside its rows."""
    return {"rank": leaf.rank, "thread": leaf.thread, "path": leaf.path, "apart": leaf.apart,
            "fixed_xml": int(costs["fixed_xml"]), "fixed_compact": int(costs["fixed_compact"]),
            "file_xml": int(costs["file_bytes_xml"]),
            "file_compact": int(costs["file_bytes_compact"]), "info_bytes": int(info_bytes),
            "span_ns": int(costs["span_ns"])}


def run_costs(project, progress=None):
    """The RunCosts of every trace of an hdtrace.Project, its layer traces
    too; progress(done, total) after each trace file."""
    import pandas as pd  # slow to import: only a score needs it
    files = trace_files(project)
    rows, traces = CostRows(), []
    # The traces read on every core (the C++ reader releases the GIL), their
    # costs taken in order.
    workers = max(1, min(len(files), native.usable_cores()))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        found = pool.map(lambda trace: native.call_costs(trace.path), files)
        for done, (trace, costs) in enumerate(zip(files, found), start=1):
            rows.add(trace, costs)
            traces.append(trace_row(trace, costs, 0 if trace.apart else _info_bytes(trace.path)))
            if progress:
                progress(done, len(files))
    return RunCosts(rows.frame(), pd.DataFrame(traces), sorted({leaf.rank for leaf in
                                                                project.topology.leaves}))
