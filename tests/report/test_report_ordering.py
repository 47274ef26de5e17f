"""What orders two ranks' calls for the overlap checks: messages matched
between them (hdtrace.report.ordering.MessageOrder), on made-up matches
whose every time is known."""
import numpy as np

from hdtrace.messages import PAIR_DTYPE
from hdtrace.report.ordering import COMPLETION_SLACK_NS, MessageOrder


def order_of(messages):
    """messages: (sender, receiver, send start, receive call's end, receive
    completed), times in ns; each message its own send and receive rows."""
    starts, ends, pairs = [], [], []
    for sender, receiver, sent, received, completed in messages:
        row = len(starts)
        starts += [sent, received - 10]
        ends += [sent + 10, received]
        pairs.append((row, row + 1, sender, receiver, 0, 0, 8, sent / 1e9, (sent + 10) / 1e9,
                      (received - 10) / 1e9, completed / 1e9))
    table = {"start_ns": np.array(starts, dtype=np.int64),
             "end_ns": np.array(ends, dtype=np.int64)}
    return MessageOrder(np.array(pairs, dtype=PAIR_DTYPE), table)


def test_a_blocking_receive_orders_from_its_end():
    order = order_of([(0, 1, 1000, 2000, 2000)])
    assert order.before(0, 1000, 1, 2000)
    assert not order.before(0, 1000, 1, 1999)   # the read began before the receive ended
    assert not order.before(0, 1001, 1, 10**6)  # the send began before the call ended
    assert not order.before(1, 0, 0, 10**6)     # no message the other way


def test_a_nonblocking_receive_orders_from_its_completion_and_the_slack():
    order = order_of([(0, 1, 1000, 2000, 50_000)])
    assert order.before(0, 1000, 1, 50_000 + COMPLETION_SLACK_NS)
    assert not order.before(0, 1000, 1, 50_000 + COMPLETION_SLACK_NS - 1)


def test_any_later_message_that_arrived_in_time_orders():
    # The first message sent after the call arrived late; a later one early.
    order = order_of([(0, 1, 1000, 90_000, 90_000), (0, 1, 3000, 4000, 4000)])
    assert order.before(0, 500, 1, 4000)
    assert order.before(0, 2000, 1, 4000)
    assert not order.before(0, 3001, 1, 10**6)
    assert not order.before(0, 500, 1, 3999)


def test_no_messages_order_nothing():
    assert not MessageOrder(None, None).before(0, 0, 1, 10**9)
    assert not MessageOrder(np.zeros(0, dtype=PAIR_DTYPE), None).before(0, 0, 1, 10**9)
