"""The Chrome trace event format (JSON), which Perfetto and chrome://tracing load.

One process (pid) per rank, one thread (tid) per traced thread. Every call,
nested calls included, is a complete event ("ph": "X"); the viewer nests them
by time. Matched messages are flow events ("s" at the send, "f" at the
receive). Times ("ts", "dur") are microseconds since the earliest call of the
run; the absolute origin is in "otherData".
"""
import json

from .atomic import write_atomically


def _us(ns):
    # Microseconds with nanosecond resolution; relative times keep doubles exact.
    return round(ns / 1000.0, 3)


def chrome_trace(timeline):
    """The trace as a dict ready for json.dump."""
    origin = timeline.origin_ns
    rows = timeline.rows
    events = []
    host_of = {}
    for row in rows:
        host_of.setdefault(row.rank, row.host)
    for rank in sorted(host_of):
        host = host_of[rank]
        events.append({"ph": "M", "name": "process_name", "pid": rank, "tid": 0,
                       "args": {"name": f"rank {rank} ({host})"}})
        events.append({"ph": "M", "name": "process_sort_index", "pid": rank, "tid": 0,
                       "args": {"sort_index": rank}})
    for row in rows:
        events.append({"ph": "M", "name": "thread_name", "pid": row.rank, "tid": row.thread,
                       "args": {"name": f"thread {row.thread}"}})

    for call in range(len(timeline)):
        row = rows[timeline.row[call]]
        args = dict(timeline.attrs[call])
        if timeline.elements[call]:
            args["elements"] = [dict(attrs, element=tag) for tag, attrs in timeline.elements[call]]
        if timeline.depth[call]:
            args["depth"] = timeline.depth[call]
        events.append({
            "ph": "X", "name": timeline.call_name(call), "cat": timeline.family(call),
            "pid": row.rank, "tid": row.thread,
            "ts": _us(timeline.start_ns[call] - origin),
            "dur": _us(timeline.end_ns[call] - timeline.start_ns[call]),
            "args": args,
        })

    # A flow step binds to the slice that encloses its timestamp: use the middle
    # of the send and of the receive call.
    def middle(call):
        return _us((timeline.start_ns[call] + timeline.end_ns[call]) // 2 - origin)

    for number, (send, receive, tag, size, _) in enumerate(timeline.messages):
        sender, receiver = rows[timeline.row[send]], rows[timeline.row[receive]]
        common = {"name": "message", "cat": "message", "id": number}
        events.append(dict(common, ph="s", pid=sender.rank, tid=sender.thread, ts=middle(send),
                           args={"tag": tag, "size": size}))
        events.append(dict(common, ph="f", bp="e", pid=receiver.rank, tid=receiver.thread,
                           ts=middle(receive)))
    return {
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {"project": timeline.name, "origin_ns": str(origin),
                      "time_unit": "microseconds since origin_ns (ns since the epoch)"},
    }


def write_chrome_trace(timeline, path):
    """Writes the trace to path (atomically)."""
    trace = chrome_trace(timeline)
    # json.dumps, not json.dump: only the one-shot form takes json's C
    # encoder (a run of 16,384 ranks: 16 s of Python's).
    write_atomically(path, lambda out: out.write(json.dumps(trace, separators=(",", ":"))))
    return trace
