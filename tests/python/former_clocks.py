"""The former pure-Python clock correction (python/hdtrace/clocks.py before
the C++ one in clocks/ replaced it), kept unchanged but for its imports and
former_alignment() at the end, as an independent oracle: the tests check
that the C++ correction gives the same times on the same runs.

Clock alignment: every trace of a run on rank 0's clock.

The wrapper measures, in MPI_Init and MPI_Finalize, the offset of each host's
clock against rank 0's and writes it to the rank's .info as a line

    Clock at='init' time=<ns> offset=<ns> rtt=<ns> leader=<rank> exchanges=<n>

(docs/user/clocks.md): at the time <ns> of this rank's
clock, this clock was ahead of rank 0's by <offset>. The correction of a
trace of rank r, thread h, is

    corrected(t) = t - offset_r(t) + repair_(r,h)(t - offset_r(t))

- offset_r is the piecewise linear interpolation of rank r's measurements
  in its own clock's time (extrapolated along the nearest segment; constant
  with one measurement). Clock drift is close to constant over a run, so two
  measurements already follow it.
- repair is an order repair in the spirit of the controlled logical clock:
  wherever a member of a blocking collective would end before a member it
  waits for starts (any member for Barrier, Allreduce, Allgather, Alltoall
  and Reduce_scatter and their v/w forms; the root for Bcast and Scatter;
  every member, for the root of Reduce and Gather), or a receive (Recv, Sendrecv, Mrecv, or the Wait/Test completing an
  Irecv/Imrecv/started Recv_init) would still end before its matching send
  (match_messages) starts, the receive's end moves to the send's start, and
  every later time of that trace moves by as much, so the time distances
  within a trace stay as measured except for that receive's wait. A repair
  can move a later send and so another receive: it is repeated until no
  receive ends before its send (the shifts only grow, and a run's messages
  form no cycle in time, so this ends).

A run aligned by `hdtrace align` carries a `ClockAligned` line in every
.info it rewrote; its times are read as they are.
"""
import os
import re
import warnings
from dataclasses import dataclass

import numpy as np

from hdtrace.clocks import ClockMeasurement, ClockWarning  # the package's own records
from hdtrace.errors import read_error

CLOCK_LINE = re.compile(r"Clock at='([a-z]+)' time=(-?\d+) offset=(-?\d+) rtt=(\d+) "
                        r"leader=(\d+) exchanges=(\d+)")
ALIGNED_LINE = re.compile(r"ClockAligned backup='([^'/]+)'")


@dataclass
class InfoClock:
    """What one .info says about its trace's clock."""
    path: str
    measurements: list
    aligned_backup: object = None  # the backup's file name when `hdtrace align` rewrote the trace


def info_path(trace_path):
    base, extension = os.path.splitext(trace_path)
    return (base if extension == ".trc" else trace_path) + ".info"


def read_info_clock(path):
    """The Clock and ClockAligned lines of one .info. A line that starts with
    the word Clock but is not one of them is a ReadError naming file and line."""
    measurements, backup = [], None
    with open(path, "rb") as stream:
        for number, raw in enumerate(stream, 1):
            if not raw.startswith(b"Clock"):
                continue
            line = raw.decode("utf-8", "replace").rstrip("\n")
            keyword = line.split(" ", 1)[0]
            if keyword == "ClockAligned":
                found = ALIGNED_LINE.fullmatch(line)
                if not found:
                    raise read_error(path, number, 0, f"damaged ClockAligned line {line!r}: "
                                                      "expected ClockAligned backup='<file>'")
                backup = found.group(1)
                continue
            if keyword != "Clock":
                continue  # another kind that happens to start so: not ours
            found = CLOCK_LINE.fullmatch(line)
            if not found:
                raise read_error(path, number, 0,
                                 f"damaged Clock line {line!r}: expected Clock at='<occasion>' "
                                 "time=<ns> offset=<ns> rtt=<ns> leader=<rank> exchanges=<n>")
            occasion, *numbers = found.groups()
            measurements.append(ClockMeasurement(occasion, *map(int, numbers)))
    return InfoClock(path, measurements, backup)


