"""The hdtrace command: one subcommand per module, put together here."""
import argparse
import sys

from . import align, check, run
from .commands import convert, events, export, merge, plot_io, report, score, stats, view
from .errors import MissingTraceError, ReadError
from .output import all_or_nothing_stdout
from .warning_lines import warnings_as_lines

#: In the order `hdtrace --help` lists them.
COMMANDS = (merge, report, score, stats, events, check, view, plot_io, export, convert, run, align)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="hdtrace", description="Read HDTrace projects and traces (.proj; .trc XML or .ctrc compact).")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in COMMANDS:
        command.register(commands)
    return parser


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    args.original_argv = argv[1:]
    try:
        with warnings_as_lines(args.command):
            if args.command == "run":  # stdout is the traced program's own
                return args.handler(args)
            # What is printed reaches stdout only if the command gets to the end.
            with all_or_nothing_stdout():
                return args.handler(args)
    except (ReadError, MissingTraceError, OSError) as error:
        print(f"hdtrace {args.command}: {error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        return 0
