#!/usr/bin/python3
"""Report benchmark: how long `hdtrace report` takes, and how much memory and
page it makes, on a large run of calls and on a run of many ranks.

    /usr/bin/python3 bench/report/report_benchmark.py [--calls N] [--ranks R]
        [--build BUILD_DIR] [--rounds K] [--keep DIR]

calls: a 2-rank run of N top-level File_write_at calls (default 1,000,000),
  each with its nested pwrite, in XML and converted to compact; for each
  form, the rate of to_numpy on every core by the wall clock, then on one
  core: of the C++ call tree into columns, of to_numpy (the
  top-level calls; their nested calls are read past), of to_numpy with the
  clocks corrected (rank 1 said to run on a host whose clock is ahead) and of
  io_calls (and, with --walk, of the former walk over every Event), then the
  report on one core (taskset -c 0).
ranks: a project of R ranks (default 16,384), each opening a shared file,
  writing four blocks (each with its pwrite), an Allreduce, a ring of
  Send/Recv and a close, in XML and converted to compact; for each form,
  the report on every core.
datasets: a 2-rank run of T H5Dwrite calls on one dataset (default
  200,000), each with the File_write_at and pwrite it made, the HDF5 calls
  in layer traces beside the main ones as the HDF5 layer writes them; for
  each form, the rate of the report's datasets (matching each dataset call
  to its row of io_calls and summing per dataset), on one core.

Prints wall and CPU seconds (best of --rounds), the peak resident memory of
the report's process and the page's size. Asserts nothing about time.
Targets: the 1 M-call run in at most 5 s on one core from either form; the
16,384-rank run within 120 s and 8 GB, with a page under 20 MB.
"""
import argparse
import contextlib
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time

EPOCH = 1_700_000_000
BLOCK = 4096


def stamp(ns):
    """A time as the writer's XML mode gives it: seconds after timeAdjustment."""
    return f"{ns // 1_000_000_000}.{ns % 1_000_000_000:09d}"


def write_project(directory, program, ranks, host="node01"):
    nodes = "".join(f"<Node name='{rank}'><Node name='0'/></Node>" for rank in range(ranks))
    world = "".join(f"<Rank global='{r}' local='{r}' cid='0'/>" for r in range(ranks))
    datatypes = "".join(f"<Rank name='{r}'></Rank>" for r in range(ranks))
    (directory / f"{program}.proj").write_text(
        "<?xml version='1.0' encoding='UTF-8'?>\n"
        f"<Application name='{program}'><Description>report benchmark</Description>"
        # The file's <Distribution>, as project-merger writes it: without one,
        # opening the project reads a trace's first call to tell the dialect.
        "<FileList><File name='shared.dat'><InitialSize>0</InitialSize><Distribution "
        "implementation='de.hd.pvs.piosim.model.inputOutput.distribution.SimpleStripe'>"
        "<ChunkSize>64K</ChunkSize></Distribution></File></FileList>"
        "<Topology><Level type='Hostname'><Level type='Rank'><Level type='Thread'></Level>"
        f"</Level></Level><Node name='{host}'>{nodes}</Node></Topology>"
        f"<CommunicatorList><Communicator name='WORLD'>{world}</Communicator>"
        f"</CommunicatorList><Datatypes>{datatypes}</Datatypes></Application>\n")


def write_trace(path, lines):
    with open(path, "w") as out:
        out.write(f'<?xml version="1.0" encoding="UTF-8"?>\n<Program timeAdjustment=\'{EPOCH}\'>\n')
        out.writelines(lines)
        out.write("</Program>\n")


def calls_run(directory, calls, ranks=2):
    """N File_write_at calls with a nested pwrite each, split over the ranks."""
    directory.mkdir(parents=True)
    per_rank = calls // ranks
    for rank in range(ranks):
        def lines():
            now = 1_000_000 + rank * 100
            yield (f"<File_open cid='0' name='shared.dat' flags='37' fid='0' "
                   f"time='{stamp(now)}' end='{stamp(now + 500)}'/>\n")
            now += 1000
            for index in range(per_rank):
                offset = (index * ranks + rank) * BLOCK
                yield (f"<Nested>\n  <pwrite fid='0' offset='{offset}' asked='{BLOCK}' "
                       f"size='{BLOCK}' time='{stamp(now + 100)}' end='{stamp(now + 400)}'/>\n"
                       f"</Nested>\n<File_write_at fid='0' offset='{offset}' size='{BLOCK}' "
                       f"count='{BLOCK}' tid='4' time='{stamp(now)}' end='{stamp(now + 500)}'/>\n")
                now += 1000
            yield f"<File_close fid='0' time='{stamp(now)}' end='{stamp(now + 300)}'/>\n"
        write_trace(directory / f"bench_node01_{rank}_0.trc", lines())
    write_project(directory, "bench", ranks)
    return directory / "bench.proj"


