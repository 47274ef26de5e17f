"""The POSIX layer's views on a real run: programs/posix-mix.c (an MPI-IO
collective write, pwrite on a file each rank opened itself, fwrite on rank
0) built with the MPI library's compiler and traced on 4 ranks by
`hdtrace run` (libhdtracempi.so preloaded).

Expected values come from the program (its sizes, mirrored below) and from
the files it left: the POSIX bytes written to a file are its size, the
accesses are the offsets and sizes the program wrote, and every POSIX
element of the .trc files (read with ElementTree) is in the view and the
Chrome export."""
import collections
import json
import pathlib
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest
from buildtree import cache_value

import hdtrace
from hdtrace import io_layers, plot_io
from hdtrace.calls import POSIX_CALLS

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "mpiwrapper"))
import tracecheck  # noqa: E402

PROGRAM = pathlib.Path(__file__).resolve().parent / "programs" / "posix-mix.c"
RANKS = 4
# posix-mix.c's sizes.
BLOCK, PWRITES, PIECE, STRIDE, FWRITES, RECORD = 65536, 5, 100, 1000, 7, 33
TIMEOUT = 300


@pytest.fixture(scope="module")
def run(build_dir, tmp_path_factory):
    work = tmp_path_factory.mktemp("posix-mix")
    program, data = work / "posix-mix", work / "data"
    compiler = cache_value(build_dir, "MPI_C_COMPILER")
    built = subprocess.run([compiler, "-o", str(program), str(PROGRAM)], capture_output=True,
                           text=True, timeout=TIMEOUT)
    assert built.returncode == 0, built.stderr
    data.mkdir()
    result = subprocess.run(
        [sys.executable, "-m", "hdtrace", "run", "-n", str(RANKS), "-o", "run", "--",
         str(program), str(data)],
        cwd=work, capture_output=True, text=True, timeout=TIMEOUT,
        env=tracecheck.mpi_env(PYTHONPATH=build_dir / "python"))
    assert result.returncode == 0, result.stderr
    project = work / "run" / "posix-mix.proj"
    assert project.is_file(), result.stderr
    return project, data


def files_of_rank(project):
    """{(rank, fid): file name} from the .info files' File lines beside the
    traces (a POSIX-only file has its name there only)."""
    names = {}
    for info in project.parent.rglob("*.info"):
        rank = int(info.stem.split("_")[-2])
        for line in info.read_text(errors="replace").splitlines():
            found = re.match(r"""File name="(.*)" Size=\d+ id=(\d+)$""", line)
            if found:
                names[(rank, int(found[2]))] = pathlib.Path(found[1]).name
    return names


def posix_elements(project):
    """[(rank, tag, attributes, depth)] of every POSIX element of the traces."""
    found = []
    for trace in project.parent.rglob("*.trc"):
        rank = int(trace.stem.split("_")[-2])

        def walk(element, depth):
            for child in element:
                if child.tag == "Nested":
                    walk(child, depth + 1)
                elif child.tag in POSIX_CALLS:
                    found.append((rank, child.tag, dict(child.attrib), depth))
        walk(ElementTree.parse(trace).getroot(), 0)
    return found


def writes_by_file(project):
    names = files_of_rank(project)
    accesses = collections.defaultdict(list)
    for access in io_layers.project_accesses(hdtrace.open(project), ("POSIX",)):
        if access.op == "write":
            accesses[names[(access.rank, access.fid)]].append(access)
    return accesses


