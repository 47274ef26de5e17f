"""scripts/demo as README.md tells a user to run it, with nothing of the
developer's environment: only PATH and HOME (no OMPI_MCA_* settings, so the
3 ranks of the demo run on a machine of 2 cores only if the demo says
--oversubscribe itself). It runs on the suite's own build tree, configured
as that tree already is, so that its build step changes nothing; every file
it promises is checked, and both projects are read back.
"""
import os
import pathlib
import subprocess
import xml.etree.ElementTree as ET

import pytest

import buildtree

REPO = pathlib.Path(__file__).resolve().parents[2]
RANKS = 3


def ranks_of(project: pathlib.Path):
    root = ET.parse(project).getroot()  # well-formed, or the test fails here
    assert root.tag == "Application", f"{project}: root <{root.tag}>"
    return [node.get("name") for node in root.findall("./Topology/Node/Node")]


def test_demo_in_an_empty_environment(build_dir, tmp_path):
    if buildtree.cache_value(build_dir, "HDTRACE_MPI_IMPL") not in ("", "openmpi"):
        pytest.fail(f"{build_dir} is not the Open MPI tree the demo builds")
    out = tmp_path / "demo"
    env = {"HOME": os.environ.get("HOME", str(tmp_path)), "PATH": os.environ["PATH"],
           "HDTRACE_BUILD_DIR": str(build_dir), "HDTRACE_DEMO_DIR": str(out),
           # scripts/build passes HDTRACE_WERROR on: the tree's own value
           # keeps the configuration, so nothing is rebuilt.
           "HDTRACE_WERROR": buildtree.cache_value(build_dir, "HDTRACE_WERROR"),
           "LC_ALL": "C.UTF-8"}
    result = subprocess.run(["bash", str(REPO / "scripts" / "demo")], env=env, cwd=tmp_path,
                            capture_output=True, text=True, errors="replace", timeout=900)
    assert result.returncode == 0, (f"scripts/demo exited with {result.returncode}\n"
                                    f"stdout (end):\n{result.stdout[-4000:]}\n"
                                    f"stderr (end):\n{result.stderr[-4000:]}")
    assert "Building" not in result.stdout, "the demo's build step rebuilt the suite's tree"

    states = list(out.glob("hdtrace-states_*.trc"))
    assert len(states) == 1 and ET.parse(states[0]).getroot().tag == "Program"

    mpi = out / "mpi"
    for rank in range(RANKS):
        traces = list(mpi.glob(f"mpi-io-example-traced_*_{rank}_0.trc"))
        assert len(traces) == 1, sorted(p.name for p in mpi.iterdir())
        assert ET.parse(traces[0]).getroot().tag == "Program"
        assert traces[0].with_suffix(".info").is_file()
    assert ranks_of(mpi / "mpi-io-example-traced.proj") == [str(r) for r in range(RANKS)]
    assert (mpi / "mpi-io-example-traced.html").is_file()

    run = out / "run"
    assert ranks_of(run / "mpi-io-example.proj") == [str(r) for r in range(RANKS)]
    assert (run / "mpi-io-example.html").is_file()
    # the summary hdtrace run prints, and hdtrace check's verdict
    assert "ranks" in result.stderr and "mpi-io-example.dat" in result.stdout + result.stderr
