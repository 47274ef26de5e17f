"""Where the build tree is, and its Python package, for every test folder."""
import os
import pathlib
import sys

REPO_ROOT = pathlib.Path(__file__).resolve().parent.parent


def build_dir() -> pathlib.Path:
    """HDTRACE_BUILD_DIR, by default build/ in the repository."""
    return pathlib.Path(os.environ.get("HDTRACE_BUILD_DIR", REPO_ROOT / "build"))


def use_python_package() -> pathlib.Path:
    """Puts the build tree's hdtrace package first on sys.path; returns its parent folder."""
    parent = build_dir() / "python"
    if not (parent / "hdtrace" / "__init__.py").is_file():
        raise RuntimeError(f"no hdtrace package in {parent}: build with "
                           "HDTRACE_BUILD_PYTHON=ON (scripts/build) or set HDTRACE_BUILD_DIR")
    sys.path.insert(0, str(parent))
    return parent
