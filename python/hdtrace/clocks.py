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

Every time a Project gives goes through one object, Project.times: either
AS_WRITTEN (nothing to correct: no measurements, align=False, or a run
rewritten by `hdtrace align`) or a ClockCorrection. Both answer the same
three questions, so no reader branches on whether a run is corrected:
raw_window (which written times to read for a window of corrected ones),
correct_events (an event stream, corrected and cut to the window) and
correct_table (a table, corrected, re-sorted and cut to the window).

Why `hdtrace align` still rewrites a run in place, when reading corrects it
anyway: the correction is computed from the whole run at once (the order
repair needs every message), so only a reader that holds the whole run can
apply it. A Dask task reads one trace, the C++ reader and the benchmarks
read files, and the PIOsim tools know nothing of Clock lines; after one
`hdtrace align` they all read corrected times. The originals stay beside
the traces (*.trc.unaligned, *.ctrc.unaligned) and `hdtrace align --undo` puts them back, so
the rewrite loses nothing; runs aligned by earlier versions carry the same
ClockAligned lines and backups, and read and undo the same way.
"""
import warnings
from dataclasses import astuple, dataclass

import numpy as np

from . import native
from .table import Table


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


class AsWritten:
    """The times as written: every method gives back what it is given."""

    def raw_window(self, window):
        return window

    def correct_events(self, events, rank, thread, window_ns=None):
        """events (the reader has cut them to the window already)."""
        return events

    def correct_table(self, table, window_ns=None):
        return table


#: The times of a run with nothing to correct.
AS_WRITTEN = AsWritten()


def _overlaps(start_ns, end_ns, window_ns):
    start, end = window_ns
    return (start is None or end_ns >= start) and (end is None or start_ns <= end)


class ClockCorrection:
    """The correction of every trace of a run (see the module's description)."""

    def __init__(self, measurements_by_rank, core=None):
        self.measurements = measurements_by_rank  # {rank: [ClockMeasurement]}
        self._core = core if core is not None else native.ClockCorrection(
            {rank: [astuple(m) for m in found] for rank, found in measurements_by_rank.items()})

    def interpolate(self, rank, ns):
        """Rank 0's clock at the times ns of rank `rank`'s clock (no repair)."""
        return self._core.interpolate(rank, np.asarray(ns, dtype=np.int64))

    def step(self, rank, thread, ns):
        """The repair shift at interpolated times ns of one trace."""
        return self._core.step(rank, thread, np.asarray(ns, dtype=np.int64))

    def apply(self, rank, thread, ns):
        return self._core.apply(rank, thread, np.asarray(ns, dtype=np.int64))

    @property
    def native(self):
        """The C++ correction (hdtrace._core.ClockCorrection)."""
        return self._core

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

    def raw_window(self, window):
        """A read window in written times that holds every call whose
        corrected times overlap `window` ((start, end) float seconds)."""
        if window is None:
            return None
        margin = self.largest_change_ns / 1e9
        start, end = window
        return (None if start is None else start - margin, None if end is None else end + margin)

    def correct_event(self, event, rank, thread):
        """Corrects an Event and its nested calls in place."""
        if event.start_ns is not None:
            event.start_ns, event.end_ns = (int(v) for v in self.apply(
                rank, thread, np.array([event.start_ns, event.end_ns], dtype=np.int64)))
        for child in event.children:
            self.correct_event(child, rank, thread)
        return event

    def correct_events(self, events, rank, thread, window_ns=None):
        """The events of one trace, read through raw_window, corrected; those
        that overlap window_ns ((start, end) ns, either None) when given."""
        for event in events:
            self.correct_event(event, rank, thread)
            if window_ns is None or _overlaps(event.start_ns, event.end_ns, window_ns):
                yield event

    def correct_table(self, table, window_ns=None):
        """The table, read through raw_window, with corrected times,
        re-sorted; its rows that overlap window_ns when given."""
        table = align_table(table, self)
        if window_ns is None:
            return table
        start, end = window_ns
        array = table.array
        keep = np.ones(len(array), dtype=bool)
        if start is not None:
            keep &= array["end_ns"] >= start
        if end is not None:
            keep &= array["start_ns"] <= end
        if keep.all():
            return table
        return select_rows(table, np.flatnonzero(keep))


def load_correction(project):
    """The ClockCorrection of a project's run, or AS_WRITTEN when its traces carry
    no measurement (with a ClockWarning when some rank has none while others
    do), when every rank shares rank 0's clock, or when the run was already
    aligned by `hdtrace align`. Only the .info files are read unless there is
    something to correct; then the project's table (read once, see
    Project._raw_table) goes to the C++ correction."""
    found = native.run_clocks(project.path)
    if found["warning"]:
        warnings.warn(found["warning"], ClockWarning, stacklevel=3)
    if found["state"] != "measured":
        return AS_WRITTEN
    table = project._raw_table()
    side = dict(name_code=table.name_code, recv_peer=table.recv_peer, recv_tag=table.recv_tag,
                completion_row=table.completion_row, completion_rid=table.completion_rid)
    found = native.correct_table(project.path, list(table.names), table.array, side,
                                 partial=project.partial,
                                 local_ranks=project.ranks_in_traces == "local")
    if found["correction"] is None:
        return AS_WRITTEN
    measurements = {rank: [ClockMeasurement(*m) for m in values]
                    for rank, values in found["measurements"].items()}
    return ClockCorrection(measurements, found["correction"])


def select_rows(table, rows):
    """The table of the given rows (ascending), its side columns renumbered."""
    new_row = np.full(len(table.array), -1, dtype=np.int64)
    new_row[rows] = np.arange(len(rows))
    kept_completions = new_row[table.completion_row] >= 0
    kept_opens = new_row[table.open_row] >= 0
    return Table(table.array[rows], table.recv_peer[rows], table.recv_tag[rows],
                 new_row[table.completion_row[kept_completions]],
                 table.completion_rid[kept_completions],
                 new_row[table.open_row[kept_opens]], table.open_fid[kept_opens],
                 [name for name, kept in zip(table.open_name, kept_opens.tolist()) if kept],
                 table.names, None if table.name_code is None else table.name_code[rows])


def align_table(table, correction):
    """The table with corrected times, re-sorted by corrected start time (ties
    in the order of the interpolated times, then as read). The table's array
    is changed in place, in C++: its times corrected, its rows put in order."""
    array = table.array
    if len(array) == 0:
        return table
    moved = native.align_table_times(correction.native, array)
    if moved is None:
        return table
    order, new_row = moved
    native.reorder_table_rows(array, order)
    return Table(array, table.recv_peer[order], table.recv_tag[order],
                 new_row[table.completion_row], table.completion_rid,
                 new_row[table.open_row], table.open_fid, table.open_name, table.names,
                 None if table.name_code is None else table.name_code[order])
