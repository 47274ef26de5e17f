"""The wrapper creates no MPI object of its own.

A communicator the wrapper made and freed inside MPI_Init took a context id
that the program's first communicator would otherwise get, and Open MPI's
context-id agreement then hung in MPI_Dist_graph_create. These tests check
the rule itself, not only that one symptom:
- every PMPI_ call in the wrapper's own code is listed, with its reason, in
  mpiwrapper/src/Runtime.hpp, and nothing else is;
- programs/firsthandles.c counts the calls that reach the library's
  object-creating PMPI_ entry points: traced, MPI_Init makes none, and each
  later call of the program adds at most its own forwarded call; the first
  communicator, datatype, group, window, file and request handles are those
  of the untraced run; under every writer-thread setting, linked and
  preloaded, on whichever MPI library the build uses;
- programs/distgraph.c, the pattern of MPICH's topo/distgraph1, never hangs
  in 20 runs linked and 20 preloaded with the default settings.
"""
import os
import pathlib
import re

import pytest

import tracecheck

ROOT = pathlib.Path(__file__).resolve().parents[2]
SOURCES = ROOT / "mpiwrapper" / "src"

KINDS = ["dup", "split", "cart", "distgraph", "distgraph_adjacent"]
KIND_FUNCTION = {"dup": "Comm_dup", "split": "Comm_split", "cart": "Cart_create",
                 "distgraph": "Dist_graph_create",
                 "distgraph_adjacent": "Dist_graph_create_adjacent"}
# What the wrapper may forward in each phase of firsthandles: the program's
# own call, once (or not at all where that function is not wrapped).
PHASE_FORWARDS = {"init": {}, "dup": {"Comm_dup": 1}, "contiguous": {"Type_contiguous": 1},
                  "win_create": {"Win_create": 1}, "file_open": {"File_open": 1},
                  "irecv": {"Irecv": 1},
                  "frees": {"Comm_free": 2, "Type_free": 1, "File_close": 1, "Win_free": 1}}
NRANKS = 4
HANG_RUNS = 20


def _listed_calls():
    text = (SOURCES / "Runtime.hpp").read_text()
    listed = set()
    for block in re.findall(r"//   own-mpi-call (.*?):", text, re.S):
        listed.update(re.findall(r"PMPI_\w+", block))
    return listed


