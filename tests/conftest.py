"""Shared pytest fixtures: where the build is, and how to run its programs."""
import os
import pathlib

import pytest

import buildtree

SHARED_DIR = buildtree.REPO_ROOT.parent / "shared"


def shared_fixtures_path() -> pathlib.Path:
    """The folder of the optional fixtures (traces of the original implementation,
    not part of the repository): HDTRACE_SHARED_FIXTURES if set (as for the C++
    tests), else ../shared/fixtures beside the repository."""
    override = os.environ.get("HDTRACE_SHARED_FIXTURES")
    return pathlib.Path(override) if override else SHARED_DIR / "fixtures"


@pytest.fixture(scope="session")
def build_dir() -> pathlib.Path:
    """The CMake build tree (HDTRACE_BUILD_DIR, default build/). Fails, never skips, when absent."""
    path = buildtree.build_dir()
    if not (path / "CMakeCache.txt").is_file():
        pytest.fail(f"no HDTrace build at {path}: run scripts/build first "
                    "or set HDTRACE_BUILD_DIR")
    return path


@pytest.fixture(scope="session")
def fixtures_dir() -> pathlib.Path:
    """The optional fixtures, the traces of the original implementation. Skips
    visibly, saying what is missing and why it is optional, when absent."""
    path = shared_fixtures_path()
    if not path.is_dir():
        pytest.skip(f"{path} is absent: this optional test reads traces of the original "
                    "implementation (the PIOsim project's own tracer), which are not part of the "
                    "repository; set HDTRACE_SHARED_FIXTURES to a folder holding original-traces/ "
                    "to run it")
    return path
