"""What each call of a traced run cost: visits, time and trace bytes in
both forms, per trace, as the reader measures them in the trace itself
(native.call_costs: an XML trace's elements byte by byte, a compact
trace's records with their frames' compressed bytes shared out; the
other form by converting the trace)."""
import os
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import native

#: The columns of RunCosts.calls.
CALL_COLUMNS = ("rank", "thread", "tag", "nested", "visits", "time_ns", "bytes_xml",
                "bytes_compact")


@dataclass
class RunCosts:
    """calls  -- one row per trace and (tag, nested): CALL_COLUMNS
    traces -- one row per trace: rank, thread, fixed_xml, fixed_compact
              (bytes outside calls), file_xml, file_compact (the whole
              trace in each form), info_bytes (its .info), span_ns (first
              call's start to last call's end)
    ranks  -- every rank of the project, traced or not (a rank left out by
              a filter has a trace without calls)"""
    calls: pd.DataFrame
    traces: pd.DataFrame
    ranks: list


def _info_bytes(trace_path):
    base, _ = os.path.splitext(trace_path)
    try:
        return os.path.getsize(base + ".info")
    except OSError:
        return 0


def costs_frame(leaf, costs):
    """The rows of one trace's costs (native.call_costs) as CALL_COLUMNS."""
    count = len(costs["tag"])
    return pd.DataFrame({
        "rank": np.full(count, leaf.rank, dtype=np.int32),
        "thread": np.full(count, leaf.thread, dtype=np.int32),
        "tag": list(costs["tag"]),
        "nested": np.asarray(costs["nested"], dtype=bool),
        "visits": np.asarray(costs["visits"], dtype=np.int64),
        "time_ns": np.asarray(costs["time_ns"], dtype=np.int64),
        "bytes_xml": np.asarray(costs["bytes_xml"], dtype=np.int64),
        "bytes_compact": np.asarray(costs["bytes_compact"], dtype=np.int64),
    })


def trace_row(leaf, costs, info_bytes):
    """One row of RunCosts.traces: a trace's costs outside its rows."""
    return {"rank": leaf.rank, "thread": leaf.thread, "path": leaf.path,
            "fixed_xml": int(costs["fixed_xml"]), "fixed_compact": int(costs["fixed_compact"]),
            "file_xml": int(costs["file_bytes_xml"]),
            "file_compact": int(costs["file_bytes_compact"]), "info_bytes": int(info_bytes),
            "span_ns": int(costs["span_ns"])}


def run_costs(project, progress=None):
    """The RunCosts of every trace of an hdtrace.Project; progress(done,
    total) after each trace."""
    leaves = [leaf for leaf in project.topology.leaves if leaf.path not in project.missing_traces]
    parts, traces = [], []
    for done, leaf in enumerate(leaves, start=1):
        costs = native.call_costs(leaf.path)
        parts.append(costs_frame(leaf, costs))
        traces.append(trace_row(leaf, costs, _info_bytes(leaf.path)))
        if progress:
            progress(done, len(leaves))
    calls = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(
        {column: [] for column in CALL_COLUMNS})
    return RunCosts(calls, pd.DataFrame(traces), sorted({leaf.rank for leaf in
                                                          project.topology.leaves}))
