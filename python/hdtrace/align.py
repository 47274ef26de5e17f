"""hdtrace align: rewrite a run's traces on rank 0's clock (hdtrace.clocks).

Only the values of `time`, `end` and, where a corrected time would come
before it, `timeAdjustment` change; every other byte of a trace stays. Each
trace is written to a temporary file first; once all are written, the
original is kept as `<trace>.trc.unaligned` (a hard link where the file
system allows, else a copy), the new file is renamed over the trace, and the
.info gets a line `ClockAligned backup='<trace>.trc.unaligned'`, which tells
readers (and a second `hdtrace align`) that the times are already corrected.
`hdtrace align --undo` renames the backups back and drops those lines.
"""
import os
import re
import shutil
import sys
import tempfile
import time
import warnings

import numpy as np

from .clocks import ClockWarning, info_path, read_info_clock
from .errors import read_error

# Splits a trace into [text, " time='", value, "'", text, ...].
TIME_VALUE = re.compile(rb"( (?:time|end)=')(-?\d+(?:\.\d{1,9})?)(')")
NINE_DIGITS = re.compile(rb"-?\d+\.\d{9}(?: -?\d+\.\d{9})*")
PROGRAM = re.compile(rb"<Program timeAdjustment='(-?\d+)'")
BACKUP_SUFFIX = ".unaligned"


class AlignError(Exception):
    """The run cannot be aligned as asked; nothing was changed."""


def _write_beside(path, data):
    """data in a temporary file in path's directory; returns its name."""
    directory = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".",
                                             suffix=".tmp", dir=directory)
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(data)
        shutil.copymode(path, temporary)
    except BaseException:
        os.unlink(temporary)
        raise
    return temporary


def _nanoseconds(value):
    """b"[-]SEC[.FRAC]" as integer nanoseconds, exactly."""
    negative = value.startswith(b"-")
    seconds, _, fraction = value.lstrip(b"-").partition(b".")
    ns = int(seconds) * 1_000_000_000 + (int(fraction.ljust(9, b"0")) if fraction else 0)
    return -ns if negative else ns


