"""MPI-3.1 calls (docs/format/mpi3.md, "MPI-3.1 calls"): the trace holds
exactly what each program did, every completed request has its <For>, and
the wrapper changes nothing the program sees.

Each program of programs/ records its calls (expect.h); tracecheck compares
every rank's trace with that record, element by element and value by value,
resolving ids through the .info.
"""
import re

import pytest

import tracecheck

# program, ranks: every program is run traced (checked) and plain (compared).
PROGRAMS = [("nbcollectives", 4), ("nbcollectives", 2), ("nbcollectives", 3),
            ("neighbors", 4), ("neighbors", 2), ("comms3", 4), ("comms3", 3),
            ("iofile3", 4), ("iofile3", 1), ("pcontrol", 3), ("untraced", 4), ("untraced", 2)]
IDS = [f"{name}-{nranks}" for name, nranks in PROGRAMS]

VERBOSE_COUNTS = re.compile(r"hdtracempi: (\S+): requests completed in Wait/Test calls: "
                            r"([0-9]+) traced, ([0-9]+) created by no traced call")


def _lines(run):
    return tracecheck.per_rank_lines(run.result.stdout)


@pytest.mark.parametrize("name,nranks", PROGRAMS, ids=IDS)
def test_trace_is_what_the_program_did(runner, name, nranks):
    runner.run(f"{name}_traced", nranks).check()


@pytest.mark.parametrize("name,nranks", PROGRAMS, ids=IDS)
def test_same_behaviour_as_untraced(runner, name, nranks):
    """Return codes, statuses, data: the same with and without the wrapper,
    and nothing printed by the wrapper."""
    plain = runner.run(f"{name}_plain", nranks)
    traced = runner.run(f"{name}_traced", nranks)
    assert plain.result.returncode == 0, plain.result.stderr
    assert traced.result.returncode == 0, traced.result.stderr
    assert _lines(traced) == _lines(plain)
    assert all(line.startswith("r") for line in _lines(plain)), "noise on stdout"
    assert traced.result.stderr == plain.result.stderr == ""


def _completion_counts(run):
    """{trace file name: (traced, unseen)} from HDTRACE_VERBOSE=1's report at Finalize."""
    counts = {}
    for line in run.result.stderr.splitlines():
        match = VERBOSE_COUNTS.match(line)
        if match:
            counts[match.group(1).rsplit("/", 1)[-1]] = (int(match.group(2)), int(match.group(3)))
    return counts


def _for_children(trace):
    return [child for element in trace.elements if element.tag in COMPLETIONS
            for child in element if child.tag == "For"]


COMPLETIONS = {"Wait", "Waitall", "Waitany", "Waitsome", "Test", "Testall", "Testany",
               "Testsome"}


@pytest.mark.parametrize("name,nranks,unseen", [("nbcollectives", 4, 0), ("neighbors", 3, 0),
                                                 ("comms3", 2, 0), ("iofile3", 2, 0),
                                                 ("untraced", 4, 1), ("untraced", 2, 1)])
def test_request_table_accounts_for_every_completion(runner, name, nranks, unseen):
    """The request table proves that no <For> is lost: the completions it
    counted equal the <For> children in the trace, and only requests made
    around the wrapper (untraced.c's PMPI_Isend) complete without one."""
    run = runner.run(f"{name}_traced", nranks, env={"HDTRACE_VERBOSE": "1"})
    checkers = run.check()
    counts = _completion_counts(run)
    assert len(counts) == nranks, run.result.stderr
    for checker in checkers:
        traced, not_seen = counts[checker.trace.path.name]
        fors = _for_children(checker.trace)
        assert traced == len(fors), (f"{checker.trace.path}: the request table completed {traced} "
                                     f"requests, the trace has {len(fors)} <For>")
        assert not_seen == unseen, (f"{checker.trace.path}: {not_seen} requests completed that "
                                    f"no traced call created, expected {unseen}")


def test_waitall_over_irecv_iallreduce_isend_has_three_fors(runner):
    """Waitall over {Irecv, Iallreduce, Isend}."""
    run = runner.run("nbcollectives_traced", 4)
    for checker in run.check():
        elements = checker.trace.elements
        waitalls = [e for e in elements if e.tag == "Waitall"]
        assert len(waitalls) == 1, [e.tag for e in elements]
        rids = [int(child.attrib["rid"]) for child in waitalls[0]]
        creators = {e.tag: int(e.attrib["rid"]) for e in elements
                    if e.tag in ("Irecv", "Isend") or
                    (e.tag == "Iallreduce" and "rid" in e.attrib)}
        made = [int(e.attrib["rid"]) for e in elements if e.tag in ("Irecv", "Isend")]
        assert len(rids) == 3 and rids[0] == made[0] and rids[2] == made[1], (rids, creators)
        iallreduce = [e for e in elements if e.tag == "Iallreduce"][-1]
        assert rids[1] == int(iallreduce.attrib["rid"])


def test_pcontrol_pauses_and_ids_stay_right(runner):
    """While paused nothing is written, but the communicator made then keeps
    the id it got in creation order, while the Wait that completes the
    requests made then, after the pause, names none of them: the trace never
    issued them."""
    run = runner.run("pcontrol_traced", 3)
    for checker in run.check():
        elements = checker.trace.elements
        tags = [e.tag for e in elements]
        assert tags.count("Pcontrol") == 4, tags
        levels = [e.attrib["level"] for e in elements if e.tag == "Pcontrol"]
        assert levels == ["0", "1", "0", "2"], levels
        first = tags.index("Pcontrol")
        assert tags[first + 1] == "Pcontrol", "a call was written while paused"
        # Requests: 0 and 1 before the pause; those made while paused are not named.
        waitalls = [e for e in elements if e.tag == "Waitall"]
        assert [int(c.attrib["rid"]) for c in waitalls[0]] == [0, 1]
        assert list(waitalls[1]) == []
        # The communicator made while paused is cid 2, declared in the .info.
        barriers = [e for e in elements if e.tag == "Barrier"]
        assert [b.attrib["cid"] for b in barriers] == ["0", "2", "0"]
        assert checker.info.comm_order == [0, 1, 2]


@pytest.mark.parametrize("name,nranks", [("nbcollectives", 3), ("comms3", 4), ("iofile3", 2)])
def test_ld_preload_traces_the_new_calls(runner, name, nranks):
    """libhdtracempi.so preloaded into the plain build writes the same checked trace."""
    preloaded = runner.run(f"{name}_plain", nranks, preload=True)
    preloaded.check(type_findings=False)
    assert preloaded.result.stderr == ""


@pytest.mark.parametrize("name,nranks", [("nbcollectives", 3), ("neighbors", 2), ("comms3", 3),
                                         ("iofile3", 2)])
def test_nested_calls_inside_the_new_calls(runner, name, nranks):
    """HDTRACE_NESTED=1: whatever MPI calls the library makes inside the new
    calls goes into <Nested> blocks; the program's own calls are unchanged."""
    runner.run(f"{name}_traced", nranks, env={"HDTRACE_NESTED": "1"}).check(allow_nested=True)
