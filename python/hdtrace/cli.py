"""The hdtrace command: merge, stats, events, check, and the views."""
import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

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
    return open_project(args.project, partial=args.partial,
                        align=not getattr(args, "raw_times", False))  # --- Clocks


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


def command_merge(args):
    """The merger through the bindings (or, in a build without it, the project-merger program)."""
    if not getattr(_core, "HAVE_MERGER", False):
        merger = _find_project_merger()
        if merger is None:
            print("hdtrace merge: this build has no merger library, and no project-merger "
                  "program was found (build with -DHDTRACE_BUILD_MERGER=ON)", file=sys.stderr)
            return 1
        return subprocess.call([merger, *args.original_argv])
    try:
        # File names as the file system has them (bytes), invalid UTF-8 included.
        result = _core.merge([os.fsencode(name) for name in args.inputs],
                             os.fsencode(args.output or ""), args.description or "",
                             args.distribution_class, args.chunk_size, args.force,
                             progress=not args.quiet)
    except (_core.MergeError, OSError) as error:
        print(f"hdtrace merge: error: {error}\nhdtrace merge: no project file written",
              file=sys.stderr)
        return 1
    for warning in result["warnings"]:
        print(f"hdtrace merge: warning: {warning}", file=sys.stderr)
    if not args.quiet:
        print(f"{result['output_path']}: {result['ranks']} ranks, {result['traces']} traces, "
              f"{result['files']} files, {result['communicators']} communicators, "
              f"{result['datatypes']} datatypes")
    return 0


def build_parser():
    parser = argparse.ArgumentParser(
        prog="hdtrace", description="Read HDTrace projects and traces (.proj, .trc).")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    merge = commands.add_parser(
        "merge", help="merge the .info files of a run into a project (.proj)",
        description="Unifies the .info files of a traced run into <program>.proj, like "
                    "project-merger. An INPUT is a .info file, a .trc file, a trace base name "
                    "(dir/app_host_0_0), a directory holding the run, or a program prefix "
                    "(dir/app), in any mix. Exit status: 0 when the project was written, 1 on "
                    "bad input (nothing is written then), 2 on a usage error.")
    merge.add_argument("inputs", nargs="+", metavar="INPUT")
    merge.add_argument("-o", "--output", metavar="FILE",
                       help="write the project to FILE (default: <program>.proj beside the traces)")
    merge.add_argument("-d", "--description", metavar="TEXT", help="TEXT of the <Description>")
    merge.add_argument("--distribution-class", metavar="CLASS",
                       default=getattr(_core, "DEFAULT_DISTRIBUTION_CLASS",
                                       "de.hd.pvs.piosim.model.inputOutput.distribution.SimpleStripe"),
                       help="CLASS of the file distribution (default %(default)s)")
    merge.add_argument("--chunk-size", metavar="SIZE",
                       default=getattr(_core, "DEFAULT_CHUNK_SIZE", "64K"),
                       help="SIZE of the distribution's chunks (default %(default)s)")
    merge.add_argument("--force", action="store_true",
                       help="write what can be merged and list what was dropped as warnings")
    merge.add_argument("-q", "--quiet", action="store_true",
                       help="print nothing but errors and warnings (no progress either)")
    merge.set_defaults(handler=command_merge)

    def add_project(sub):
        sub.add_argument("project", help="the project description (.proj)")
        sub.add_argument("--partial", action="store_true",
                         help="read damaged traces up to the damage (with a warning)")
        # --- Clocks: times on rank 0's clock unless asked for as written
        sub.add_argument("--raw-times", action="store_true",
                         help="the times as written, without the clock alignment "
                              "(see hdtrace align)")

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

    # Seeing a trace: each of these modules adds its own subcommand.
    from . import check, export, plot_io, view
    check.register(commands)
    view.register(commands)
    plot_io.register(commands)
    export.register(commands)

    # Tracing a program in one command: launch, merge, summarise (run.py).
    from . import run
    run.register(commands)

    # --- Clocks: rewriting a run's traces on rank 0's clock (align.py).
    from . import align
    align.register(commands)
    # --- end of Clocks
    return parser


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    args.original_argv = argv[1:]
    try:
        if args.command == "run":  # stdout is the traced program's own
            return args.handler(args)
        # What is printed reaches stdout only if the command gets to the end.
        from .output import all_or_nothing_stdout
        with all_or_nothing_stdout():
            return args.handler(args)
    except (ReadError, MissingTraceError, OSError) as error:
        print(f"hdtrace {args.command}: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
