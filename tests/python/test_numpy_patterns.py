"""Numpy calls the package keeps away from, read from its sources with ast.

np.unique over the rows of a 2-D array (axis=) sorts each row as a string
of bytes: on the 2 M calls of a report benchmark run it took 1.3 s where
the same pairs as one integer each (a file and a rank, a group and a size)
take 0.03 s. The report has twice come to depend on it by accident.
"""
import ast
import pathlib

PACKAGE = pathlib.Path(__file__).resolve().parents[2] / "python" / "hdtrace"


def unique_over_rows(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "unique" and \
                any(keyword.arg == "axis" for keyword in node.keywords):
            yield node.lineno


def test_no_unique_over_rows():
    sources = sorted(PACKAGE.rglob("*.py"))
    assert len(sources) > 50, f"no hdtrace sources in {PACKAGE}"
    found = [f"{path.relative_to(PACKAGE)}:{line}" for path in sources
             for line in unique_over_rows(ast.parse(path.read_text(), str(path)))]
    assert found == [], "np.unique(..., axis=...) sorts rows as bytes; key each row as one " \
        f"integer instead: {found}"


def test_the_check_finds_one():
    assert list(unique_over_rows(ast.parse("import numpy as np\n"
                                           "x = np.unique(np.stack([a, b]), axis=1)\n"))) == [2]
