"""match_messages: pair every point-to-point send with its receive.

Rules (MPI's): a message goes from the sender's peer to the receiver on one
communicator with one tag; between the same two ranks on the same
communicator with the same tag, messages arrive in the order they were sent.
A receive with MPI_ANY_SOURCE (-1) or MPI_ANY_TAG (-1) takes the earliest
pending send it can match. Sends to and receives from MPI_PROC_NULL (-2)
carry no message and are left out. Non-blocking calls (Isend, Irecv, ...)
complete in the Wait/Test call whose <For rid=.../> names their request;
a blocking call completes at its own end. A persistent request (Send_init,
Recv_init, ...) posts one message each time Start or Startall starts it;
the pair then names the Start/Startall row.

Matched probes (MPI-3): Mrecv and Imrecv are receives like Recv and Irecv.
They log the source and tag of the message their probe (Mprobe/Improbe)
matched, never a wildcard, and Imrecv completes in the Wait/Test of its rid.
MPI matches such a message when the probe runs, so the receive takes its
place in the matching order at the start of the probe whose `mid` it
carries: two messages of one envelope probed in one order and received in
the other are each paired with the send their probe matched.

Computed in two steps, so that a table in this process and the partitions
of a Dask frame run the same code: posts_of_part lists the messages one
part of a table posts (the whole table, or one partition), with when each
completes; match_posts pairs posts of any number of parts, in C++ (the
pairing the clock correction uses, hdtrace._core.pair_posts).
"""
import bisect
import math
from collections import defaultdict, namedtuple
from dataclasses import dataclass

import numpy as np

from . import native
from .calls import (MATCHED_PROBES, MATCHED_RECEIVES, NONBLOCKING, PERSISTENT_RECEIVES,
                    PERSISTENT_SENDS, PROC_NULL, RECEIVES, SEND_RECEIVES, SENDS, STARTS,
                    STARTS_THROUGH_CHILDREN, matched_message)
from .table import NO_PEER

PAIR_DTYPE = np.dtype([
    ("send_row", np.int64), ("recv_row", np.int64),
    ("sender", np.int32), ("receiver", np.int32), ("tag", np.int32), ("communicator", np.int64),
    ("size", np.int64),
    ("send_start", np.float64), ("send_complete", np.float64),
    ("recv_start", np.float64), ("recv_complete", np.float64),
])


@dataclass
class MessageMatches:
    """Rows refer to p.to_numpy(). Sendrecv rows appear as sender and as receiver."""
    pairs: np.ndarray            # PAIR_DTYPE, one row per matched message, by send start;
                                 # communicator: index in p.communicators (-1: not listed)
    unmatched_sends: np.ndarray  # rows of sends that no receive took
    unmatched_recvs: np.ndarray  # rows of receives that no send matched
    incomplete: np.ndarray       # rows of non-blocking calls with no Wait/Test completing them

    def __len__(self):
        return len(self.pairs)

    def __repr__(self):
        return (f"<MessageMatches {len(self.pairs)} pairs, {len(self.unmatched_sends)} unmatched "
                f"sends, {len(self.unmatched_recvs)} unmatched receives>")


# One posted message. key orders sends (and receives) as they match: by time
# (a matched receive's: its probe's start), then calls before the starts of
# persistent requests by Startall, then by Start, then by part and row.
# comm: the communicator's index, or ("cid", cid) where the project does not
# list it; complete: when the message completed (NaN: never, incomplete).
Post = namedtuple("Post", "key part row rank thread peer tag comm size start complete incomplete")


