"""`hdtrace run` on Open MPI and on MPICH.

tests/run/programs/run-probe.c is compiled with the MPI library's mpicc and
run through `python3 -m hdtrace run` of the Open MPI build tree (the MPICH
tree is built without Python). On MPICH the command is given the MPICH
tree's libhdtracempi.so with --library and finds the launcher itself
(mpiexec.mpich) from the library's DT_NEEDED entries; the MPICH cases carry
the mark `mpich_tree` and need $HDTRACE_MPICH_BUILD_DIR (default:
$HDTRACE_BUILD_DIR-mpich), which scripts/test builds before it runs them.

Checked: stdout byte for byte, the exit status of a failing program and of a
killed one against the same program run by the launcher without hdtrace,
the merge after a failure, the summary's figures against the traces, and
that File_get_size, File_set_size and File_preallocate are no bytes moved in
`hdtrace stats`.
"""
import json
import os
import pathlib
import re
import signal
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import pytest

import buildtree

PROBE_SOURCE = buildtree.REPO_ROOT / "tests" / "run" / "programs" / "run-probe.c"
RANKS = 2
BYTES_PER_RANK = 40000
TIMEOUT = 300


def mpi_env(**extra):
    """No inherited HDTRACE_* or preload; Open MPI as root, oversubscribed, unbound, ROMIO."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HDTRACE_")}
    env.pop("LD_PRELOAD", None)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_hwloc_base_binding_policy="none",
               OMPI_MCA_io="romio321")
    env.update(extra)
    return env


@dataclass
class Mpi:
    name: str
    tree: pathlib.Path
    mpiexec: str
    probe: pathlib.Path         # uses MPI only; hdtrace run preloads the wrapper
    probe_linked: pathlib.Path  # linked with libhdtracempi.a
    library_args: list          # what hdtrace run needs to find this tree's wrapper


@pytest.fixture(scope="module", params=["openmpi", pytest.param("mpich", marks=pytest.mark.mpich_tree)])
def mpi(request, build_dir, tmp_path_factory):
    if request.param == "openmpi":
        tree, library_args = build_dir, []  # the build tree's library, found by hdtrace run
    else:
        tree = pathlib.Path(os.environ.get("HDTRACE_MPICH_BUILD_DIR", f"{build_dir}-mpich"))
        if not (tree / "CMakeCache.txt").is_file():
            pytest.fail(f"no MPICH build at {tree}: build it (scripts/test does) or set "
                        "HDTRACE_MPICH_BUILD_DIR")
        library_args = ["--library", str(tree / "mpiwrapper" / "libhdtracempi.so")]
    mpicc = buildtree.cache_value(tree, "MPI_C_COMPILER")
    work = tmp_path_factory.mktemp(f"probe-{request.param}")
    probe, linked = work / "run-probe", work / "run-probe-linked"
    for output, extra in ((probe, []),
                          (linked, [str(tree / "mpiwrapper" / "libhdtracempi.a"), "-lstdc++", "-lzstd",
                                    "-lpthread"])):
        result = subprocess.run([mpicc, "-o", str(output), str(PROBE_SOURCE), *extra],
                                capture_output=True, text=True, timeout=TIMEOUT)
        assert result.returncode == 0, result.stderr
    return Mpi(request.param, tree, buildtree.cache_value(tree, "MPIEXEC_EXECUTABLE"), probe, linked,
               library_args)


def hdtrace_run(mpi, options, command, cwd, stdin=b"", env=None):
    argv = ["/usr/bin/python3", "-m", "hdtrace", "run", *mpi.library_args, *options, "--",
            *map(str, command)]
    python_path = str(buildtree.build_dir() / "python")
    return subprocess.run(argv, input=stdin, capture_output=True, cwd=cwd, timeout=TIMEOUT,
                          env=env or mpi_env(PYTHONPATH=python_path))


def plain_run(mpi, command, cwd):
    """The same program under the same launcher, without hdtrace."""
    return subprocess.run([mpi.mpiexec, "-n", str(RANKS), *map(str, command)],
                          capture_output=True, cwd=cwd, timeout=TIMEOUT, env=mpi_env())


def summary_of(stderr):
    """The summary block's lines as (label, text), the label carried over to continuation lines."""
    text = stderr.decode(errors="replace")
    assert "hdtrace run: summary" in text, text
    entries, label = [], None
    for line in text.split("hdtrace run: summary", 1)[1].splitlines()[1:]:
        match = re.match(r"  (\S.{0,13}?)?\s{2,}(\S.*)$", line) if line.startswith("  ") else None
        if not match:
            break
        label = match.group(1) or label
        entries.append((label.strip(), match.group(2)))
    return entries