class _Offsets:
    """offset(t) of one rank: piecewise linear through its measurements."""

    def __init__(self, measurements):
        points = sorted({(m.time_ns, m.offset_ns) for m in measurements})
        times, offsets = [], []
        for time, offset in points:
            if times and time == times[-1]:
                continue  # one offset per time
            times.append(time)
            offsets.append(offset)
        self.origin = times[0]
        # Relative to the first measurement, so float64 keeps nanoseconds.
        self.times = np.array([t - self.origin for t in times], dtype=np.float64)
        self.offsets = np.array(offsets, dtype=np.float64)

    def __call__(self, ns):
        ns = np.asarray(ns, dtype=np.int64)
        if len(self.times) == 1:
            return np.full(ns.shape, int(self.offsets[0]), dtype=np.int64)
        relative = (ns - self.origin).astype(np.float64)
        segment = np.clip(np.searchsorted(self.times, relative, side="right"), 1,
                          len(self.times) - 1)
        t0, t1 = self.times[segment - 1], self.times[segment]
        o0, o1 = self.offsets[segment - 1], self.offsets[segment]
        return np.rint(o0 + (o1 - o0) * (relative - t0) / (t1 - t0)).astype(np.int64)

    @property
    def largest(self):
        return int(np.max(np.abs(self.offsets)))


class ClockCorrection:
    """The correction of every trace of a run (see the module's description)."""

    def __init__(self, measurements_by_rank):
        self.measurements = measurements_by_rank          # {rank: [ClockMeasurement]}
        self._offsets = {rank: _Offsets(found) for rank, found in measurements_by_rank.items()}
        self.steps = {}  # (rank, thread) -> (break times, shifts), both int64, after interpolation

    def interpolate(self, rank, ns):
        """Rank 0's clock at the times ns of rank `rank`'s clock (no repair)."""
        ns = np.asarray(ns, dtype=np.int64)
        offsets = self._offsets.get(rank)
        return ns if offsets is None else ns - offsets(ns)

    def step(self, rank, thread, ns):
        """The repair shift at interpolated times ns of one trace."""
        found = self.steps.get((rank, thread))
        ns = np.asarray(ns, dtype=np.int64)
        if found is None:
            return np.zeros(ns.shape, dtype=np.int64)
        breaks, shifts = found
        index = np.searchsorted(breaks, ns, side="right") - 1
        return np.where(index >= 0, shifts[np.maximum(index, 0)], 0)

    def apply(self, rank, thread, ns):
        interpolated = self.interpolate(rank, ns)
        return interpolated + self.step(rank, thread, interpolated)

    def apply_one(self, rank, thread, ns):
        return None if ns is None else int(self.apply(rank, thread, np.int64(ns)))

    @property
    def largest_change_ns(self):
        """A bound on |corrected - raw| over the run, for widening read windows."""
        offsets = max((o.largest for o in self._offsets.values()), default=0)
        shifts = max((int(s.max()) for _, s in self.steps.values() if len(s)), default=0)
        # Drift moves the offset between measurements too: allow a margin.
        return offsets + shifts + 10_000_000

    # --- events
    def correct_events(self, event, rank, thread):
        """Corrects an Event and its nested calls in place."""
        if event.start_ns is not None:
            event.start_ns, event.end_ns = (int(v) for v in self.apply(
                rank, thread, np.array([event.start_ns, event.end_ns], dtype=np.int64)))
        for child in event.children:
            self.correct_events(child, rank, thread)
        return event

    # --- tables
    def correct_rows(self, array, interpolate_only=False):
        """Corrects start/end/duration (and their _ns twins) of a table in place."""
        if len(array) == 0:
            return
        for rank, thread, rows in lanes_of(array):
            for column in ("start_ns", "end_ns"):
                values = self.interpolate(rank, array[column][rows])
                if not interpolate_only:
                    values = values + self.step(rank, thread, values)
                array[column][rows] = values
        refresh_seconds(array)

    def shift_rows(self, array):
        """Adds the repair's shifts to a table holding interpolated times."""
        for rank, thread, rows in lanes_of(array):
            if (rank, thread) in self.steps:
                for column in ("start_ns", "end_ns"):
                    array[column][rows] += self.step(rank, thread, array[column][rows])
        refresh_seconds(array)


