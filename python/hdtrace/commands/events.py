"""hdtrace events: the calls as CSV or JSON Lines."""
import csv
import heapq
import json
import sys

from .common import add_project_arguments, add_time_arguments, open_from, window_from

EVENT_FIELDS = ("rank", "thread", "name", "start", "end", "duration", "start_ns", "end_ns")


def command_events(args):
    project = open_from(args)
    names = args.name or None
    window = window_from(args, project)
    if args.rank:
        leaves = [leaf for leaf in project.topology.leaves if leaf.rank in set(args.rank)]
        if not leaves:
            raise SystemExit(f"hdtrace events: no trace of rank(s) {args.rank} in {args.project}")
        streams = [project.trace(leaf.rank, leaf.thread, names, window) for leaf in leaves]
        events = heapq.merge(*streams, key=lambda e: (e.start_ns is None, e.start_ns or 0))
    else:
        events = project.events(names, window)
    out = sys.stdout
    if args.format == "jsonl":
        for event in events:
            record = {field: getattr(event, field) for field in EVENT_FIELDS}
            record["attrs"] = event.attrs
            if event.children:
                record["children"] = [_child_record(child) for child in event.children]
            out.write(json.dumps(record) + "\n")
    else:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(EVENT_FIELDS + ("attrs",))
        for event in events:
            attrs = ";".join(f"{key}={value}" for key, value in event.attrs.items())
            writer.writerow([getattr(event, field) for field in EVENT_FIELDS] + [attrs])
    return 0


def _child_record(event):
    record = {"name": event.name, "attrs": event.attrs}
    if event.start_ns is not None:
        record.update(start=event.start, end=event.end, start_ns=event.start_ns, end_ns=event.end_ns)
    if event.children:
        record["children"] = [_child_record(child) for child in event.children]
    return record


def register(commands):
    events = commands.add_parser("events", help="the calls as CSV or JSON Lines",
                                 description="Writes the top-level calls of every trace in start "
                                             "order. Times are absolute seconds since the epoch.")
    add_project_arguments(events)
    events.add_argument("--format", choices=("csv", "jsonl"), default="csv")
    events.add_argument("--rank", type=int, action="append", help="only this rank (repeatable)")
    events.add_argument("--name", action="append", help="only calls with this name (repeatable)")
    add_time_arguments(events)
    events.set_defaults(handler=command_events)