@dataclass
class PartRows:
    """The columns of one part of a table that its messages need, as lists
    (rows in the part's order): call names, and the table's columns; the
    <For> children (completion_row, completion_rid) in the part's rows."""
    names: list
    rank: list
    thread: list
    peer: list
    tag: list
    cid: list
    size: list
    rid: list
    start_ns: list
    start: list
    end: list
    recv_peer: list
    recv_tag: list
    completion_row: list
    completion_rid: list

    #: The table's columns it takes.
    COLUMNS = ("rank", "thread", "peer", "tag", "cid", "size", "rid", "start_ns", "start", "end")

    @classmethod
    def of(cls, names, columns, recv_peer, recv_tag, completion_row, completion_rid):
        """From call names per row and columns (a structured array, a
        DataFrame, or arrays by name)."""
        def listed(values):
            return values.tolist() if hasattr(values, "tolist") else list(values)
        return cls(list(names), *(listed(columns[key]) for key in cls.COLUMNS),
                   listed(recv_peer), listed(recv_tag), listed(completion_row),
                   listed(completion_rid))


def _post(part, row, at, times, rank, thread, peer, tag, comm, size, group, sequence):
    """The Post of a row; times: the row's (start_ns, start, end)."""
    start_ns, start, end = times
    return Post((at, group, start_ns, part, sequence), part, row, rank, thread, peer, tag, comm,
                size, start, end, False)


def _never_completed(post):
    return post._replace(complete=np.nan, incomplete=True)


class _PartMessages:
    """What posts_of_part knows of a part: its completions by (rank, thread,
    rid) (Wait/Test <For>, sorted) and the requests Start/Startall start."""

    def __init__(self, part, rows, matched_at, comm_of):
        self.part, self.rows, self.matched_at, self.comm_of = part, rows, matched_at, comm_of
        self.completions = defaultdict(list)  # (rank, thread, rid) -> [(start_ns, end)]
        self.started = []                     # (row, rid, order group, sequence)
        for index, (row, rid) in enumerate(zip(rows.completion_row, rows.completion_rid)):
            if rows.names[row] in STARTS_THROUGH_CHILDREN:
                self.started.append((row, rid, 1, index))
            else:
                self.completions[(rows.rank[row], rows.thread[row], rid)].append(
                    (rows.start_ns[row], rows.end[row]))
        for values in self.completions.values():
            values.sort()
        self.started.extend((row, rows.rid[row], 2, row)
                            for row, name in enumerate(rows.names)
                            if name in STARTS and name not in STARTS_THROUGH_CHILDREN)

    def times(self, row):
        return self.rows.start_ns[row], self.rows.start[row], self.rows.end[row]

    def completion(self, lane, rid, at_ns):
        """The end of the first completion of rid that starts at or after at_ns, or None."""
        values = self.completions.get((*lane, rid))
        if not values:
            return None
        # Requests ids come back after their request completes: a run reuses
        # a few rids thousands of times, so the search must not be linear.
        at = bisect.bisect_left(values, (at_ns, -math.inf))
        return values[at][1] if at < len(values) else None

    def post(self, row, peer, tag, cid, size, group, sequence):
        rows = self.rows
        rank = rows.rank[row]
        return _post(self.part, row, self.matched_at.get(row, rows.start_ns[row]), self.times(row),
                     rank, rows.thread[row], peer, tag, self.comm_of(rank, cid), size, group,
                     sequence)

    def completion_index(self):
        """The completions as arrays (rid, start_ns, end) sorted in that order,
        for first_completion: what a later slice of a trace needs of this one,
        without its rows (a slice is of one trace: rids alone tell requests apart)."""
        rids, at_ns, ends = [], [], []
        for (_, _, rid), values in self.completions.items():
            for start_ns, done in values:
                rids.append(rid)
                at_ns.append(start_ns)
                ends.append(done)
        rids, at_ns = np.array(rids, dtype=np.int64), np.array(at_ns, dtype=np.int64)
        ends = np.array(ends, dtype=np.float64)
        order = np.lexsort((ends, at_ns, rids))
        return rids[order], at_ns[order], ends[order]


def first_completion(index, rid, at_ns):
    """The end of the first completion of rid at or after at_ns in a
    completion_index, or None."""
    rids, starts, ends = index
    low, high = np.searchsorted(rids, rid, "left"), np.searchsorted(rids, rid, "right")
    at = low + int(np.searchsorted(starts[low:high], at_ns, "left"))
    return float(ends[at]) if at < high else None


