#!/usr/bin/python3
"""Command benchmark: how long an `hdtrace` command takes as a user runs it,
start of the interpreter included.

    /usr/bin/python3 bench/report/command_benchmark.py [--calls N] [--ranks R]
        [--rounds K] [--package DIR]... [--keep DIR]

On the report benchmark's run of N File_write_at calls (default 1,000,000)
over R ranks (default 2), each with its nested pwrite, in XML and converted
to compact:
`hdtrace --help` (what every command pays before it starts), `hdtrace
stats RUN.proj` of each form, and a script that opens each form and calls
`to_numpy()` once (the first read of a process: its memory fresh from the
kernel), each as a process of its own; with --report, `hdtrace report` of
each form as well, and with --score, `hdtrace score` (a conversion of
every trace; on a run of many small traces, e.g. --calls 163840 --ranks
16384, mostly the files' making and removal). Every --package (a folder
holding the hdtrace package, default the build tree's python/) is run in
turn within each round, so that two builds side by side see the same
machine; the same folder given twice shows the noise. Prints the median
and best wall seconds of K rounds (default 7). Asserts nothing about time.
Target: `hdtrace stats` of the 1 M-call run under 1 s.
"""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from report_benchmark import calls_run, to_compact  # noqa: E402  (the same generated run)


def timed(package, args):
    """Wall seconds of /usr/bin/python3 args with package first on its path."""
    env = dict(os.environ, PYTHONPATH=str(package))
    start = time.perf_counter()
    subprocess.run(["/usr/bin/python3", *args], env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def to_numpy_script(project):
    return ["-c", f"import hdtrace; hdtrace.open({str(project)!r}).to_numpy()"]


def main():
    here = pathlib.Path(__file__).resolve().parent
    build = pathlib.Path(os.environ.get("HDTRACE_BUILD_DIR", str(here.parents[1] / "build")))
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--ranks", type=int, default=2,
                        help="ranks the calls are split over (one trace each)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--package", action="append", type=pathlib.Path,
                        help="a folder holding the hdtrace package (repeat for side by side)")
    parser.add_argument("--keep", type=pathlib.Path, help="write the run here and keep it")
    parser.add_argument("--report", action="store_true",
                        help="also time hdtrace report of each form (some seconds each)")
    parser.add_argument("--score", action="store_true",
                        help="also time hdtrace score of each form")
    args = parser.parse_args()
    packages = args.package or [build / "python"]
    with tempfile.TemporaryDirectory() as scratch:
        directory = args.keep or pathlib.Path(scratch) / "run"
        project = directory / "xml" / "bench.proj"
        compact = directory / "compact" / "bench.proj"
        if not project.exists():
            print(f"writing a run of {args.calls:,} File_write_at calls over {args.ranks} ranks ...",
                  file=sys.stderr)
            calls_run(project.parent, args.calls, args.ranks)
        if not compact.exists():
            to_compact(build, project.parent, compact.parent)
        cli = ["-m", "hdtrace"]
        commands = {"hdtrace --help": cli + ["--help"],
                    "hdtrace stats": cli + ["stats", str(project)],
                    "hdtrace stats of compact": cli + ["stats", str(compact)],
                    "to_numpy()": to_numpy_script(project),
                    "to_numpy() of compact": to_numpy_script(compact)}
        if args.report:
            for name, run in (("hdtrace report", project),
                              ("hdtrace report of compact", compact)):
                page = pathlib.Path(scratch) / f"{name.replace(' ', '-')}.html"
                commands[name] = cli + ["report", str(run), "-o", str(page)]
        if args.score:
            commands["hdtrace score"] = cli + ["score", str(project)]
            commands["hdtrace score of compact"] = cli + ["score", str(compact)]
        times = {(index, name): [] for index in range(len(packages)) for name in commands}
        for index, package in enumerate(packages):  # a first, unmeasured round
            for arguments in commands.values():
                timed(package, arguments)
        for _ in range(args.rounds):
            for index, package in enumerate(packages):
                for name, arguments in commands.items():
                    times[(index, name)].append(timed(package, arguments))
        for (index, name), values in times.items():
            print(f"{str(packages[index]):<40} {name:<26} "
                  f"median {statistics.median(values):.3f} s, best {min(values):.3f} s "
                  f"({len(values)} rounds)")


if __name__ == "__main__":
    main()
