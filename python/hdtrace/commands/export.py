"""hdtrace export: a project as a Chrome trace (JSON) or an OTF2 archive."""
import os
import shutil

from ..export.chrome import write_chrome_trace
from ..export.otf2 import write_otf2
from ..project import open as open_project
from ..view.model import build_timeline
from .common import add_selection_arguments, selection_from


def register(commands):
    """Adds the `export` subcommand to the hdtrace command's subparsers."""
    export = commands.add_parser(
        "export", help="write the run as a Chrome trace (JSON) or an OTF2 archive",
        description="Writes every call (nested calls too) and the matched messages of a "
                    "project in formats other viewers load: --chrome for Perfetto and "
                    "chrome://tracing, --otf2 for Vampir, ViTE and the OTF2 tools. --rank, "
                    "--from and --to write a part of a large run.")
    export.add_argument("project", help="the project description (.proj)")
    export.add_argument("--chrome", metavar="FILE.json", help="write the Chrome trace event format")
    export.add_argument("--otf2", metavar="DIR", help="write an OTF2 archive into this directory")
    add_selection_arguments(export)
    export.add_argument("--partial", action="store_true",
                        help="read damaged traces up to the damage (with a warning)")
    export.set_defaults(handler=command_export)


def command_export(args):
    if not args.chrome and not args.otf2:
        raise SystemExit("hdtrace export: say what to write: --chrome FILE.json and/or --otf2 DIR")
    project = open_project(args.project, partial=args.partial)
    ranks, window = selection_from(args, project)
    timeline = build_timeline(project, ranks=ranks, window=window, every_row=True)
    # Both outputs or neither: the OTF2 archive (which refuses a non-empty
    # directory) first, and removed again if the Chrome trace then fails.
    otf2_line = None
    if args.otf2:
        existed = os.path.isdir(args.otf2)
        summary = write_otf2(timeline, project, args.otf2)
        anchor, skipped = summary.pop("anchor"), summary.pop("skipped")
        counts = ", ".join(f"{count} {kind}" for kind, count in summary.items() if count)
        otf2_line = f"{anchor}: {counts}" + (f"; {skipped} MPI record(s) skipped" if skipped else "")
    if args.chrome:
        try:
            events = write_chrome_trace(timeline, args.chrome)
        except BaseException:
            if args.otf2:
                shutil.rmtree(args.otf2, ignore_errors=True)
                if existed:
                    os.mkdir(args.otf2)  # it was an empty directory
            raise
        print(f"{args.chrome}: {len(timeline)} calls on {len(timeline.rows)} threads, "
              f"{len(timeline.messages)} messages ({events} trace events)")
    if otf2_line:
        print(otf2_line)
    return 0
