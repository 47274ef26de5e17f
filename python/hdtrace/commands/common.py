"""What the subcommands that read a project share: its options, opening it,
and choosing a part of it."""
import argparse

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


def time_argument(text):
    """A --from/--to value: SECONDS since the epoch, or +SECONDS since the
    run's first call (the times a view's axis shows): (seconds, relative)."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a time: {text!r} (seconds since the epoch, or +seconds since the run's "
            "first call)") from None
    if seconds != seconds or seconds in (float("inf"), float("-inf")):
        raise argparse.ArgumentTypeError(f"not a time: {text!r}")
    return seconds, text.strip().startswith("+")


def add_time_arguments(sub):
    """--from and --to: the calls that overlap a time."""
    sub.add_argument("--from", dest="start", type=time_argument, metavar="SECONDS",
                     help="only calls that end at or after this time: seconds since the epoch "
                          "(as hdtrace events prints them), or +seconds since the run's first "
                          "call (as a view's axis shows them)")
    sub.add_argument("--to", dest="end", type=time_argument, metavar="SECONDS",
                     help="only calls that start at or before this time (the same forms)")


def add_selection_arguments(sub):
    """--rank, --from and --to: a part of a run, for the commands that draw
    or write every call (a large run is more than a viewer opens)."""
    sub.add_argument("--rank", type=int, action="append",
                     help="only this rank's calls (repeatable), with their nested calls")
    add_time_arguments(sub)


def run_start_s(project):
    """When the run's first call started (seconds since the epoch), from the
    first call of each trace; None in a run without calls."""
    starts = []
    for leaf in project.topology.leaves:
        if leaf.path in project.missing_traces:
            continue
        for event in project.trace(leaf.rank, leaf.thread):
            if event.start_ns is not None:
                starts.append(event.start_ns)
                break
    return min(starts) / 1e9 if starts else None


def window_from(args, project):
    """The (start, end) window in seconds since the epoch that --from and
    --to ask for, None for neither; SystemExit where it is empty."""
    if args.start is None and args.end is None:
        return None
    bounds = [args.start, args.end]
    if any(bound is not None and bound[1] for bound in bounds):
        origin = run_start_s(project)
        if origin is None:
            raise SystemExit(f"hdtrace {args.command}: {args.project} has no call to count "
                             "+seconds from")
        bounds = [None if bound is None else (bound[0] + origin if bound[1] else bound[0], False)
                  for bound in bounds]
    start, end = (None if bound is None else bound[0] for bound in bounds)
    if start is not None and end is not None and start > end:
        raise SystemExit(f"hdtrace {args.command}: --from is after --to ({start:.9f} s > "
                         f"{end:.9f} s since the epoch)")
    return start, end


def selection_from(args, project):
    """(ranks, window) for build_timeline from add_selection_arguments'
    options; SystemExit where they choose nothing."""
    ranks = set(args.rank) if args.rank else None
    if ranks is not None and not any(leaf.rank in ranks for leaf in project.topology.leaves):
        raise SystemExit(f"hdtrace {args.command}: no trace of rank(s) {sorted(ranks)} in "
                         f"{args.project}")
    return ranks, window_from(args, project)
