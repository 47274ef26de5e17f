"""Where the build tree is, and its Python package, for every test folder."""
import os
import pathlib
import re
import sys

REPO_ROOT = pathlib.Path(__file__).resolve().parent.parent


def build_dir() -> pathlib.Path:
    """HDTRACE_BUILD_DIR, by default build/ in the repository."""
    return pathlib.Path(os.environ.get("HDTRACE_BUILD_DIR", REPO_ROOT / "build"))


def cache_value(build: pathlib.Path, name: str) -> str:
    """The value of a variable in build's CMakeCache.txt; fails the test when it is not there."""
    match = re.search(rf"^{name}:[A-Z]+=(.*)$", (build / "CMakeCache.txt").read_text(),
                      re.MULTILINE)
    assert match, f"{name} is not in {build}/CMakeCache.txt"
    return match.group(1)


def use_python_package() -> pathlib.Path:
    """Puts the build tree's hdtrace package first on sys.path; returns its parent folder."""
    parent = build_dir() / "python"
    if not (parent / "hdtrace" / "__init__.py").is_file():
        raise RuntimeError(f"no hdtrace package in {parent}: build with "
                           "HDTRACE_BUILD_PYTHON=ON (scripts/build) or set HDTRACE_BUILD_DIR")
    sys.path.insert(0, str(parent))
    return parent


def require_built(*paths: pathlib.Path, how: str = "build everything (scripts/build)") -> None:
    """Fails the calling test, naming the first of paths that is not a
    built program or library and how to build it."""
    import pytest  # only the tests that call this need it

    for path in paths:
        if not os.access(path, os.X_OK):
            pytest.fail(f"{path} is missing: {how}")


def run_hdtrace(*arguments, timeout=300):
    """Runs `python3 -m hdtrace ARGUMENTS` against the build tree's package."""
    import subprocess

    environment = dict(os.environ, PYTHONPATH=str(build_dir() / "python"))
    return subprocess.run([sys.executable, "-m", "hdtrace", *map(str, arguments)],
                          capture_output=True, text=True, timeout=timeout, env=environment)
