"""The run's N-to-N collectives (Barrier, Allreduce, Alltoall, ...) as
instances: the k-th such call of each rank on one communicator is one
instance. No member leaves an instance before every member has entered it,
so whatever a rank did before entering happened before whatever another
member did after leaving. The wait states read how long the members waited
in each; the overlapping accesses, which of them are ordered (by those and
by the opens of a file, ORDERING_CALLS).

Only a rank's own times are compared (each member's call with that rank's
other calls), so the order needs no clocks aligned between hosts.
"""
import bisect
from dataclasses import dataclass

import numpy as np

from ..calls import FILE_OPENS, N_TO_N_COLLECTIVES, carries

NO_COMMUNICATOR = -1
#: What orders two ranks' accesses of a file: the all-to-all collectives,
#: and the collective opens of a file. The standard does not make an open
#: wait for every rank, but Open MPI's OMPIO and ROMIO and MPICH all do: a
#: rank that came to MPI_File_open a second before the other left it a
#: second later, in each of the three on the development machine.
ORDERING_CALLS = N_TO_N_COLLECTIVES | frozenset(
    name for name in FILE_OPENS if carries(name, "communicator"))


@dataclass
class CollectiveInstances:
    """One row per member's call, sorted by (comm, rank, sequence): each
    (communicator, rank) lane is one stretch, in the rank's order, its
    sequence numbers 0, 1, 2, ... (the instances it took part in)."""
    comm: np.ndarray      # the communicator's index in the project
    rank: np.ndarray
    sequence: np.ndarray  # the instance's number on its communicator
    start_ns: np.ndarray
    end_ns: np.ndarray
    call: np.ndarray = None  # per row, the member's call as a code into names
    names: tuple = ()        # the project's distinct call names

    def __len__(self):
        return len(self.comm)

    def lanes(self):
        """{(comm, rank): slice of the rows}"""
        if len(self.comm) == 0:
            return {}
        first = np.ones(len(self.comm), dtype=bool)
        first[1:] = (self.comm[1:] != self.comm[:-1]) | (self.rank[1:] != self.rank[:-1])
        starts = np.flatnonzero(first)
        ends = np.append(starts[1:], len(self.comm))
        return {(int(self.comm[begin]), int(self.rank[begin])): slice(int(begin), int(end))
                for begin, end in zip(starts, ends)}


def _empty():
    none = np.zeros(0, dtype=np.int64)
    return CollectiveInstances(none, none, none, none, none, none)


def collective_instances(project, table, names, calls=N_TO_N_COLLECTIVES):
    """The CollectiveInstances of the table's top-level calls named in
    calls (collectives over the communicator their cid names); names: the
    project's name_codes()."""
    distinct, code = names
    if len(table) == 0:
        return _empty()
    wanted = np.array([name in calls for name in distinct], dtype=bool)
    rows = np.flatnonzero(wanted[code] & (table["cid"] >= 0))
    if len(rows) == 0:
        return _empty()
    # Each (rank, cid) pair's communicator, asked once per pair, not per call.
    cids = int(table["cid"][rows].max()) + 1
    pairs, inverse = np.unique(table["rank"][rows].astype(np.int64) * cids + table["cid"][rows],
                               return_inverse=True)
    found = [project.communicators.get(pair // cids, pair % cids) for pair in pairs.tolist()]
    index = np.array([NO_COMMUNICATOR if one is None else one.index for one in found],
                     dtype=np.int64)
    comm = index[inverse.reshape(-1)]
    keep = comm >= 0
    rows, comm = rows[keep], comm[keep]
    if len(rows) == 0:
        return _empty()
    rank = table["rank"][rows].astype(np.int64)
    start = table["start_ns"][rows]
    end = table["end_ns"][rows]
    # The k-th call of each rank on each communicator: rows are by start.
    order = np.lexsort((start, rank, comm))
    comm, rank, start, end = comm[order], rank[order], start[order], end[order]
    call = code[rows[order]]
    lane_start = np.ones(len(order), dtype=bool)
    lane_start[1:] = (comm[1:] != comm[:-1]) | (rank[1:] != rank[:-1])
    lane_first = np.maximum.accumulate(np.where(lane_start, np.arange(len(order)), 0))
    sequence = np.arange(len(order)) - lane_first
    return CollectiveInstances(comm, rank, sequence, start, end, call, tuple(distinct))


class CollectiveOrder:
    """Whether a call of one rank happened before a call of another: both
    ranks took part in an instance that the first rank entered after its
    call had ended and the second left before its call began."""

    def __init__(self, instances):
        # Per (comm, rank): the lane's starts and ends as lists (a lane's
        # position is its sequence), searched with bisect per question.
        self._starts, self._ends, self._calls, self._comms_of = {}, {}, {}, {}
        self._names = instances.names
        for (comm, rank), lane in instances.lanes().items():
            self._starts[(comm, rank)] = instances.start_ns[lane].tolist()
            self._ends[(comm, rank)] = instances.end_ns[lane].tolist()
            self._calls[(comm, rank)] = instances.call[lane]
            self._comms_of.setdefault(rank, set()).add(comm)
        self._shared = {}

    def before(self, rank, end_ns, other_rank, other_start_ns):
        """Whether rank's call that ended at end_ns happened before
        other_rank's call that began at other_start_ns (each on its rank's
        clock)."""
        return self.ordered_by(rank, end_ns, other_rank, other_start_ns) is not None

    def ordered_by(self, rank, end_ns, other_rank, other_start_ns):
        """The name of a collective that orders the two calls so (as rank
        called it), or None."""
        shared = self._shared.get((rank, other_rank))
        if shared is None:
            shared = sorted(self._comms_of.get(rank, set()) &
                            self._comms_of.get(other_rank, set()))
            self._shared[(rank, other_rank)] = shared
        for comm in shared:
            # The first instance rank entered after its call, and the last
            # other_rank left before its own.
            starts = self._starts[(comm, rank)]
            entered = bisect.bisect_left(starts, end_ns)
            left = bisect.bisect_right(self._ends[(comm, other_rank)], other_start_ns) - 1
            if entered < len(starts) and left >= entered:
                return self._names[int(self._calls[(comm, rank)][entered])]
        return None
