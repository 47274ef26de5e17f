"""The checker itself: a real trace passes, and each kind of wrong trace fails.

These tests take the p2p run, copy its traces, break one thing and expect
tracecheck to name it, so that the family tests cannot pass by accident.
"""
import re
import shutil

import pytest

import tracecheck
from tracecheck import TraceMismatch

NRANKS = 4


@pytest.fixture()
def p2p_copy(runner, tmp_path):
    run = runner.run("p2p_traced", NRANKS)
    run.assert_ok()
    copy = tmp_path / "traces"
    shutil.copytree(run.trace_dir, copy)
    base = tracecheck.trace_base(copy, "p2p_traced", 0)
    return run, copy, base.with_suffix(".trc"), base.with_suffix(".info")


def _check(run, trace_dir):
    tracecheck.check_run(trace_dir, run.expect_dir, "p2p_traced", NRANKS)


def _edit(path, pattern, replacement, count=1):
    text = path.read_text()
    new, n = re.subn(pattern, replacement, text, count=count)
    assert n, f"pattern {pattern!r} not found in {path}"
    path.write_text(new)


def test_unchanged_copy_passes(p2p_copy):
    run, copy, _, _ = p2p_copy
    _check(run, copy)


MUTATIONS = {
    "wrong value": (".trc", r"(<Send [^>]*toRank=')1'", r"\g<1>2'", "toRank"),
    "attribute order": (".trc", r"<Send size='([0-9]+)' count='([0-9]+)'",
                        r"<Send count='\2' size='\1'", "attributes"),
    "missing end": (".trc", r"(<Comm_split [^>]*) end='[0-9.]+'", r"\1", "end=None"),
    "6-digit time": (".trc", r"(<Send [^>]*time='[0-9]+\.[0-9]{6})[0-9]{3}'", r"\1'",
                     "9 fraction digits"),
    "double quotes": (".trc", r"toTag='([0-9]+)'", r'toTag="\1"', "single quotes"),
    "dropped call": (".trc", r"<Finalize [^>]*/>\n", "", "Finalize"),
    "extra attribute": (".trc", r"<Recv ", "<Recv size='4' ", "attributes"),
    "uncompacted world map": (".info", r"map='0\.\.3->0\.\.3;'", "map='0->0;1->1;2..3->2..3;'",
                              "run of consecutive members"),
    "wrong member": (".info", r"(Comm map=')[^']*(' id=2)", r"\g<1>0->0;1->1;\2", "map"),
    "wrong type name": (".info", r"name='MPI_INT'", "name='MPI_LONG'", "MPI_INT"),
    "unknown line": (".info", r"\Z", "Thing id=3\n", "unknown line kind"),
    "bad file layout": (".info", r"(Comm map='[^']*') id=1 name='SELF'", r"\1 name='SELF' id=1",
                        "layout"),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_mutation_is_detected(p2p_copy, name):
    run, copy, trc, info = p2p_copy
    suffix, pattern, replacement, message = MUTATIONS[name]
    _edit(trc if suffix == ".trc" else info, pattern, replacement)
    with pytest.raises(TraceMismatch, match=re.escape(message)):
        _check(run, copy)


def test_truncated_trace_prefix(p2p_copy):
    """parse_trc_prefix keeps every complete element before a cut."""
    _, _, trc, _ = p2p_copy
    full = tracecheck.parse_trc(trc).elements
    text = trc.read_bytes()
    cut = text.index(b"<Finalize")
    trc.write_bytes(text[:cut + 5])
    prefix = tracecheck.parse_trc_prefix(trc)
    assert [e.tag for e in prefix] == [e.tag for e in full[:-1]]
    with pytest.raises(TraceMismatch, match="well-formed"):
        tracecheck.parse_trc(trc)
