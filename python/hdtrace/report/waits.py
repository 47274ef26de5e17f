"""Wait states: time a rank spent waiting for another, from the exact
calls on one clock (the report computes them only where the clocks are
aligned).

late sender    -- a receive started before the matching send: the receiver
                  waited from its receive's start until the send started
                  (at most until the receive ended);
late receiver  -- a send that could not end before its receive was posted
                  (it ended after the receive started, and started before):
                  the sender waited from its start until the receive started;
wait at N-to-N collective -- in a collective where every rank needs every
                  other (Barrier, Allreduce, Alltoall, ...), a rank waited
                  from its own start until the last rank's start (at most
                  its call's time). The calls of one collective are the
                  k-th such call of each rank on the same communicator.
"""
import numpy as np

from ..calls import N_TO_N_COLLECTIVES
from ..messages import PAIR_DTYPE, match_messages, sends_any


def _message_waits(project, names, world):
    pairs = match_messages(project).pairs if sends_any(names) else np.zeros(0, dtype=PAIR_DTYPE)
    late_sender = np.zeros(world)
    late_receiver = np.zeros(world)
    if len(pairs):
        receive_wait = np.minimum(pairs["send_start"], pairs["recv_complete"]) - \
            pairs["recv_start"]
        receive_wait = np.where(pairs["recv_start"] < pairs["send_start"],
                                np.maximum(receive_wait, 0.0), 0.0)
        late_sender += np.bincount(np.clip(pairs["receiver"], 0, world - 1),
                                   weights=receive_wait, minlength=world)
        blocked = (pairs["send_start"] < pairs["recv_start"]) & \
            (pairs["send_complete"] > pairs["recv_start"])
        send_wait = np.where(blocked, pairs["recv_start"] - pairs["send_start"], 0.0)
        late_receiver += np.bincount(np.clip(pairs["sender"], 0, world - 1), weights=send_wait,
                                     minlength=world)
        late_messages = int((receive_wait > 0).sum())
        blocked_messages = int(blocked.sum())
    else:
        late_messages = blocked_messages = 0
    return late_sender, late_receiver, late_messages, blocked_messages, len(pairs)


NO_COMMUNICATOR = -1


def _collective_waits(project, table, names, world):
    waits = np.zeros(world)
    distinct, code = names
    if len(table) == 0:
        return waits, 0
    wanted = np.array([name in N_TO_N_COLLECTIVES for name in distinct], dtype=bool)
    rows = np.flatnonzero(wanted[code] & (table["cid"] >= 0))
    if len(rows) == 0:
        return waits, 0
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
        return waits, 0
    rank = table["rank"][rows].astype(np.int64)
    start = table["start_ns"][rows]
    end = table["end_ns"][rows]
    # The k-th call of each rank on each communicator: rows are by start.
    order = np.lexsort((start, rank, comm))
    comm, rank, start, end = comm[order], rank[order], start[order], end[order]
    lane_start = np.ones(len(order), dtype=bool)
    lane_start[1:] = (comm[1:] != comm[:-1]) | (rank[1:] != rank[:-1])
    lane_first = np.maximum.accumulate(np.where(lane_start, np.arange(len(order)), 0))
    sequence = np.arange(len(order)) - lane_first
    group_order = np.lexsort((sequence, comm))
    comm_g, sequence_g = comm[group_order], sequence[group_order]
    group_start = np.ones(len(order), dtype=bool)
    group_start[1:] = (comm_g[1:] != comm_g[:-1]) | (sequence_g[1:] != sequence_g[:-1])
    starts_at = np.flatnonzero(group_start)
    last_start = np.maximum.reduceat(start[group_order], starts_at)
    group_of = np.cumsum(group_start) - 1
    wait = np.minimum(last_start[group_of] - start[group_order],
                      end[group_order] - start[group_order])
    waits += np.bincount(np.clip(rank[group_order], 0, world - 1),
                         weights=np.maximum(wait, 0) / 1e9, minlength=world)
    return waits, len(starts_at)


def wait_states(project, table, names, world):
    """{"late_sender_s", "late_receiver_s", "collective_wait_s": per rank
    arrays, and counts} of the run."""
    late_sender, late_receiver, late, blocked, messages = _message_waits(project, names, world)
    collective, instances = _collective_waits(project, table, names, world)
    return {"late_sender_s": late_sender, "late_receiver_s": late_receiver,
            "collective_wait_s": collective, "late_messages": late,
            "blocked_sends": blocked, "messages": messages, "collectives": instances}