def top_level_calls(directory):
    """Every top-level call of every trace: (rank, tag, attributes); the
    <Nested> blocks (the C library's calls inside MPI-IO calls) are not."""
    calls = []
    for trace in sorted(directory.glob("*.trc")):
        rank = int(trace.stem.split("_")[-2])
        calls += [(rank, element.tag, element.attrib) for element in ET.parse(trace).getroot()
                  if element.tag != "Nested"]
    return calls


def damaged_traces(directory):
    """The traces that are no well-formed XML (cut off by a SIGKILL)."""
    damaged = set()
    for trace in directory.glob("*.trc"):
        try:
            ET.parse(trace)
        except ET.ParseError:
            damaged.add(trace.name)
    return damaged


def damaged_in_summary(summary):
    return {name for label, text in summary if label == "damaged"
            for name in re.findall(r"run-probe_[^/:]+\.trc", text)}


@pytest.fixture(scope="module")
def io_run(mpi, tmp_path_factory):
    work = tmp_path_factory.mktemp(f"io-{mpi.name}")
    stdin = b"first line\n\x00\xff binary \r\n no newline at the end"
    result = hdtrace_run(mpi, ["-n", str(RANKS), "-o", "run"],
                         [mpi.probe, "io", work / "data.bin", BYTES_PER_RANK], work, stdin)
    return work, stdin, result


def test_stdout_is_the_programs_byte_for_byte(io_run):
    _, stdin, result = io_run
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    assert result.stdout == stdin + bytes(range(256))


def test_summary_figures_match_the_traces(io_run):
    work, _, result = io_run
    run = work / "run"
    summary = summary_of(result.stderr)
    values = {}
    for label, text in summary:
        values.setdefault(label, []).append(text)
    calls = top_level_calls(run)

    assert values["ranks"] == [str(RANKS)]
    assert len(list(run.glob("*.trc"))) == RANKS
    assert values["calls"] == [str(len(calls))]
    mpi_time = sum(float(a["end"]) - float(a["time"]) for _, _, a in calls)
    reported = float(re.match(r"([0-9.]+) s", values["time in MPI"][0]).group(1))
    assert reported == pytest.approx(mpi_time, abs=2e-6)

    # Bytes per file: the File_write_at/File_read_at sizes, and what the program did.
    written = sum(int(a["size"]) for _, tag, a in calls if tag == "File_write_at")
    read = sum(int(a["size"]) for _, tag, a in calls if tag == "File_read_at")
    assert written == read == RANKS * BYTES_PER_RANK
    assert values["file"] == [f"{work / 'data.bin'}: read {read} bytes in {RANKS} calls, "
                              f"written {written} bytes in {RANKS} calls"]

    per_function = {}
    for _, tag, a in calls:
        count, total = per_function.get(tag, (0, 0.0))
        per_function[tag] = (count + 1, total + float(a["end"]) - float(a["time"]))
    top = values["top functions"]
    assert len(top) == min(5, len(per_function))
    for line in top:
        name, seconds, count = re.fullmatch(r"(\S+) ([0-9.]+) s in ([0-9]+) calls", line).groups()
        assert int(count) == per_function[name][0]
        assert float(seconds) == pytest.approx(per_function[name][1], abs=2e-6)
    listed = [line.split()[0] for line in top]
    slowest = sorted(per_function, key=lambda tag: -per_function[tag][1])[:len(top)]
    assert [per_function[n][1] for n in listed] == pytest.approx(
        [per_function[n][1] for n in slowest], abs=2e-6)

    assert values["traces"] == [f"{RANKS} XML (.trc) in run/"]
    assert values["project"] == ["run/run-probe.proj"]
    assert values["view"] == ["run/run-probe.html"]
    assert ET.parse(run / "run-probe.proj").getroot().get("name") == "run-probe"
    assert (run / "run-probe.html").read_text().lstrip().lower().startswith("<!doctype html")


