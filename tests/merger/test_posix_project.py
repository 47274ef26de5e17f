"""A run with the POSIX layer merged: files opened through the C library
get their File lines like MPI files, the file both MPI-IO and open() opened
is one file of the project, every rank's own files are listed, and the
project still passes `hdtrace check` (what the PIOsim tools need)."""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from buildtree import require_built

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "mpiwrapper"))
import tracecheck  # noqa: E402

RANKS = 2
PROGRAM = "posix-mixed-traced"


@pytest.fixture(scope="module")
def merged_run(build_dir, tmp_path_factory):
    program = build_dir / "tests" / "mpiwrapper" / "posix_mixed_traced"
    merger = build_dir / "merger" / "project-merger"
    require_built(program, merger,
                  how="build with HDTRACE_BUILD_MPI=ON and HDTRACE_BUILD_MERGER=ON (scripts/build)")
    base = tmp_path_factory.mktemp("posix_project")
    traces = base / "traces"
    traces.mkdir()
    env = tracecheck.mpi_env(HDTRACE_DIR=traces, OMPI_MCA_io="romio321")
    result = subprocess.run(["mpiexec", "-n", str(RANKS), "--oversubscribe", str(program)],
                            env=env, cwd=base, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    merged = subprocess.run([str(merger), str(traces / PROGRAM)], capture_output=True,
                            text=True, timeout=60)
    assert merged.returncode == 0 and merged.stderr == "", merged.stderr
    return traces


def test_the_project_lists_every_file_once(merged_run):
    root = ET.parse(merged_run / f"{PROGRAM}.proj").getroot()
    names = [element.attrib["name"] for element in root.findall("FileList/File")]
    expected = {"mixed_mpi.dat"} | {f"mixed_fd_{rank}.dat" for rank in range(RANKS)} | {
        f"mixed_stdio_{rank}.txt" for rank in range(RANKS)}
    assert sorted(names) == sorted(expected)
    for rank in range(RANKS):
        base = tracecheck.trace_base(merged_run, PROGRAM, rank)
        info = tracecheck.parse_info(base.with_suffix(".info"))
        trace = tracecheck.parse_trc(base.with_suffix(".trc"))
        by_name = {entry["name"]: fid for fid, entry in info.files.items()}
        assert sorted(by_name) == sorted(
            ["mixed_mpi.dat", f"mixed_fd_{rank}.dat", f"mixed_stdio_{rank}.txt"])
        # MPI-IO's and the C library's calls on the shared file: one id
        fids = {element.attrib["fid"] for element in trace.root.iter()
                if "fid" in element.attrib and element.attrib["fid"] != "-1"}
        assert fids == {str(fid) for fid in by_name.values()}


def test_the_project_passes_hdtrace_check(merged_run, build_dir):
    checked = subprocess.run([sys.executable, "-m", "hdtrace", "check",
                              str(merged_run / f"{PROGRAM}.proj")],
                             env=dict(os.environ, PYTHONPATH=str(build_dir / "python")),
                             capture_output=True, text=True, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"{RANKS} trace(s) pass the PIOsim checks" in checked.stdout, checked.stdout
