"""Shared pytest fixtures: where the build is, and how to run its programs."""
import os
import pathlib

import pytest

import buildtree

SHARED_DIR = buildtree.REPO_ROOT.parent / "shared"


def shared_fixtures_path() -> pathlib.Path:
    """HDTRACE_SHARED_FIXTURES if set (as for the C++ tests: a worktree away from
    ../shared), else ../shared/fixtures."""
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
    """../shared/fixtures (or HDTRACE_SHARED_FIXTURES), the traces of the original
    implementation. Skips visibly when absent."""
    path = shared_fixtures_path()
    if not path.is_dir():
        pytest.skip(f"{path} is absent (it only exists in the development workplace)")
    return path
