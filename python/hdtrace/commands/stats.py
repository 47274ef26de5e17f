"""hdtrace stats: time and bytes per function, rank and file."""
from ..statistics import stats
from .common import add_project_arguments, open_from


def command_stats(args):
    print(stats(open_from(args)).format())
    return 0


def register(commands):
    stat = commands.add_parser("stats", help="time and bytes per function, rank and file",
                               description="Prints aligned tables: per function (calls, total, "
                                           "mean, max time, bytes), per rank (time in MPI and "
                                           "outside it), per file (bytes and operations).")
    add_project_arguments(stat)
    stat.set_defaults(handler=command_stats)
