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
"""
from collections import defaultdict, deque
from dataclasses import dataclass

import numpy as np

from .table import NO_PEER

SENDS = frozenset({"Send", "Bsend", "Ssend", "Rsend", "Isend", "Ibsend", "Issend", "Irsend"})
RECEIVES = frozenset({"Recv", "Irecv", "Mrecv", "Imrecv"})
SEND_RECEIVES = frozenset({"Sendrecv", "Sendrecv_replace"})
NONBLOCKING = frozenset({"Isend", "Ibsend", "Issend", "Irsend", "Irecv", "Imrecv"})
PERSISTENT_SENDS = frozenset({"Send_init", "Bsend_init", "Rsend_init", "Ssend_init"})
PERSISTENT_RECEIVES = frozenset({"Recv_init"})
STARTS = frozenset({"Start", "Startall"})
MATCHED_RECEIVES = frozenset({"Mrecv", "Imrecv"})
MATCHED_PROBES = frozenset({"Mprobe", "Improbe"})
ANY_SOURCE, ANY_TAG, PROC_NULL = -1, -1, -2

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


@dataclass
class _Post:
    """One message posted by a call: what the matching needs."""
    row: int          # the call that posts it (Send, Irecv, Start, ...)
    rank: int
    thread: int
    peer: int         # world rank of the other side (or a wildcard)
    tag: int
    cid: int
    size: int
    rid: object       # request id when it completes in a Wait/Test, else None


def _probe_starts(project, names, ranks, threads, start_ns):
    """{row of an Mrecv/Imrecv: start_ns of the probe that matched its message}.
    The table has no mid column: the few traces with such receives are read
    again for the probes' and receives' mids only."""
    rows = defaultdict(dict)  # (rank, thread) -> {(start_ns, name): row}
    for row, name in enumerate(names):
        if name in MATCHED_RECEIVES:
            rows[(ranks[row], threads[row])][(start_ns[row], name)] = row
    starts = {}
    for (rank, thread), receives in rows.items():
        probed = {}
        for event in project.trace(rank, thread, names=sorted(MATCHED_PROBES | MATCHED_RECEIVES)):
            mid = event.attrs.get("mid", -1)
            if mid is None or mid < 0:
                continue
            if event.name in MATCHED_PROBES:
                probed[mid] = event.start_ns
            elif mid in probed:
                row = receives.get((event.start_ns, event.name))
                if row is not None:
                    starts[row] = probed[mid]
    return starts


def match_messages(project):
    """Pairs sends with receives in a Project, or in the frame of
    Project.to_dask() (rows are then positions in frame.compute())."""
    # --- Dask
    from .distributed_frames import frame_match_messages, run_of
    run = run_of(project)
    if run is not None:
        return frame_match_messages(run)
    # --- end Dask
    table = project._full_table()
    array = table.array
    names = array["name"].tolist()
    ranks, threads = array["rank"].tolist(), array["thread"].tolist()
    peers, tags, cids = array["peer"].tolist(), array["tag"].tolist(), array["cid"].tolist()
    sizes, rids, start_ns = array["size"].tolist(), array["rid"].tolist(), array["start_ns"].tolist()
    communicators = project.communicators

    # Wait/Test calls complete requests; Startall's <For> children start them.
    completions = defaultdict(list)   # (rank, thread, rid) -> [(start_ns, end), ...]
    started = []                      # (Start/Startall row, rid)
    for row, rid in zip(table.completion_row.tolist(), table.completion_rid.tolist()):
        if names[row] == "Startall":
            started.append((row, rid))
        else:
            completions[(ranks[row], threads[row], rid)].append((start_ns[row], array["end"][row]))
    for values in completions.values():
        values.sort()
    started.extend((row, rids[row]) for row, name in enumerate(names) if name == "Start")

    sends, receives = [], []
    persistent = {}
    for row, name in enumerate(names):
        if name in SENDS or name in SEND_RECEIVES:
            rid = rids[row] if name in NONBLOCKING else None
            sends.append(_Post(row, ranks[row], threads[row], peers[row], tags[row], cids[row],
                               sizes[row], rid))
        if name in RECEIVES:
            rid = rids[row] if name in NONBLOCKING else None
            receives.append(_Post(row, ranks[row], threads[row], peers[row], tags[row], cids[row],
                                  sizes[row], rid))
        elif name in SEND_RECEIVES:
            receives.append(_Post(row, ranks[row], threads[row], int(table.recv_peer[row]),
                                  int(table.recv_tag[row]), cids[row], sizes[row], None))
        elif name in PERSISTENT_SENDS or name in PERSISTENT_RECEIVES:
            persistent[(ranks[row], threads[row], rids[row])] = row
    for row, rid in started:
        template = persistent.get((ranks[row], threads[row], rid))
        if template is None:
            continue
        post = _Post(row, ranks[row], threads[row], peers[template], tags[template],
                     cids[template], sizes[template], rid)
        (sends if names[template] in PERSISTENT_SENDS else receives).append(post)

    def communicator_key(rank, cid):
        found = communicators.get(rank, cid)
        return found.index if found is not None else ("cid", cid)

    incomplete = []

    def completion(post):
        if post.rid is None:
            return array["end"][post.row]
        for at_ns, end in completions.get((post.rank, post.thread, post.rid), ()):
            if at_ns >= start_ns[post.row]:
                return end
        incomplete.append(post.row)
        return np.nan

    pending = defaultdict(lambda: defaultdict(deque))  # (receiver, comm) -> (sender, tag) -> posts
    for post in sorted(sends, key=lambda p: start_ns[p.row]):
        if post.peer < 0 or post.peer == NO_PEER:
            continue  # MPI_PROC_NULL: no message
        pending[(post.peer, communicator_key(post.rank, post.cid))][(post.rank, post.tag)].append(post)

    # A matched receive takes its message when its probe ran (see above).
    matched_at = _probe_starts(project, names, ranks, threads, start_ns) \
        if any(name in MATCHED_RECEIVES for name in names) else {}
    pairs, unmatched_recvs = [], []
    for post in sorted(receives, key=lambda p: matched_at.get(p.row, start_ns[p.row])):
        if post.peer in (PROC_NULL, NO_PEER):
            continue
        comm = communicator_key(post.rank, post.cid)
        best = None
        for (sender, send_tag), queue in pending.get((post.rank, comm), {}).items():
            if not queue or (post.peer != ANY_SOURCE and sender != post.peer):
                continue
            if post.tag != ANY_TAG and send_tag != post.tag:
                continue
            if best is None or start_ns[queue[0].row] < start_ns[best[0].row]:
                best = queue
        if best is None:
            unmatched_recvs.append(post.row)
            continue
        send = best.popleft()
        pairs.append((send.row, post.row, send.rank, post.rank, send.tag,
                      comm if isinstance(comm, int) else -1, send.size,
                      array["start"][send.row], completion(send),
                      array["start"][post.row], completion(post)))
    unmatched_sends = sorted(post.row for per_peer in pending.values()
                             for queue in per_peer.values() for post in queue)
    result = np.array(pairs, dtype=PAIR_DTYPE) if pairs else np.empty(0, PAIR_DTYPE)
    result = result[np.argsort(result["send_start"], kind="stable")]
    return MessageMatches(result, np.array(unmatched_sends, dtype=np.int64),
                          np.array(sorted(unmatched_recvs), dtype=np.int64),
                          np.array(sorted(set(incomplete)), dtype=np.int64))
