"""Shared pytest fixtures: where the build is, and how to run its programs."""
import os
import pathlib

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parent.parent
SHARED_DIR = REPO_ROOT.parent / "shared"


@pytest.fixture(scope="session")
def build_dir() -> pathlib.Path:
    """The CMake build tree (HDTRACE_BUILD_DIR, default build/). Fails, never skips, when absent."""
    path = pathlib.Path(os.environ.get("HDTRACE_BUILD_DIR", REPO_ROOT / "build"))
    if not (path / "CMakeCache.txt").is_file():
        pytest.fail(f"no HDTrace build at {path}: run scripts/build first "
                    "or set HDTRACE_BUILD_DIR")
    return path


@pytest.fixture(scope="session")
def fixtures_dir() -> pathlib.Path:
    """../shared/fixtures, the traces of the original implementation. Skips visibly when absent."""
    path = SHARED_DIR / "fixtures"
    if not path.is_dir():
        pytest.skip(f"{path} is absent (it only exists in the development workplace)")
    return path
