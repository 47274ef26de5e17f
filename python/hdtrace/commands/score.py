"""hdtrace score: what each call of a traced run costs, before the next run."""
import json
import os
import sys

from .. import native
from ..score import initial_filter, print_score, proposed_calls, score, score_document
from ..score.output import SORT_KEYS
from ..score.proposal import CHEAP_S, FREQUENT_SHARE
from ..project import open as open_project
from .common import add_project_arguments


def register(commands):
    sub = commands.add_parser(
        "score", help="trace bytes and time per call, what a filter keeps, the run at N ranks",
        description="A table per call (and with -G per group): visits, time, time per visit, "
                    "share of the run, and the bytes the calls take in the XML and the compact "
                    "trace, measured in the traces themselves. --filter applies a filter file "
                    "(docs/user/filters.md) as the wrapper would and says what it keeps; "
                    "--ranks extrapolates to more ranks; -g writes an initial filter that "
                    "leaves out the frequent, cheap calls (scorep-score -g).",
        epilog="example: hdtrace score run/app.proj --filter app.filter --ranks 16384")
    add_project_arguments(sub, required=False)  # --groups needs none
    sub.add_argument("--filter", metavar="FILE", help="what this filter file would keep")
    sub.add_argument("--ranks", type=int, metavar="N",
                     help="extrapolate to N ranks: the per-rank figures (their spread shown) "
                          "times N, the project's size and the writer's memory")
    sub.add_argument("-g", "--generate", nargs="?", const="initial.filter", metavar="FILE",
                     help="write an initial filter (default: initial.filter) leaving out the "
                          "calls that are frequent and cheap; never an I/O call")
    sub.add_argument("--cheap", type=float, default=CHEAP_S * 1e6, metavar="US",
                     help=f"-g: at most this time per visit in microseconds "
                          f"(default {CHEAP_S * 1e6:g})")
    sub.add_argument("--frequent", type=float, default=FREQUENT_SHARE * 100, metavar="PERCENT",
                     help=f"-g: at least this share of the trace bytes "
                          f"(default {FREQUENT_SHARE * 100:g})")
    sub.add_argument("-G", "--by-group", action="store_true", help="also a table per group")
    sub.add_argument("--groups", action="store_true",
                     help="list the groups and layers a filter can name, with their calls, "
                          "and exit (no project needed)")
    sub.add_argument("--sort", choices=sorted(SORT_KEYS), default="bytes",
                     help="order of the table (default: bytes, XML)")
    sub.add_argument("--top", type=int, default=30, metavar="N",
                     help="rows of the call table (default 30; 0: all)")
    sub.add_argument("--json", metavar="FILE", help="write the score as JSON (- for stdout; "
                                                    "docs/format/score.md)")
    sub.set_defaults(handler=command_score)


def print_groups(out):
    calls = native.dialect_calls()
    for name, about, layer in native.dialect_groups():
        members = [call_name for _, call_name, _, groups in calls if name in groups]
        kind = "layer" if layer else "group"
        print(f"{name} ({kind}, {len(members)} calls): {about}", file=out)
        print("    " + " ".join(members), file=out)


def command_score(args):
    if args.groups:
        print_groups(sys.stdout)
        return 0
    if not args.project:
        print("hdtrace score: error: a project (.proj) is needed (or --groups)", file=sys.stderr)
        return 2
    if args.partial:
        print("hdtrace score: error: --partial: the score measures whole traces (their bytes in "
              "both forms); a damaged trace is named with the byte where it is damaged",
              file=sys.stderr)
        return 2
    if args.ranks is not None and args.ranks < 1:
        print(f"hdtrace score: error: --ranks {args.ranks}: at least 1", file=sys.stderr)
        return 2
    if args.filter:
        try:
            rules = native.read_filter(args.filter)
        except native.FilterError as error:
            print(f"hdtrace score: error: {error}", file=sys.stderr)
            return 2
        for warning in rules.warnings:
            print(f"hdtrace score: warning: {warning}", file=sys.stderr)
    # Times as written: the score needs no alignment of the clocks.
    project = open_project(args.project, align=False)
    progress = None
    if sys.stderr.isatty():
        def progress(done, total):
            print(f"\rhdtrace score: {done}/{total} traces", end="" if done < total else "\n",
                  file=sys.stderr, flush=True)
    result = score(project, args.filter, args.ranks, progress)
    if args.json:
        text = json.dumps(score_document(result), indent=1) + "\n"
        if args.json == "-":
            sys.stdout.write(text)
        else:
            temporary = args.json + ".tmp"
            with open(temporary, "w") as out:
                out.write(text)
            os.replace(temporary, args.json)
    if args.json != "-":
        print_score(result, sys.stdout, args.sort, args.top, args.by_group)
    if args.generate:
        text = initial_filter(result, args.cheap / 1e6, args.frequent / 100)
        temporary = args.generate + ".tmp"
        with open(temporary, "w") as out:
            out.write(text)
        os.replace(temporary, args.generate)
        chosen = proposed_calls(result, args.cheap / 1e6, args.frequent / 100)
        print(f"hdtrace score: wrote {args.generate} ({len(chosen)} rules)", file=sys.stderr)
    return 0
