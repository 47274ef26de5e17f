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
                  k-th such call of each rank on the same communicator
                  (collectives.py).
"""
import numpy as np

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
    return late_sender, late_receiver, late_messages, blocked_messages, pairs


def _collective_waits(instances, world):
    waits = np.zeros(world)
    if len(instances) == 0:
        return waits, 0
    comm, sequence = instances.comm, instances.sequence
    group_order = np.lexsort((sequence, comm))
    comm_g, sequence_g = comm[group_order], sequence[group_order]
    group_start = np.ones(len(comm), dtype=bool)
    group_start[1:] = (comm_g[1:] != comm_g[:-1]) | (sequence_g[1:] != sequence_g[:-1])
    starts_at = np.flatnonzero(group_start)
    start, end = instances.start_ns[group_order], instances.end_ns[group_order]
    last_start = np.maximum.reduceat(start, starts_at)
    group_of = np.cumsum(group_start) - 1
    wait = np.minimum(last_start[group_of] - start, end - start)
    waits += np.bincount(np.clip(instances.rank[group_order], 0, world - 1),
                         weights=np.maximum(wait, 0) / 1e9, minlength=world)
    return waits, len(starts_at)


def wait_states(project, names, collectives, world):
    """{"late_sender_s", "late_receiver_s", "collective_wait_s": per rank
    arrays, counts, and "pairs", the matched messages (messages.PAIR_DTYPE)}
    of the run; collectives: its CollectiveInstances."""
    late_sender, late_receiver, late, blocked, pairs = _message_waits(project, names, world)
    collective, instances = _collective_waits(collectives, world)
    return {"late_sender_s": late_sender, "late_receiver_s": late_receiver,
            "collective_wait_s": collective, "late_messages": late,
            "blocked_sends": blocked, "messages": len(pairs), "collectives": instances,
            "pairs": pairs}
