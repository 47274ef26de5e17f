"""Where a wrapper test finds the tools it runs on a traced program's output
(project-merger, the Python package, the reader's tools). The Open MPI tree
builds them all; the MPICH tree builds only the wrapper and its programs, and
scripts/test points HDTRACE_TOOLS_BUILD_DIR at the Open MPI tree for it. A
test that needs a tool neither tree has fails, naming what to build."""
import os
import pathlib
import subprocess

import pytest


def _trees(build_dir):
    return [pathlib.Path(tree) for tree in (build_dir, os.environ.get("HDTRACE_TOOLS_BUILD_DIR"))
            if tree]


def tools_tree_or_fail(build_dir):
    """The first tree with project-merger and the Python package."""
    for tree in _trees(build_dir):
        if os.access(tree / "merger" / "project-merger", os.X_OK) and \
                (tree / "python" / "hdtrace" / "__init__.py").is_file():
            return tree
    pytest.fail("no project-merger and Python package in this tree: set "
                "HDTRACE_TOOLS_BUILD_DIR to a tree that has them, as scripts/test does for the "
                "MPICH tree")


def built_tool_or_fail(build_dir, relative):
    """A program of a build tree (relative: its path in the tree)."""
    candidates = [tree / relative for tree in _trees(build_dir)]
    for candidate in candidates:
        if os.access(candidate, os.X_OK):
            return candidate
    pytest.fail(f"{pathlib.PurePath(relative).name} is in none of "
                f"{[str(candidate) for candidate in candidates]}: build the Open MPI tree, and "
                "set HDTRACE_TOOLS_BUILD_DIR to it for the MPICH tree")


def python_env(tools):
    """The environment in which /usr/bin/python3 imports the tree's package."""
    return dict(os.environ, PYTHONPATH=str(tools / "python"))


def hdtrace(tools, *args, check=False, timeout=300):
    """`python3 -m hdtrace ARGS` with the tree's package; with check, a
    non-zero exit fails the test with the command's stderr."""
    done = subprocess.run(["/usr/bin/python3", "-m", "hdtrace", *map(str, args)],
                          env=python_env(tools), capture_output=True, text=True, timeout=timeout)
    if check:
        assert done.returncode == 0, f"hdtrace {args}: {done.stderr}"
    return done
