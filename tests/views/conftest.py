"""Puts the hdtrace package of the build tree first on sys.path (as tests/python does),
and gives the tests a generated run and a way to run the hdtrace command."""
import pathlib
import sys

import pytest

from buildtree import run_hdtrace, use_python_package

PACKAGE_PARENT = use_python_package()
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
        pytest.skip(f"{path} is absent from the optional fixtures (traces of the original "
                    "implementation, not part of the repository)")
    return path


@pytest.fixture
def hdtrace_command():
    return run_hdtrace