def posts_of_part(part, rows, matched_at, comm_of, whole=True):
    """The messages one part of a table posts: a dict of sends and receives
    (Posts) and the part's length. matched_at: {row of an Mrecv/Imrecv:
    start_ns of its probe}; comm_of(rank, cid): the communicator's index or
    None. A part that is a slice of a trace (whole=False) also returns what
    only the trace's other slices can settle (see settle_slice): its
    nonblocking posts not completed within it ("waiting": (post, rid, is
    send)), its Starts of requests made before it ("unstarted") and its
    persistent requests ("templates"); a whole part marks what no Wait or
    Test completes as never completed."""
    def comm(rank, cid):
        found = comm_of(rank, cid)
        return found if found is not None else ("cid", cid)

    data = _PartMessages(part, rows, matched_at, comm)
    names, rids = rows.names, rows.rid
    sends, receives, waiting = [], [], []

    def add(to, made, rid):
        if rid is not None:
            done = data.completion((made.rank, made.thread), rid, rows.start_ns[made.row])
            if done is not None:
                made = made._replace(complete=done)
            elif whole:
                made = _never_completed(made)
            else:
                waiting.append((made, rid, to is sends))
                return
        to.append(made)

    templates = {}
    for row, name in enumerate(names):
        peer, tag, cid, size = rows.peer[row], rows.tag[row], rows.cid[row], rows.size[row]
        if name in SENDS or name in SEND_RECEIVES:
            add(sends, data.post(row, peer, tag, cid, size, 0, row),
                rids[row] if name in NONBLOCKING else None)
        if name in RECEIVES:
            add(receives, data.post(row, peer, tag, cid, size, 0, row),
                rids[row] if name in NONBLOCKING else None)
        elif name in SEND_RECEIVES:
            add(receives, data.post(row, int(rows.recv_peer[row]), int(rows.recv_tag[row]), cid,
                                    size, 0, row), None)
        elif name in PERSISTENT_SENDS or name in PERSISTENT_RECEIVES:
            templates[(rows.rank[row], rows.thread[row], rids[row])] = \
                (peer, tag, cid, size, name in PERSISTENT_SENDS)
    unstarted = []
    for row, rid, group, sequence in data.started:
        template = templates.get((rows.rank[row], rows.thread[row], rid))
        if template is None:
            if not whole:
                unstarted.append((row, rid, group, sequence, rows.rank[row], rows.thread[row],
                                  data.times(row)))
            continue
        peer, tag, cid, size, is_send = template
        add(sends if is_send else receives, data.post(row, peer, tag, cid, size, group, sequence),
            rid)
    return {"length": len(names), "sends": sends, "receives": receives, "waiting": waiting,
            "unstarted": unstarted, "templates": templates,
            "completions": None if whole else data.completion_index()}


def settle_slice(part, comm_of, posts, carried, last):
    """The step of a trace's chain of slices for what one slice cannot settle
    alone, in trace order: the persistent requests of the slices before it
    start this slice's Starts, and this slice's Wait/Test calls complete the
    posts still waiting from before (the first completion of the rid at or
    after the post: calls are in start order, so an earlier slice holds
    none). Returns (sends, receives) settled here and what is carried to the
    next slice; the last slice marks the posts still waiting as never
    completed."""
    completions = posts["completions"]
    sends, receives = [], []
    still_waiting = []
    for made, rid, is_send in carried["waiting"]:
        done = first_completion(completions, rid, made.key[2])
        if done is not None:
            (sends if is_send else receives).append(made._replace(complete=done))
        else:
            still_waiting.append((made, rid, is_send))
    for row, rid, group, sequence, rank, thread, times in posts["unstarted"]:
        template = carried["templates"].get((rank, thread, rid))
        if template is None:
            continue  # a Start of a request made nowhere
        peer, tag, cid, size, is_send = template
        found = comm_of(rank, cid)
        made = _post(part, row, times[0], times, rank, thread, peer, tag,
                     found if found is not None else ("cid", cid), size, group, sequence)
        done = first_completion(completions, rid, times[0])
        if done is not None:
            (sends if is_send else receives).append(made._replace(complete=done))
        else:
            still_waiting.append((made, rid, is_send))
    still_waiting.extend(posts["waiting"])
    templates = dict(carried["templates"])
    templates.update(posts["templates"])
    if last:
        for made, _, is_send in still_waiting:
            (sends if is_send else receives).append(_never_completed(made))
        still_waiting = []
    return (sends, receives), {"waiting": still_waiting, "templates": templates}