def test_posix_bytes_are_the_bytes_the_run_wrote(run):
    project, data = run
    stats = hdtrace.stats(hdtrace.open(project))
    layers = {(row["layer"], int(row["rank"])): tuple(row)[2:] for row in stats.layers}
    # The MPI library writes collective.dat whole (contiguous blocks, every
    # byte once); the program the rest.
    assert (data / "collective.dat").stat().st_size == RANKS * BLOCK
    assert (data / "fwrite.dat").stat().st_size == FWRITES * RECORD
    assert layers[("MPI", -1)] == (0, 0, RANKS * BLOCK, RANKS)
    posix_total = layers[("POSIX", -1)]
    assert posix_total[2] == RANKS * BLOCK + RANKS * PWRITES * PIECE + FWRITES * RECORD
    by_file = writes_by_file(project)
    assert sorted(by_file) == sorted(["collective.dat", "fwrite.dat"] +
                                     [f"pwrite-{rank}.dat" for rank in range(RANKS)])
    assert sum(a.done for a in by_file["collective.dat"]) == RANKS * BLOCK
    for rank in range(RANKS):
        assert sum(a.done for a in by_file[f"pwrite-{rank}.dat"]) == PWRITES * PIECE
        assert layers[("POSIX", rank)][2] == sum(
            a.done for accesses in by_file.values() for a in accesses if a.rank == rank)
    assert sum(a.done for a in by_file["fwrite.dat"]) == FWRITES * RECORD


def test_the_collective_writes_are_nested_in_the_mpi_call(run):
    project, _ = run
    by_file = writes_by_file(project)
    collective = by_file["collective.dat"]
    assert collective and all(a.depth >= 1 for a in collective)
    assert {a.parent for a in collective if a.depth == 1} <= {"File_write_at_all", "File_close",
                                                               "File_open"}
    # Together they cover the file, each byte once.
    covered = sorted((a.offset, a.offset + a.done) for a in collective)
    position = 0
    for start, end in covered:
        assert start == position
        position = end
    assert position == RANKS * BLOCK


def test_plot_io_has_the_offsets_the_program_wrote(run):
    project, _ = run
    names = files_of_rank(project)
    io = plot_io.collect_accesses(hdtrace.open(project), ("POSIX",))

    def file_of(access):  # a file only POSIX calls opened is named by its .info
        if access.file.startswith("fid "):
            return names[(access.rank, int(access.file.split()[1]))]
        return pathlib.Path(access.file).name
    got = collections.Counter((a.rank, file_of(a), a.offset, a.size, a.call)
                              for a in io.accesses if file_of(a) != "collective.dat")
    expected = collections.Counter()
    for rank in range(RANKS):
        for k in range(PWRITES):
            expected[(rank, f"pwrite-{rank}.dat", k * STRIDE, PIECE, "pwrite")] += 1
    for k in range(FWRITES):
        expected[(0, "fwrite.dat", k * RECORD, RECORD, "fwrite")] += 1
    assert got == expected


def test_view_and_chrome_export_hold_every_posix_call(run, hdtrace_command, tmp_path):
    project, _ = run
    elements = posix_elements(project)
    assert elements and any(depth for *_, depth in elements)
    output = tmp_path / "trace.json"
    result = hdtrace_command("export", "--chrome", output, project)
    assert result.returncode == 0, result.stderr
    events = json.loads(output.read_text())["traceEvents"]
    got = collections.Counter((event["pid"], event["name"], event["args"].get("depth", 0))
                              for event in events
                              if event["ph"] == "X" and event["cat"] == "POSIX I/O")
    assert got == collections.Counter((rank, tag, depth) for rank, tag, _, depth in elements)
    page = tmp_path / "view.html"
    result = hdtrace_command("view", "-o", page, project)
    assert result.returncode == 0, result.stderr
    data = json.loads(re.search(r"window\.HDTRACE_DATA = (\{.*?\});?\n", page.read_text(),
                                re.DOTALL)[1])
    posix = {data["names"].index(name) for name in POSIX_CALLS if name in data["names"]}
    shown = collections.Counter(depth for code, depth in zip(data["calls"]["name"],
                                                             data["calls"]["depth"])
                                if code in posix)
    assert shown == collections.Counter(depth for *_, depth in elements)
    assert data["nestedShown"] is True


def test_check_passes(run, hdtrace_command):
    project, _ = run
    result = hdtrace_command("check", project)
    assert result.returncode == 0, result.stdout + result.stderr
