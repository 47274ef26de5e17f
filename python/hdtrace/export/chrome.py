"""The Chrome trace event format (JSON), which Perfetto and chrome://tracing load.

One process (pid) per rank, one thread (tid) per traced thread. Every call,
nested calls included, is a complete event ("ph": "X"); the viewer nests them
by time. Matched messages are flow events ("s" at the send, "f" at the
receive). Times ("ts", "dur") are microseconds since the earliest call of the
run; the absolute origin is in "otherData".
"""
import itertools
import json

from ..object_bulk import cyclic_gc_paused
from .atomic import write_atomically


def _us(ns):
    # Microseconds with nanosecond resolution; relative times keep doubles exact.
    return round(ns / 1000.0, 3)


def chrome_trace(timeline):
    """The trace as a dict ready for json.dump."""
    with cyclic_gc_paused():
        events = list(_trace_events(timeline))
    return {"traceEvents": events, **_trace_fields(timeline)}


def _trace_fields(timeline):
    """The fields of the trace after its events."""
    return {
        "displayTimeUnit": "ns",
        "otherData": {"project": timeline.name, "origin_ns": str(timeline.origin_ns),
                      "time_unit": "microseconds since origin_ns (ns since the epoch)"},
    }


def _trace_events(timeline):
    """The trace's events, one dict each: the names of processes and
    threads, then every call, then the messages' flows."""
    origin = timeline.origin_ns
    rows = timeline.rows
    host_of = {}
    for row in rows:
        host_of.setdefault(row.rank, row.host)
    for rank in sorted(host_of):
        host = host_of[rank]
        yield {"ph": "M", "name": "process_name", "pid": rank, "tid": 0,
               "args": {"name": f"rank {rank} ({host})"}}
        yield {"ph": "M", "name": "process_sort_index", "pid": rank, "tid": 0,
               "args": {"sort_index": rank}}
    for row in rows:
        yield {"ph": "M", "name": "thread_name", "pid": row.rank, "tid": row.thread,
               "args": {"name": f"thread {row.thread}"}}

    for call in range(len(timeline)):
        row = rows[timeline.row[call]]
        args = dict(timeline.attrs[call])
        if timeline.elements[call]:
            args["elements"] = [dict(attrs, element=tag) for tag, attrs in timeline.elements[call]]
        if timeline.depth[call]:
            args["depth"] = timeline.depth[call]
        yield {
            "ph": "X", "name": timeline.call_name(call), "cat": timeline.family(call),
            "pid": row.rank, "tid": row.thread,
            "ts": _us(timeline.start_ns[call] - origin),
            "dur": _us(timeline.end_ns[call] - timeline.start_ns[call]),
            "args": args,
        }

    # A flow step binds to the slice that encloses its timestamp: use the middle
    # of the send and of the receive call.
    def middle(call):
        return _us((timeline.start_ns[call] + timeline.end_ns[call]) // 2 - origin)

    for number, (send, receive, tag, size, _) in enumerate(timeline.messages):
        sender, receiver = rows[timeline.row[send]], rows[timeline.row[receive]]
        common = {"name": "message", "cat": "message", "id": number}
        yield dict(common, ph="s", pid=sender.rank, tid=sender.thread, ts=middle(send),
                   args={"tag": tag, "size": size})
        yield dict(common, ph="f", bp="e", pid=receiver.rank, tid=receiver.thread,
                   ts=middle(receive))


#: Events encoded per json.dumps call while writing: the text is the same as
#: that of the whole trace at once, without every event's dict held at once.
EVENTS_PER_PIECE = 65536


def write_chrome_trace(timeline, path):
    """Writes the trace to path (atomically), its events a piece at a time;
    returns the number of events."""
    written = 0

    def write(out):
        nonlocal written
        # json.dumps, not json.dump: only the one-shot form takes json's C
        # encoder (a run of 16,384 ranks: 16 s of Python's).
        out.write('{"traceEvents":[')
        events = _trace_events(timeline)
        with cyclic_gc_paused():
            while True:
                piece = list(itertools.islice(events, EVENTS_PER_PIECE))
                if not piece:
                    break
                out.write(("," if written else "") +
                          json.dumps(piece, separators=(",", ":"))[1:-1])
                written += len(piece)
        out.write("]," + json.dumps(_trace_fields(timeline), separators=(",", ":"))[1:])

    write_atomically(path, write)
    return written
