"""Each family of traced calls: the trace holds exactly what the program did.

Every test runs one program of programs/ under mpiexec with the wrapper
linked, and compares every rank's .trc element by element (tag, attribute
names and order, values, children, times) with the program's own record of
its calls, resolving type, communicator, file and request ids through the
.info (tracecheck.Checker).
"""
import pytest

import tracecheck
from tracecheck import TraceMismatch

DERIVED_TYPE_BASE = 1 << 24


def test_p2p(runner):
    runner.run("p2p_traced", 4).check()


def test_p2p_two_ranks(runner):
    """Halves of one rank each: only PROC_NULL traffic on the split communicator."""
    runner.run("p2p_traced", 2).check()


def test_nonblocking(runner):
    checkers = runner.run("nonblocking_traced", 3).check()
    for checker in checkers:
        order = checker.rid_order
        if order:
            assert order[0] == 0, f"{checker.trace.path}: the first request id is {order[0]}, " \
                                  "request ids count from 0"
            assert order == sorted(order), (f"{checker.trace.path}: request ids {order} are not "
                                            "handed out in increasing order")


def test_collectives(runner):
    runner.run("collectives_traced", 4).check()


def test_collectives_three_ranks(runner):
    runner.run("collectives_traced", 3).check()


def test_fileio(runner):
    checkers = runner.run("fileio_traced", 2).check()
    for checker in checkers:
        fids = checker.info.file_order
        assert fids == list(range(len(fids))), (
            f"{checker.info.path}: file ids {fids}, expected 0, 1, ... in order of first use")


def test_fileio_single_rank(runner):
    runner.run("fileio_traced", 1).check()


def test_datatypes(runner):
    checkers = runner.run("datatypes_traced", 2).check()
    for checker in checkers:
        derived = [tid for tid in checker.info.type_order
                   if checker.info.types[tid]["combiner"] != "MPI_COMBINER_NAMED"]
        assert derived, f"{checker.info.path}: no derived types"
        assert derived[0] == DERIVED_TYPE_BASE, (
            f"{checker.info.path}: the first derived type id is {derived[0]}, the counter "
            f"starts at {DERIVED_TYPE_BASE}")
        assert derived == sorted(derived), f"{checker.info.path}: derived ids {derived} not " \
                                           "increasing in order of first use"
        # every derived type the program made was logged and resolved
        assert set(checker.types) == set(checker.typedefs), (
            f"types never seen in the trace: {set(checker.typedefs) - set(checker.types)}")
        # Made again after the first was freed, alike: the same id, one line.
        assert checker.types["vector_again"] == checker.types["vector"]
        vector_lines = [tid for tid in checker.info.type_order
                        if tid == checker.types["vector"]]
        assert len(vector_lines) == 1, f"{checker.info.path}: {vector_lines}"


def test_comms(runner):
    run = runner.run("comms_traced", 4)
    checkers = run.check()
    for rank, checker in enumerate(checkers):
        new_cids = [int(element.attrib["newCid"]) for element in checker.trace.elements
                    if "newCid" in element.attrib]
        created = [cid for cid in new_cids if cid != -1]
        assert created == list(range(2, 2 + len(created))), (
            f"rank {rank}: constructors returned cids {new_cids}; communicators are numbered "
            "2, 3, ... in creation order (MPI_COMM_NULL is -1 and takes no id)")
        assert checker.info.comm_order == sorted(checker.info.comm_order)
        if rank == 3:
            assert -1 in new_cids, "the MPI_UNDEFINED colour must be logged as newCid='-1'"


def _nested_calls(elements):
    """[(depth, [nested block elements] or None)] of the top-level hdT_Test_nested calls."""
    found = []
    for index, element in enumerate(elements):
        if element.tag == "hdT_Test_nested":
            previous = elements[index - 1] if index else None
            block = previous if previous is not None and previous.tag == "Nested" else None
            found.append((int(element.attrib["depth"]), block))
    return found


def _check_nested_block(block, depth, level, max_levels, where):
    """block must hold depth-1's call (and, before it, its own block) down to the limit."""
    children = list(block)
    inner = depth - 1
    want_inner_block = inner > 0 and level + 1 <= max_levels
    want = (["Nested"] if want_inner_block else []) + ["hdT_Test_nested"]
    got = [child.tag for child in children]
    if got != want:
        raise TraceMismatch(f"{where}: level {level} <Nested> holds {got}, expected {want}")
    call = children[-1]
    if list(call.attrib) != ["depth", "time", "end"] or call.attrib["depth"] != str(inner):
        raise TraceMismatch(f"{where}: level {level} call is {tracecheck.describe(call)}, "
                            f"expected depth='{inner}'")
    if want_inner_block:
        _check_nested_block(children[0], inner, level + 1, max_levels, where)


def test_nested_off(runner):
    """HDTRACE_NESTED=0: only the outer calls, no <Nested> blocks."""
    run = runner.run("nested_traced", 1, env={"HDTRACE_NESTED": "0"})
    checker = run.check()[0]
    assert [d for d, _ in _nested_calls(checker.trace.elements)] == [0, 3, 20]
    assert all(block is None for _, block in _nested_calls(checker.trace.elements))


def test_nested_default_is_off(runner):
    run = runner.run("nested_traced", 1)
    run.check()  # fails on any <Nested> block


def test_nested_on(runner, max_nested_levels):
    """HDTRACE_NESTED=1: nested calls up to HD_LOG_MAX_DEPTH - 1 levels, in
    <Nested> blocks right before the containing call."""
    run = runner.run("nested_traced", 1, env={"HDTRACE_NESTED": "1"})
    checker = run.check(allow_nested=True)[0]
    calls = _nested_calls(checker.trace.elements)
    assert [d for d, _ in calls] == [0, 3, 20]
    for depth, block in calls:
        where = f"{checker.trace.path}: hdT_Test_nested depth={depth}"
        if depth == 0:
            assert block is None, f"{where}: a call without nested calls has a <Nested> block"
            continue
        assert block is not None, f"{where}: no <Nested> block before the call"
        _check_nested_block(block, depth, 1, max_nested_levels, where)
    # No other <Nested> blocks than those.
    blocks = [e for e in checker.trace.elements if e.tag == "Nested"]
    assert len(blocks) == 2, f"{len(blocks)} <Nested> blocks, expected 2"


def test_trace_and_info_file_names(runner):
    """<program>_<host>_<rank>_<thread>.trc/.info, program sanitised (p2p_traced -> p2p-traced)."""
    run = runner.run("p2p_traced", 4)
    run.assert_ok()
    names = sorted(path.name for path in run.trace_dir.iterdir())
    want = sorted(tracecheck.trace_base(run.trace_dir, "p2p_traced", rank).name + suffix
                  for rank in range(4) for suffix in (".trc", ".info"))
    assert names == want
    assert all(name.startswith("p2p-traced_") for name in names)


def test_info_library_line(runner):
    """The .info header names the library by the first line of MPI_Get_library_version."""
    run = runner.run("p2p_traced", 4)
    run.assert_ok()
    for rank in range(4):
        checker = tracecheck.load_rank(run.trace_dir, run.expect_dir, "p2p_traced", rank)
        checker.check_library_line()


@pytest.mark.parametrize("name,nranks", [("p2p", 1), ("collectives", 1), ("collectives", 2),
                                         ("comms", 2), ("comms", 3), ("nonblocking", 4),
                                         ("datatypes", 1), ("fileio", 4)])
def test_other_rank_counts(runner, name, nranks):
    """The same programs on 1 to 4 ranks (WORLD maps of one rank, odd sizes)."""
    runner.run(f"{name}_traced", nranks).check()