def route(sends, receives, groups):
    """{group: (sends, receives)} by receiving rank, so that each group can
    be matched alone; messages to or from MPI_PROC_NULL are none."""
    by_group = {group: ([], []) for group in range(groups)}
    for one in sends:
        if one.peer < 0 or one.peer == NO_PEER:
            continue  # MPI_PROC_NULL: no message
        by_group[one.peer % groups][0].append(one)
    for one in receives:
        if one.peer in (PROC_NULL, NO_PEER):
            continue
        by_group[one.rank % groups][1].append(one)
    return by_group


def _communicator_key(comm):
    return comm if isinstance(comm, int) else native.UNKNOWN_COMMUNICATOR_KEY + comm[1]


def _post_columns(posts):
    return {"rank": np.array([one.rank for one in posts], dtype=np.int32),
            "peer": np.array([one.peer for one in posts], dtype=np.int32),
            "tag": np.array([one.tag for one in posts], dtype=np.int32),
            "communicator": np.array([_communicator_key(one.comm) for one in posts],
                                     dtype=np.int64),
            "start_ns": np.array([one.key[2] for one in posts], dtype=np.int64)}


def match_posts(pieces):
    """Pairs the posts of pieces [(sends, receives)] (every post of a
    receiving rank must be among them). Returns (pairs as PAIR_DTYPE tuples
    with (part, row) for each side's row, unmatched sends, unmatched
    receives, incomplete), rows as (part, row)."""
    sends = sorted((one for piece_sends, _ in pieces for one in piece_sends), key=lambda p: p.key)
    receives = sorted((one for _, piece_receives in pieces for one in piece_receives),
                      key=lambda p: p.key)
    found = native.pair_posts(_post_columns(sends), _post_columns(receives))
    pairs, incomplete = [], set()
    for send, receive in zip(found["send"].tolist(), found["receive"].tolist()):
        send, receive = sends[send], receives[receive]
        for side in (send, receive):
            if side.incomplete:
                incomplete.add((side.part, side.row))
        pairs.append((send.part, send.row, receive.part, receive.row, send.rank, receive.rank,
                      send.tag, receive.comm if isinstance(receive.comm, int) else -1, send.size,
                      send.start, send.complete, receive.start, receive.complete))
    unmatched_sends = [(sends[at].part, sends[at].row) for at in found["unmatched_sends"].tolist()]
    unmatched_receives = [(receives[at].part, receives[at].row)
                          for at in found["unmatched_receives"].tolist()]
    return pairs, unmatched_sends, unmatched_receives, sorted(incomplete)


def combine_matches(matched, position):
    """The MessageMatches of match_posts' results; position(part, row): the
    row in the table the matches refer to."""
    pairs, unmatched_sends, unmatched_receives, incomplete = [], [], [], []
    for group_pairs, group_sends, group_receives, group_incomplete in matched:
        pairs.extend((position(a, b), position(c, d), *rest) for a, b, c, d, *rest in group_pairs)
        unmatched_sends.extend(position(*at) for at in group_sends)
        unmatched_receives.extend(position(*at) for at in group_receives)
        incomplete.extend(position(*at) for at in group_incomplete)
    result = np.array(pairs, dtype=PAIR_DTYPE) if pairs else np.empty(0, PAIR_DTYPE)
    result = result[np.argsort(result["send_start"], kind="stable")]
    as_rows = lambda rows: np.array(sorted(rows), dtype=np.int64)  # noqa: E731
    return MessageMatches(result, as_rows(unmatched_sends), as_rows(unmatched_receives),
                          as_rows(set(incomplete)))


