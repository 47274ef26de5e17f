"""The hdtrace command: merge, stats, events."""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

import numpy as np

from . import _core
from .errors import MissingTraceError, ReadError


def format_table(array, formats):
    """A structured array as aligned text columns (numbers right-aligned)."""
    columns = array.dtype.names
    cells = [list(columns)]
    for row in array.tolist():
        cells.append([formats.get(column, "{}").format(value) for column, value in zip(columns, row)])
    widths = [max(len(line[i]) for line in cells) for i in range(len(columns))]
    numeric = [array.dtype[column].kind in "iuf" for column in columns]
    lines = []
    for line in cells:
        lines.append("  ".join(text.rjust(width) if is_number else text.ljust(width)
                               for text, width, is_number in zip(line, widths, numeric)).rstrip())
    return "\n".join(lines)


def _open(args):
    from .project import open as open_project
    return open_project(args.project, partial=args.partial)


def command_stats(args):
    from .statistics import stats
    print(stats(_open(args)).format())
    return 0


EVENT_FIELDS = ("rank", "thread", "name", "start", "end", "duration", "start_ns", "end_ns")


def command_events(args):
    project = _open(args)
    names = args.name or None
    window = None if args.start is None and args.end is None else (args.start, args.end)
    if args.rank:
        leaves = [leaf for leaf in project.topology.leaves if leaf.rank in set(args.rank)]
        if not leaves:
            raise SystemExit(f"hdtrace events: no trace of rank(s) {args.rank} in {args.project}")
        import heapq
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


def _find_project_merger():
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(here, "..", "..", "merger", "project-merger"),
                  os.path.join(here, "..", "..", "..", "..", "bin", "project-merger")]
    for candidate in candidates:
        if os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    return shutil.which("project-merger")


def command_merge(args, rest):
    if getattr(_core, "HAVE_MERGER", False) and hasattr(_core, "merge"):
        return _core.merge(rest)
    merger = _find_project_merger()
    if merger is None:
        raise SystemExit("hdtrace merge: this build has no merger library, and no project-merger "
                         "program was found (build with -DHDTRACE_BUILD_MERGER=ON)")
    return subprocess.call([merger, *rest])


def build_parser():
    parser = argparse.ArgumentParser(
        prog="hdtrace", description="Read HDTrace projects and traces (.proj, .trc).")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    merge = commands.add_parser(
        "merge", help="merge the .info files of a run into a project (.proj)", add_help=False,
        description="Runs the project merger; every argument goes to it "
                    "(`hdtrace merge --help` shows its options).")
    merge.set_defaults(handler=None)

    def add_project(sub):
        sub.add_argument("project", help="the project description (.proj)")
        sub.add_argument("--partial", action="store_true",
                         help="read damaged traces up to the damage (with a warning)")

    stat = commands.add_parser("stats", help="time and bytes per function, rank and file",
                               description="Prints aligned tables: per function (calls, total, "
                                           "mean, max time, bytes), per rank (time in MPI and "
                                           "outside it), per file (bytes and operations).")
    add_project(stat)
    stat.set_defaults(handler=command_stats)

    events = commands.add_parser("events", help="the calls as CSV or JSON Lines",
                                 description="Writes the top-level calls of every trace in start "
                                             "order. Times are absolute seconds since the epoch.")
    add_project(events)
    events.add_argument("--format", choices=("csv", "jsonl"), default="csv")
    events.add_argument("--rank", type=int, action="append", help="only this rank (repeatable)")
    events.add_argument("--name", action="append", help="only calls with this name (repeatable)")
    events.add_argument("--from", dest="start", type=float, metavar="SECONDS",
                        help="only calls that end at or after this absolute time")
    events.add_argument("--to", dest="end", type=float, metavar="SECONDS",
                        help="only calls that start at or before this absolute time")
    events.set_defaults(handler=command_events)
    return parser


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "merge":
        return command_merge(None, argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.handler(args)
    except (ReadError, MissingTraceError, OSError) as error:
        print(f"hdtrace {args.command}: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
