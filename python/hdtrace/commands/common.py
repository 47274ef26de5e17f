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