def rewrite_trace(text, path, correct):
    """The trace text with every time put through correct(ns array) -> ns array."""
    program = PROGRAM.search(text)
    if program is None:
        raise read_error(path, 0, 0, "no <Program timeAdjustment='...'> element")
    adjustment = int(program.group(1))
    pieces = TIME_VALUE.split(text)
    if len(pieces) == 1:
        return text
    base = adjustment * 1_000_000_000
    texts = pieces[2::4]
    joined = b" ".join(texts)
    if NINE_DIGITS.fullmatch(joined):
        # What our wrapper writes: without the point, the text is nanoseconds.
        values = np.array(joined.replace(b".", b"").split(), dtype=np.int64) + base
    else:
        values = np.fromiter((_nanoseconds(value) for value in texts), dtype=np.int64,
                             count=len(texts)) + base
    corrected = correct(values)
    # NOTES.md: no time before timeAdjustment.
    new_adjustment = min(adjustment, int(corrected.min()) // 1_000_000_000)
    # Never negative now: the seconds and the nine digits of the fraction.
    relative = corrected - new_adjustment * 1_000_000_000
    pieces[2::4] = [b"%d.%09d" % pair for pair in zip((relative // 1_000_000_000).tolist(),
                                                       (relative % 1_000_000_000).tolist())]
    if new_adjustment != adjustment:
        # The prolog comes before the first time attribute.
        head = pieces[0]
        found = PROGRAM.search(head)
        pieces[0] = head[:found.start(1)] + str(new_adjustment).encode() + head[found.end(1):]
    return b"".join(pieces)


def _leaves(project):
    missing = set(project.missing_traces)
    return [leaf for leaf in project.topology.leaves if leaf.path not in missing]


def align(project_path, out=None):
    """Rewrites the run's traces; returns the number of traces rewritten (0:
    nothing to do, with a message on `out`)."""
    from .project import open as open_project
    out = out or sys.stderr
    project = open_project(project_path, align=True)
    leaves = _leaves(project)
    clocks = {leaf.path: read_info_clock(info_path(leaf.path)) for leaf in leaves
              if os.path.isfile(info_path(leaf.path))}
    if any(found.aligned_backup for found in clocks.values()):
        print(f"hdtrace align: {project_path}: already aligned; nothing changed", file=out)
        return 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ClockWarning)
        correction = project.clock_correction
    for warning in caught:
        print(f"hdtrace align: warning: {warning.message}", file=out)
    if correction is None and any(found.measurements for found in clocks.values()):
        print(f"hdtrace align: {project_path}: every rank ran on rank 0's clock; nothing to "
              "correct, nothing changed", file=out)
        return 0
    if correction is None:
        print(f"hdtrace align: warning: {project_path}: the run has no clock measurements "
              "(traced with HDTRACE_CLOCK_SYNC=0, or by an older wrapper); nothing changed",
              file=out)
        return 0
    project._full_table()  # computes the order repair
    for leaf in leaves:
        if os.path.exists(leaf.path + BACKUP_SUFFIX):
            raise AlignError(f"{leaf.path + BACKUP_SUFFIX} exists but {info_path(leaf.path)} has "
                             "no ClockAligned line; move it away first")
    temporaries = {}
    try:
        for leaf in leaves:
            with open(leaf.path, "rb") as stream:
                text = stream.read()
            correct = (lambda rank, thread: lambda ns: correction.apply(rank, thread, ns))(
                leaf.rank, leaf.thread)
            temporaries[leaf.path] = _write_beside(leaf.path, rewrite_trace(text, leaf.path,
                                                                            correct))
            info = info_path(leaf.path)
            if os.path.isfile(info):
                with open(info, "rb") as stream:
                    lines = stream.read()
                if lines and not lines.endswith(b"\n"):
                    lines += b"\n"
                backup = os.path.basename(leaf.path) + BACKUP_SUFFIX
                temporaries[info] = _write_beside(
                    info, lines + f"ClockAligned backup='{backup}'\n".encode())
    except BaseException:
        for temporary in temporaries.values():
            os.unlink(temporary)
        raise
    # Every new file is written: keep the originals, then put the new ones in place.
    for leaf in leaves:
        backup = leaf.path + BACKUP_SUFFIX
        try:
            os.link(leaf.path, backup)
        except OSError:
            shutil.copy2(leaf.path, backup)
    for path, temporary in temporaries.items():
        os.replace(temporary, path)
    return len(leaves)


def undo(project_path, out=None):
    """Restores the traces `align` rewrote; returns how many."""
    from .project import open as open_project
    out = out or sys.stderr
    project = open_project(project_path, align=False)
    restored = 0
    plans = []
    for leaf in _leaves(project):
        info = info_path(leaf.path)
        if not os.path.isfile(info):
            continue
        found = read_info_clock(info)
        if found.aligned_backup is None:
            continue
        backup = os.path.join(os.path.dirname(leaf.path), found.aligned_backup)
        if not os.path.isfile(backup):
            raise AlignError(f"{info} names the backup {backup}, which does not exist; "
                             "nothing restored")
        plans.append((leaf.path, info, backup))
    if not plans:
        print(f"hdtrace align: {project_path}: not aligned; nothing to undo", file=out)
        return 0
    temporaries = []
    try:
        for _, info, _ in plans:
            with open(info, "rb") as stream:
                kept = b"".join(line for line in stream if not line.startswith(b"ClockAligned "))
            temporaries.append(_write_beside(info, kept))
    except BaseException:
        for temporary in temporaries:
            os.unlink(temporary)
        raise
    for (trace, info, backup), temporary in zip(plans, temporaries):
        os.replace(backup, trace)
        os.replace(temporary, info)
        restored += 1
    return restored


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
              f"{time.perf_counter() - began:.2f} s (originals kept as *.trc{BACKUP_SUFFIX}; "
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
                    "measurements is left as it is, with a warning. Exit status: 0, or 1 when "
                    "the run cannot be read (nothing is changed then).")
    sub.add_argument("project", help="the project description (.proj)")
    sub.add_argument("--undo", action="store_true",
                     help="restore the times as written before `hdtrace align`")
    sub.set_defaults(handler=command_align)
