"""hdtrace view: a project as one self-contained HTML page with an interactive timeline."""
import os
import sys

from ..project import open as open_project
from ..view.html import write_html
from ..view.model import build_timeline

#: Beyond this many calls a page takes a browser seconds and gigabytes to open.
LARGE_PAGE_CALLS = 1_000_000


def register(commands):
    """Adds the `view` subcommand to the hdtrace command's subparsers."""
    view = commands.add_parser(
        "view", help="write an HTML timeline of the run (one file, opens from disk)",
        description="Writes a single self-contained HTML file: one row per rank and thread, "
                    "one bar per call coloured by function family, arrows for matched "
                    "messages, zoom and pan, attributes on hover. --rank, --from and --to "
                    "draw a part of a large run.")
    view.add_argument("project", help="the project description (.proj)")
    view.add_argument("-o", "--output", metavar="FILE.html",
                      help="where to write the page (default: the project's name with .html)")
    view.add_argument("--rank", type=int, action="append",
                      help="only this rank's rows (repeatable)")
    view.add_argument("--from", dest="start", type=float, metavar="SECONDS",
                      help="only calls that end at or after this absolute time (seconds since "
                           "the epoch, as hdtrace events prints them), with their nested calls")
    view.add_argument("--to", dest="end", type=float, metavar="SECONDS",
                      help="only calls that start at or before this absolute time")
    view.add_argument("--partial", action="store_true",
                      help="read damaged traces up to the damage (with a warning)")
    # The view on rank 0's clock by default (hdtrace.clocks).
    view.add_argument("--raw-times", action="store_true",
                      help="the times as written, without the clock alignment")
    view.set_defaults(handler=command_view)


def command_view(args):
    output = args.output or os.path.splitext(args.project)[0] + ".html"
    if args.start is not None and args.end is not None and args.start > args.end:
        raise SystemExit(f"hdtrace view: --from {args.start} is after --to {args.end}")
    project = open_project(args.project, partial=args.partial, align=not args.raw_times)
    ranks = set(args.rank) if args.rank else None
    if ranks is not None and not any(leaf.rank in ranks for leaf in project.topology.leaves):
        raise SystemExit(f"hdtrace view: no trace of rank(s) {sorted(ranks)} in {args.project}")
    window = None if args.start is None and args.end is None else (args.start, args.end)
    timeline = build_timeline(project, ranks=ranks, window=window)
    size = write_html(timeline, output)
    print(f"{output}: {len(timeline)} calls on {len(timeline.rows)} rows, "
          f"{len(timeline.messages)} messages, {size} bytes")
    if len(timeline) > LARGE_PAGE_CALLS:
        print(f"hdtrace view: warning: {output} holds {len(timeline):,} calls "
              f"({size / 2**20:,.0f} MiB), which a browser opens slowly; --rank, --from and "
              "--to draw a part of the run", file=sys.stderr)
    return 0
