#!/usr/bin/python3
"""How well `hdtrace score --filter` predicts a filtered run, and what
`hdtrace score -g` saves.

    /usr/bin/python3 bench/score/score_accuracy.py [--build BUILD_DIR] [--keep DIR]
        [--runs N] [--cases NAME...]

For each case (a program of the build tree, its ranks, a filter): the
program runs traced without the filter (XML); `hdtrace score --filter`
predicts what a run with the filter writes; then the program runs with the
filter N times (default 3) in XML and N times in compact form. Printed per
case: the predicted trace bytes in both forms, the median of the actual
runs (every .trc or .ctrc of a run) and the error against it, the actual
runs' spread (smallest and largest, as a share of the median: times and
their compression differ from run to run, so no prediction from another
run can be closer than that), and the predicted and actual calls. A case whose
filter is "-g" first writes the initial filter of the unfiltered run
(`hdtrace score -g`), then applies it, and also prints how much of the
trace it cut and whether every I/O call (MPI-IO and the C library's) was
kept. Target: within 10 % in both forms; -g cuts at least half and keeps
every I/O call. Figures only; nothing is asserted.

IOR is not packaged in Debian 12 (see docs/format/compact.md); the
`hdf5-like` cases make the MPI-IO calls of IOR's HDF5 back end.
"""
import argparse
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parents[2]
FILTERS = REPO / "examples" / "filters"

# name, program (in the build tree), arguments ({dir}: the run's work
# directory), ranks, environment, filter (a path, "-g", or the text)
CASES = [
    ("io-example-g", "examples/mpi/mpi-io-example", ["{dir}/out.dat"], 3, {}, "-g"),
    ("io-example-io-only", "examples/mpi/mpi-io-example", ["{dir}/out.dat"], 3, {},
     FILTERS / "io-only.filter"),
    ("hdf5-like-g", "bench/mpiwrapper/bench_hdf5_like", ["200", "{dir}/h5.dat", "8", "24"], 2, {},
     "-g"),
    ("hdf5-like-no-types", "bench/mpiwrapper/bench_hdf5_like", ["200", "{dir}/h5.dat", "8", "24"],
     2, {}, "exclude group datatypes\n"),
    ("iprobe-g", "bench/mpiwrapper/bench_mpi_overhead", ["iprobe", "20000", "{dir}/x.bin"], 1, {},
     "-g"),
    ("timestep-io-g", "bench/mpiwrapper/bench_mpi_overhead",
     ["timestep-io", "2000", "{dir}/steps.dat"], 2, {"OMPI_MCA_io": "romio321"}, "-g"),
    ("pingpong-ranks", "bench/mpiwrapper/bench_mpi_overhead",
     ["pingpong", "20000", "{dir}/x.bin"], 2, {}, "ranks 1\n"),
    ("nonblocking-no-polling", "tests/mpiwrapper/nonblocking_plain", [], 2, {},
     FILTERS / "no-polling.filter"),
    ("posix-files", "tests/mpiwrapper/posix_mixed_plain", [], 2, {"OMPI_MCA_io": "romio321"},
     "exclude file *\ninclude file */mixed_mpi.dat\n"),
    ("collectives-p2p-off", "tests/mpiwrapper/collectives_plain", [], 3, {},
     "layer mpi off\ninclude group collective\n"),
]


def launcher(build):
    cache = (build / "CMakeCache.txt").read_text()
    for line in cache.splitlines():
        if line.startswith("MPIEXEC_EXECUTABLE:"):
            return line.split("=", 1)[1]
    return "mpiexec"


