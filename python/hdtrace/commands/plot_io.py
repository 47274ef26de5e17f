"""hdtrace plot-io: pictures of a run's file accesses (hdtrace.plot_io)."""
import os

from ..plot_io import LAYER_CHOICES, write_plot
from ..project import open as open_project


def register(commands):
    """Adds the `plot-io` subcommand to the hdtrace command's subparsers."""
    plot = commands.add_parser(
        "plot-io", help="plot file accesses: offset over time and the access map (SVG/PNG)",
        description="Per file: offset against time, and the 2-D access map (the file's bytes "
                    "row-major). One colour per rank; writes filled, reads outlined.")
    plot.add_argument("project", help="the project description (.proj)")
    plot.add_argument("-o", "--output", metavar="FILE.svg|FILE.png",
                      help="where to write the picture (default: the project's name with -io.svg)")
    plot.add_argument("--file", action="append", help="only this file (repeatable)")
    plot.add_argument("--layer", choices=sorted(LAYER_CHOICES), default="mpi",
                      help="the MPI-IO calls the program made (default), the POSIX and stdio "
                           "calls that reached the file system, or both")
    plot.add_argument("--partial", action="store_true",
                      help="read damaged traces up to the damage (with a warning)")
    plot.set_defaults(handler=command_plot_io)


def command_plot_io(args):
    output = args.output or os.path.splitext(args.project)[0] + "-io.svg"
    if os.path.splitext(output)[1].lower() not in (".svg", ".png"):
        raise SystemExit(f"hdtrace plot-io: {output}: the output must end in .svg or .png")
    project = open_project(args.project, partial=args.partial)
    io = write_plot(project, output, args.file, LAYER_CHOICES[args.layer])
    if args.file:
        missing = sorted(set(args.file) - set(io.files()))
        if missing:
            print(f"hdtrace plot-io: no accesses with offsets to {', '.join(missing)}")
    print(f"{output}: {len(io.accesses)} accesses to {len(io.files())} file(s) by "
          f"{len(io.ranks())} rank(s); {io.without_offset} call(s) without an offset left out")
    return 0