def lanes_of(array):
    """(rank, thread, row indices) of each trace in a table."""
    lane = array["rank"].astype(np.int64) * 1_000_003 + array["thread"].astype(np.int64)
    order = np.argsort(lane, kind="stable")
    for rows in np.split(order, np.flatnonzero(np.diff(lane[order])) + 1):
        if len(rows):
            yield int(array["rank"][rows[0]]), int(array["thread"][rows[0]]), rows


def refresh_seconds(array):
    array["start"] = array["start_ns"] / 1e9
    array["end"] = array["end_ns"] / 1e9
    array["duration"] = (array["end_ns"] - array["start_ns"]) / 1e9


def load_correction(project):
    """The ClockCorrection of a project's run, or None when its traces carry
    no measurement (with a ClockWarning when some rank has none while others
    do), when every rank shares rank 0's clock, or when the run was already
    aligned by `hdtrace align`."""
    by_rank, aligned, without = {}, 0, []
    leaves = [leaf for leaf in project.topology.leaves if leaf.path not in project.missing_traces]
    for leaf in leaves:
        path = info_path(leaf.path)
        if not os.path.isfile(path):
            without.append(leaf.rank)
            continue
        found = read_info_clock(path)
        if found.aligned_backup is not None:
            aligned += 1
            continue
        if found.measurements:
            by_rank.setdefault(leaf.rank, []).extend(found.measurements)
        else:
            without.append(leaf.rank)
    if aligned or not by_rank:
        return None
    missing = sorted(set(without) - set(by_rank))
    if missing:
        warnings.warn(f"{project.path}: ranks {missing} have no clock measurement; their times "
                      "are read as written", ClockWarning, stacklevel=3)
    if shares_one_clock(by_rank):
        return None
    return ClockCorrection(by_rank)


def shares_one_clock(by_rank):
    """Whether every measured rank is in rank 0's clock group (one host, or
    ranks sharing its clock): the times are on one clock already, and no
    receive can end before its send, so there is nothing to correct."""
    return all(m.leader == 0 and m.exchanges == 0 and m.offset_ns == 0
               for measurements in by_rank.values() for m in measurements)


# --- the order repair
def _completion_rows(table, names, ranks, threads, start_ns, rids):
    """{(rank, thread, rid): sorted [(start_ns, row)]} of the Wait/Test calls."""
    completions = {}
    for row, rid in zip(table.completion_row.tolist(), table.completion_rid.tolist()):
        if names[row] == "Startall":
            continue
        completions.setdefault((ranks[row], threads[row], rid), []).append((start_ns[row], row))
    for value in completions.values():
        value.sort()
    return completions


NONBLOCKING_RECEIVES = frozenset({"Irecv", "Imrecv", "Start", "Startall"})


