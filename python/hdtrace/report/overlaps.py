"""The checks on two ranks' accesses of the same bytes of a file
(overlapping-writes, conflicting-reads): which pairs overlap, and whether
MPI-IO's consistency rules order them (sync, collective, sync).
"""
import bisect

import numpy as np

from ..calls import FILE_OPENS, FILE_SYNCS
from ..io_calls import KIND_READ, KIND_WRITE
from .byte_ranges import byte_accesses
from .finding import HIGH, INFO, Finding, byte_size
from .ordering import CallOrder

#: How many earlier writes one write is compared with, at most.
OVERLAP_WALK = 256


class _AccessOrder:
    """How two accesses of different ranks to the same bytes, one of them a
    write, stand to each other: UNORDERED (nothing orders them: the file
    keeps either write's bytes, a read sees the old bytes or the new),
    UNSYNCED (a collective or open both ranks took part in, or a message
    between them, orders them, but a sync is missing on a side of it) or
    None (sync, collective, sync: MPI-IO's own promise that the later access
    sees the earlier write). The writer's sync is MPI_File_sync or the
    file's close (FILE_SYNCS); the other rank's is one of those or the
    file's open."""

    UNORDERED, UNSYNCED = 0, 1

    def __init__(self, model):
        self._io = model.io
        self._order = CallOrder(model.ordering, model.waits and model.waits["pairs"],
                                model.table)
        self._flushes = self._by_rank_and_file(FILE_SYNCS)
        self._refreshes = self._by_rank_and_file(FILE_SYNCS | FILE_OPENS)

    def _by_rank_and_file(self, names):
        """Per (rank, file): the starts and ends of the calls named, by
        start, searched with bisect."""
        io = self._io
        codes = [code for code, name in enumerate(io.names) if name in names]
        found = {}
        for row in np.flatnonzero(np.isin(io["call"], codes) & (io["file"] >= 0)):
            key = (int(io["rank"][row]), int(io["file"][row]))
            found.setdefault(key, []).append((int(io["start_ns"][row]), int(io["end_ns"][row])))
        return {key: ([start for start, _ in calls], [end for _, end in calls])
                for key, calls in ((key, sorted(value)) for key, value in found.items())}

    def _before(self, row, other):
        io = self._io
        return self._order.before(int(io["rank"][row]), int(io["end_ns"][row]),
                                  int(io["rank"][other]), int(io["start_ns"][other]))

    def ordered_by(self, first, second):
        """What orders the two accesses (CallOrder.ordered_by), in either
        order, or None."""
        io = self._io
        for row, other in ((first, second), (second, first)):
            found = self._order.ordered_by(int(io["rank"][row]), int(io["end_ns"][row]),
                                           int(io["rank"][other]), int(io["start_ns"][other]))
            if found is not None:
                return found
        return None

    def writes(self, first, second):
        """Two writes, in either order."""
        for row, other in ((first, second), (second, first)):
            if self._before(row, other):
                return None if self._synced(row, other) else self.UNSYNCED
        return self.UNORDERED

    def write_then_read(self, write, read):
        """A write and a read of its bytes; a read ordered before the write
        read what was there before, as it should."""
        if self._before(write, read):
            return None if self._synced(write, read) else self.UNSYNCED
        return None if self._before(read, write) else self.UNORDERED

    def _synced(self, row, other):
        """row's rank synced the file after row, other's before other, and
        the first sync happened before the second."""
        io = self._io
        file = int(io["file"][row])
        rank, other_rank = int(io["rank"][row]), int(io["rank"][other])
        mine = self._flushes.get((rank, file))
        theirs = self._refreshes.get((other_rank, file))
        if mine is None or theirs is None:
            return False
        after = bisect.bisect_left(mine[0], int(io["end_ns"][row]))
        before = bisect.bisect_right(theirs[1], int(io["start_ns"][other])) - 1
        if after >= len(mine[0]) or before < 0:
            return False
        # By the other's sync's end: that sync may be the ordering call
        # itself (the file's open).
        return self._order.before(rank, mine[1][after], other_rank, theirs[1][before])


def _outermost_call(io, row):
    """The name of the outermost I/O call row was made in (row's own at the
    top level)."""
    while io["parent"][row] >= 0:
        row = io["parent"][row]
    return io.names[io["call"][row]]


