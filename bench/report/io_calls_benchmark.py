#!/usr/bin/python3
"""io_calls benchmark: how fast hdtrace.io_calls.project_io_calls gives a
project's calls on files, once in a fresh process (as `hdtrace report` and a
script pay it) and again in a process that read before.

    /usr/bin/python3 bench/report/io_calls_benchmark.py PROJECT [--build BUILD_DIR]
        [--rounds K] [--compare OLD_IO_CALLS_PY | --other-build BUILD_DIR] [--every-core]

The project is opened once, outside the times; every figure is on one core
(the process pinned), CPU seconds; with --every-core, wall seconds on every
core instead (the traces are read on every core). --compare imports another version of
io_calls.py (for example `git show REV:python/hdtrace/io_calls.py >
old.py`) beside the built one, on the same native module, checks that both
give the same columns (file codes compared by the names they stand for),
and runs the two alternately, each twice (an A/A pair per version), so
that the machine's drift falls on both. --other-build compares two builds
(their native modules and Python packages) the same way, each process
making the call four times: the first is the fresh figure, the best of
the other three the figure read before. Prints rates; asserts nothing
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


def calls_in_one_process(args):
    """In this fresh process: --calls project_io_calls, their seconds; with
    --save, the last call's columns (files by name) into an .npz."""
    hdtrace, versions = load(args.build, None)
    clock = pin(args)
    project = hdtrace.open(str(args.project))
    seconds = []
    for _ in range(args.calls):
        start = clock()
        io = versions["built"].project_io_calls(project)
        seconds.append(clock() - start)
        rows = len(io)
        if args.save:
            import numpy as np
            columns = {column: io[column] for column in io.columns}
            columns["file"] = np.asarray(io.files + [""], dtype=str)[io["file"]]
            columns["call"] = np.asarray(io.names, dtype=str)[io["call"]]
            # Keys apart from savez's own argument names ("file").
            np.savez(args.save, **{f"column {name}": values for name, values in columns.items()})
        del io
    print(rows, " ".join(f"{value:.6f}" for value in seconds))


def compare_builds(args):
    """Both builds alternating, each twice, in fresh processes."""
    import tempfile
    import numpy as np
    builds = {"built": args.build, "other build": args.other_build}

    def run(build, calls, save=None):
        command = [sys.executable, __file__, str(args.project), "--build", str(build),
                   "--calls", str(calls)] + (["--save", save] if save else []) + \
            (["--every-core"] if args.every_core else [])
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"{build}: the call failed:\n{done.stderr}")
        rows, *seconds = done.stdout.split()
        return int(rows), [float(value) for value in seconds]

    with tempfile.TemporaryDirectory() as scratch:
        saved = {}
        for name, build in builds.items():
            saved[name] = f"{scratch}/{name.replace(' ', '_')}.npz"
            run(build, 1, saved[name])
        left, right = np.load(saved["built"]), np.load(saved["other build"])
        if sorted(left.files) != sorted(right.files):
            sys.exit(f"the builds give different columns: {left.files} and {right.files}")
        for column in left.files:
            if not np.array_equal(left[column], right[column]):
                sys.exit(f"the builds give different {column} columns")
    print("both builds give the same columns")
    keys = [(name, pair) for name in builds for pair in (1, 2)]
    fresh = {key: [] for key in keys}
    again = {key: [] for key in keys}
    for _ in range(args.rounds):
        for name, pair in keys:
            rows, seconds = run(builds[name], 4)
            fresh[(name, pair)].append(seconds[0])
            again[(name, pair)].append(min(seconds[1:]))
    print_rates(args, rows, keys, fresh, again)


def print_rates(args, rows, keys, fresh, again):
    seconds = "wall seconds on every core" if args.every_core else "CPU seconds on one core"
    print(f"{rows:,} calls on files; {seconds}, best and median of {args.rounds}, "
          f"as M calls/s")
    for key in keys:
        name, pair = key
        line = [f"{name + (' (A/A)' if pair == 2 else ''):18s}"]
        for label, times in (("fresh process", fresh[key]), ("read before", again[key])):
            times = sorted(times)
            best, median = times[0], times[len(times) // 2]
            line.append(f"{label}: {rows / best / 1e6:6.2f} ({best:.3f} s), median "
                        f"{rows / median / 1e6:6.2f}")
        print("  ".join(line))


def main():
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("project", type=pathlib.Path)
    parser.add_argument("--build", type=pathlib.Path,
                        default=pathlib.Path(os.environ.get("HDTRACE_BUILD_DIR", "build")))
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--compare", type=pathlib.Path, metavar="OLD_IO_CALLS_PY")
    parser.add_argument("--every-core", action="store_true",
                        help="wall seconds on every core instead of CPU seconds on one")
    parser.add_argument("--other-build", type=pathlib.Path, metavar="BUILD_DIR",
                        help="another build tree to compare with, alternating")
    parser.add_argument("--first-call", choices=("built", "compared"), help=argparse.SUPPRESS)
    parser.add_argument("--calls", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--save", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.project.is_file():
        parser.error(f"{args.project}: no such project file")
    if args.compare and not args.compare.is_file():
        parser.error(f"{args.compare}: no such file")
    if args.compare and args.other_build:
        parser.error("--compare and --other-build: one comparison at a time")
    if args.other_build and not (args.other_build / "python" / "hdtrace").is_dir():
        parser.error(f"{args.other_build}: no Python package built there (python/hdtrace)")
    if args.first_call:
        first_call(args)
        return
    if args.calls:
        calls_in_one_process(args)
        return
    if args.other_build:
        compare_builds(args)
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
    print_rates(args, int(rows), order[:len(names) * 2], fresh, again)


if __name__ == "__main__":
    main()