def fast_message_pairs(project, table):
    """(send rows, receive rows) paired by MPI's order rule alone (between two
    ranks on one communicator with one tag, the k-th send goes to the k-th
    receive), or None where that is not enough: a receive with a wildcard,
    matched probes or persistent requests; match_messages decides then."""
    from hdtrace.calls import (ANY_SOURCE, ANY_TAG, MATCHED_RECEIVES, PERSISTENT_RECEIVES,
                           PERSISTENT_SENDS, RECEIVES, SEND_RECEIVES, SENDS)
    from hdtrace.table import NO_PEER
    array = table.array
    names = array["name"]
    present = set(np.unique(names).tolist())
    if present & (MATCHED_RECEIVES | PERSISTENT_SENDS | PERSISTENT_RECEIVES):
        return None
    sends = np.flatnonzero(np.isin(names, list(SENDS | SEND_RECEIVES)))
    receives = np.flatnonzero(np.isin(names, list(RECEIVES | SEND_RECEIVES)))
    both = np.isin(names[receives], list(SEND_RECEIVES))
    recv_peer = np.where(both, table.recv_peer[receives], array["peer"][receives])
    recv_tag = np.where(both, table.recv_tag[receives], array["tag"][receives])
    if np.any(recv_peer == ANY_SOURCE) or np.any(recv_tag == ANY_TAG):
        return None
    ranks, cids = array["rank"].tolist(), array["cid"].tolist()
    comm_index = {}

    def communicator(row):
        key = (ranks[row], cids[row])
        if key not in comm_index:
            found = project.communicators.get(*key)
            comm_index[key] = found.index if found is not None else ("cid",) + key
        return comm_index[key]

    # Rows are in start order (the table is sorted so): so are the queues.
    queues = {}
    for row, peer, tag in zip(sends.tolist(), array["peer"][sends].tolist(),
                              array["tag"][sends].tolist()):
        if peer < 0 or peer == NO_PEER:
            continue
        queues.setdefault((ranks[row], peer, communicator(row), tag), []).append(row)
    positions = {}
    send_rows, recv_rows = [], []
    for row, peer, tag in zip(receives.tolist(), recv_peer.tolist(), recv_tag.tolist()):
        if peer < 0 or peer == NO_PEER:
            continue
        key = (peer, ranks[row], communicator(row), tag)
        queue = queues.get(key)
        position = positions.get(key, 0)
        if queue is None or position >= len(queue):
            continue
        positions[key] = position + 1
        send_rows.append(queue[position])
        recv_rows.append(row)
    return np.array(send_rows, dtype=np.int64), np.array(recv_rows, dtype=np.int64)


def receive_constraints(table, send_rows_of_pairs, recv_rows_of_pairs):
    """(send rows, rows where the matching receive completes) of every matched message."""
    array = table.array
    names = array["name"].tolist()
    ranks, threads = array["rank"].tolist(), array["thread"].tolist()
    start_ns, rids = array["start_ns"].tolist(), array["rid"].tolist()
    completions = None
    send_rows, done_rows = [], []
    for send_row, recv_row in zip(np.asarray(send_rows_of_pairs).tolist(),
                                  np.asarray(recv_rows_of_pairs).tolist()):
        if names[recv_row] in NONBLOCKING_RECEIVES:
            if completions is None:
                completions = _completion_rows(table, names, ranks, threads, start_ns, rids)
            # The pair's request: Start/Startall name it through the template,
            # so find the completion by the receive's own rid where it has one.
            rid = rids[recv_row]
            found = [row for at, row in completions.get((ranks[recv_row], threads[recv_row], rid),
                                                        ()) if at >= start_ns[recv_row]]
            if not found:
                continue
            done = found[0]
        else:
            done = recv_row
        send_rows.append(send_row)
        done_rows.append(done)
    return np.array(send_rows, dtype=np.int64), np.array(done_rows, dtype=np.int64)


# Blocking collectives and what each member must wait for: every member's
# start (all), or the root's start (from_root), before it can end; the root
# of to_root waits for every member's start.
ALL_TO_ALL = frozenset({"Barrier", "Allreduce", "Allgather", "Allgatherv", "Alltoall",
                        "Alltoallv", "Alltoallw", "Reduce_scatter", "Reduce_scatter_block"})
