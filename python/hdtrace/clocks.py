"""Clock alignment: every trace of a run on rank 0's clock.

The wrapper measures, in MPI_Init and MPI_Finalize, the offset of each host's
clock against rank 0's and writes it to the rank's .info as a line

    Clock at='init' time=<ns> offset=<ns> rtt=<ns> leader=<rank> exchanges=<n>

(docs/user/clocks.md). The correction of a trace of rank r,
thread h, is

    corrected(t) = t - offset_r(t) + repair_(r,h)(t - offset_r(t))

with offset_r the piecewise linear interpolation of rank r's measurements
and repair the order repair (no receive ends before its send starts, no
member of a blocking collective before the members it waits for start).
Both are computed in C++ (clocks/ in the source tree, hdtrace._core), the
same code that `hdtrace align` and `project-merger --align-clocks` use; this
module applies the result to the Python package's events and tables.

A run aligned by `hdtrace align` carries a `ClockAligned` line in every
.info it rewrote; its times are read as they are.
"""
import warnings
from dataclasses import astuple, dataclass

import numpy as np

from . import _core


class ClockWarning(UserWarning):
    """A run whose clocks cannot be aligned (no measurements): times are read as written."""


@dataclass(frozen=True)
class ClockMeasurement:
    occasion: str   # 'init' or 'finalize'
    time_ns: int    # this rank's clock at the measurement, epoch ns
    offset_ns: int  # this rank's clock minus rank 0's
    rtt_ns: int     # round trip of the exchange kept (0 in rank 0's group)
    leader: int     # the rank whose exchanges measured this clock
    exchanges: int


class ClockCorrection:
    """The correction of every trace of a run (see the module's description)."""

    def __init__(self, measurements_by_rank, core=None):
        self.measurements = measurements_by_rank  # {rank: [ClockMeasurement]}
        self._core = core if core is not None else _core.ClockCorrection(
            {rank: [astuple(m) for m in found] for rank, found in measurements_by_rank.items()})

    def interpolate(self, rank, ns):
        """Rank 0's clock at the times ns of rank `rank`'s clock (no repair)."""
        return self._core.interpolate(rank, np.asarray(ns, dtype=np.int64))

    def step(self, rank, thread, ns):
        """The repair shift at interpolated times ns of one trace."""
        return self._core.step(rank, thread, np.asarray(ns, dtype=np.int64))

    def apply(self, rank, thread, ns):
        return self._core.apply(rank, thread, np.asarray(ns, dtype=np.int64))

    def apply_one(self, rank, thread, ns):
        return None if ns is None else int(self.apply(rank, thread, np.int64(ns)))

    @property
    def steps(self):
        """{(rank, thread): (break times, shifts)} of the order repair."""
        return self._core.steps()

    @property
    def largest_change_ns(self):
        """A bound on |corrected - raw| over the run, for widening read windows."""
        return self._core.largest_change_ns

    def correct_events(self, event, rank, thread):
        """Corrects an Event and its nested calls in place."""
        if event.start_ns is not None:
            event.start_ns, event.end_ns = (int(v) for v in self.apply(
                rank, thread, np.array([event.start_ns, event.end_ns], dtype=np.int64)))
        for child in event.children:
            self.correct_events(child, rank, thread)
        return event


def load_correction(project):
    """The ClockCorrection of a project's run, or None when its traces carry
    no measurement (with a ClockWarning when some rank has none while others
    do), when every rank shares rank 0's clock, or when the run was already
    aligned by `hdtrace align`. Only the .info files are read unless there is
    something to correct; then the project's table (read once, see
    Project._raw_table) goes to the C++ correction."""
    found = _core.run_clocks(project.path)
    if found["warning"]:
        warnings.warn(found["warning"], ClockWarning, stacklevel=3)
    if found["state"] != "measured":
        return None
    table = project._raw_table()
    array = table.array
    columns = {name: array[name] for name in ("rank", "thread", "peer", "tag", "cid", "start_ns",
                                               "end_ns", "rid")}
    columns.update(name_code=table.name_code, recv_peer=table.recv_peer,
                   recv_tag=table.recv_tag, completion_row=table.completion_row,
                   completion_rid=table.completion_rid)
    found = _core.correct_table(project.path, list(table.names), columns,
                                partial=project.partial,
                                local_ranks=project.ranks_in_traces == "local")
    if found["correction"] is None:
        return None
    measurements = {rank: [ClockMeasurement(*m) for m in values]
                    for rank, values in found["measurements"].items()}
    return ClockCorrection(measurements, found["correction"])


def lanes_of(array):
    """(rank, thread, row indices) of each trace in a table."""
    lane = array["rank"].astype(np.int64) * 1_000_003 + array["thread"].astype(np.int64)
    order = np.argsort(lane, kind="stable")
    for rows in np.split(order, np.flatnonzero(np.diff(lane[order])) + 1):
        if len(rows):
            yield int(array["rank"][rows[0]]), int(array["thread"][rows[0]]), rows


def align_table(project, table, correction):
    """The table with corrected times, re-sorted by corrected start time (ties
    in the order of the interpolated times, then as read)."""
    from .table import Table
    array = table.array
    if len(array) == 0:
        return table
    interpolated = np.empty(len(array), dtype=np.int64)
    for rank, thread, rows in lanes_of(array):
        interpolated[rows] = correction.interpolate(rank, array["start_ns"][rows])
        for column in ("start_ns", "end_ns"):
            array[column][rows] = correction.apply(rank, thread, array[column][rows])
    array["start"] = array["start_ns"] / 1e9
    array["end"] = array["end_ns"] / 1e9
    array["duration"] = (array["end_ns"] - array["start_ns"]) / 1e9
    order = np.lexsort((interpolated, array["start_ns"]))
    if np.array_equal(order, np.arange(len(order))):
        return table
    new_row = np.empty(len(order), dtype=np.int64)
    new_row[order] = np.arange(len(order))
    return Table(array[order], table.recv_peer[order], table.recv_tag[order],
                 new_row[table.completion_row], table.completion_rid,
                 new_row[table.open_row], table.open_fid, table.open_name, table.names,
                 None if table.name_code is None else table.name_code[order])
