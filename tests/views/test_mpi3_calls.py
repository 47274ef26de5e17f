"""MPI-3.1 calls in the Python tools, on real traced runs: the
test programs nbcollectives.c, neighbors.c and iofile3.c of tests/mpiwrapper
run with libhdtracempi on 4 ranks, are merged by hdtrace.merge and read back.
- stats counts the bytes of the nonblocking collective file calls and of the
  new collectives where the blocking forms are counted;
- the Chrome export and the HTML view show them, in the collective (or file
  I/O) family;
- the OTF2 export records each nonblocking collective as a collective
  operation, like its blocking form.
Expected values come from the programs (iofile3.c: every rank writes and reads
2 x 4 ints) and from the .trc files read with ElementTree.
"""
import collections
import pathlib
import sys
import xml.etree.ElementTree as ElementTree

import pytest

import hdtrace
from hdtrace.export.chrome import chrome_trace
from hdtrace.view.html import page_data
from hdtrace.view.model import build_timeline

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "mpiwrapper"))
import tracecheck  # noqa: E402

RANKS = 4
NEW_COLLECTIVES = {
    "Ibarrier", "Ibcast", "Igather", "Igatherv", "Iscatter", "Iscatterv", "Iallgather",
    "Iallgatherv", "Ialltoall", "Ialltoallv", "Ialltoallw", "Ireduce", "Iallreduce",
    "Ireduce_scatter", "Ireduce_scatter_block", "Iscan", "Iexscan", "Alltoallw",
    "Reduce_scatter_block", "Neighbor_allgather", "Neighbor_allgatherv", "Neighbor_alltoall",
    "Neighbor_alltoallv", "Neighbor_alltoallw", "Ineighbor_allgather", "Ineighbor_allgatherv",
    "Ineighbor_alltoall", "Ineighbor_alltoallv", "Ineighbor_alltoallw"}
NONBLOCKING_FILE_COLLECTIVES = {"File_iread_all", "File_iread_at_all", "File_iwrite_all",
                                "File_iwrite_at_all"}
# Calls OTF2 records as collective operations (export/otf2.py COLLECTIVE_OPS).
OTF2_COLLECTIVES = {"Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather",
                    "Allgatherv", "Alltoall", "Alltoallv", "Alltoallw", "Reduce", "Allreduce",
                    "Reduce_scatter", "Reduce_scatter_block", "Scan", "Exscan"}
OTF2_COLLECTIVES |= {"I" + name[0].lower() + name[1:] for name in OTF2_COLLECTIVES}


def _traced_run(build_dir, base, name):
    program = build_dir / "tests" / "mpiwrapper" / f"{name}_traced"
    if not program.is_file():
        pytest.fail(f"{program} is missing: build the tests (scripts/build)")
    traces = base / name
    traces.mkdir()
    result = tracecheck.mpiexec(program, RANKS, tracecheck.mpi_env(HDTRACE_DIR=traces), traces)
    assert result.returncode == 0, result.stderr
    merged = hdtrace.merge(traces / f"{name}-traced")
    return hdtrace.open(merged["output_path"]), traces


@pytest.fixture(scope="module")
def runs(build_dir, tmp_path_factory):
    base = tmp_path_factory.mktemp("mpi3")
    return {name: _traced_run(build_dir, base, name)
            for name in ("nbcollectives", "neighbors", "iofile3")}


def _elements(traces):
    """Every call element of every .trc of the run: the top-level ones and
    those inside <Nested> blocks (the POSIX calls the MPI library made)."""
    found = []

    def calls(parent):
        for element in parent:
            if element.tag == "Nested":
                calls(element)
            else:
                found.append(element)
    for path in sorted(traces.glob("*.trc")):
        calls(ElementTree.parse(path).getroot())
    return found


def test_stats_count_nonblocking_collective_file_bytes(runs):
    project, traces = runs["iofile3"]
    result = hdtrace.stats(project)
    files = {row["file"]: row for row in result.files}
    assert set(files) == {"iofile3.dat"}, files
    row = files["iofile3.dat"]
    # Each rank: File_iwrite_at_all and File_iwrite_all of 4 ints, the same read back.
    assert (row["bytes_written"], row["writes"]) == (RANKS * 2 * 16, RANKS * 2)
    assert (row["bytes_read"], row["reads"]) == (RANKS * 2 * 16, RANKS * 2)
    functions = {row["name"]: row for row in result.functions}
    for name in NONBLOCKING_FILE_COLLECTIVES:
        assert (functions[name]["calls"], functions[name]["bytes"]) == (RANKS, RANKS * 16), name


@pytest.mark.parametrize("program", ["nbcollectives", "neighbors"])
def test_stats_count_the_bytes_of_the_new_collectives(runs, program):
    project, traces = runs[program]
    calls, sizes = collections.Counter(), collections.Counter()
    for element in _elements(traces):
        calls[element.tag] += 1
        # The reader's size of a call: size, else sendSize, else recvSize (Scatterv).
        size = element.get("size", element.get("sendSize", element.get("recvSize", 0)))
        sizes[element.tag] += max(int(size), 0)
    functions = {row["name"]: row for row in hdtrace.stats(project).functions}
    new = NEW_COLLECTIVES & set(calls)
    assert len(new) >= (5 if program == "neighbors" else 10), sorted(calls)
    for name in new:
        assert functions[name]["calls"] == calls[name], name
        assert functions[name]["bytes"] == sizes[name], name
    with_data = {name for name in new if sizes[name] > 0}
    moving = ({"Neighbor_allgather", "Ineighbor_alltoall"} if program == "neighbors"
              else {"Iallreduce", "Ibcast", "Igather", "Ialltoall"})
    assert moving <= with_data, sorted(with_data)


@pytest.mark.parametrize("program", ["nbcollectives", "neighbors", "iofile3"])
def test_chrome_export_and_html_view_show_the_new_calls(runs, program):
    project, traces = runs[program]
    timeline = build_timeline(project)
    expected = collections.Counter(element.tag for element in _elements(traces))
    shown = collections.Counter(event["name"] for event in chrome_trace(timeline)["traceEvents"]
                                if event["ph"] == "X")
    assert shown == expected
    categories = {event["name"]: event["cat"] for event in chrome_trace(timeline)["traceEvents"]
                  if event["ph"] == "X"}
    data = page_data(timeline)
    view_family = {name: data["families"][family]
                   for name, family in zip(data["names"], data["nameFamily"])}
    for name in expected:
        if name in NEW_COLLECTIVES:
            want = "collective"
        elif name in NONBLOCKING_FILE_COLLECTIVES or name.startswith("File_"):
            want = "file I/O"
        else:
            continue
        assert categories[name] == want, name
        assert view_family[name] == want, name


@pytest.mark.parametrize("program", ["nbcollectives", "neighbors"])
def test_otf2_records_nonblocking_collectives_as_collectives(runs, program, tmp_path):
    from hdtrace.export.otf2 import write_otf2
    project, traces = runs[program]
    counts = write_otf2(build_timeline(project), project, tmp_path / "archive")
    elements = _elements(traces)
    collectives = sum(1 for element in elements if element.tag in OTF2_COLLECTIVES)
    assert counts["MPI_COLLECTIVE_BEGIN"] == counts["MPI_COLLECTIVE_END"] == collectives
    assert counts["ENTER"] == counts["LEAVE"] == len(elements)