FROM_ROOT = frozenset({"Bcast", "Scatter", "Scatterv"})
TO_ROOT = frozenset({"Reduce", "Gather", "Gatherv"})
# Calls that take a place in the order of a communicator's collectives.
COLLECTIVES = ALL_TO_ALL | FROM_ROOT | TO_ROOT | frozenset({
    "Scan", "Exscan", "Ibarrier", "Ibcast", "Igather", "Igatherv", "Iscatter", "Iscatterv",
    "Iallgather", "Iallgatherv", "Ialltoall", "Ialltoallv", "Ialltoallw", "Ireduce",
    "Iallreduce", "Ireduce_scatter", "Ireduce_scatter_block", "Iscan", "Iexscan"})


def collective_constraints(project, table):
    """(source rows, source instance, sink rows, sink instance): a sink may not
    end before the latest start of its instance's sources. An instance is the
    k-th collective call of every member on one communicator (MPI orders
    them so); instances whose members disagree on the call are left out."""
    array = table.array
    names = array["name"].tolist()
    ranks, cids = array["rank"].tolist(), array["cid"].tolist()
    peers = array["peer"].tolist()
    calls = {}  # (communicator, rank) -> [rows in start order]
    for row in np.argsort(array["start_ns"], kind="stable").tolist():
        if names[row] not in COLLECTIVES:
            continue
        communicator = project.communicators.get(ranks[row], cids[row])
        if communicator is None:
            continue
        calls.setdefault((communicator.index, ranks[row]), []).append(row)
    by_instance = {}
    for (index, rank), rows in calls.items():
        for k, row in enumerate(rows):
            by_instance.setdefault((index, k), []).append(row)
    sources, source_instance, sinks, sink_instance = [], [], [], []
    for instance, ((index, _), rows) in enumerate(by_instance.items()):
        kind = names[rows[0]]
        if kind not in ALL_TO_ALL | FROM_ROOT | TO_ROOT:
            continue
        if len(rows) != project.communicators[index].size or \
                any(names[row] != kind for row in rows):
            continue
        if kind in ALL_TO_ALL:
            source, sink = rows, rows
        else:
            root = [row for row in rows if ranks[row] == peers[rows[0]]]
            if len(root) != 1:
                continue
            others = [row for row in rows if row != root[0]]
            source, sink = (root, others) if kind in FROM_ROOT else (rows, root)
        sources += source
        source_instance += [instance] * len(source)
        sinks += sink
        sink_instance += [instance] * len(sink)
    as_array = lambda values: np.array(values, dtype=np.int64)  # noqa: E731
    return as_array(sources), as_array(source_instance), as_array(sinks), as_array(sink_instance)


