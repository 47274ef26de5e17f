"""Puts the build tree's hdtrace package first on sys.path, and gives the
report's tests a way to run the hdtrace command."""
import os
import pathlib
import subprocess
import sys

import pytest

from buildtree import use_python_package

PACKAGE_PARENT = use_python_package()
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))


def run_hdtrace(*arguments, timeout=300):
    """Runs `python3 -m hdtrace ARGUMENTS` against the build tree's package."""
    environment = dict(os.environ, PYTHONPATH=str(PACKAGE_PARENT))
    return subprocess.run([sys.executable, "-m", "hdtrace", *map(str, arguments)],
                          capture_output=True, text=True, timeout=timeout, env=environment)


@pytest.fixture
def hdtrace_command():
    return run_hdtrace
