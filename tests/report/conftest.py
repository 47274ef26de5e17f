"""Puts the build tree's hdtrace package first on sys.path, and gives the
report's tests a way to run the hdtrace command."""
import pathlib
import sys

import pytest

from buildtree import run_hdtrace, use_python_package

PACKAGE_PARENT = use_python_package()
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))


@pytest.fixture
def hdtrace_command():
    return run_hdtrace
