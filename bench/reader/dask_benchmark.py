#!/usr/bin/python3
"""Dask benchmark: a project read and analysed in this process against the
same on Dask's threaded scheduler and on a LocalCluster of worker processes.

    /usr/bin/python3 bench/reader/dask_benchmark.py PROJ [--workers N] [--build BUILD_DIR]

Prints wall-clock seconds (best of --rounds) and calls per second for
to_dataframe / to_dask().compute(), stats and match_messages; checks that
each Dask result has as many rows or pairs as the in-process one. Asserts
nothing about time. A run to read: `hdtrace run -n 4 -o run --
tests/python/programs/message-mix DATA 30000` (compiled with mpicc).
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("project")
    parser.add_argument("--build", default=default_build, help="the CMake build tree")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="worker processes of the LocalCluster")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    sys.path.insert(0, str(pathlib.Path(args.build) / "python"))
    import hdtrace
    from dask.distributed import Client, LocalCluster

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


if __name__ == "__main__":
    main()
