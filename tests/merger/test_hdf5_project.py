"""Parallel HDF5 end to end: a program writing a chunked and a strided
dataset collectively, traced with libhdtracempi.so preloaded, merged; the
project passes `hdtrace check`, every type HDF5 made is read by the PIOsim
tools in full, with the size and extent MPI reported in the .info."""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from buildtree import require_built

from piosim_tools import ToolsRank

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "mpiwrapper"))
import tracecheck  # noqa: E402

RANKS = 4
PROGRAM = "hdf5-datasets"


@pytest.fixture(scope="module")
def hdf5_run(build_dir, tmp_path_factory):
    program = build_dir / "tests" / "merger" / "hdf5_datasets"
    preload = build_dir / "mpiwrapper" / "libhdtracempi.so"
    merger = build_dir / "merger" / "project-merger"
    require_built(program, preload, merger,
                  how="the Open MPI tree builds it with parallel HDF5 (libhdf5-openmpi-dev, "
                      "scripts/install-deps)")
    base = tmp_path_factory.mktemp("hdf5")
    traces = base / "traces"
    traces.mkdir()
    env = tracecheck.mpi_env(HDTRACE_DIR=traces, LD_PRELOAD=str(preload))
    result = subprocess.run(["mpiexec", "-n", str(RANKS), "--oversubscribe", str(program),
                             str(base / "data.h5")], env=env, cwd=base, capture_output=True,
                            text=True, timeout=180)
    assert result.returncode == 0 and result.stdout == "ok\n", result.stdout + result.stderr
    merged = subprocess.run([str(merger), str(traces / PROGRAM)], capture_output=True,
                            text=True, timeout=60)
    assert merged.returncode == 0, merged.stderr
    return traces


def test_every_type_hdf5_makes_loads_in_the_tools_with_mpis_figures(hdf5_run):
    root = ET.parse(hdf5_run / f"{PROGRAM}.proj").getroot()
    combiners = set()
    for rank in range(RANKS):
        (rank_element,) = root.findall(f"Datatypes/Rank[@name='{rank}']")
        tools = ToolsRank(rank_element, f"rank {rank}:")
        info = tracecheck.parse_info(tracecheck.trace_base(hdf5_run, PROGRAM, rank)
                                     .with_suffix(".info"))
        derived = [tid for tid, line in info.types.items()
                   if line["combiner"] != "MPI_COMBINER_NAMED"]
        assert derived, f"rank {rank}: HDF5 made no derived type"
        for tid in derived:
            line = info.types[tid]
            assert tools.size_and_extent(str(tid)) == (line["size"], line["extent"]), (
                f"rank {rank}: type {tid} {line['combiner']}")
            combiners.add(line["combiner"])
    # HDF5's own kinds of type, which the tools used to refuse, are among them.
    assert combiners & {"MPI_COMBINER_RESIZED", "MPI_COMBINER_HVECTOR",
                        "MPI_COMBINER_HINDEXED"}, combiners


def test_the_hdf5_project_passes_hdtrace_check(hdf5_run, build_dir):
    checked = subprocess.run([sys.executable, "-m", "hdtrace", "check",
                              str(hdf5_run / f"{PROGRAM}.proj")],
                             env=dict(os.environ, PYTHONPATH=str(build_dir / "python")),
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"{RANKS} trace(s) pass the PIOsim checks" in checked.stdout, checked.stdout


def test_the_posix_writes_beneath_hdf5s_mpi_io_fill_the_file(hdf5_run):
    """The POSIX layer under parallel HDF5 (OMPIO beneath it): every write of
    data.h5 is made inside an MPI write call; for each collective write, the
    ranks' POSIX writes hold at least the bytes the ranks asked MPI to write,
    exactly those bytes when they left no hole (the chunked dataset), and
    more only as read-modify-write (a pread of the extent first); the file
    ends at the last byte written or the size an ftruncate set."""
    writes = {"write", "pwrite", "writev", "pwritev"}
    asked, written, sieved = {}, {}, {}
    extents, truncations = [], []
    for rank in range(RANKS):
        base = tracecheck.trace_base(hdf5_run, PROGRAM, rank)
        trace = tracecheck.parse_trc(base.with_suffix(".trc"))
        info = tracecheck.parse_info(base.with_suffix(".info"))
        data_fids = {str(fid) for fid, entry in info.files.items()
                     if entry["name"].endswith("/data.h5")}
        assert len(data_fids) == 1, info.files
        pending, number = [], {}
        for element in trace.all_elements:
            if element.tag == "Nested":
                pending.append(element)
                continue
            inner = [e for block in pending for e in block.iter()
                     if e.tag in tracecheck.POSIX_CALLS and e.attrib.get("fid") in data_fids]
            pending = []
            if element.tag in tracecheck.POSIX_CALLS:
                assert not (element.tag in writes and element.attrib["fid"] in data_fids), (
                    f"rank {rank}: a write of data.h5 outside MPI: {element.attrib}")
                continue
            truncations += [int(e.attrib["size"]) for e in inner if e.tag == "ftruncate"]
            if not element.tag.startswith("File_write"):
                assert not [e for e in inner if e.tag in writes], (element.tag, inner)
                continue
            key = (element.tag, number.setdefault(element.tag, 0))
            number[element.tag] += 1
            asked[key] = asked.get(key, 0) + int(element.attrib["size"])
            for e in inner:
                if e.tag in writes:
                    written[key] = written.get(key, 0) + int(e.attrib["size"])
                    offset = int(e.attrib["offset"])
                    extents.append((offset, offset + int(e.attrib["size"])))
                elif e.tag == "pread":
                    sieved[key] = True
    collectives = [key for key in asked if key[0] == "File_write_at_all"]
    assert collectives, asked
    for key in asked:
        assert written.get(key, 0) >= asked[key], (key, asked[key], written.get(key))
        if written.get(key, 0) > asked[key]:
            assert sieved.get(key), f"{key}: more written than asked without reading first"
    assert any(written.get(key) == asked[key] for key in collectives), (asked, written)
    # HDF5 leaves free space unwritten and sets the file's size at the end
    # (MPI_File_set_size, an ftruncate beneath): the file ends at the last
    # byte written or at the size it was truncated to.
    size = (hdf5_run.parent / "data.h5").stat().st_size
    assert max([end for _, end in extents] + truncations) == size