def test_report_beside_the_project(io_run):
    """The report's page and JSON are written beside the project, and its
    findings close the summary, one line each, as the JSON has them."""
    work, _, result = io_run
    run = work / "run"
    summary = summary_of(result.stderr)
    assert dict(summary)["report"] == "run/run-probe-report.html"
    page = (run / "run-probe-report.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "run-probe.html" in page  # links the view
    document = json.loads((run / "run-probe-report.json").read_text())
    assert document["job"]["ranks"] == RANKS and document["job"]["program"] == "run-probe"
    after = [entry for entry in summary[[label for label, _ in summary].index("report") + 1:]]
    if document["findings"]:
        assert after == [(finding["severity"], f"{finding['id']}: {finding['message']}")
                         for finding in document["findings"]]
    else:
        assert after == [("findings", f"none of {len(document['checked'])} fired")]


def test_stats_count_only_calls_that_move_data(io_run):
    work, _, result = io_run
    assert result.returncode == 0
    calls = top_level_calls(work / "run")
    for tag in ("File_preallocate", "File_set_size", "File_get_size"):
        assert any(t == tag and int(a["size"]) > 0 for _, t, a in calls), f"no {tag} with a size"
    stats = subprocess.run(["/usr/bin/python3", "-m", "hdtrace", "stats",
                            str(work / "run" / "run-probe.proj")], capture_output=True,
                           text=True, timeout=TIMEOUT,
                           env=dict(os.environ, PYTHONPATH=str(buildtree.build_dir() / "python")))
    assert stats.returncode == 0, stats.stderr
    functions = stats.stdout.split("Functions\n", 1)[1].split("\n\n", 1)[0].splitlines()
    header = functions[0].split()
    bytes_of = {row.split()[0]: int(row.split()[header.index("bytes")]) for row in functions[1:]}
    assert bytes_of["File_preallocate"] == 0
    assert bytes_of["File_set_size"] == 0
    assert bytes_of["File_get_size"] == 0
    assert bytes_of["File_write_at"] == RANKS * BYTES_PER_RANK
    assert bytes_of["File_read_at"] == RANKS * BYTES_PER_RANK
    files = stats.stdout.split("Files\n", 1)[1].splitlines()
    assert files[1].split()[1:] == [str(RANKS * BYTES_PER_RANK), str(RANKS),
                                    str(RANKS * BYTES_PER_RANK), str(RANKS)]


def test_a_compact_run_says_so_and_sums_up_the_same_calls(mpi, tmp_path):
    """HDTRACE_FORMAT=compact: the summary names the form and the folder, and
    its figures are those of the traces' XML form (hdtrace convert)."""
    result = hdtrace_run(mpi, ["-n", str(RANKS), "-o", "runc", "--env", "HDTRACE_FORMAT=compact"],
                         [mpi.probe, "io", tmp_path / "data.bin", BYTES_PER_RANK], tmp_path)
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    values = {}
    for label, text in summary_of(result.stderr):
        values.setdefault(label, []).append(text)
    assert values["traces"] == [f"{RANKS} compact (.ctrc) in runc/"]
    run = tmp_path / "runc"
    assert not list(run.glob("*.trc"))
    converted = tmp_path / "xml"
    converted.mkdir()
    for trace in sorted(run.glob("*.ctrc")):
        done = subprocess.run(["/usr/bin/python3", "-m", "hdtrace", "convert", "-q", str(trace),
                               "-o", str(converted / (trace.stem + ".trc"))],
                              capture_output=True, text=True, timeout=TIMEOUT,
                              env=dict(os.environ,
                                       PYTHONPATH=str(buildtree.build_dir() / "python")))
        assert done.returncode == 0, done.stderr
    calls = top_level_calls(converted)
    assert values["calls"] == [str(len(calls))]
    written = sum(int(a["size"]) for _, tag, a in calls if tag == "File_write_at")
    assert written == RANKS * BYTES_PER_RANK
    assert values["file"] == [f"{tmp_path / 'data.bin'}: read {written} bytes in {RANKS} calls, "
                              f"written {written} bytes in {RANKS} calls"]
    assert values["project"] == ["runc/run-probe.proj"]


def test_exit_status_of_a_failing_program_and_its_merge(mpi, tmp_path):
    plain = plain_run(mpi, [mpi.probe, "exit", 3], tmp_path)
    assert plain.returncode == 3
    result = hdtrace_run(mpi, ["-n", str(RANKS), "-o", "run"], [mpi.probe, "exit", 3], tmp_path)
    stderr = result.stderr.decode(errors="replace")
    assert result.returncode == 3, stderr
    assert "the program failed with status 3; merging what was written" in stderr
    assert "summary (incomplete run)" in stderr
    project = ET.parse(tmp_path / "run" / "run-probe.proj").getroot()
    assert len(project.findall("./Topology/Node/Node")) == RANKS


@pytest.mark.parametrize("number", [signal.SIGKILL, signal.SIGSEGV])
def test_program_killed_by_a_signal(mpi, tmp_path, number):
    plain = plain_run(mpi, [mpi.probe, "signal", int(number)], tmp_path)
    assert plain.returncode != 0
    result = hdtrace_run(mpi, ["-n", str(RANKS), "-o", "run"],
                         [mpi.probe, "signal", int(number)], tmp_path)
    stderr = result.stderr.decode(errors="replace")
    assert result.returncode == plain.returncode, stderr
    assert (f"the program failed with status {plain.returncode}; merging what was written"
            in stderr)
    assert (tmp_path / "run" / "run-probe.proj").is_file(), stderr
    summary = summary_of(result.stderr)
    entries = dict(summary)
    assert int(entries["ranks"]) == RANKS
    assert "summary (incomplete run)" in stderr
    # A trace cut off mid-file (SIGKILL: rank 0's; MPICH's Hydra also kills the
    # other ranks with SIGKILL) is read up to the cut, and the summary names it.
    damaged = damaged_traces(tmp_path / "run")
    assert damaged_in_summary(summary) == damaged
    rank0 = tmp_path / "run" / next(t.name for t in (tmp_path / "run").glob("*_0_0.trc"))
    if number == signal.SIGSEGV:
        # The wrapper's handler completes the trace before the default action.
        assert [e.tag for e in ET.parse(rank0).getroot()][-1] == "Barrier"
    else:
        assert rank0.name in damaged


def test_linked_program_is_not_preloaded_and_env_reaches_the_ranks(mpi, tmp_path):
    names = ["LD_PRELOAD", "HDTRACE_DIR", "PROBE_SETTING"]
    result = hdtrace_run(mpi, ["-n", str(RANKS), "--env", "PROBE_SETTING=a b=c"],
                         [mpi.probe_linked, "env", *names], tmp_path)
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    runs = list(tmp_path.glob("hdtrace-run-probe-linked-*"))
    assert len(runs) == 1 and re.fullmatch(r"hdtrace-run-probe-linked-\d{8}-\d{6}", runs[0].name)
    assert result.stdout.decode().splitlines() == [
        "LD_PRELOAD unset", f"HDTRACE_DIR={runs[0]}", "PROBE_SETTING=a b=c"]
    assert len(list(runs[0].glob("run-probe-linked_*.trc"))) == RANKS

    preloaded = hdtrace_run(mpi, ["-n", str(RANKS), "-o", "pre"], [mpi.probe, "env", names[0]],
                            tmp_path)
    assert preloaded.returncode == 0
    library = (mpi.tree / "mpiwrapper" / "libhdtracempi.so").resolve()
    assert preloaded.stdout.decode().splitlines() == [f"LD_PRELOAD={library}"]


def test_missing_launcher_is_a_clear_error(mpi, tmp_path):
    result = hdtrace_run(mpi, ["--launcher", "/nonexistent/mpiexec"], [mpi.probe, "exit", 0],
                         tmp_path)
    assert result.returncode == 127
    assert b"launcher '/nonexistent/mpiexec' not found" in result.stderr
    assert list(tmp_path.iterdir()) == []

    env = mpi_env(PATH="/nonexistent", PYTHONPATH=str(buildtree.build_dir() / "python"))
    result = hdtrace_run(mpi, [], [mpi.probe, "exit", 0], tmp_path, env=env)
    family = {"openmpi": "Open MPI", "mpich": "MPICH"}[mpi.name]
    assert result.returncode == 127
    assert f"no launcher for {family} found on PATH".encode() in result.stderr
    assert b"--launcher" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_another_launcher_gets_n_and_the_env_command(mpi, tmp_path):
    """--launcher: any command taking `-n N PROGRAM ARGS` (here a script standing in for srun)."""
    log = tmp_path / "launcher-args"
    launcher = tmp_path / "my-launcher"
    launcher.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > {log}\nexec {mpi.mpiexec} "$@"\n')
    launcher.chmod(0o755)
    result = hdtrace_run(mpi, ["-n", str(RANKS), "-o", "run", "--launcher", f"{launcher}"],
                         [mpi.probe, "exit", 0], tmp_path)
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    arguments = log.read_text().splitlines()
    library = mpi.library_args[1] if mpi.library_args else str(
        (mpi.tree / "mpiwrapper" / "libhdtracempi.so").resolve())
    assert arguments == ["-n", str(RANKS), arguments[2], f"LD_PRELOAD={library}",
                         f"HDTRACE_DIR={tmp_path / 'run'}", str(mpi.probe), "exit", "0"]
    assert pathlib.Path(arguments[2]).name == "env"
    assert len(list((tmp_path / "run").glob("run-probe_*.trc"))) == RANKS


def test_launcher_killed_by_a_signal_exits_128_plus_n(mpi, tmp_path):
    launcher = tmp_path / "dying-launcher"
    launcher.write_text("#!/bin/sh\nkill -KILL $$\n")
    launcher.chmod(0o755)
    result = hdtrace_run(mpi, ["-o", "run", "--launcher", str(launcher)], [mpi.probe, "exit", 0],
                         tmp_path)
    stderr = result.stderr.decode(errors="replace")
    assert result.returncode == 128 + signal.SIGKILL, stderr
    assert "the launcher was killed by SIGKILL; no trace was written in run" in stderr


def test_a_launcher_that_starts_nothing_gets_a_hint(mpi, tmp_path):
    """As Open MPI's mpiexec refusing more ranks than slots: a failed launch
    without traces points at the launcher, not at the program."""
    result = hdtrace_run(mpi, ["-n", str(RANKS), "-o", "run", "--launcher", "false"],
                         [mpi.probe, "exit", 0], tmp_path)
    stderr = result.stderr.decode(errors="replace")
    assert result.returncode == 1, stderr
    assert "no trace was written in run (did the launcher start the program?" in stderr, stderr
    assert "--launcher 'mpiexec --oversubscribe'" in stderr, stderr
    assert "MPI_Init" not in stderr, stderr


def test_sigterm_to_hdtrace_run_is_passed_on_and_the_run_merged(mpi, tmp_path):
    argv = ["/usr/bin/python3", "-m", "hdtrace", "run", *mpi.library_args, "-n", str(RANKS),
            "-o", "run", "--", str(mpi.probe), "sleep", "60"]
    env = mpi_env(PYTHONPATH=str(buildtree.build_dir() / "python"))
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
                               env=env)
    try:
        assert process.stdout.readline() == b"ready\n"  # every rank is past its barrier
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=TIMEOUT)
    finally:
        process.kill()
    text = stderr.decode(errors="replace")
    assert process.returncode == 128 + signal.SIGTERM, text
    assert "stopped by SIGTERM (the launcher's status: " in text
    assert "merging what was written" in text and "summary (incomplete run)" in text
    # The launcher passes SIGTERM to the ranks, whose wrapper completes the
    # traces, but it may SIGKILL a rank that is not quick enough (under load):
    # then that trace is cut off, and the summary names it.
    summary = summary_of(stderr)
    assert dict(summary)["ranks"] == str(RANKS)
    assert damaged_in_summary(summary) == damaged_traces(tmp_path / "run")


