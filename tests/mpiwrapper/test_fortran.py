"""A Fortran program is traced like its C twin (docs/dev/wrapper.md "Fortran").

programs/fortran/twin.c, twin.F90 (built with mpif.h and with `use mpi`) and
twin_f08.f90 (`use mpi_f08`) make the same MPI calls in the same order. Their
traces must be equal call by call and attribute by attribute, the ids of
types, communicators and files compared after resolving them through the
.info; times are left out. Both linking modes: <name>_traced links
libhdtracempi.a, <name>_plain runs with LD_PRELOAD of libhdtracempi.so. And
the wrapper does not change what the Fortran programs print or how they end.
"""
import pathlib
import subprocess
import types

import pytest

import buildtree
import tracecheck

NRANKS = 3
# Open MPI's OMPIO can hang in these runs (conftest.py); ROMIO in both.
ENV = {"OMPI_MCA_io": "romio321", "HDTRACE_ALL_FUNCTIONS": "1"}
VARIANTS = ["mpifh", "usempi", "f08"]
MODES = ["static", "preload"]
# What twin.c does, in order: the trace of the C program must show it all, so
# that two equal but empty traces cannot pass.
def expected_tags(rank):
    """Even ranks send first in the ring, odd ranks receive first."""
    ring = ["Send", "Recv"] if rank % 2 == 0 else ["Recv", "Send"]
    return ["Init"] + 2 * ring + EXPECTED_TAIL


EXPECTED_TAIL = (
    2 * ["Irecv", "Irecv", "Isend", "Isend", "Waitall"]
    + ["Isend", "Irecv", "Waitany", "Waitsome", "Bcast", "Allreduce", "Allreduce", "Allgather",
       "Type_vector", "Type_commit", "Bcast", "Type_free",
       "Comm_split", "Allreduce", "Comm_dup", "Barrier", "Comm_free", "Comm_free",
       "Send", "Recv", "File_open", "File_set_view", "File_write_at", "File_sync", "Barrier", "File_sync",
       "File_read_at_all", "File_close", "Finalize"])
TYPE_ATTRS = {"tid", "etid", "filetid", "oldTid", "recvtid"}
COMM_ATTRS = {"cid", "newCid"}
FILE_ATTRS = {"fid"}
TIME_ATTRS = {"time", "end"}


def _run(runner, variant, mode, traced=True):
    name = f"twin_{variant}_{'traced' if traced and mode == 'static' else 'plain'}"
    run = runner.run(name, NRANKS, env=ENV, preload=traced and mode == "preload")
    run.assert_ok()
    return run


def _type(info, tid, where):
    """A type as what it is: its name, or its constructor and arguments."""
    if tid not in info.types:
        raise AssertionError(f"{where}: type id {tid} is not in {info.path}")
    entry = info.types[tid]
    return (entry["combiner"], entry["name"], tuple(entry["integers"]),
            tuple(entry["addresses"]), tuple(_type(info, t, where) for t in entry["types"]))


def _resolve(info, key, value, where):
    if key in TYPE_ATTRS:
        return ("type", _type(info, int(value), where))
    if key in COMM_ATTRS and int(value) >= 0:
        if int(value) not in info.comms:
            raise AssertionError(f"{where}: communicator id {value} is not in {info.path}")
        comm = info.comms[int(value)]
        return ("comm", comm["map_text"], str(comm["remote"]), comm["name"])
    if key in FILE_ATTRS and int(value) >= 0:
        if int(value) not in info.files:
            raise AssertionError(f"{where}: file id {value} is not in {info.path}")
        return ("file", pathlib.Path(info.files[int(value)]["name"]).name)
    return value


def _element(info, element, where):
    attrs = [(key, _resolve(info, key, value, f"{where} <{element.tag} {key}>"))
             for key, value in element.attrib.items() if key not in TIME_ATTRS]
    return (element.tag, attrs, [_element(info, child, where) for child in element])


def _calls(run, rank):
    """The rank's trace, every id resolved through its .info, without times."""
    base = tracecheck.trace_base(run.trace_dir, run.program, rank)
    trace = tracecheck.parse_trc(base.with_suffix(".trc"))
    info = tracecheck.parse_info(base.with_suffix(".info"))
    calls = [_element(info, element, str(base)) for element in trace.elements]
    # The .info lines themselves, in the order written (ids in creation order).
    lines = ([("type", _type(info, tid, str(base))) for tid in info.type_order]
             + [("comm", info.comms[cid]["map_text"], info.comms[cid]["name"])
                for cid in info.comm_order]
             + [("file", pathlib.Path(info.files[fid]["name"]).name, info.files[fid]["size"])
                for fid in info.file_order])
    return calls, lines