def _probe_starts(project, names, ranks, threads, start_ns):
    """{row of an Mrecv/Imrecv: start_ns of the probe that matched its message}.
    The table has no mid column: the few traces with such receives are read
    again (through the project, so with its times) for the probes' and
    receives' mids only."""
    rows = defaultdict(dict)  # (rank, thread) -> {(start_ns, name): row}
    for row, name in enumerate(names):
        if name in MATCHED_RECEIVES:
            rows[(ranks[row], threads[row])][(start_ns[row], name)] = row
    starts = {}
    for (rank, thread), receives in rows.items():
        probed = {}
        for event in project.trace(rank, thread, names=sorted(MATCHED_PROBES | MATCHED_RECEIVES)):
            mid = matched_message(event.name, event.attrs)
            if mid is None or mid < 0:
                continue
            if event.name in MATCHED_PROBES:
                probed[mid] = event.start_ns
            elif mid in probed:
                row = receives.get((event.start_ns, event.name))
                if row is not None:
                    starts[row] = probed[mid]
    return starts


def sends_any(names):
    """Whether a table whose rows have these names ((distinct names, each
    row's code), as Project.name_codes gives them) holds a call that sends
    a message: matching lists every row of the table, so a run without one
    skips it."""
    distinct, codes = names
    used = np.unique(codes) if len(codes) else []
    return any(distinct[code] in SENDS or distinct[code] in SEND_RECEIVES or
               distinct[code] in PERSISTENT_SENDS for code in used)


def persistent_sends_started(project):
    """The messages that Start and Startall send through persistent send
    requests (Send_init and the like, whose rows carry the peer and size):
    (sender rank, peer, size) arrays, one entry per request started. Empty
    where the run has no persistent send."""
    if not any(name in PERSISTENT_SENDS for name in project.name_codes()[0]):
        return tuple(np.zeros(0, dtype=np.int64) for _ in range(3))
    table = project._full_table()
    names = table.array["name"].tolist()
    rows = PartRows.of(names, table.array, table.recv_peer, table.recv_tag,
                       table.completion_row, table.completion_rid)
    # The request a rid names is the last one made with it before the start.
    # (rank, thread, rid) -> the requests' starts, and (peer, size) of each
    # (peer None: a receive request); the table's rows are in start order.
    made = defaultdict(lambda: ([], []))
    for row, name in enumerate(names):
        if name in PERSISTENT_SENDS or name in PERSISTENT_RECEIVES:
            starts, requests = made[(rows.rank[row], rows.thread[row], rows.rid[row])]
            starts.append(rows.start_ns[row])
            requests.append((rows.peer[row] if name in PERSISTENT_SENDS else None,
                             rows.size[row]))
    started = _PartMessages(0, rows, {}, lambda rank, cid: None).started
    senders, peers, sizes = [], [], []
    for row, rid, _, _ in started:
        key = (rows.rank[row], rows.thread[row], rid)
        if key not in made:
            continue
        starts, requests = made[key]
        at = bisect.bisect_right(starts, rows.start_ns[row]) - 1
        if at < 0 or requests[at][0] is None:
            continue  # a receive request, or none made before
        senders.append(rows.rank[row])
        peers.append(requests[at][0])
        sizes.append(requests[at][1])
    return (np.array(senders, dtype=np.int64), np.array(peers, dtype=np.int64),
            np.array(sizes, dtype=np.int64))


def match_messages(project):
    """Pairs sends with receives in a Project: its whole table as one part."""
    table = project._full_table()
    array = table.array
    names = array["name"].tolist()
    rows = PartRows.of(names, array, table.recv_peer, table.recv_tag, table.completion_row,
                       table.completion_rid)
    matched_at = _probe_starts(project, names, rows.rank, rows.thread, rows.start_ns) \
        if any(name in MATCHED_RECEIVES for name in set(names)) else {}
    communicators = project.communicators

    def comm_of(rank, cid):
        found = communicators.get(rank, cid)
        return None if found is None else found.index

    posts = posts_of_part(0, rows, matched_at, comm_of)
    matched = match_posts([(posts["sends"], posts["receives"])])
    return combine_matches([matched], lambda part, row: row)
