"""The .info is written in blocks, like the trace, yet an abrupt end
after many new datatypes (made as parallel HDF5 makes them: contiguous,
vector, resized, struct, subarray, hindexed, committed, used in a file view,
freed) leaves an .info that defines every type the trace refers to, with the
values the program passed (programs/crash_types.c):
- SIGSEGV, MPI_Abort and _exit() (the wrapper's _exit interposition) with
  few types (every line still in the buffer at the end) and with many (most
  already written in blocks);
- SIGKILL, where nothing can close the trace: the complete elements of the
  cut trace refer only to types the .info defines, because the .info's
  buffer reaches the file before the trace text after it, with and without
  the background writer; with HDTRACE_FORCE_FLUSH=1 every call is there."""
import pytest

import tracecheck

PROGRAM = "crash_types_traced"
IO_ENV = {"OMPI_MCA_io": "romio321"}
# Attributes that hold type ids.
TYPE_ATTRIBUTES = ("tid", "oldTid", "etid", "filetid")
# 400 rounds: about 190 KB of .info lines, six times its 32 KiB buffer.
FEW, MANY = 5, 400


def _run(runner, how, rounds, env=None, filler=0):
    run = runner.run(PROGRAM, 1, args=[how, str(rounds), str(filler)],
                     env={**IO_ENV, **(env or {})})
    assert f"r0 ending by {how} after {rounds} rounds" in run.result.stdout, (
        f"{run.result.stdout}\n{run.result.stderr}")
    if how == "finalize":
        run.assert_ok()
    else:
        assert run.result.returncode != 0, f"ending by {how} should fail the job"
    return run


def _calls(elements):
    return [e for e in elements
            if not (e.tag in tracecheck.BOOKKEEPING_CALLS and tracecheck.is_ordinary(e))]


def _compare(run, elements, info, complete, last=None):
    """Every element (or the last `last` calls: the checker's test of id reuse
    is quadratic) against what the program did, types resolved through the
    .info with their values; complete: the trace holds every expected call."""
    expectations = tracecheck.read_expectations(run.expect_dir, 0)
    expected = [r for r in expectations if r["kind"] == "call"]
    calls = _calls(elements)
    if complete:
        assert [e.tag for e in calls] == [r["tag"] for r in expected]
    else:
        assert len(calls) <= len(expected)
        assert [e.tag for e in calls] == [r["tag"] for r in expected[:len(calls)]]
    base = tracecheck.trace_base(run.trace_dir, PROGRAM, 0)
    checker = tracecheck.Checker(tracecheck.Trace(base, None, 0), info, expectations)
    first = 0 if last is None else max(0, len(calls) - last)
    for index in range(first, len(calls)):
        checker.compare(expected[index], calls[index], f"{base}.trc call #{index}", timed=True)
    # Also the ids of calls the expectations leave out (none should exist).
    referenced = [int(element.attrib[name]) for element in elements
                  for name in TYPE_ATTRIBUTES if name in element.attrib]
    missing = sorted({tid for tid in referenced if tid not in info.types})
    assert not missing, f"{base}.info lacks Type lines for ids {missing[:10]}"
    return calls, checker


@pytest.mark.parametrize("how,rounds", [(how, rounds) for how in ("segv", "abort", "_exit")
                                        for rounds in (FEW, MANY)] + [("finalize", MANY)])
def test_info_defines_every_type_after_the_end(runner, how, rounds):
    run = _run(runner, how, rounds)
    base = tracecheck.trace_base(run.trace_dir, PROGRAM, 0)
    raw = base.with_suffix(".trc").read_bytes()
    assert raw.count(b"</Program>") == 1 and raw.endswith(b"</Program>\n")
    trace = tracecheck.parse_trc(base.with_suffix(".trc"))  # well-formed, times in order
    info = tracecheck.parse_info(base.with_suffix(".info"))  # children before parents
    calls, checker = _compare(run, trace.elements, info, complete=True)
    commits = sum(1 for e in calls if e.tag == "Type_commit")
    assert commits == rounds + 2 * len(range(0, rounds, 3))
    # Four derived types a round, two more every third: all defined, types
    # made alike under one id. The wrapper's table of definitions is bounded
    # and may let a definition go: a line for each definition at least,
    # and for each with few rounds.
    assert len(checker.typedefs) == 4 * rounds + 2 * len(range(0, rounds, 3))
    definitions = {checker.definition(label) for label in checker.typedefs}
    assert len(definitions) < len(checker.typedefs), "the program's types are all unlike"
    derived = [tid for tid, entry in info.types.items()
               if entry["combiner"] != "MPI_COMBINER_NAMED"]
    assert len(definitions) <= len(derived) < len(checker.typedefs)
    if rounds == FEW:
        assert len(derived) == len(definitions)


# 1,500 rounds: about 2 MB of trace (several 512 KiB halves written before
# the kill) and 0.7 MB of .info (written in blocks all along).
def test_killed_trace_refers_only_to_defined_types(runner):
    run = _run(runner, "kill", 1500)
    base = tracecheck.trace_base(run.trace_dir, PROGRAM, 0)
    elements = tracecheck.parse_trc_prefix(base.with_suffix(".trc"))
    assert len(elements) > 5000, f"{base}.trc: only {len(elements)} elements reached the file"
    info = tracecheck.parse_info(base.with_suffix(".info"))
    # Every type id of the cut trace is checked; the values of the last 500 calls.
    _compare(run, elements, info, complete=False, last=500)


# 5 rounds (2 KB of .info, far from filling its buffer), then 20,000 Barriers:
# the trace's halves with the types' elements reach the file while nothing
# else would have written the .info.
@pytest.mark.parametrize("writer_thread", ["1", "0"])
def test_killed_trace_with_info_still_in_its_buffer(runner, writer_thread):
    run = _run(runner, "kill", FEW, env={"HDTRACE_WRITER_THREAD": writer_thread}, filler=20000)
    base = tracecheck.trace_base(run.trace_dir, PROGRAM, 0)
    elements = tracecheck.parse_trc_prefix(base.with_suffix(".trc"))
    assert len(elements) > 5000, f"{base}.trc: only {len(elements)} elements reached the file"
    info = tracecheck.parse_info(base.with_suffix(".info"))
    calls, _ = _compare(run, elements, info, complete=False)
    assert sum(1 for e in calls if e.tag == "Type_commit") == FEW + 2 * len(range(0, FEW, 3))


def test_killed_with_force_flush_keeps_every_call(runner):
    run = _run(runner, "kill", 30, env={"HDTRACE_FORCE_FLUSH": "1"})
    base = tracecheck.trace_base(run.trace_dir, PROGRAM, 0)
    elements = tracecheck.parse_trc_prefix(base.with_suffix(".trc"))
    info = tracecheck.parse_info(base.with_suffix(".info"))
    _compare(run, elements, info, complete=True)
