#!/usr/bin/python3
"""Command benchmark: how long an `hdtrace` command takes as a user runs it,
start of the interpreter included.

    /usr/bin/python3 bench/report/command_benchmark.py [--calls N] [--ranks R]
        [--rounds K] [--package DIR]... [--keep DIR]

On the report benchmark's run of N File_write_at calls (default 1,000,000)
over R ranks (default 2), each with its nested pwrite, in XML and converted
to compact:
`hdtrace --help` (what every command pays before it starts) and `hdtrace
stats RUN.proj` of each form, each as a process of its own. Every --package (a folder holding the hdtrace package,
default the build tree's python/) is run in turn within each round, so that
two builds side by side see the same machine; the same folder given twice
shows the noise. Prints the median and best wall seconds of K rounds (default
7). Asserts nothing about time. Target: `hdtrace stats` of the 1 M-call run
under 1 s.
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
    env = dict(os.environ, PYTHONPATH=str(package))
    start = time.perf_counter()
    subprocess.run(["/usr/bin/python3", "-m", "hdtrace", *args], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    here = pathlib.Path(__file__).resolve().parent
    build = pathlib.Path(os.environ.get("HDTRACE_BUILD_DIR", str(here.parents[1] / "build")))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--ranks", type=int, default=2,
                        help="ranks the calls are split over (one trace each)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--package", action="append", type=pathlib.Path,
                        help="a folder holding the hdtrace package (repeat for side by side)")
    parser.add_argument("--keep", type=pathlib.Path, help="write the run here and keep it")
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
        commands = {"--help": ["--help"], "stats": ["stats", str(project)],
                    "stats of compact": ["stats", str(compact)]}
        times = {(index, name): [] for index in range(len(packages)) for name in commands}
        for index, package in enumerate(packages):  # a first, unmeasured round
            for arguments in commands.values():
                timed(package, arguments)
        for _ in range(args.rounds):
            for index, package in enumerate(packages):
                for name, arguments in commands.items():
                    times[(index, name)].append(timed(package, arguments))
        for (index, name), values in times.items():
            print(f"{str(packages[index]):<40} hdtrace {name:<16} "
                  f"median {statistics.median(values):.3f} s, best {min(values):.3f} s "
                  f"({len(values)} rounds)")


if __name__ == "__main__":
    main()
