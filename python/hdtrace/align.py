"""hdtrace align: rewrite a run's traces on rank 0's clock (hdtrace.clocks).

The work is done in C++ (hdtrace._core.align_run, the code behind
`project-merger --align-clocks` too). Only the values of `time`, `end` and,
where a corrected time would come before it, `timeAdjustment` change; every
other byte of an XML trace stays, and a compact trace stays compact (its
XML form is byte for byte the aligned XML form). Each trace is written to a
temporary file first; once all are written, the original is kept as
`<trace>.unaligned` (`.trc.unaligned`, `.ctrc.unaligned`)
(a hard link where the file system allows, else a copy), the new file is
renamed over the trace, and the .info gets a line
`ClockAligned backup='<trace>.trc.unaligned'`, which tells readers (and a
second `hdtrace align`) that the times are already corrected.
`hdtrace align --undo` renames the backups back and drops those lines.
"""
import sys
import time

from . import native

BACKUP_SUFFIX = ".unaligned"

#: The run cannot be aligned as asked; nothing was changed.
AlignError = native.AlignError


def rewrite_trace(text, path, correct):
    """The trace text (bytes) with every time put through correct(ns) -> ns."""
    return native.rewrite_trace_times(text, str(path), correct)


def align(project_path, out=None):
    """Rewrites the run's traces; returns the number of traces rewritten (0:
    nothing to do, with a message on `out`)."""
    out = out or sys.stderr
    report = native.align_run(str(project_path))
    for warning in report["warnings"]:
        print(f"hdtrace align: warning: {warning}", file=out)
    if report["outcome"] != "rewritten":
        print(f"hdtrace align: {report['message']}", file=out)
        return 0
    return report["traces"]


def undo(project_path, out=None):
    """Restores the traces `align` rewrote; returns how many."""
    out = out or sys.stderr
    report = native.undo_alignment(str(project_path))
    if report["outcome"] != "rewritten":
        print(f"hdtrace align: {report['message']}", file=out)
        return 0
    return report["traces"]


def command_align(args):
    began = time.perf_counter()
    try:
        if args.undo:
            count = undo(args.project)
            if count:
                print(f"{args.project}: restored the times as written in {count} trace(s)")
            return 0
        count = align(args.project)
    except AlignError as error:
        print(f"hdtrace align: error: {error}", file=sys.stderr)
        return 1
    if count:
        print(f"{args.project}: {count} trace(s) put on rank 0's clock in "
              f"{time.perf_counter() - began:.2f} s (originals kept as *{BACKUP_SUFFIX}; "
              "hdtrace align --undo restores them)")
    return 0


def register(commands):
    sub = commands.add_parser(
        "align", help="rewrite a run's traces on rank 0's clock",
        description="Corrects every time of the project's traces with the clock offsets the "
                    "wrapper measured in MPI_Init and MPI_Finalize (the .info files' Clock lines): "
                    "linear interpolation between measurements, then an order repair so that no "
                    "receive ends before its send starts. The originals are kept beside the "
                    "traces; --undo restores them. A second run changes nothing; a run without "
                    "measurements is left as it is, with a warning. The same as "
                    "project-merger --align-clocks. Exit status: 0, or 1 when the run cannot be "
                    "read (nothing is changed then).")
    sub.add_argument("project", help="the project description (.proj)")
    sub.add_argument("--undo", action="store_true",
                     help="restore the times as written before `hdtrace align`")
    sub.set_defaults(handler=command_align)
