"""Puts the hdtrace package of the build tree first on sys.path (as tests/python does),
and gives the tests a generated run and a way to run the hdtrace command."""
import os
import pathlib
import subprocess
import sys

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD_DIR = pathlib.Path(os.environ.get("HDTRACE_BUILD_DIR", REPO_ROOT / "build"))
PACKAGE_PARENT = BUILD_DIR / "python"
if not (PACKAGE_PARENT / "hdtrace" / "__init__.py").is_file():
    raise RuntimeError(f"no hdtrace package in {PACKAGE_PARENT}: build with "
                       "HDTRACE_BUILD_PYTHON=ON (scripts/build) or set HDTRACE_BUILD_DIR")
sys.path.insert(0, str(PACKAGE_PARENT))
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))

import tracegen  # noqa: E402

PARTDIFF = ("original-traces", "partdiff", "partdiff-par.proj")


@pytest.fixture
def generated_run(tmp_path):
    """A run of 4 ranks (rank 0 with a second thread), 2 iterations, nested calls."""
    return tracegen.generate(tmp_path / "run", ranks=4, iterations=2)


@pytest.fixture
def partdiff_project(fixtures_dir):
    path = fixtures_dir.joinpath(*PARTDIFF)
    if not path.is_file():
        pytest.skip(f"{path} is absent")
    return path


def run_hdtrace(*arguments, timeout=120):
    """Runs `python3 -m hdtrace ARGUMENTS` against the build tree's package."""
    environment = dict(os.environ, PYTHONPATH=str(PACKAGE_PARENT))
    return subprocess.run([sys.executable, "-m", "hdtrace", *map(str, arguments)],
                          capture_output=True, text=True, timeout=timeout, env=environment)


@pytest.fixture
def hdtrace_command():
    return run_hdtrace