def _code_calls():
    calls = {}
    for path in sorted(SOURCES.glob("*.[ch]pp")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("//")[0]
            for name in re.findall(r"\bPMPI_\w+", code):
                calls.setdefault(name, f"{path.name}:{number}")
    conf = (ROOT / "mpiwrapper" / "wrapper_conf.py").read_text()
    for name in re.findall(r"\bPMPI_\w+", conf):
        calls.setdefault(name, "wrapper_conf.py")
    return calls


def test_every_own_mpi_call_is_listed_with_its_reason():
    listed, used = _listed_calls(), _code_calls()
    assert listed, "Runtime.hpp lists no own-mpi-call"
    unlisted = {name: where for name, where in used.items() if name not in listed}
    assert not unlisted, (f"PMPI calls the wrapper makes without a reason in Runtime.hpp's "
                          f"own-mpi-call list: {unlisted}")
    assert not listed - set(used), f"listed but never called: {sorted(listed - set(used))}"


def _parse(run):
    """{rank: ({phase: {function: count}}, {what: handle})} of one firsthandles run."""
    ranks = {}
    for line in run.result.stdout.splitlines():
        fields = line.split()
        if not fields:  # Hydra may break the stream between two ranks' lines
            continue
        assert len(fields) >= 3 and re.fullmatch(r"r[0-9]+", fields[0]), \
            f"unexpected line {line!r} in\n{run.result.stdout}"
        rank = int(fields[0][1:])
        calls, handles = ranks.setdefault(rank, ({}, {}))
        if fields[1] == "calls":
            calls[fields[2]] = {name: int(count)
                                for name, count in (f.rsplit(":", 1) for f in fields[3:])}
        else:
            handles[fields[1]] = int(fields[2])
    assert sorted(ranks) == list(range(run.nranks)), run.result.stdout
    return ranks


def _run_firsthandles(runner, variant, kind, env, preload=False):
    # each run has a working directory of its own, where the file is made
    run = runner.run(f"firsthandles_{variant}", NRANKS, env={"OMPI_MCA_osc": "pt2pt", **env},
                     args=(kind, "scratch.dat"), cached=variant == "plain" and not preload,
                     preload=preload)
    assert run.result.returncode == 0, (f"firsthandles {kind} exited with "
                                        f"{run.result.returncode}:\n{run.result.stderr}")
    return run


def _compare(plain, traced, kind):
    forwards = dict(PHASE_FORWARDS, **{kind: {KIND_FUNCTION[kind]: 1}})
    plain_ranks, traced_ranks = _parse(plain), _parse(traced)
    for rank in plain_ranks:
        plain_calls, plain_handles = plain_ranks[rank]
        traced_calls, traced_handles = traced_ranks[rank]
        if "--oversubscribe" not in tracecheck.launcher():
            # MPICH: the wrapper's MPI_Comm_group makes MPICH create the
            # group it then keeps with the communicator (Runtime.hpp), so
            # groups the program makes later get other handle values. They
            # behave the same; no context id or other object is involved.
            plain_handles.pop("group"), traced_handles.pop("group")
        assert traced_handles == plain_handles, (
            f"rank {rank}: handles traced {traced_handles} untraced {plain_handles}")
        assert set(traced_calls) == set(forwards), traced_calls
        for phase, allowed in forwards.items():
            names = set(traced_calls[phase]) | set(plain_calls[phase])
            extra = {name: traced_calls[phase].get(name, 0) - plain_calls[phase].get(name, 0)
                     for name in names}
            extra = {name: count for name, count in extra.items() if count}
            for name, count in extra.items():
                assert 0 < count <= allowed.get(name, 0), (
                    f"rank {rank}, phase {phase}: the traced run called PMPI_{name} {count} "
                    f"time(s) more than the untraced run; allowed: {allowed or 'none'}")


# Every constructor under the default setting; every other setting with two.
LINKED_CASES = [("auto", kind) for kind in KINDS] + [
    (setting, kind) for setting in ("0", "1", "auto-counted") for kind in ("dup", "distgraph")]


@pytest.mark.parametrize("writer_thread,kind", LINKED_CASES)
def test_first_handles_linked(runner, writer_thread, kind):
    env = {"HDTRACE_WRITER_THREAD": writer_thread.split("-")[0]}
    if writer_thread == "auto-counted":  # the launcher's count hidden: the wrapper counts
        env["FIRSTHANDLES_HIDE_LAUNCHER"] = "1"
    plain = _run_firsthandles(runner, "plain", kind, {})
    traced = _run_firsthandles(runner, "traced", kind, env)
    _compare(plain, traced, kind)


@pytest.mark.parametrize("kind", KINDS)
def test_first_handles_preloaded(runner, kind):
    plain = _run_firsthandles(runner, "plain", kind, {})
    traced = _run_firsthandles(runner, "plain", kind, {}, preload=True)
    traced_files = list(traced.trace_dir.glob("*.trc"))
    assert len(traced_files) == NRANKS, f"the preloaded wrapper wrote {traced_files}"
    _compare(plain, traced, kind)


def test_counting_without_launcher_help(runner):
    """Without the launcher's count, the wrapper exchanges host names over
    MPI_COMM_WORLD, finds all ranks on this host, and says so."""
    run = _run_firsthandles(runner, "traced", "dup",
                            {"HDTRACE_VERBOSE": "1", "FIRSTHANDLES_HIDE_LAUNCHER": "1"})
    cpus = os.sysconf("SC_NPROCESSORS_ONLN")
    lines = [line for line in run.result.stderr.splitlines() if "traces into" in line]
    assert len(lines) == NRANKS, run.result.stderr
    said = "a background thread" if cpus > NRANKS else "the traced thread"
    for line in lines:
        assert line.endswith(f"written by: {said}, auto: {NRANKS} ranks on {cpus} CPUs of this "
                             "node, from host names exchanged over MPI_COMM_WORLD)"), line


@pytest.mark.parametrize("preload", [False, True], ids=["linked", "preloaded"])
def test_distgraph_never_hangs(runner, preload):
    program = "distgraph_plain" if preload else "distgraph_traced"
    plain = runner.run("distgraph_plain", NRANKS)
    assert plain.result.returncode == 0, plain.result.stderr
    expected = tracecheck.per_rank_lines(plain.result.stdout)
    for attempt in range(HANG_RUNS):
        # runner.run fails the test when a run does not end within its timeout
        run = runner.run(program, NRANKS, cached=False, preload=preload)
        assert run.result.returncode == 0, f"run {attempt + 1}: {run.result.stderr}"
        assert tracecheck.per_rank_lines(run.result.stdout) == expected
        assert len(list(run.trace_dir.glob("*.trc"))) == NRANKS