def repair_order(correction, table, pairs, project=None):
    """Computes correction.steps so that no receive ends before its send
    starts, and no member of a blocking collective ends before the members it
    waits for start; the table holds interpolated times
    (correct_rows(interpolate_only=True))."""
    array = table.array
    send_rows, done_rows = receive_constraints(table, *pairs)
    sources, source_instance, sinks, sink_instance = (
        collective_constraints(project, table) if project is not None else
        (np.empty(0, np.int64),) * 4)
    instances = int(source_instance.max()) + 1 if len(source_instance) else 0
    correction.steps = {}
    if len(send_rows) == 0 and len(sinks) == 0:
        return 0
    lane = array["rank"].astype(np.int64) * 1_000_003 + array["thread"].astype(np.int64)
    order = np.lexsort((array["end_ns"], array["start_ns"], lane))
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    lane_sorted = lane[order]
    boundaries = np.flatnonzero(np.diff(lane_sorted)) + 1
    segments = np.split(np.arange(len(order)), boundaries)
    start, end = array["start_ns"].astype(np.int64), array["end_ns"].astype(np.int64)
    raised = np.zeros(len(array), dtype=np.int64)  # R: how far each row's end must move
    repaired = 0
    for _ in range(10_000):
        cumulative = raised[order]
        for segment in segments:
            cumulative[segment] = np.maximum.accumulate(cumulative[segment])
        end_shift = cumulative[position]            # max R up to and including the row
        before = np.concatenate(([0], cumulative[:-1]))
        for segment in segments:
            before[segment[0]] = 0
        start_shift = before[position]              # max R of the earlier rows of its trace
        need = (start[send_rows] + start_shift[send_rows]) - end[done_rows]
        late = need > end_shift[done_rows]
        latest = np.full(instances, np.iinfo(np.int64).min, dtype=np.int64)
        np.maximum.at(latest, source_instance, start[sources] + start_shift[sources])
        collective_need = latest[sink_instance] - end[sinks]
        collective_late = collective_need > end_shift[sinks]
        if not late.any() and not collective_late.any():
            break
        repaired += int(late.sum()) + int(collective_late.sum())
        np.maximum.at(raised, done_rows[late], need[late])
        np.maximum.at(raised, sinks[collective_late], collective_need[collective_late])
    else:
        raise RuntimeError("the order repair did not settle (a cycle of messages in time?)")
    for segment in segments:
        rows = order[segment]
        rows = rows[raised[rows] > 0]
        if len(rows) == 0:
            continue
        values = np.maximum.accumulate(raised[rows])
        rank, thread = int(array["rank"][rows[0]]), int(array["thread"][rows[0]])
        correction.steps[(rank, thread)] = (np.maximum.accumulate(end[rows]), values)
    return repaired


def resort(table):
    """The table's rows by start time again, with its row references renumbered."""
    from hdtrace.table import Table
    array = table.array
    order = np.argsort(array["start_ns"], kind="stable")
    if np.array_equal(order, np.arange(len(order))):
        return table
    new_row = np.empty(len(order), dtype=np.int64)
    new_row[order] = np.arange(len(order))
    return Table(array[order], table.recv_peer[order], table.recv_tag[order],
                 new_row[table.completion_row], table.completion_rid,
                 new_row[table.open_row], table.open_fid, table.open_name)


def align_table(project, table, correction):
    """Interpolates the table's times, repairs the order of messages, and
    returns the table re-sorted by corrected start time."""
    from hdtrace.messages import match_messages
    correction.steps = {}
    correction.correct_rows(table.array, interpolate_only=True)
    table = resort(table)
    project._table = table
    pairs = fast_message_pairs(project, table)
    if pairs is None:
        matches = match_messages(project)
        pairs = (matches.pairs["send_row"], matches.pairs["recv_row"])
    repair_order(correction, table, pairs, project)
    if correction.steps:
        correction.shift_rows(table.array)
        table = resort(table)
    return table


class FormerTimes:
    """The former correction in the place of a Project's times (hdtrace.clocks'
    interface: raw_window, correct_events, correct_table), for reading whole
    traces."""

    def __init__(self, correction):
        self.correction = correction

    def raw_window(self, window):
        assert window is None, "the former correction is used on whole traces only"
        return window

    def correct_events(self, events, rank, thread, window_ns=None):
        for event in events:
            yield self.correction.correct_events(event, rank, thread)

    def correct_table(self, table, window_ns=None):
        raise AssertionError("former_alignment sets the project's table itself")


def former_alignment(project_path):
    """(table array, ClockCorrection) of a run as the former Python code
    corrected it (what Project._full_table() gave with align=True)."""
    import hdtrace
    from hdtrace.table import read_table
    project = hdtrace.open(project_path, align=False)
    by_rank = {}
    for leaf in project.topology.leaves:
        found = read_info_clock(info_path(leaf.path))
        if found.measurements:
            by_rank.setdefault(leaf.rank, []).extend(found.measurements)
    correction = ClockCorrection(by_rank)
    table = read_table(project, None, None)
    # As the former Project did: its trace() corrects with this correction.
    project._times = FormerTimes(correction)
    table = align_table(project, table, correction)
    return table.array, correction
