"""Puts the hdtrace package of the build tree (<build>/python) first on sys.path."""
import os
import pathlib
import sys

import pytest

REPO_ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD_DIR = pathlib.Path(os.environ.get("HDTRACE_BUILD_DIR", REPO_ROOT / "build"))
PACKAGE_PARENT = BUILD_DIR / "python"
if not (PACKAGE_PARENT / "hdtrace" / "__init__.py").is_file():
    raise RuntimeError(f"no hdtrace package in {PACKAGE_PARENT}: build with "
                       "HDTRACE_BUILD_PYTHON=ON (scripts/build) or set HDTRACE_BUILD_DIR")
sys.path.insert(0, str(PACKAGE_PARENT))

DATA_DIR = pathlib.Path(__file__).resolve().parent / "data"


@pytest.fixture
def data_dir():
    return DATA_DIR


@pytest.fixture
def copy_project(tmp_path):
    """Copies one of data/<dialect>/ into tmp_path and returns the .proj path there."""
    import shutil

    def copy(dialect):
        target = tmp_path / dialect
        shutil.copytree(DATA_DIR / dialect, target)
        return next(target.glob("*.proj"))
    return copy
