"""The wrapper never changes what the program does.

Each program prints, per rank, the return codes, status fields, error
classes and received data of its calls. The same source is built with the
wrapper (<name>_traced) and without (<name>_plain); both runs must print the
same, exit the same, and the traced one must print nothing of its own.
"""
import pytest

import tracecheck

# program, ranks
PROGRAMS = [("p2p", 4), ("nonblocking", 2), ("collectives", 4), ("fileio", 2),
            ("datatypes", 2), ("comms", 4), ("errors", 2)]


def _lines(run):
    return tracecheck.per_rank_lines(run.result.stdout)


@pytest.mark.parametrize("name,nranks", PROGRAMS, ids=[name for name, _ in PROGRAMS])
def test_same_output_as_untraced(runner, name, nranks):
    plain = runner.run(f"{name}_plain", nranks)
    traced = runner.run(f"{name}_traced", nranks)
    assert plain.result.returncode == 0, plain.result.stderr
    assert traced.result.returncode == plain.result.returncode, traced.result.stderr
    assert _lines(traced) == _lines(plain)
    assert all(line.startswith("r") for line in _lines(plain)), "noise on stdout"


@pytest.mark.parametrize("name,nranks", PROGRAMS, ids=[name for name, _ in PROGRAMS])
def test_silent(runner, name, nranks):
    """Nothing on stderr, and nothing on stdout but the program's lines."""
    plain = runner.run(f"{name}_plain", nranks)
    traced = runner.run(f"{name}_traced", nranks)
    assert traced.result.stderr == plain.result.stderr == ""
    assert len(traced.result.stdout.splitlines()) == len(plain.result.stdout.splitlines())


def test_errors_trace_is_well_formed(runner):
    """Erroneous calls under MPI_ERRORS_RETURN still give a complete, well-formed trace."""
    run = runner.run("errors_traced", 2)
    run.assert_ok()
    for rank in range(2):
        base = tracecheck.trace_base(run.trace_dir, "errors_traced", rank)
        trace = tracecheck.parse_trc(base.with_suffix(".trc"))
        tracecheck.parse_info(base.with_suffix(".info"))
        tags = [element.tag for element in trace.elements]
        assert tags[0] == "Init" and tags[-1] == "Finalize", tags
        # the Allreduce after the errors is logged like any other
        good = [e for e in trace.elements if e.tag == "Allreduce"]
        assert good and list(good[-1].attrib) == ["size", "cid", "count", "tid", "time", "end"]
        assert good[-1].attrib["size"] == "4" and good[-1].attrib["count"] == "1"
        # docs/format/trace.md: a failed File_open logs fid -1 (its name was never opened)
        opens = [e for e in trace.elements if e.tag == "File_open"]
        assert opens, "the failed MPI_File_open is not in the trace"
        assert list(opens[0].attrib) == ["cid", "name", "flags", "fid", "time", "end"]
        assert opens[0].attrib["name"] == "no-such-dir/no-such-file.dat"
        assert opens[0].attrib["fid"] == "-1"


def _shape(element):
    """An element's tag, attribute names and children, without values."""
    return (element.tag, tuple(element.attrib), tuple(_shape(child) for child in element))


@pytest.mark.parametrize("name,nranks", [("p2p", 4), ("fileio", 2)])
def test_ld_preload_gives_the_linked_trace(runner, name, nranks):
    """libhdtracempi.so preloaded into the untraced build traces it like the
    static library: every value right (against the program's own record) and
    the same elements as the linked run. (Values are not compared between the
    two runs: shared file pointer positions differ from run to run.)"""
    preloaded = runner.run(f"{name}_plain", nranks, preload=True)
    preloaded.check(type_findings=False)
    linked = runner.run(f"{name}_traced", nranks)
    linked.assert_ok()
    assert _lines(preloaded) == _lines(linked)
    assert preloaded.result.stderr == ""
    for rank in range(nranks):
        a = tracecheck.parse_trc(
            tracecheck.trace_base(preloaded.trace_dir, f"{name}_plain", rank).with_suffix(".trc"))
        b = tracecheck.parse_trc(
            tracecheck.trace_base(linked.trace_dir, f"{name}_traced", rank).with_suffix(".trc"))
        assert [_shape(e) for e in a.elements] == [_shape(e) for e in b.elements], (
            f"rank {rank}: the preloaded and the linked traces differ")
