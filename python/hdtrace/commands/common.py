"""What the subcommands that read a project share: its options and opening it."""
from ..project import open as open_project


def add_project_arguments(sub, required=True):
    """The project argument, --partial and --raw-times."""
    sub.add_argument("project", nargs=None if required else "?",
                     help="the project description (.proj)")
    sub.add_argument("--partial", action="store_true",
                     help="read damaged traces up to the damage (with a warning)")
    # Times on rank 0's clock unless asked for as written.
    sub.add_argument("--raw-times", action="store_true",
                     help="the times as written, without the clock alignment "
                          "(see hdtrace align)")


def open_from(args):
    """The project the arguments name, opened as they ask."""
    return open_project(args.project, partial=getattr(args, "partial", False),
                        align=not getattr(args, "raw_times", False))


def add_selection_arguments(sub):
    """--rank, --from and --to: a part of a run, for the commands that draw
    or write every call (a large run is more than a viewer opens)."""
    sub.add_argument("--rank", type=int, action="append",
                     help="only this rank's calls (repeatable)")
    sub.add_argument("--from", dest="start", type=float, metavar="SECONDS",
                     help="only calls that end at or after this absolute time (seconds since "
                          "the epoch, as hdtrace events prints them), with their nested calls")
    sub.add_argument("--to", dest="end", type=float, metavar="SECONDS",
                     help="only calls that start at or before this absolute time")


def selection_from(args, project):
    """(ranks, window) for build_timeline from add_selection_arguments'
    options; SystemExit where they choose nothing."""
    if args.start is not None and args.end is not None and args.start > args.end:
        raise SystemExit(f"hdtrace {args.command}: --from {args.start} is after --to {args.end}")
    ranks = set(args.rank) if args.rank else None
    if ranks is not None and not any(leaf.rank in ranks for leaf in project.topology.leaves):
        raise SystemExit(f"hdtrace {args.command}: no trace of rank(s) {sorted(ranks)} in "
                         f"{args.project}")
    window = None if args.start is None and args.end is None else (args.start, args.end)
    return ranks, window
