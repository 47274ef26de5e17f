"""hdtrace view: a project as one self-contained HTML page with an interactive timeline."""
import os
import sys

from ..project import open as open_project
from ..view.html import write_html
from ..view.model import build_timeline
from .common import add_selection_arguments, selection_from

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
    add_selection_arguments(view)
    view.add_argument("--partial", action="store_true",
                      help="read damaged traces up to the damage (with a warning)")
    # The view on rank 0's clock by default (hdtrace.clocks).
    view.add_argument("--raw-times", action="store_true",
                      help="the times as written, without the clock alignment")
    view.set_defaults(handler=command_view)


def command_view(args):
    output = args.output or os.path.splitext(args.project)[0] + ".html"
    project = open_project(args.project, partial=args.partial, align=not args.raw_times)
    ranks, window = selection_from(args, project)
    timeline = build_timeline(project, ranks=ranks, window=window)
    size = write_html(timeline, output)
    print(f"{output}: {len(timeline)} calls on {len(timeline.rows)} rows, "
          f"{len(timeline.messages)} messages, {size} bytes")
    if len(timeline) > LARGE_PAGE_CALLS:
        print(f"hdtrace view: warning: {output} holds {len(timeline):,} calls "
              f"({size / 2**20:,.0f} MiB), which a browser opens slowly; --rank, --from and "
              "--to draw a part of the run", file=sys.stderr)
    return 0
