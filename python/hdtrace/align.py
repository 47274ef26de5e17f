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

TIME_ATTRIBUTE = re.compile(rb" (time|end)='(-?)(\d+)(?:\.(\d{1,9}))?'")
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


def _format_relative(ns, base_ns):
    relative = ns - base_ns
    sign = "-" if relative < 0 else ""
    seconds, fraction = divmod(abs(relative), 1_000_000_000)
    return f"{sign}{seconds}.{fraction:09d}".encode()


def rewrite_trace(text, path, correct):
    """The trace text with every time put through correct(ns array) -> ns array."""
    program = PROGRAM.search(text)
    if program is None:
        raise read_error(path, 0, 0, "no <Program timeAdjustment='...'> element")
    adjustment = int(program.group(1))
    base = adjustment * 1_000_000_000
    found = list(TIME_ATTRIBUTE.finditer(text))
    if not found:
        return text
    values = np.empty(len(found), dtype=np.int64)
    for index, match in enumerate(found):
        fraction = match.group(4) or b""
        ns = int(match.group(3)) * 1_000_000_000 + int(fraction.ljust(9, b"0") or b"0")
        values[index] = base + (-ns if match.group(2) else ns)
    corrected = correct(values)
    # NOTES.md: no time before timeAdjustment.
    earliest = int(corrected.min())
    new_adjustment = min(adjustment, earliest // 1_000_000_000)
    new_base = new_adjustment * 1_000_000_000
    parts, position = [], 0
    if new_adjustment != adjustment:
        parts.append(text[:program.start(1)])
        parts.append(str(new_adjustment).encode())
        position = program.end(1)
    for match, ns in zip(found, corrected.tolist()):
        parts.append(text[position:match.start()])
        parts.append(b" " + match.group(1) + b"='" + _format_relative(ns, new_base) + b"'")
        position = match.end()
    parts.append(text[position:])
    return b"".join(parts)


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
