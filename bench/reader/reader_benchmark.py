#!/usr/bin/python3
"""Reader benchmark: events per second from a generated trace into numpy
(Project.to_numpy) and through the Event iterator (Project.trace).

    /usr/bin/python3 bench/reader/reader_benchmark.py [--events N] [--build BUILD_DIR]

Prints figures; asserts nothing about time. Target: >= 2 million events/s into numpy.
"""
import argparse
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time


def main():
    here = pathlib.Path(__file__).resolve().parent
    default_build = os.environ.get("HDTRACE_BUILD_DIR", str(here.parents[1] / "build"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--build", default=default_build, help="the CMake build tree")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    build = pathlib.Path(args.build)
    sys.path.insert(0, str(build / "python"))
    import hdtrace

    with tempfile.TemporaryDirectory(prefix="hdtrace-reader-bench-") as directory:
        subprocess.run([str(build / "bench" / "reader" / "reader_bench_generate"), directory,
                        str(args.events)], check=True)
        trace = pathlib.Path(directory) / "bench_node01_0_0.trc"
        size_mb = trace.stat().st_size / 1e6
        print(f"trace: {args.events} calls, {size_mb:.1f} MB")

        # The Event iterator first, so that the peak memory it reports is its own.
        project = hdtrace.open(pathlib.Path(directory) / "bench.proj")
        wall, cpu = time.perf_counter(), time.process_time()
        count = sum(1 for _ in project.trace(0))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"Event iterator: {count / wall / 1e6:6.2f} M events/s wall ({wall:.3f} s), "
              f"{count / cpu / 1e6:6.2f} M events/s CPU ({cpu:.3f} s), "
              f"peak memory of the process {peak_mb:.0f} MB")

        # Best of several rounds, by wall-clock and by CPU time of this process
        # (the CPU figure is the fairer one on a shared, loaded machine).
        best_wall = best_cpu = None
        for _ in range(args.rounds):
            project = hdtrace.open(pathlib.Path(directory) / "bench.proj")
            wall, cpu = time.perf_counter(), time.process_time()
            table = project.to_numpy()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            best_wall = wall if best_wall is None else min(best_wall, wall)
            best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
        if len(table) != args.events:
            raise SystemExit(f"read {len(table)} calls, expected {args.events}")
        print(f"to_numpy:       {args.events / best_wall / 1e6:6.2f} M events/s wall "
              f"({best_wall:.3f} s, {size_mb / best_wall:.0f} MB/s), "
              f"{args.events / best_cpu / 1e6:6.2f} M events/s CPU ({best_cpu:.3f} s); "
              f"table {table.nbytes / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
