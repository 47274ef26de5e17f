"""match_messages: pair every point-to-point send with its receive.

Rules (MPI's): a message goes from the sender's peer to the receiver on one
communicator with one tag; between the same two ranks on the same
communicator with the same tag, messages arrive in the order they were sent.
A receive with MPI_ANY_SOURCE (-1) or MPI_ANY_TAG (-1) takes the earliest
pending send it can match. Sends to and receives from MPI_PROC_NULL (-2)
carry no message and are left out. Non-blocking calls (Isend, Irecv, ...)
complete in the Wait/Test call whose <For rid=.../> names their request;
a blocking call completes at its own end.
"""
from collections import defaultdict, deque
from dataclasses import dataclass

import numpy as np

from .table import NO_PEER

SENDS = frozenset({"Send", "Bsend", "Ssend", "Rsend", "Isend", "Ibsend", "Issend", "Irsend"})
RECEIVES = frozenset({"Recv", "Irecv"})
SEND_RECEIVES = frozenset({"Sendrecv", "Sendrecv_replace"})
NONBLOCKING = frozenset({"Isend", "Ibsend", "Issend", "Irsend", "Irecv"})
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


def _completion_times(array, table):
    """{(rank, thread, rid): [(end_ns of the completing call, row), ...]} in time order."""
    completions = defaultdict(list)
    for row, rid in zip(table.completion_row.tolist(), table.completion_rid.tolist()):
        key = (int(array["rank"][row]), int(array["thread"][row]), rid)
        completions[key].append((int(array["start_ns"][row]), int(array["end_ns"][row])))
    for values in completions.values():
        values.sort()
    return completions


def match_messages(project):
    table = project._full_table()
    array = table.array
    names = array["name"]
    communicators = project.communicators
    completions = _completion_times(array, table)

    def communicator_key(rank, cid):
        found = communicators.get(rank, cid)
        return found.index if found is not None else ("cid", cid)

    incomplete = []

    def completion(row):
        if names[row] not in NONBLOCKING:
            return array["end"][row]
        rank, thread, rid = int(array["rank"][row]), int(array["thread"][row]), int(array["rid"][row])
        for start_ns, end_ns in completions.get((rank, thread, rid), ()):
            if start_ns >= array["start_ns"][row]:
                return end_ns / 1e9
        incomplete.append(row)
        return np.nan

    sends = defaultdict(lambda: defaultdict(deque))   # (receiver, comm) -> (sender, tag) -> rows
    receives = []
    is_send = np.isin(names, list(SENDS | SEND_RECEIVES))
    is_recv = np.isin(names, list(RECEIVES | SEND_RECEIVES))
    for row in np.flatnonzero(is_send).tolist():
        rank, peer, tag = int(array["rank"][row]), int(array["peer"][row]), int(array["tag"][row])
        if peer in (PROC_NULL, NO_PEER) or peer < 0:
            continue
        comm = communicator_key(rank, int(array["cid"][row]))
        sends[(peer, comm)][(rank, tag)].append(row)
    for row in np.flatnonzero(is_recv).tolist():
        if names[row] in SEND_RECEIVES:
            source, tag = int(table.recv_peer[row]), int(table.recv_tag[row])
        else:
            source, tag = int(array["peer"][row]), int(array["tag"][row])
        if source == PROC_NULL or source == NO_PEER:
            continue
        receives.append((int(array["start_ns"][row]), row, source, tag))
    receives.sort()

    pairs, unmatched_recvs = [], []
    for _, row, source, tag in receives:
        rank = int(array["rank"][row])
        comm = communicator_key(rank, int(array["cid"][row]))
        pending = sends.get((rank, comm), {})
        best = None
        for (sender, send_tag), queue in pending.items():
            if not queue or (source != ANY_SOURCE and sender != source):
                continue
            if tag != ANY_TAG and send_tag != tag:
                continue
            if best is None or array["start_ns"][queue[0]] < array["start_ns"][best[0]]:
                best = queue
        if best is None:
            unmatched_recvs.append(row)
            continue
        send_row = best.popleft()
        size = int(array["size"][send_row])
        pairs.append((send_row, row, int(array["rank"][send_row]), rank, int(array["tag"][send_row]),
                      comm if isinstance(comm, int) else -1, size, array["start"][send_row], completion(send_row),
                      array["start"][row], completion(row)))
    unmatched_sends = sorted(row for per_peer in sends.values() for queue in per_peer.values()
                             for row in queue)
    result = np.array(pairs, dtype=PAIR_DTYPE) if pairs else np.empty(0, PAIR_DTYPE)
    result = result[np.argsort(result["send_start"], kind="stable")]
    return MessageMatches(result, np.array(unmatched_sends, dtype=np.int64),
                          np.array(sorted(unmatched_recvs), dtype=np.int64),
                          np.array(sorted(set(incomplete)), dtype=np.int64))
