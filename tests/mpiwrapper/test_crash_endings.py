"""Crash-safe traces under mpiexec: after each fatal signal
(raised, or a real fault), with the program's own handler installed before
MPI_Init, and after fork(), the trace is well-formed, closed once, and holds
every call made before the end; the job ends exactly as without the wrapper
(same exit status, same handler output)."""
import pytest

import tracecheck

SIGNALS = ["segv", "bus", "abrt", "fpe", "term", "segv-fault", "fpe-fault"]
OWN = ["own-segv", "own-bus", "own-abrt", "own-fpe", "own-term"]


def _check_trace(run, tags_after, calls_made=3):
    base = tracecheck.trace_base(run.trace_dir, "crashes_traced", 0)
    raw = base.with_suffix(".trc").read_bytes()
    assert raw.count(b"</Program>") == 1, f"{base}.trc is closed {raw.count(b'</Program>')} times"
    assert raw.endswith(b"</Program>\n")
    trace = tracecheck.parse_trc(base.with_suffix(".trc"))  # well-formed, times in order
    info = tracecheck.parse_info(base.with_suffix(".info"))
    calls = [e for e in trace.elements
             if not (e.tag in tracecheck.BOOKKEEPING_CALLS and tracecheck.is_ordinary(e))]
    assert [e.tag for e in calls] == ["Init"] + ["Allreduce"] * calls_made + tags_after
    for allreduce in calls[1:1 + calls_made]:
        attrib = allreduce.attrib
        assert list(attrib) == ["size", "cid", "count", "tid", "time", "end"]
        assert (attrib["size"], attrib["cid"], attrib["count"]) == ("8", "0", "1")
        assert info.types[int(attrib["tid"])]["name"] == "MPI_DOUBLE"
    assert info.comms[0]["name"] == "WORLD"


def _compare_endings(runner, how, args=(), env=None):
    plain, traced = runner.run_untraced_and_traced("crashes_plain", "crashes_traced", 1,
                                                   args=[how, *args], env=env)
    assert f"ending by {how}" in traced.result.stdout, traced.result.stdout
    assert traced.result.returncode == plain.result.returncode, (
        f"{how}: the job ends with {traced.result.returncode} traced, "
        f"{plain.result.returncode} without the wrapper\n{traced.result.stderr}")
    return plain, traced


@pytest.mark.parametrize("how", SIGNALS)
def test_fatal_signal(runner, how):
    plain, traced = _compare_endings(runner, how)
    assert traced.result.returncode != 0
    _check_trace(traced, [])


# 30,000 calls are about 2.6 MB of trace: five full 512 KiB halves, the last
# ones possibly still queued for the background writer when the end comes.
@pytest.mark.parametrize("writer_thread", ["1", "0"])
@pytest.mark.parametrize("how", ["segv", "term", "abrt"])
def test_fatal_signal_after_many_calls(runner, how, writer_thread):
    calls = 30000
    plain, traced = _compare_endings(runner, how, args=[str(calls)],
                                     env={"HDTRACE_WRITER_THREAD": writer_thread})
    assert traced.result.returncode != 0
    _check_trace(traced, [], calls_made=calls)


@pytest.mark.parametrize("how", OWN)
def test_programs_own_handler_still_runs(runner, how):
    plain, traced = _compare_endings(runner, how)
    line = [l for l in plain.result.stdout.splitlines() if l.startswith("own handler ran")]
    assert line, plain.result.stdout
    assert line[0] in traced.result.stdout.splitlines(), traced.result.stdout
    _check_trace(traced, [])


@pytest.mark.parametrize("calls", [3, 30000])
@pytest.mark.parametrize("how", ["fork-exit", "fork-crash"])
def test_child_of_fork_leaves_the_trace_alone(runner, how, calls):
    """With 30,000 calls the parent's writer thread has halves in flight at fork()."""
    plain, traced = _compare_endings(runner, how, args=[str(calls)])
    traced.assert_ok()
    status = [l for l in plain.result.stdout.splitlines() if l.startswith("child status")]
    assert status and status[0] in traced.result.stdout.splitlines()
    _check_trace(traced, ["Barrier", "Finalize"], calls_made=calls)
    names = {p.name for p in traced.trace_dir.iterdir()}
    assert len(names) == 2, f"the child made traces of its own: {sorted(names)}"