def datasets_run(directory, transfers, ranks=2):
    """T H5Dwrite calls split over the ranks, each holding by its time the
    File_write_at it made (with its pwrite nested), on one dataset."""
    directory.mkdir(parents=True)
    per_rank = transfers // ranks
    modes = ("collective", "independent")
    for rank in range(ranks):
        main, layer = [], []
        now = 1_000_000 + rank * 100
        main.append(f"<File_open cid='0' name='shared.dat' flags='37' fid='0' "
                    f"time='{stamp(now + 100)}' end='{stamp(now + 400)}'/>\n")
        layer.append(f"<H5Dcreate2 fid='0' dataset='0' name='grid' layout='contiguous' "
                     f"typeSize='8' elements='{transfers * BLOCK // 8}' time='{stamp(now)}' "
                     f"end='{stamp(now + 500)}'/>\n")
        now += 1000
        for index in range(per_rank):
            offset = (index * ranks + rank) * BLOCK
            layer.append(f"<H5Dwrite fid='0' dataset='0' size='{BLOCK}' memTypeSize='8' "
                         f"fileTypeSize='8' transfer='{modes[index % 2]}' "
                         f"time='{stamp(now)}' end='{stamp(now + 700)}'/>\n")
            main.append(f"<Nested>\n  <pwrite fid='0' offset='{offset}' asked='{BLOCK}' "
                        f"size='{BLOCK}' time='{stamp(now + 200)}' end='{stamp(now + 500)}'/>\n"
                        f"</Nested>\n<File_write_at fid='0' offset='{offset}' size='{BLOCK}' "
                        f"count='{BLOCK}' tid='4' time='{stamp(now + 100)}' "
                        f"end='{stamp(now + 600)}'/>\n")
            now += 1000
        main.append(f"<File_close fid='0' time='{stamp(now)}' end='{stamp(now + 300)}'/>\n")
        write_trace(directory / f"bench_node01_{rank}_0.trc", main)
        write_trace(directory / f"bench_node01_{rank}_0.hdf5.trc", layer)
    write_project(directory, "bench", ranks)
    return directory / "bench.proj"


def dataset_rates(build, project):
    """A line of figures: the report's datasets from the layer traces and the
    I/O calls (read before, not timed), on one core, CPU time."""
    sys.path.insert(0, str(build / "python"))
    import hdtrace
    from hdtrace.io_calls import project_io_calls
    from hdtrace.report.datasets import dataset_columns, datasets
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    opened = hdtrace.open(str(project))
    io = project_io_calls(opened)
    fastest = float("inf")
    for _ in range(3):
        start = time.process_time()
        columns = dataset_columns(opened, io)
        found = datasets(io, columns)
        fastest = min(fastest, time.process_time() - start)
    calls = int((columns["dataset"] >= 0).sum())
    transfers = sum(entry["reads"] + entry["writes"] for entry in found)
    return (f"report's datasets: {calls / fastest / 1e6:6.2f} M dataset calls/s per core "
            f"({calls:,} calls, {transfers:,} transfers on {len(found)} dataset(s), "
            f"{fastest:.3f} s)")


def ranks_run(directory, ranks):
    """R ranks of a few calls each: open, 4 writes with pwrites, a ring, Allreduce, close."""
    directory.mkdir(parents=True)
    for rank in range(ranks):
        now = 1_000_000 + (rank % 97) * 1000
        lines = [f"<File_open cid='0' name='shared.dat' flags='37' fid='0' "
                 f"time='{stamp(now)}' end='{stamp(now + 20_000)}'/>\n"]
        now += 30_000
        for block in range(4):
            offset = (block * ranks + rank) * BLOCK
            lines.append(f"<Nested>\n  <pwrite fid='0' offset='{offset}' asked='{BLOCK}' "
                         f"size='{BLOCK}' time='{stamp(now + 100)}' end='{stamp(now + 900)}'/>\n"
                         f"</Nested>\n<File_write_at fid='0' offset='{offset}' size='{BLOCK}' "
                         f"count='{BLOCK}' tid='4' time='{stamp(now)}' end='{stamp(now + 1000)}'"
                         "/>\n")
            now += 2000
        right, left = (rank + 1) % ranks, (rank - 1) % ranks
        lines.append(f"<Send size='1024' count='256' tid='1' toRank='{right}' toTag='1' cid='0' "
                     f"time='{stamp(now)}' end='{stamp(now + 3000)}'/>\n")
        now += 4000
        lines.append(f"<Recv fromRank='{left}' fromTag='1' cid='0' time='{stamp(now)}' "
                     f"end='{stamp(now + 3000)}'/>\n")
        now += 4000
        lines.append(f"<Allreduce size='8' cid='0' count='1' tid='3' time='{stamp(now)}' "
                     f"end='{stamp(now + 50_000)}'/>\n")
        now += 60_000
        lines.append(f"<File_close fid='0' time='{stamp(now)}' end='{stamp(now + 5000)}'/>\n")
        write_trace(directory / f"bench_node01_{rank}_0.trc", lines)
    write_project(directory, "bench", ranks)
    return directory / "bench.proj"