def test_a_filter_is_checked_before_the_launch(mpi, tmp_path):
    """A filter the wrapper would refuse stops hdtrace run before anything
    runs or is created, with the wrapper's own message."""
    rules = tmp_path / "bad.filter"
    rules.write_text("exclude call MPI_Send\nranks 0-3,7-5\n")
    work = tmp_path / "work"
    work.mkdir()
    result = hdtrace_run(mpi, ["--filter", rules], [mpi.probe, "exit", 0], work)
    assert result.returncode == 2
    assert f"--filter: {rules}:2:11: the range '7-5' ends before it starts".encode() \
        in result.stderr, result.stderr
    assert list(work.iterdir()) == []


def test_a_filtered_run_keeps_its_filter_and_leaves_out_its_calls(mpi, tmp_path):
    rules = tmp_path / "io.filter"
    rules.write_text("exclude group mpiio\ninclude call MPI_File_write_at\n")
    result = hdtrace_run(mpi, ["-n", str(RANKS), "-o", "runf", "--filter", rules],
                         [mpi.probe, "io", tmp_path / "data.bin", BYTES_PER_RANK], tmp_path)
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    run = tmp_path / "runf"
    assert (run / "run-probe.filter").read_text() == rules.read_text()
    calls = top_level_calls(run)
    file_calls = {tag for _, tag, _ in calls if tag.startswith("File_")}
    assert file_calls == {"File_write_at"}, file_calls
    written = sum(int(a["size"]) for _, tag, a in calls if tag == "File_write_at")
    assert written == RANKS * BYTES_PER_RANK
