#!/usr/bin/python3
"""Dask benchmark: a project read and analysed in this process against the
same on Dask's threaded scheduler and on a LocalCluster of worker processes.

    /usr/bin/python3 bench/reader/dask_benchmark.py PROJ [--workers N] [--build BUILD_DIR]

Prints wall-clock seconds (best of --rounds) and calls per second for
to_dataframe / to_dask().compute(), stats and match_messages; checks that
each Dask result has as many rows or pairs as the in-process one. Asserts
nothing about time. A run to read: `hdtrace run -n 4 -o run --
tests/python/programs/message-mix DATA 30000` (compiled with mpicc).

    /usr/bin/python3 bench/reader/dask_benchmark.py --sliced EVENTS [--workers N]

instead writes one trace of EVENTS calls (bench/reader's generator, into a
temporary directory) and times reading it on a LocalCluster of N worker
processes (default 2) as one partition against slices (to_dask(slice_bytes=)):
read on the workers (the partitions' lengths come back), the table collected
by the client, and stats.
"""
import argparse
import os
import pathlib
import sys
import time


def best_of(rounds, work):
    best, result = None, None
    for _ in range(rounds):
        start = time.perf_counter()
        result = work()
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best, result


def main():
    here = pathlib.Path(__file__).resolve().parent
    default_build = os.environ.get("HDTRACE_BUILD_DIR", str(here.parents[1] / "build"))
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("project", nargs="?")
    parser.add_argument("--sliced", type=int, metavar="EVENTS",
                        help="time one generated trace of EVENTS calls, whole against sliced")
    parser.add_argument("--build", default=default_build, help="the CMake build tree")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="worker processes of the LocalCluster")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if (args.project is None) == (args.sliced is None):
        parser.error("give a PROJ or --sliced EVENTS")
    sys.path.insert(0, str(pathlib.Path(args.build) / "python"))
    import hdtrace
    from dask.distributed import Client, LocalCluster
    if args.sliced is not None:
        sliced_benchmark(args, hdtrace, Client, LocalCluster)
        return

    project = hdtrace.open(args.project)
    calls = len(project.to_numpy())
    print(f"{args.project}: {len(project.topology)} traces, {calls} calls, "
          f"{os.cpu_count()} cores")

    def report(what, seconds):
        print(f"  {what:44s} {seconds:7.2f} s  {calls / seconds / 1e6:6.2f} M calls/s")

    def fresh():  # no cached table: every figure includes the reading
        return hdtrace.open(args.project)

    seconds, table = best_of(args.rounds, lambda: fresh().to_dataframe())
    report("to_dataframe (in-process, threads)", seconds)
    seconds, computed = best_of(args.rounds, lambda: fresh().to_dask().compute(scheduler="threads"))
    assert len(computed) == len(table)
    report("to_dask().compute() (threaded scheduler)", seconds)
    seconds, stats = best_of(args.rounds, lambda: hdtrace.stats(fresh()))
    report("stats (in-process)", seconds)
    seconds, matches = best_of(args.rounds, lambda: hdtrace.match_messages(fresh()))
    report("match_messages (in-process)", seconds)
    with Client(LocalCluster(n_workers=args.workers, threads_per_worker=1,
                             dashboard_address=None, silence_logs=40)):
        seconds, computed = best_of(args.rounds, lambda: fresh().to_dask().compute())
        assert len(computed) == len(table)
        report(f"to_dask().compute() ({args.workers} worker processes)", seconds)
        seconds, on_dask = best_of(args.rounds, lambda: hdtrace.stats(fresh().to_dask()))
        assert on_dask.functions["calls"].sum() == stats.functions["calls"].sum()
        report(f"stats on Dask ({args.workers} worker processes)", seconds)
        seconds, on_dask = best_of(args.rounds,
                                   lambda: hdtrace.match_messages(fresh().to_dask()))
        assert len(on_dask.pairs) == len(matches.pairs)
        report(f"match_messages on Dask ({args.workers} worker processes)", seconds)


def sliced_benchmark(args, hdtrace, Client, LocalCluster):
    """One large trace: one partition (one worker reads it all) against slices
    (every worker reads a part), on a LocalCluster."""
    import subprocess
    import tempfile
    workers = args.workers if "--workers" in sys.argv else 2
    generator = pathlib.Path(args.build) / "bench" / "reader" / "reader_bench_generate"
    with tempfile.TemporaryDirectory(prefix="hdtrace-dask-sliced-") as directory:
        subprocess.run([str(generator), directory, str(args.sliced), "1"], check=True,
                       stdout=subprocess.DEVNULL)
        proj = pathlib.Path(directory) / "bench.proj"
        trace = next(pathlib.Path(directory).glob("*.trc"))
        size = trace.stat().st_size
        calls = len(hdtrace.open(proj).to_numpy())
        print(f"{trace.name}: {calls} calls, {size / 2**20:.0f} MiB; LocalCluster of {workers} "
              f"worker processes, {os.cpu_count()} cores")
        cases = [("whole (one partition)", None)] + [
            (f"slices of {size // parts / 2**20:.0f} MiB ({parts} partitions)", size // parts)
            for parts in (workers, 4 * workers)]
        with Client(LocalCluster(n_workers=workers, threads_per_worker=1,
                                 dashboard_address=None, silence_logs=40)):
            def timed(make, work):
                # A new modification time each run: new task keys (to_dask
                # tokenizes the traces' sizes and times), so the scheduler
                # cannot hand back a result of an earlier run.
                def fresh_run():
                    stamp = time.time_ns()
                    os.utime(trace, ns=(stamp, stamp))
                    subject = make()
                    start = time.perf_counter()
                    result = work(subject)
                    return time.perf_counter() - start, result
                runs = [fresh_run() for _ in range(args.rounds)]
                return min(seconds for seconds, _ in runs), runs[-1][1]

            for what, slice_bytes in cases:
                def make(slice_bytes=slice_bytes):
                    return hdtrace.open(proj).to_dask(slice_bytes=slice_bytes)
                seconds, computed = timed(make, lambda frame: frame.compute())
                assert len(computed) == calls
                del computed
                # Read where the partitions are, only their lengths come back.
                seconds_read, lengths = timed(
                    make, lambda frame: frame.map_partitions(len).compute())
                assert lengths.sum() == calls
                seconds_stats, stats = timed(make, hdtrace.stats)
                assert stats.functions["calls"].sum() == calls
                print(f"  {what:36s} read {seconds_read:6.2f} s  table to the client "
                      f"{seconds:6.2f} s  stats {seconds_stats:6.2f} s")


if __name__ == "__main__":
    main()