def to_compact(build, source, target):
    """The run in compact form: every trace converted, the project copied."""
    shutil.copytree(source, target)
    sys.path.insert(0, str(build / "python"))
    from hdtrace import native
    for trace in target.glob("*.trc"):
        native.convert_trace(str(trace), str(trace.with_suffix(".ctrc")), "compact")
        trace.unlink()
    return target / "bench.proj"


def time_report(build, project, one_core, rounds):
    """(best wall s, best CPU s, peak RSS MiB, page bytes) of `hdtrace report`."""
    page = project.with_name("bench-report.html")
    command = [sys.executable, "-m", "hdtrace", "report", str(project), "-o", str(page),
               "--json", str(project.with_name("bench-report.json"))]
    if one_core:
        command = ["taskset", "-c", "0"] + command
    environment = dict(os.environ, PYTHONPATH=str(build / "python"))
    best_wall = best_cpu = float("inf")
    peak = 0
    for _ in range(rounds):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        # Each round in a fresh process: its peak memory is the report's alone.
        subprocess.run(command, check=True, env=environment, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best_wall = min(best_wall, wall)
        best_cpu = min(best_cpu, after.ru_utime + after.ru_stime - before.ru_utime -
                       before.ru_stime)
        peak = max(peak, after.ru_maxrss)
    return best_wall, best_cpu, peak / 1024, page.stat().st_size


@contextlib.contextmanager
def clocks_measured(project):
    """The run as if rank 1 ran on another host whose clock is 1.5-2 us ahead
    of rank 0's (Clock lines in .info files beside the traces, removed after),
    so that every time goes through the clock correction."""
    written = []
    try:
        for trace in sorted(project.parent.glob("bench_node01_*_0.*trc")):
            rank = int(trace.name.split("_")[2])
            offset = 1500 * rank
            info = trace.with_suffix(".info")
            info.write_text(
                "Mpi library='bench' order_c=0 order_fortran=1 distribute_block=0 "
                "distribute_cyclic=1 distribute_none=2 distribute_dflt_darg=-1\n"
                f"Clock at='init' time={EPOCH * 10**9} offset={offset} rtt=900 leader={rank} "
                "exchanges=20\n"
                f"Clock at='finalize' time={(EPOCH + 2) * 10**9} offset={offset + 500 * rank} "
                f"rtt=800 leader={rank} exchanges=20\n")
            written.append(info)
        yield
    finally:
        for info in written:
            info.unlink()


def reading_rates(build, project, walk):
    """Lines of figures: to_numpy on every core (wall time), then on one core
    (CPU time) the call tree into columns, to_numpy, io_calls, and (walk) the
    former walk over every Event."""
    sys.path.insert(0, str(build / "python"))
    import hdtrace
    from hdtrace import native
    from hdtrace.io_calls import project_io_calls, walked_io_calls
    lines = []

    def best(work, rounds=3, clock=time.process_time):
        fastest = float("inf")
        for _ in range(rounds):
            start = clock()
            result = work()
            fastest = min(fastest, clock() - start)
        return result, fastest

    # First to_numpy as a script runs it, on every core the process may use
    # (it reads the project's traces side by side), by the wall clock.
    cores = len(os.sched_getaffinity(0))
    table, seconds = best(lambda: hdtrace.open(str(project)).to_numpy(), rounds=5,
                          clock=time.perf_counter)
    lines.append(f"to_numpy on {cores} cores: {len(table) / seconds / 1e6:6.2f} M rows/s wall "
                 f"({len(table):,} rows, {seconds:.3f} s)")
    del table
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    opened = hdtrace.open(str(project))
    traces = [leaf.path for leaf in opened.topology.leaves]

    rows, seconds = best(lambda: sum(len(native.read_call_tree(path)["name_code"])
                                     for path in traces))
    lines.append(f"call tree into columns: {rows / seconds / 1e6:6.2f} M rows/s per core "
                 f"({rows:,} rows, {seconds:.3f} s)")
    # Each round opens the project again: a project keeps its table once made.
    table, seconds = best(lambda: hdtrace.open(str(project)).to_numpy(), rounds=5)
    lines.append(f"to_numpy (nested calls read past): {len(table) / seconds / 1e6:6.2f} M rows/s "
                 f"per core ({len(table):,} rows, {seconds:.3f} s)")
    del table
    with clocks_measured(project):
        table, seconds = best(lambda: hdtrace.open(str(project)).to_numpy(), rounds=5)
    lines.append(f"to_numpy, clocks corrected: {len(table) / seconds / 1e6:6.2f} M rows/s "
                 f"per core ({seconds:.3f} s)")
    del table
    io, seconds = best(lambda: project_io_calls(hdtrace.open(str(project))))
    lines.append(f"io_calls (tree and numpy): {len(io) / seconds / 1e6:6.2f} M calls/s per core "
                 f"({len(io):,} I/O calls, {seconds:.3f} s)")
    if walk:
        walked, seconds = best(lambda: walked_io_calls(hdtrace.open(str(project))), rounds=1)
        lines.append(f"the same by walking Events in Python: {len(walked) / seconds / 1e6:6.2f} M "
                     f"calls/s per core ({seconds:.1f} s)")
    return lines


def positive(text):
    """An argument that must be a whole number above 0."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not above 0")
    return value


def main():
    here = pathlib.Path(__file__).resolve().parent
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--calls", type=positive, default=1_000_000)
    parser.add_argument("--ranks", type=positive, default=16_384,
                        help="ranks of the second case (--only calls leaves it out)")
    parser.add_argument("--rounds", type=positive, default=2)
    parser.add_argument("--build", default=os.environ.get("HDTRACE_BUILD_DIR",
                                                          str(here.parents[1] / "build")))
    parser.add_argument("--keep", metavar="DIR", help="generate into DIR and keep it")
    parser.add_argument("--only", choices=("calls", "ranks", "datasets"),
                        help="run one of the cases")
    parser.add_argument("--walk", action="store_true",
                        help="also time the former walk over every Event (slow: about 30 s "
                             "per million calls)")
    parser.add_argument("--transfers", type=positive, default=200_000,
                        help="H5Dwrite calls of the datasets case")
    parser.add_argument("--rates", metavar="PROJECT", help=argparse.SUPPRESS)
    parser.add_argument("--dataset-rates", metavar="PROJECT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    build = pathlib.Path(args.build).resolve()
    if args.rates:  # in a process of its own, pinned to one core
        print("\n".join(reading_rates(build, pathlib.Path(args.rates), args.walk)))
        return
    if args.dataset_rates:  # the same
        print(dataset_rates(build, pathlib.Path(args.dataset_rates)))
        return
    work = pathlib.Path(args.keep or tempfile.mkdtemp(prefix="hdtrace-report-bench-"))
    try:
        if args.only in (None, "calls"):
            started = time.perf_counter()
            xml = calls_run(work / "calls-xml", args.calls)
            compact = to_compact(build, work / "calls-xml", work / "calls-compact")
            print(f"generated {args.calls:,} calls with their pwrites on 2 ranks in "
                  f"{time.perf_counter() - started:.1f} s")
            for form, project in (("XML", xml), ("compact", compact)):
                for line in subprocess.run(
                        [sys.executable, __file__, "--build", str(build), "--rates", str(project)]
                        + (["--walk"] if args.walk else []), check=True, capture_output=True,
                        text=True).stdout.splitlines():
                    print(f"{form:<7} {line}")
                wall, cpu, peak, page = time_report(build, project, True, args.rounds)
                print(f"report, {args.calls:,} calls, {form:<7} one core: {wall:6.2f} s wall, "
                      f"{cpu:6.2f} s CPU, {peak:7.0f} MiB peak, page {page / 1e6:.2f} MB")
        if args.only in (None, "ranks"):
            started = time.perf_counter()
            xml = ranks_run(work / "ranks-xml", args.ranks)
            compact = to_compact(build, work / "ranks-xml", work / "ranks-compact")
            print(f"generated {args.ranks:,} ranks in both forms in "
                  f"{time.perf_counter() - started:.1f} s")
            for form, project in (("XML", xml), ("compact", compact)):
                wall, cpu, peak, page = time_report(build, project, False, args.rounds)
                print(f"report, {args.ranks:,} ranks, {form:<7} every core: {wall:6.2f} s wall, "
                      f"{cpu:6.2f} s CPU, {peak:7.0f} MiB peak, page {page / 1e6:.2f} MB")
        if args.only in (None, "datasets"):
            started = time.perf_counter()
            xml = datasets_run(work / "datasets-xml", args.transfers)
            compact = to_compact(build, work / "datasets-xml", work / "datasets-compact")
            print(f"generated {args.transfers:,} H5Dwrite calls with their File_write_at and "
                  f"pwrite on 2 ranks in {time.perf_counter() - started:.1f} s")
            for form, project in (("XML", xml), ("compact", compact)):
                line = subprocess.run(
                    [sys.executable, __file__, "--build", str(build), "--dataset-rates",
                     str(project)], check=True, capture_output=True, text=True).stdout.strip()
                print(f"{form:<7} {line}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