def run(build, mpiexec, program, args, ranks, env, directory, filter_path=None, form="xml"):
    directory.mkdir(parents=True)
    environment = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                       HDTRACE_DIR=str(directory), HDTRACE_FORMAT=form, **env)
    environment.pop("HDTRACE_FILTER", None)
    if filter_path:
        environment["HDTRACE_FILTER"] = str(filter_path)
    command = [mpiexec, "-n", str(ranks), "--oversubscribe", "-x",
               f"LD_PRELOAD={build / 'mpiwrapper' / 'libhdtracempi.so'}",
               str(build / program), *[a.format(dir=directory) for a in args]]
    done = subprocess.run(command, env=environment, cwd=directory, capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0:
        sys.exit(f"score_accuracy: {' '.join(command)} failed:\n{done.stdout}{done.stderr}")
    merger = build / "merger" / "project-merger"
    stem = pathlib.Path(program).name.replace("_", "-")
    merged = subprocess.run([str(merger), "-q", str(directory / stem)], capture_output=True,
                            text=True, timeout=300)
    if merged.returncode != 0:
        sys.exit(f"score_accuracy: merging {directory}: {merged.stderr}")
    return directory / f"{stem}.proj"


def hdtrace(build, *args):
    done = subprocess.run(["/usr/bin/python3", "-m", "hdtrace", *map(str, args)],
                          env=dict(os.environ, PYTHONPATH=str(build / "python")),
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        sys.exit(f"score_accuracy: hdtrace {' '.join(map(str, args))}: {done.stderr}")
    return done


def score_json(build, project, filter_path=None):
    args = ["score", project, "--json", "-"] + (["--filter", filter_path] if filter_path else [])
    return json.loads(hdtrace(build, *args).stdout)


def trace_bytes(directory, suffix):
    return sum(path.stat().st_size for path in directory.glob(f"*{suffix}"))


def io_visits(document):
    return sum(call["kept"]["visits"] for call in document["calls"]
               if call["layer"] != "mpi" or "mpiio" in call["groups"])


def error(predicted, actual):
    return (predicted - actual) / actual * 100 if actual else 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", type=pathlib.Path, default=REPO / "build")
    parser.add_argument("--keep", type=pathlib.Path, help="keep the runs in this directory")
    parser.add_argument("--runs", type=int, default=3, help="filtered runs per form (3)")
    parser.add_argument("--cases", nargs="+", choices=[case[0] for case in CASES])
    args = parser.parse_args()
    build = args.build.resolve()
    mpiexec = launcher(build)
    scratch = args.keep or pathlib.Path(tempfile.mkdtemp(prefix="hdtrace-score-"))
    scratch.mkdir(parents=True, exist_ok=True)
    print(f"{'case':<24}{'calls':>16}{'XML predicted':>15}{'actual':>11}{'err':>7}"
          f"{'compact pred.':>15}{'actual':>10}{'err':>7}{'spread':>12}  -g")
    worst = 0.0
    for name, program, program_args, ranks, env, rules in CASES:
        if args.cases and name not in args.cases:
            continue
        work = scratch / name
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        baseline = run(build, mpiexec, program, program_args, ranks, env, work / "unfiltered")
        if rules == "-g":
            filter_path = work / "initial.filter"
            hdtrace(build, "score", baseline, "-g", filter_path)
        elif isinstance(rules, pathlib.Path):
            filter_path = rules
        else:
            filter_path = work / "case.filter"
            filter_path.write_text(rules)
        predicted = score_json(build, baseline, filter_path)
        xml_sizes, compact_sizes = [], []
        for number in range(args.runs):
            xml_run = run(build, mpiexec, program, program_args, ranks, env,
                          work / f"filtered-xml-{number}", filter_path)
            run(build, mpiexec, program, program_args, ranks, env,
                work / f"filtered-compact-{number}", filter_path, form="compact")
            xml_sizes.append(trace_bytes(work / f"filtered-xml-{number}", ".trc"))
            compact_sizes.append(trace_bytes(work / f"filtered-compact-{number}", ".ctrc"))
        actual_xml = statistics.median(xml_sizes)
        actual_compact = statistics.median(compact_sizes)
        actual = score_json(build, xml_run)
        kept = predicted["kept"]
        xml_error = error(kept["bytes_xml"], actual_xml)
        compact_error = error(kept["bytes_compact"], actual_compact)
        worst = max(worst, abs(xml_error), abs(compact_error))
        calls = f"{kept['visits']:,}/{actual['total']['visits']:,}"
        note = ""
        if rules == "-g":
            cut = 1 - actual_xml / max(trace_bytes(work / "unfiltered", ".trc"), 1)
            unfiltered = score_json(build, baseline)
            kept_io = io_visits(actual) == io_visits(unfiltered)
            note = f"cut {cut:.0%} XML, every I/O call kept: {'yes' if kept_io else 'NO'}"
        spread = (f"{error(min(compact_sizes), actual_compact):+.0f}.."
                  f"{error(max(compact_sizes), actual_compact):+.0f}%")
        print(f"{name:<24}{calls:>16}{kept['bytes_xml']:>15,}{actual_xml:>11,.0f}"
              f"{xml_error:>6.1f}%{kept['bytes_compact']:>15,}{actual_compact:>10,.0f}"
              f"{compact_error:>6.1f}%{spread:>12}  {note}", flush=True)
    print(f"largest error: {worst:.1f} % (target: 10 %)")
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