def _overlapping_accesses(io, rows):
    """(row, earlier, low, high) for each two of rows (accesses with an
    offset and bytes done) of different ranks whose bytes [low, high) of one
    file overlap; earlier starts no later in the file than row."""
    order = np.lexsort((io["offset"][rows], io["file"][rows]))
    rows = rows[order]
    file = io["file"][rows]
    start = io["offset"][rows]
    end = start + io["done"][rows]
    rank = io["rank"][rows]
    # Candidates: an interval that starts before the furthest end so far in its file.
    new_file = np.ones(len(rows), dtype=bool)
    new_file[1:] = file[1:] != file[:-1]
    segment = np.cumsum(new_file) - 1
    reach = end.copy()
    for part in np.split(np.arange(len(rows)), np.flatnonzero(new_file)[1:]):
        reach[part] = np.maximum.accumulate(end[part])
    candidate = np.zeros(len(rows), dtype=bool)
    candidate[1:] = (~new_file[1:]) & (start[1:] < reach[:-1])
    for index in np.flatnonzero(candidate):
        # reach is the furthest end so far: once it stops past this start,
        # no earlier access of the file overlaps this one. The walk is capped
        # so that a pile of accesses to one range stays linear; the bytes
        # counted are then a lower bound.
        back = index - 1
        steps = 0
        while back >= 0 and segment[back] == segment[index] and reach[back] > start[index] \
                and steps < OVERLAP_WALK:
            if end[back] > start[index] and rank[back] != rank[index]:
                yield rows[index], rows[back], int(start[index]), int(min(end[back], end[index]))
            back -= 1
            steps += 1


def _tally(overlaps, key, low, high, rows):
    """Per key: the lowest overlapping range and the two rows of it, the
    bytes and the ranges in all."""
    lowest, count, pieces, lowest_rows = overlaps.get(key, ((low, high), 0, 0, rows))
    if (low, high) < lowest:
        lowest, lowest_rows = (low, high), rows
    overlaps[key] = (lowest, count + high - low, pieces + 1, lowest_rows)


class _Overlaps:
    """What one of the two checks found: per kind of _AccessOrder, per
    (file, rank, rank), what _tally keeps; and the finding's figures."""

    def __init__(self, io, found, least, order):
        self.unordered, self.unsynced = found
        self.unordered_bytes = sum(value[1] for value in self.unordered.values())
        self.unsynced_bytes = sum(value[1] for value in self.unsynced.values())
        if self.unordered and self.unordered_bytes >= least:
            self.shown, self.total, self.severity = self.unordered, self.unordered_bytes, HIGH
        elif self.unsynced and self.unsynced_bytes >= least:
            self.shown, self.total, self.severity = self.unsynced, self.unsynced_bytes, INFO
        else:
            self.severity = None
            return
        (file_code, self.first, self.second), ((self.low, self.high), self.size, self.pieces,
                                               rows) = max(
            self.shown.items(), key=lambda item: (item[1][1], -item[0][1], -item[0][2]))
        self.name = io.files[file_code]
        # The calls the program made that made them (an HDF5 call over its
        # MPI-IO and C library calls), named where the two differ.
        self.calls = [_outermost_call(io, row) for row in rows]
        self.ordered_by = order.ordered_by(*rows) if self.severity == INFO else None
        self.within = (f", rank {self.first} within {self.calls[0]} and rank {self.second} "
                       f"within {self.calls[1]}" if self.calls[0] != self.calls[1] else "")
        self.more = (f", and {self.pieces - 1} more range(s): {byte_size(self.size)} between them"
                     if self.pieces > 1 else "")
        self.ranks = sorted({rank for key in self.shown for rank in key[1:]})
        self.files = sorted({io.files[key[0]] for key in self.shown})[:5]

    def pairs(self):
        """How many pairs of ranks the finding counts, and their bytes."""
        return f"{len(self.shown)} pair(s) of ranks, {byte_size(self.total)} in all"

    def further_unsynced(self, happened):
        """A HIGH message's last sentence on the bytes that were ordered but
        not synced (what happened to them), empty where there were none."""
        return (f" A further {byte_size(self.unsynced_bytes)} {happened}, without a sync on "
                f"both sides." if self.unsynced_bytes else "")

    def values(self):
        return {"file": self.name, "ranks": [self.first, self.second],
                "range": [self.low, self.high], "ranges": self.pieces,
                "overlap_bytes": int(self.size), "pairs": len(self.shown),
                "total_bytes": int(self.total), "ordered": self.severity == INFO,
                "unordered_bytes": int(self.unordered_bytes),
                "unsynced_bytes": int(self.unsynced_bytes), "calls": self.calls,
                "ordered_by": self.ordered_by}


_UNSYNCED_ADVICE = (
    "MPI-IO promises the later access the earlier write's bytes only after sync, collective, "
    "sync (MPI_File_sync or the file's close by the writer, a collective of both ranks, "
    "MPI_File_sync or the file's open by the other) or in atomic mode. File systems that keep "
    "POSIX consistency (local disks, Lustre, GPFS) show them anyway; NFS and other caching "
    "clients may not.")


