"""Every MPI type constructor, traced linked and preloaded, merged, and read
back: the .info line, the .proj element as the PIOsim tools read it, and the
Python reader each agree with what MPI says of the type (MPI_Type_size_x,
MPI_Type_get_extent_x, MPI_Type_get_true_extent_x), and the project uses
only the element names the tools read in full and passes `hdtrace check`.

Runs on the MPI library of the tree under test; scripts/test runs this file
against the Open MPI tree and the MPICH tree (with HDTRACE_TOOLS_BUILD_DIR
naming the tree that has the merger and the Python package)."""
import json
import os
import subprocess
import xml.etree.ElementTree as ET

import pytest

import tracecheck
from piosim_tools import ToolsRank
from tool_trees import tools_tree_or_fail

RANKS = 3
PROGRAM = "constructors"


def mpi_figures(run, rank):
    """[(label, combiner, size, lb, extent, true lb, true extent)] in commit order."""
    rows = []
    for line in (run.work_dir / f"types_{rank}.txt").read_text().splitlines():
        _, label, combiner, *numbers = line.split()
        rows.append((label, combiner, *(int(n) for n in numbers)))
    return rows


def committed_ids(run, rank):
    trace = tracecheck.parse_trc(tracecheck.trace_base(run.trace_dir, run.program, rank)
                                 .with_suffix(".trc"))
    return [int(e.get("tid")) for e in trace.elements if e.tag == "Type_commit"]


@pytest.fixture(scope="module", params=["linked", "preloaded"])
def merged_run(request, runner, build_dir):
    tools = tools_tree_or_fail(build_dir)
    preloaded = request.param == "preloaded"
    name = f"{PROGRAM}_plain" if preloaded else f"{PROGRAM}_traced"
    run = runner.run(name, RANKS, args=["."], preload=preloaded)
    run.assert_ok()
    merged = subprocess.run([str(tools / "merger" / "project-merger"),
                             str(run.trace_dir / tracecheck.sanitize(run.program))],
                            capture_output=True, text=True, timeout=60)
    assert merged.returncode == 0, merged.stderr
    project = run.trace_dir / f"{tracecheck.sanitize(run.program)}.proj"
    return run, tools, project


def test_the_info_carries_mpis_size_lb_and_extent(merged_run):
    run, _, _ = merged_run
    for rank in range(RANKS):
        info = tracecheck.parse_info(tracecheck.trace_base(run.trace_dir, run.program, rank)
                                     .with_suffix(".info"))
        figures = mpi_figures(run, rank)
        ids = committed_ids(run, rank)
        assert len(ids) == len(figures) == 19
        for (label, combiner, size, lb, extent, _, _), tid in zip(figures, ids):
            line = info.types[tid]
            assert line["combiner"] == f"MPI_COMBINER_{combiner}", label
            assert (line["size"], line["lb"], line["extent"]) == (size, lb, extent), label


def test_the_tools_read_every_type_with_mpis_size_and_extent(merged_run):
    run, _, project = merged_run
    root = ET.parse(project).getroot()
    for rank in range(RANKS):
        (rank_element,) = root.findall(f"Datatypes/Rank[@name='{rank}']")
        tools = ToolsRank(rank_element, f"rank {rank}:")  # fails on any other element name
        for (label, combiner, size, lb, extent, _, _), tid in zip(mpi_figures(run, rank),
                                                                  committed_ids(run, rank)):
            element = tools.elements[str(tid)]
            assert tools.size_and_extent(str(tid)) == (size, extent), (
                f"rank {rank}: {label}: {ET.tostring(element)[:300]}")
            assert element.get("combiner") == combiner, label
            assert [int(element.get(k)) for k in ("mpiSize", "mpiLb", "mpiExtent")] == [
                size, lb, extent], label


def test_the_reader_gives_back_the_mpi_type(merged_run):
    run, tools, project = merged_run
    script = ("import json, sys, hdtrace\n"
              "p = hdtrace.open(sys.argv[1])\n"
              "print(json.dumps({r: {t.id: [t.combiner, t.size, t.lb, t.extent, t.blocks,\n"
              "                             [c.id for c in t.children]]\n"
              "                      for t in types.values()}\n"
              "                  for r, types in p.datatypes.items()}))\n")
    read = subprocess.run(["/usr/bin/python3", "-c", script, str(project)],
                          env=dict(os.environ, PYTHONPATH=str(tools / "python")),
                          capture_output=True, text=True, timeout=60)
    assert read.returncode == 0, read.stderr
    decoded = json.loads(read.stdout)
    for rank in range(RANKS):
        types = decoded[str(rank)]
        for (label, combiner, size, lb, extent, true_lb, true_extent), tid in zip(
                mpi_figures(run, rank), committed_ids(run, rank)):
            got_combiner, got_size, got_lb, got_extent, blocks, children = types[str(tid)]
            assert (got_combiner, got_size, got_lb, got_extent) == (combiner, size, lb, extent), (
                f"rank {rank}: {label}")
            # The byte layout: the data's bytes and span are MPI's.
            assert sum(length for _, length in blocks) == size, label
            assert min(offset for offset, _ in blocks) == true_lb, label
            assert max(offset + length for offset, length in blocks) == true_lb + true_extent, (
                label)
            assert all(str(child) in types for child in children), label
        # Only the program's types are listed: no parts, no markers.
        listed = {int(tid) for tid in types}
        info = tracecheck.parse_info(tracecheck.trace_base(run.trace_dir, run.program, rank)
                                     .with_suffix(".info"))
        assert listed == set(info.types), rank


def test_the_project_passes_hdtrace_check(merged_run):
    run, tools, project = merged_run
    checked = subprocess.run(["/usr/bin/python3", "-m", "hdtrace", "check", str(project)],
                             env=dict(os.environ, PYTHONPATH=str(tools / "python")),
                             capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"{RANKS} trace(s) pass the PIOsim checks" in checked.stdout, checked.stdout
