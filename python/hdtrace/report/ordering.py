"""What orders two ranks' calls, for the checks of overlapping accesses: a
collective both took part in (collectives.py), or a message from the one to
the other that left after the first call and arrived before the second.

Each rank's calls are compared on that rank's clock only. Messages are
those the report matched for its wait states, which it does where the
clocks are aligned; elsewhere only the collectives order.
"""
import bisect

import numpy as np

from .collectives import CollectiveOrder

#: A nonblocking receive's completion comes as seconds (a float of the
#: aligned clock, some hundred nanoseconds apart at today's times): it counts
#: this much later, so that it never seems to come before it did; a time
#: within this much of the receive call's own end is that end.
COMPLETION_SLACK_NS = 1000


class MessageOrder:
    """Whether a message from one rank to another left after one time (on
    the sender's clock) and arrived before another (on the receiver's)."""

    def __init__(self, pairs, table):
        # Per (sender, receiver): the sends' starts in order, and the latest
        # time by which every message sent from each one on had not all
        # arrived: the earliest arrival among them.
        self._sends = {}
        if pairs is None or len(pairs) == 0:
            return
        sent = table["start_ns"][pairs["send_row"]]
        # A blocking receive completes when its call ends (the same time as
        # the float, exactly); a nonblocking one later, as the float says.
        received = table["end_ns"][pairs["recv_row"]]
        completed = np.ceil(pairs["recv_complete"] * 1e9).astype(np.int64)
        done = np.where(np.abs(completed - received) <= COMPLETION_SLACK_NS, received,
                        np.maximum(received, completed + COMPLETION_SLACK_NS))
        order = np.lexsort((sent, pairs["receiver"], pairs["sender"]))
        sender, receiver = pairs["sender"][order], pairs["receiver"][order]
        sent, done = sent[order], done[order]
        first = np.flatnonzero(np.r_[True, (sender[1:] != sender[:-1]) |
                                     (receiver[1:] != receiver[:-1])])
        for begin, end in zip(first.tolist(), np.r_[first[1:], len(order)].tolist()):
            earliest = np.minimum.accumulate(done[begin:end][::-1])[::-1]
            self._sends[(int(sender[begin]), int(receiver[begin]))] = (
                sent[begin:end].tolist(), earliest.tolist())

    def before(self, rank, end_ns, other_rank, other_start_ns):
        found = self._sends.get((rank, other_rank))
        if found is None:
            return False
        starts, earliest = found
        after = bisect.bisect_left(starts, end_ns)
        return after < len(starts) and earliest[after] <= other_start_ns


class CallOrder:
    """Whether one rank's call happened before another rank's: through a
    collective instance of both or a message between them."""

    def __init__(self, instances, pairs, table):
        self._collectives = CollectiveOrder(instances)
        self._messages = MessageOrder(pairs, table)

    def before(self, rank, end_ns, other_rank, other_start_ns):
        return (self._collectives.before(rank, end_ns, other_rank, other_start_ns) or
                self._messages.before(rank, end_ns, other_rank, other_start_ns))

    def ordered_by(self, rank, end_ns, other_rank, other_start_ns):
        """What orders the two calls so, as the report names it ("a Barrier
        of both ranks", "a message from rank 0 to rank 1"), or None."""
        call = self._collectives.ordered_by(rank, end_ns, other_rank, other_start_ns)
        if call is not None:
            return f"a {call} of both ranks"
        if self._messages.before(rank, end_ns, other_rank, other_start_ns):
            return f"a message from rank {rank} to rank {other_rank}"
        return None