def check_overlapping_writes(model, limit):
    io = model.io
    rows = np.flatnonzero(byte_accesses(io) & (io["kind"] == KIND_WRITE) & (io["done"] > 0))
    found = ({}, {})
    order = None
    for row, earlier, low, high in _overlapping_accesses(io, rows):
        if order is None:
            order = _AccessOrder(model)
        kind = order.writes(earlier, row)
        if kind is not None:
            rank, other = int(io["rank"][row]), int(io["rank"][earlier])
            # The lower rank's write first.
            writes = (row, earlier) if rank < other else (earlier, row)
            _tally(found[kind], (int(io["file"][row]), min(rank, other), max(rank, other)),
                   low, high, writes)
    got = _Overlaps(io, found, limit("overlapping-writes", "min-bytes"), order)
    if got.severity is None:
        return None
    said = (f"Ranks {got.first} and {got.second} both wrote bytes {got.low:,} to {got.high:,} "
            f"of {got.name}{got.within} ({byte_size(got.high - got.low)} written twice{got.more})")
    if got.severity == HIGH:
        also = got.further_unsynced("were written again after a collective that ordered the "
                                    "writes")
        return Finding(
            "overlapping-writes", HIGH,
            f"{said}; {len(got.shown)} pair(s) of ranks overlap, {byte_size(got.total)} in all, "
            f"with nothing between the writes that orders them (no collective or file open of "
            f"both ranks, no message from the one to the other).{also}",
            "Two ranks writing the same bytes leave the file's content to chance unless the "
            "writes are ordered (MPI_File_sync, a barrier, MPI_File_sync); give each rank its "
            "own range.",
            got.files, got.ranks, got.values())
    return Finding(
        "overlapping-writes", INFO,
        f"{said}, one after the other: {got.ordered_by} came between the writes, "
        f"but not a sync on both sides of it; {got.pairs()}.",
        _UNSYNCED_ADVICE, got.files, got.ranks, got.values())


def _reads_over_writes(io, reads, writes):
    """(read, write, low, high) for each read of reads and write of writes
    by another rank whose bytes [low, high) of one file overlap. Only the
    writes are walked, so that many ranks reading the same bytes cost no
    more than they read."""
    for code in np.intersect1d(io["file"][reads], io["file"][writes]).tolist():
        mine = writes[io["file"][writes] == code]
        mine = mine[np.argsort(io["offset"][mine], kind="stable")]
        start = io["offset"][mine]
        end = start + io["done"][mine]
        reach = np.maximum.accumulate(end)
        theirs = reads[io["file"][reads] == code]
        read_start = io["offset"][theirs]
        read_end = read_start + io["done"][theirs]
        # The writes that start before a read ends are those up to last; the
        # read overlaps one of them when their furthest end passes its start.
        last = np.searchsorted(start, read_end, side="left") - 1
        overlapping = (last >= 0) & (reach[np.maximum(last, 0)] > read_start)
        for index in np.flatnonzero(overlapping):
            read, low_end = theirs[index], int(read_start[index])
            back, steps = int(last[index]), 0
            while back >= 0 and reach[back] > low_end and steps < OVERLAP_WALK:
                if end[back] > low_end and io["rank"][mine[back]] != io["rank"][read]:
                    yield (read, mine[back], max(low_end, int(start[back])),
                           int(min(end[back], read_end[index])))
                back -= 1
                steps += 1


def check_conflicting_reads(model, limit):
    io = model.io
    accesses = byte_accesses(io) & (io["done"] > 0)
    reads = np.flatnonzero(accesses & (io["kind"] == KIND_READ))
    writes = np.flatnonzero(accesses & (io["kind"] == KIND_WRITE))
    found = ({}, {})
    order = None
    for read, write, low, high in _reads_over_writes(io, reads, writes):
        if order is None:
            order = _AccessOrder(model)
        which = order.write_then_read(write, read)
        if which is not None:
            _tally(found[which], (int(io["file"][read]), int(io["rank"][write]),
                                  int(io["rank"][read])), low, high, (write, read))
    got = _Overlaps(io, found, limit("conflicting-reads", "min-bytes"), order)
    if got.severity is None:
        return None
    writer, reader = got.first, got.second
    said = (f"Rank {reader} read bytes {got.low:,} to {got.high:,} of {got.name} that rank "
            f"{writer} wrote{got.within} ({byte_size(got.high - got.low)}{got.more})")
    values = dict(got.values(), writer=writer, reader=reader)
    del values["ranks"]
    if got.severity == HIGH:
        also = got.further_unsynced("were read after a collective that ordered them after the "
                                    "write")
        return Finding(
            "conflicting-reads", HIGH,
            f"{said}, with nothing between the write and the read that orders them (no "
            f"collective or file open of both ranks, no message from the writer to the reader): "
            f"the read may see the old bytes or the new; {got.pairs()}.{also}",
            "Order the read after the write: MPI_File_sync by the writer, a barrier, "
            "MPI_File_sync by the reader (or the file closed, a barrier, and opened again); "
            "or send the data in a message.",
            got.files, got.ranks, values)
    return Finding(
        "conflicting-reads", INFO,
        f"{said}, after {got.ordered_by} but without a sync on both sides of it; "
        f"{got.pairs()}.",
        _UNSYNCED_ADVICE, got.files, got.ranks, values)
