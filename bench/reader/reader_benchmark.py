#!/usr/bin/python3
"""Reader benchmark: events per second from generated traces.

    /usr/bin/python3 bench/reader/reader_benchmark.py [--events N] [--ranks R] [--build BUILD_DIR]

On one trace of N calls (default one million): each column reader alone
(libxml2's SAX parser and the dialect scanner, _core.read_columns), the numpy
table (Project.to_numpy) and the Event iterator (Project.trace); then the
same calls as a compact trace (converted): its typed records into columns,
its XML form through libxml2, and to_numpy. Then the
whole-project rate: to_numpy on a project of R traces (default: twice the
cores) of N/R calls each, read on every core.

"Per core" rates divide by the CPU time of this process (best of --rounds),
which is the fair figure on a shared machine; wall-clock rates stand beside.
Prints figures; asserts nothing about time. Target: >= 10 million events/s per
core into columns with the dialect scanner.
"""
import argparse
import concurrent.futures
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time


def best_of(rounds, work):
    """(result, best wall seconds, best CPU seconds) of rounds runs of work()."""
    best_wall = best_cpu = float("inf")
    result = None
    for _ in range(rounds):
        wall, cpu = time.perf_counter(), time.process_time()
        result = work()
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    return result, best_wall, best_cpu


def report(label, events, wall, cpu, extra=""):
    print(f"{label:<28} {events / cpu / 1e6:6.2f} M events/s per core ({cpu:.3f} s CPU), "
          f"{events / wall / 1e6:6.2f} M events/s wall ({wall:.3f} s){extra}")


def generate(build, directory, events, ranks):
    subprocess.run([str(build / "bench" / "reader" / "reader_bench_generate"), str(directory),
                    str(events), str(ranks)], check=True, stdout=subprocess.DEVNULL)


def main():
    here = pathlib.Path(__file__).resolve().parent
    default_build = os.environ.get("HDTRACE_BUILD_DIR", str(here.parents[1] / "build"))
    cores = os.cpu_count() or 1
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--ranks", type=int, default=2 * cores,
                        help="traces of the whole-project run (default: twice the cores)")
    parser.add_argument("--build", default=default_build, help="the CMake build tree")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    build = pathlib.Path(args.build)
    sys.path.insert(0, str(build / "python"))
    import hdtrace
    from hdtrace import _core

    with tempfile.TemporaryDirectory(prefix="hdtrace-reader-bench-") as directory:
        directory = pathlib.Path(directory)
        generate(build, directory, args.events, 1)
        trace = directory / "bench_node01_0_0.trc"
        size_mb = trace.stat().st_size / 1e6
        print(f"trace: {args.events} calls, {size_mb:.1f} MB; {cores} cores; "
              f"load average {os.getloadavg()[0]:.2f} (CPU times are this process's: "
              f"other processes slow them through shared caches, not by the time they take)")

        # The Event iterator first, so that the peak memory it reports is its own.
        project = hdtrace.open(directory / "bench.proj")
        wall, cpu = time.perf_counter(), time.process_time()
        count = sum(1 for _ in project.trace(0))
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        report("Event iterator:", count, wall, cpu,
               f", peak memory of the process {peak_mb:.0f} MB")

        # The scanner reads the file with read(2) by default; HDTRACE_READER_MMAP=1
        # maps it instead (DialectScanner::open).
        for reader, mapped in (("libxml2", False), ("auto", False), ("auto", True)):
            if mapped:
                os.environ["HDTRACE_READER_MMAP"] = "1"
            columns, wall, cpu = best_of(args.rounds,
                                         lambda: _core.read_columns(str(trace), reader=reader))
            os.environ.pop("HDTRACE_READER_MMAP", None)
            if len(columns["name_code"]) != args.events:
                raise SystemExit(f"read {len(columns['name_code'])} calls, expected {args.events}")
            if reader == "auto" and columns["fallback"]:
                raise SystemExit(f"the dialect scanner left the trace to libxml2: "
                                 f"{columns['fallback']}")
            label = ("columns, libxml2:" if reader == "libxml2" else
                     "columns, scanner, mapped:" if mapped else "columns, dialect scanner:")
            report(label, args.events, wall, cpu, f", {size_mb / cpu:.0f} MB/s per core")

        table, wall, cpu = best_of(
            args.rounds, lambda: hdtrace.open(directory / "bench.proj").to_numpy())
        if len(table) != args.events:
            raise SystemExit(f"read {len(table)} calls, expected {args.events}")
        report("to_numpy, one trace:", args.events, wall, cpu,
               f"; table {table.nbytes / 1e6:.0f} MB")

        # The same calls as a compact trace (hdtrace convert), alone in the
        # project: the readers find it by its magic.
        compact = trace.with_suffix(".ctrc")
        _core.convert_trace(str(trace), str(compact), "compact")
        trace.unlink()
        print(f"compact trace: {compact.stat().st_size} bytes, "
              f"{compact.stat().st_size / args.events:.3f} bytes per call (the generated calls "
              f"repeat a few patterns)")
        for reader in ("libxml2", "auto"):
            columns, wall, cpu = best_of(args.rounds,
                                         lambda: _core.read_columns(str(compact), reader=reader))
            if len(columns["name_code"]) != args.events:
                raise SystemExit(f"read {len(columns['name_code'])} calls, expected {args.events}")
            if reader == "auto" and columns["fallback"]:
                raise SystemExit(f"the compact records were read as XML: {columns['fallback']}")
            label = ("compact, its XML form:" if reader == "libxml2" else
                     "columns, compact records:")
            report(label, args.events, wall, cpu)
        table, wall, cpu = best_of(
            args.rounds, lambda: hdtrace.open(directory / "bench.proj").to_numpy())
        if len(table) != args.events:
            raise SystemExit(f"read {len(table)} calls, expected {args.events}")
        report("to_numpy, compact trace:", args.events, wall, cpu)

    with tempfile.TemporaryDirectory(prefix="hdtrace-reader-bench-") as directory:
        directory = pathlib.Path(directory)
        per_trace = max(1, args.events // args.ranks)
        generate(build, directory, per_trace, args.ranks)
        total = per_trace * args.ranks
        traces = sorted(str(path) for path in directory.glob("*.trc"))

        def read_all():
            # As to_numpy does: one trace per task, the C++ reader without the GIL.
            with concurrent.futures.ThreadPoolExecutor(cores) as pool:
                return sum(len(columns["name_code"])
                           for columns in pool.map(_core.read_columns, traces))
        rows, wall, cpu = best_of(args.rounds, read_all)
        if rows != total:
            raise SystemExit(f"read {rows} calls, expected {total}")
        report(f"columns, {args.ranks} traces:", total, wall, cpu,
               f"; {cpu / wall:.2f} cores busy on average")
        table, wall, cpu = best_of(
            args.rounds, lambda: hdtrace.open(directory / "bench.proj").to_numpy())
        if len(table) != total:
            raise SystemExit(f"read {len(table)} calls, expected {total}")
        report(f"to_numpy, {args.ranks} traces:", total, wall, cpu,
               f"; {cpu / wall:.2f} cores busy on average")
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
