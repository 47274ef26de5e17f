"""hdtrace export: a project as a Chrome trace (JSON) or an OTF2 archive."""


def register(commands):
    """Adds the `export` subcommand to the hdtrace command's subparsers."""
    export = commands.add_parser(
        "export", help="write the run as a Chrome trace (JSON) or an OTF2 archive",
        description="Writes every call (nested calls too) and the matched messages of a "
                    "project in formats other viewers load: --chrome for Perfetto and "
                    "chrome://tracing, --otf2 for Vampir, ViTE and the OTF2 tools.")
    export.add_argument("project", help="the project description (.proj)")
    export.add_argument("--chrome", metavar="FILE.json", help="write the Chrome trace event format")
    export.add_argument("--otf2", metavar="DIR", help="write an OTF2 archive into this directory")
    export.add_argument("--partial", action="store_true",
                        help="read damaged traces up to the damage (with a warning)")
    export.set_defaults(handler=command_export)


def command_export(args):
    if not args.chrome and not args.otf2:
        raise SystemExit("hdtrace export: say what to write: --chrome FILE.json and/or --otf2 DIR")
    from ..project import open as open_project
    from ..view.model import build_timeline
    project = open_project(args.project, partial=args.partial)
    timeline = build_timeline(project)
    if args.chrome:
        from .chrome import write_chrome_trace
        trace = write_chrome_trace(timeline, args.chrome)
        print(f"{args.chrome}: {len(timeline)} calls on {len(timeline.rows)} threads, "
              f"{len(timeline.messages)} messages ({len(trace['traceEvents'])} trace events)")
    if args.otf2:
        from .otf2 import write_otf2
        summary = write_otf2(timeline, project, args.otf2)
        anchor, skipped = summary.pop("anchor"), summary.pop("skipped")
        counts = ", ".join(f"{count} {kind}" for kind, count in summary.items() if count)
        print(f"{anchor}: {counts}" + (f"; {skipped} MPI record(s) skipped" if skipped else ""))
    return 0
