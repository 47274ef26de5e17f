"""What each call of a traced run cost: visits, time and trace bytes in
both forms, per trace, as the reader measures them in the trace itself
(native.call_costs: an XML trace's elements byte by byte, a compact
trace's records with their frames' compressed bytes shared out; the
other form by converting the trace)."""
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


def costs_frame(leaf, costs):
    """The rows of one trace's costs (native.call_costs) as CALL_COLUMNS."""
    import pandas as pd  # slow to import: only a score needs it
    count = len(costs["tag"])
    return pd.DataFrame({
        "rank": np.full(count, leaf.rank, dtype=np.int32),
        "thread": np.full(count, leaf.thread, dtype=np.int32),
        "tag": list(costs["tag"]),
        "nested": np.asarray(costs["nested"], dtype=bool),
        "apart": np.full(count, leaf.apart, dtype=bool),
        "visits": np.asarray(costs["visits"], dtype=np.int64),
        "time_ns": np.asarray(costs["time_ns"], dtype=np.int64),
        "bytes_xml": np.asarray(costs["bytes_xml"], dtype=np.int64),
        "bytes_compact": np.asarray(costs["bytes_compact"], dtype=np.int64),
    })


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
    parts, traces = [], []
    for done, trace in enumerate(files, start=1):
        costs = native.call_costs(trace.path)
        parts.append(costs_frame(trace, costs))
        traces.append(trace_row(trace, costs, 0 if trace.apart else _info_bytes(trace.path)))
        if progress:
            progress(done, len(files))
    calls = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        {column: [] for column in CALL_COLUMNS})
    return RunCosts(calls, pd.DataFrame(traces), sorted({leaf.rank for leaf in
                                                          project.topology.leaves}))
