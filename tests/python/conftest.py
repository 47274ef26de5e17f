"""Puts the hdtrace package of the build tree (<build>/python) first on sys.path."""
import pathlib

import pytest

from buildtree import use_python_package

PACKAGE_PARENT = use_python_package()

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
