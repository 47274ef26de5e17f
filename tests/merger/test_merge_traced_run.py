"""End to end: trace programs/merge_e2e.c with libhdtracempi, merge the run
with project-merger, and check the .proj against what the program did: for
every communicator the members and their local ranks (and cids from the
trace), for every type its size, lower bound and extent computed from the
Appendix B elements alone."""
import os
import pathlib
import subprocess
import xml.etree.ElementTree as ET

import pytest

from buildtree import require_built

from piosim_tools import ToolsRank

RANKS = 4
PROGRAM = "merge-e2e"  # the wrapper sanitises merge_e2e: '_' separates the levels
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_rmaps_base_oversubscribe": "1"}

# Sizes of the named types the program uses (x86-64, Open MPI and MPICH alike).
NAMED_SIZES = {"MPI_INT": 4, "MPI_DOUBLE": 8, "MPI_CHAR": 1, "MPI_FLOAT": 4, "MPI_SHORT": 2,
               "MPI_BYTE": 1}


@pytest.fixture(scope="module")
def traced_run(build_dir, tmp_path_factory):
    program = build_dir / "tests" / "merger" / "merge_e2e"
    merger = build_dir / "merger" / "project-merger"
    require_built(program, merger,
                  how="build with HDTRACE_BUILD_MPI=ON and HDTRACE_BUILD_MERGER=ON (scripts/build)")
    base = tmp_path_factory.mktemp("merge_e2e")
    traces = base / "traces"
    expected = base / "expected"
    traces.mkdir()
    expected.mkdir()
    env = dict(os.environ, HDTRACE_DIR=str(traces), **MPI_ENV)
    result = subprocess.run(["mpiexec", "-n", str(RANKS), "--oversubscribe", str(program),
                             str(expected)], env=env, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, f"merge_e2e failed:\n{result.stdout}\n{result.stderr}"
    merged = subprocess.run([str(merger), str(traces / PROGRAM)], capture_output=True,
                            text=True, timeout=60)
    assert merged.returncode == 0, merged.stderr
    assert merged.stderr == "", merged.stderr
    return traces, expected


def expectations(expected: pathlib.Path, rank: int):
    comms, types = [], []
    for line in (expected / f"expect_{rank}.txt").read_text().splitlines():
        kind, label, *rest = line.split()
        if kind == "comm":
            members = sorted(tuple(int(x) for x in member.split(":")) for member in rest)
            comms.append((label, members))
        else:
            types.append((label, *(int(x) for x in rest)))
    return comms, types


def trace_of(traces: pathlib.Path, rank: int) -> ET.Element:
    found = list(traces.glob(f"{PROGRAM}_*_{rank}_0.trc"))
    assert len(found) == 1, found
    return ET.parse(found[0]).getroot()


def test_project_sections(traced_run):
    traces, _ = traced_run
    root = ET.parse(traces / f"{PROGRAM}.proj").getroot()
    assert root.tag == "Application" and root.get("name") == PROGRAM
    assert [child.tag for child in root] == ["Description", "FileList", "Topology",
                                            "CommunicatorList", "Datatypes"]
    ranks = sorted(int(rank.get("name")) for rank in root.findall("Topology/Node/Node"))
    assert ranks == list(range(RANKS))
    assert sorted(int(r.get("name")) for r in root.findall("Datatypes/Rank")) == list(range(RANKS))


def test_every_communicator_has_its_members_and_ranks(traced_run):
    traces, expected = traced_run
    root = ET.parse(traces / f"{PROGRAM}.proj").getroot()
    communicators = root.findall("CommunicatorList/Communicator")
    assert sum(1 for c in communicators if c.get("name") == "WORLD") == 1
    # (global rank, cid) -> the communicator element holding that member
    by_member = {}
    for index, communicator in enumerate(communicators):
        globals_ = [int(r.get("global")) for r in communicator.findall("Rank")]
        assert globals_ == sorted(globals_), "members in ascending global rank"
        for member in communicator.findall("Rank"):
            assert member.get("cid") is not None, "every member has a cid"
            if member.get("cid") != "-1":
                key = (int(member.get("global")), int(member.get("cid")))
                assert key not in by_member, f"rank/cid {key} in two communicators"
                by_member[key] = index
    label_of = {}
    for rank in range(RANKS):
        comms, _ = expectations(expected, rank)
        barriers = [int(e.get("cid")) for e in trace_of(traces, rank) if e.tag == "Barrier"]
        assert len(barriers) == len(comms), f"rank {rank}: a Barrier per communicator"
        for (label, members), cid in zip(comms, barriers):
            assert (rank, cid) in by_member, f"rank {rank}: {label} (cid {cid}) is not merged"
            communicator = communicators[by_member[(rank, cid)]]
            written = sorted((int(r.get("global")), int(r.get("local")))
                             for r in communicator.findall("Rank"))
            assert written == members, f"rank {rank}: {label}"
            if label == "world":
                assert communicator.get("name") == "WORLD"
            label_of.setdefault(label, set()).add(by_member[(rank, cid)])
    # One element per distinct communicator: each label is one element, and
    # different labels (world and its dup, the two equal splits) are apart.
    for label in ("world", "dup", "cart", "partial", "selfdup"):
        assert len(label_of[label]) == 1, label
    assert len(label_of["splitA"]) == 2 and len(label_of["splitB"]) == 2  # odd and even
    assert len(label_of["inter"]) == 1
    assert label_of["splitA"].isdisjoint(label_of["splitB"])
    assert label_of["world"] != label_of["dup"]
    # The rank outside 'partial' is not a member of it.
    partial = communicators[next(iter(label_of["partial"]))]
    assert RANKS - 1 not in [int(r.get("global")) for r in partial.findall("Rank")]


def test_every_type_loads_in_the_tools_with_mpis_size_and_extent(traced_run):
    traces, expected = traced_run
    root = ET.parse(traces / f"{PROGRAM}.proj").getroot()
    for rank in range(RANKS):
        rank_elements = root.findall(f"Datatypes/Rank[@name='{rank}']")
        assert len(rank_elements) == 1
        tools = ToolsRank(rank_elements[0], f"rank {rank}:")
        _, types = expectations(expected, rank)
        commits = [e.get("tid") for e in trace_of(traces, rank) if e.tag == "Type_commit"]
        assert len(commits) == len(types) == 14
        for (label, size, lb, extent), tid in zip(types, commits):
            element = tools.elements[tid]
            assert tools.size_and_extent(tid) == (size, extent), (
                f"rank {rank}: {label} <{element.tag}>")
            mpi = tuple(int(element.get(name)) for name in ("mpiSize", "mpiLb", "mpiExtent"))
            assert mpi == (size, lb, extent), f"rank {rank}: {label}"
        combiners = {tools.elements[tid].get("combiner") for tid in commits}
        assert combiners == {"CONTIGUOUS", "VECTOR", "HVECTOR", "INDEXED", "HINDEXED",
                             "INDEXED_BLOCK", "HINDEXED_BLOCK", "STRUCT", "RESIZED", "DUP",
                             "SUBARRAY", "DARRAY"}
