"""hdtrace report: what a run did and what is wrong with it, on one page."""
import argparse
import os
import sys

from ..report import ThresholdError, build, thresholds_from
from ..report.thresholds import DEFAULTS
from .common import add_project_arguments, open_from


def register(commands):
    report = commands.add_parser(
        "report", help="an HTML page and a JSON summary of the run, with its findings",
        description="Writes one self-contained HTML page (the job, each I/O layer, I/O cost "
                    "per rank, heatmaps, access sizes, files, HDF5 datasets, MPI, wait "
                    "states) and prints the findings, one line each. Thresholds: --set "
                    "FINDING.KEY=VALUE or a TOML file; --list-thresholds prints them all.")
    add_project_arguments(report)
    report.add_argument("-o", "--output", metavar="FILE.html",
                        help="the page (default: the project's name with -report.html)")
    report.add_argument("--json", metavar="FILE.json",
                        help="also write the report as JSON (docs/format/report.md)")
    report.add_argument("--no-html", action="store_true", help="write no page")
    report.add_argument("--set", action="append", default=[], metavar="FINDING.KEY=VALUE",
                        help="override a threshold, e.g. small-requests.share=0.2 (repeatable)")
    report.add_argument("--thresholds", action="append", default=[], metavar="FILE.toml",
                        help="thresholds from a TOML file of [finding] tables")
    report.add_argument("--timeline", metavar="FILE.html",
                        help="the run's timeline (hdtrace view) for the page to link to")
    report.add_argument("--files", type=int, default=100, metavar="N",
                        help="files listed one by one, the rest summed (default 100)")
    report.add_argument("--datasets", type=int, default=100, metavar="N",
                        help="HDF5 datasets listed one by one, the rest summed (default 100)")
    report.add_argument("--list-thresholds", action=ListThresholds, nargs=0,
                        help="print every threshold, its default and meaning, and exit "
                             "(no project needed)")
    report.set_defaults(handler=command_report)


class ListThresholds(argparse.Action):
    """--list-thresholds: printed as soon as it is read, as --help is, so
    that it needs no project."""

    def __call__(self, parser, namespace, values, option_string=None):
        for finding, keys in DEFAULTS.items():
            for key, (default, meaning) in keys.items():
                print(f"{finding}.{key} = {default}  # {meaning}")
        parser.exit()


def print_findings(report, out=None):
    """One line per finding, most severe first; a line when none fired."""
    out = out or sys.stdout
    if not report.findings:
        print(f"no findings ({len(report.checked)} checked)", file=out)
    for finding in report.findings:
        print(f"{finding.severity:<7} {finding.id}: {finding.message}", file=out)


def command_report(args):
    try:
        thresholds = thresholds_from(args.thresholds, args.set)
    except (ThresholdError, OSError) as error:
        print(f"hdtrace report: {error}", file=sys.stderr)
        return 2
    for option, value in (("--files", args.files), ("--datasets", args.datasets)):
        if value < 0:
            print(f"hdtrace report: {option} takes a number of at least 0", file=sys.stderr)
            return 2
    # Steps on stderr where a person watches: a large run takes a while.
    progress = None
    if sys.stderr.isatty():
        def progress(text):
            print(f"hdtrace report: {text}", file=sys.stderr, flush=True)
    report = build(open_from(args), thresholds, file_limit=args.files, progress=progress,
                   dataset_limit=args.datasets)
    written = []
    if not args.no_html:
        output = args.output or os.path.splitext(args.project)[0] + "-report.html"
        if progress:
            progress(f"drawing the figures and writing {output}")
        size = report.write_html(output, args.timeline)
        written.append(f"{output} ({size:,} bytes)")
    if args.json:
        size = report.write_json(args.json)
        written.append(f"{args.json} ({size:,} bytes)")
    for text in report.damage:
        print(f"damage: {text}")
    print_findings(report)
    if written:
        print("wrote " + ", ".join(written))
    return 0
