#!/usr/bin/python3
"""io_calls benchmark: how fast hdtrace.io_calls.project_io_calls gives a
project's calls on files, once in a fresh process (as `hdtrace report` and a
script pay it) and again in a process that read before.

    /usr/bin/python3 bench/report/io_calls_benchmark.py PROJECT [--build BUILD_DIR]
        [--rounds K] [--compare OLD_IO_CALLS_PY] [--every-core]

The project is opened once, outside the times; every figure is on one core
(the process pinned), CPU seconds; with --every-core, wall seconds on every
core instead (the traces are read on every core). --compare imports another version of
io_calls.py (for example `git show REV:python/hdtrace/io_calls.py >
old.py`) beside the built one, on the same native module, checks that both
give the same columns (file codes compared by the names they stand for),
and runs the two alternately, each twice (an A/A pair per version), so
that the machine's drift falls on both. Prints rates; asserts nothing
about time. The report benchmark (report_benchmark.py --keep DIR) writes
a 2-rank run of 1,000,000 File_write_at calls with their pwrites to use.
"""
import argparse
import importlib.util
import os
import pathlib
import subprocess
import sys
import time


def load(build, compare):
    sys.path.insert(0, str(build / "python"))
    import hdtrace
    from hdtrace import io_calls
    versions = {"built": io_calls}
    if compare:
        spec = importlib.util.spec_from_file_location("hdtrace._compared_io_calls", compare)
        module = importlib.util.module_from_spec(spec)
        module.__package__ = "hdtrace"
        spec.loader.exec_module(module)
        versions["compared"] = module
    return hdtrace, versions


def same_columns(left, right):
    import numpy as np
    for column in left.columns:
        if column == "file":
            names_left = np.asarray(left.files + [None], dtype=object)[left[column]]
            names_right = np.asarray(right.files + [None], dtype=object)[right[column]]
            if not (names_left == names_right).all():
                return column
        elif not np.array_equal(left[column], right[column]):
            return column
    return None if left.names == right.names else "names"


def pin(args):
    """The clock the figures use: CPU time on one core, or wall time on all."""
    if args.every_core:
        return time.perf_counter
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    return time.process_time


def first_call(args):
    """In this fresh process: one project_io_calls, its seconds."""
    hdtrace, versions = load(args.build, args.compare)
    clock = pin(args)
    project = hdtrace.open(str(args.project))
    start = clock()
    io = versions[args.first_call].project_io_calls(project)
    print(f"{clock() - start:.6f} {len(io)}")


def main():
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("project", type=pathlib.Path)
    parser.add_argument("--build", type=pathlib.Path,
                        default=pathlib.Path(os.environ.get("HDTRACE_BUILD_DIR", "build")))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--compare", type=pathlib.Path, metavar="OLD_IO_CALLS_PY")
    parser.add_argument("--every-core", action="store_true",
                        help="wall seconds on every core instead of CPU seconds on one")
    parser.add_argument("--first-call", choices=("built", "compared"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.project.is_file():
        parser.error(f"{args.project}: no such project file")
    if args.compare and not args.compare.is_file():
        parser.error(f"{args.compare}: no such file")
    if args.first_call:
        first_call(args)
        return
    hdtrace, versions = load(args.build, args.compare)
    names = list(versions)
    if args.compare:
        project = hdtrace.open(str(args.project))
        differing = same_columns(versions["built"].project_io_calls(project),
                                 versions["compared"].project_io_calls(project))
        if differing:
            sys.exit(f"the two versions give different {differing} columns")
        print("both versions give the same columns")

    order = [(name, pair) for _ in range(args.rounds) for name in names for pair in (1, 2)]
    fresh = {key: [] for key in order}
    for name, pair in order:
        command = [sys.executable, __file__, str(args.project), "--build", str(args.build),
                   "--first-call", name] + (["--compare", str(args.compare)] if args.compare
                                            else []) + (["--every-core"] if args.every_core
                                                        else [])
        seconds, rows = subprocess.run(command, check=True, capture_output=True,
                                       text=True).stdout.split()
        fresh[(name, pair)].append(float(seconds))

    clock = pin(args)
    project = hdtrace.open(str(args.project))
    again = {key: [] for key in order}
    for name, pair in order:
        start = clock()
        io = versions[name].project_io_calls(project)
        again[(name, pair)].append(clock() - start)
        del io
    rows = int(rows)
    seconds = "wall seconds on every core" if args.every_core else "CPU seconds on one core"
    print(f"{rows:,} calls on files; {seconds}, best and median of {args.rounds}, "
          f"as M calls/s")
    for key in fresh:
        name, pair = key
        line = [f"{name + (' (A/A)' if pair == 2 else ''):16s}"]
        for label, times in (("fresh process", fresh[key]), ("read before", again[key])):
            times = sorted(times)
            best, median = times[0], times[len(times) // 2]
            line.append(f"{label}: {rows / best / 1e6:6.2f} ({best:.3f} s), median "
                        f"{rows / median / 1e6:6.2f}")
        print("  ".join(line))


if __name__ == "__main__":
    main()