@pytest.mark.parametrize("mode", MODES)
def test_c_twin_is_complete(runner, mode):
    """The reference itself: every call of twin.c is in its trace."""
    run = _run(runner, "c", mode)
    for rank in range(NRANKS):
        calls, _ = _calls(run, rank)
        assert [tag for tag, _, _ in calls] == expected_tags(rank), f"rank {rank}"
        allreduces = [dict(attrs) for tag, attrs, _ in calls if tag == "Allreduce"]
        # the in-place one: 4 INTEGERs of the receive buffer
        assert allreduces[1]["size"] == "16" and allreduces[1]["count"] == "4"
        # MPI_IN_PLACE: the sent block is the own block of the receive buffer
        allgather = [dict(attrs) for tag, attrs, _ in calls if tag == "Allgather"][0]
        assert (allgather["size"], allgather["count"], allgather["recvSize"]) == ("4", "1", "4")
        assert allgather["tid"] == allgather["recvtid"] and allgather["tid"][1][1] == "MPI_INTEGER"
        receives = [dict(attrs) for tag, attrs, _ in calls if tag == "Recv"]
        left, right = (rank + NRANKS - 1) % NRANKS, (rank + 1) % NRANKS
        # MPI_ANY_SOURCE: the matched sender; MPI_STATUS_IGNORE: still known
        assert receives[0]["fromRank"] == str(left) and receives[0]["fromTag"] == str(10 + left)
        assert receives[1]["fromRank"] == str(right) and receives[1]["fromTag"] == "20"
        # the failed Send to a rank that does not exist is logged too
        sends = [dict(attrs) for tag, attrs, _ in calls if tag == "Send"]
        assert len(sends) == 3 and sends[2]["count"] == "1", sends
        waits = [children for tag, _, children in calls if tag == "Waitall"]
        assert all(len(children) == 4 for children in waits), waits
        # Waitany completes the Irecv, Waitsome the Isend before it
        at = [tag for tag, _, _ in calls].index("Waitany")
        send_rid, receive_rid = (dict(calls[at - k][1])["rid"] for k in (2, 1))
        assert calls[at][2] == [("For", [("rid", receive_rid)], [])], calls[at]
        assert calls[at + 1][2] == [("For", [("rid", send_rid)], [])], calls[at + 1]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("variant", VARIANTS)
def test_same_trace_as_c(runner, variant, mode):
    reference = _run(runner, "c", mode)
    fortran = _run(runner, variant, mode)
    for rank in range(NRANKS):
        want_calls, want_lines = _calls(reference, rank)
        got_calls, got_lines = _calls(fortran, rank)
        for number, (want, got) in enumerate(zip(want_calls, got_calls)):
            assert got == want, f"rank {rank}, call {number}: Fortran {got} != C {want}"
        assert len(got_calls) == len(want_calls), (
            f"rank {rank}: {len(got_calls)} calls in Fortran, {len(want_calls)} in C")
        assert got_lines == want_lines, f"rank {rank}: the .info differ"


@pytest.mark.parametrize("variant", ["c"] + VARIANTS)
def test_same_behaviour(runner, variant):
    """Output and exit code as without the wrapper, in both linking modes."""
    plain = _run(runner, variant, "static", traced=False)
    lines = tracecheck.per_rank_lines(plain.result.stdout)
    assert len(lines) == 15 * NRANKS and all(line.startswith("r") for line in lines), lines
    for mode in MODES:
        traced = _run(runner, variant, mode)
        assert tracecheck.per_rank_lines(traced.result.stdout) == lines, mode
        assert traced.result.returncode == plain.result.returncode == 0
        assert traced.result.stderr == plain.result.stderr, mode


def test_untraced_run_writes_nothing(runner):
    """The plain build without LD_PRELOAD is really untraced (the reference above)."""
    plain = _run(runner, "f08", "static", traced=False)
    assert not list(plain.trace_dir.iterdir())


def test_readme_link_line(runner, build_dir, tmp_path):
    """`mpifort app.f90 $(pkg-config --libs hdtrace-mpi)`, as docs/user/tracing.md says, with the
    build tree's hdtrace-mpi.pc and archive: the use mpi_f08 twin is traced like C."""
    library_dir = build_dir / "mpiwrapper"
    flags = subprocess.run(
        ["pkg-config", "--libs", f"--define-variable=libdir={library_dir}",
         str(library_dir / "hdtrace-mpi.pc")], capture_output=True, text=True, check=True)
    mpifort = buildtree.cache_value(build_dir, "MPI_Fortran_COMPILER")
    program = tmp_path / "twin_f08_pkgconfig"
    source = pathlib.Path(__file__).resolve().parent / "programs" / "fortran" / "twin_f08.f90"
    built = subprocess.run([mpifort, "-o", str(program), f"-J{tmp_path}", str(source)]
                           + flags.stdout.split(), capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    traces, work = tmp_path / "traces", tmp_path / "work"
    traces.mkdir()
    work.mkdir()
    result = tracecheck.mpiexec(program, NRANKS, tracecheck.mpi_env(HDTRACE_DIR=traces, **ENV),
                                work)
    assert result.returncode == 0, result.stderr
    reference = _run(runner, "c", "static")
    linked = types.SimpleNamespace(trace_dir=traces, program=program.name)
    for rank in range(NRANKS):
        assert _calls(linked, rank) == _calls(reference, rank), f"rank {rank}"
