"""Matched probes, one-sided communication and generalized requests.

Each program (programs/mprobe.c, rma.c, grequest.c) records what it did;
the checker compares every element, attribute and <For> of every rank's
trace with that record, resolving mids, wids (through the .info Win lines),
rids, communicators and types. The same programs built without the wrapper
must print the same (return codes, statuses, data)."""
import pytest

import tracecheck

# program, rank counts
PROGRAMS = [("mprobe", (2, 3, 4)), ("rma", (2, 3, 4)), ("grequest", (1, 2))]
CASES = [(name, n) for name, counts in PROGRAMS for n in counts]


@pytest.mark.parametrize("name,nranks", CASES, ids=[f"{n}-{k}" for n, k in CASES])
def test_trace_matches_the_program(runner, name, nranks):
    runner.run(f"{name}_traced", nranks).check()


def test_mids_count_from_zero_in_probe_order(runner):
    """mid: a per-process counter from 0, one per matched message, never reused."""
    checkers = runner.run("mprobe_traced", 4).check()
    for rank, checker in enumerate(checkers):
        probes = [int(e.attrib["mid"]) for e in checker.trace.elements
                  if e.tag in ("Mprobe", "Improbe") and e.attrib["mid"] != "-1"]
        if rank % 2 == 1:
            assert probes == list(range(len(probes))) and len(probes) == 8, (
                f"rank {rank}: probes gave mids {probes}, expected 0..7 in order")
        else:
            assert probes == [], f"rank {rank} received nothing, its probes gave mids {probes}"
        received = sorted(int(e.attrib["mid"]) for e in checker.trace.elements
                          if e.tag in ("Mrecv", "Imrecv") and e.attrib["mid"] != "-1")
        assert received == sorted(probes), (
            f"rank {rank}: receives consumed mids {received}, probes gave {probes}")


def test_win_lines(runner):
    """One Win line per window, ids 0.. in creation order, after its Comm line,
    before the first element that names it."""
    checkers = runner.run("rma_traced", 3).check()
    for checker in checkers:
        info = checker.info
        assert info.win_order == [0, 1, 2, 3], f"{info.path}: windows {info.win_order}"
        assert [info.wins[w]["kind"] for w in info.win_order] == [
            "create", "allocate", "shared", "dynamic"]
        for wid, window in info.wins.items():
            assert info.comms[window["cid"]]["line"] < window["line"], (
                f"{info.path}: Win line {window['line']} before its Comm line")
        # the ids the trace uses are exactly the ids the program's labels resolved to
        assert sorted(checker.wins.values()) == [0, 1, 2, 3]


def test_rma_targets_are_world_ranks(runner):
    """On the communicator with reversed ranks, local rank r is world rank n-1-r:
    Put's targetRank differs from the local rank the program passed."""
    checkers = runner.run("rma_traced", 4).check()
    for rank, checker in enumerate(checkers):
        first_put = next(e for e in checker.trace.elements if e.tag == "Put")
        local_me = 3 - rank
        local_right = (local_me + 1) % 4
        assert int(first_put.attrib["targetRank"]) == 3 - local_right


def _lines(run):
    return tracecheck.per_rank_lines(run.result.stdout)


@pytest.mark.parametrize("name,nranks", [("mprobe", 4), ("mprobe", 3), ("rma", 3),
                                         ("grequest", 2)])
def test_same_output_as_untraced(runner, name, nranks):
    """Return codes, statuses, MPI_MESSAGE_NO_PROC, null requests and data as without
    the wrapper; nothing on stderr."""
    plain = runner.run(f"{name}_plain", nranks)
    traced = runner.run(f"{name}_traced", nranks)
    assert plain.result.returncode == 0, plain.result.stderr
    assert traced.result.returncode == plain.result.returncode, traced.result.stderr
    assert _lines(traced) == _lines(plain)
    assert all(line.startswith("r") for line in _lines(plain)), "noise on stdout"
    assert traced.result.stderr == plain.result.stderr == ""


@pytest.mark.parametrize("name,nranks", [("mprobe", 2), ("rma", 2), ("grequest", 2)])
def test_preloaded(runner, name, nranks):
    """libhdtracempi.so preloaded into the untraced build: the same checks pass."""
    run = runner.run(f"{name}_plain", nranks, preload=True)
    run.check(type_findings=False)


def test_window_used_by_another_thread(runner):
    """A window made in thread 0 and used in thread 1: thread 1's .info declares
    the window's communicator, then its Win line, with the same ids."""
    nranks = 2
    run = runner.run("rma_threads_traced", nranks)
    run.assert_ok()
    assert run.result.stderr == ""
    lines = tracecheck.per_rank_lines(run.result.stdout)
    for rank in range(nranks):
        left = (rank + nranks - 1) % nranks
        assert f"r{rank} memory[left]={10 + left}" in lines, lines
        bases = [tracecheck.trace_base(run.trace_dir, "rma_threads_traced", rank, thread)
                 for thread in range(2)]
        traces = [tracecheck.parse_trc(base.with_suffix(".trc")) for base in bases]
        infos = [tracecheck.parse_info(base.with_suffix(".info")) for base in bases]
        main = {e.tag: e.attrib for e in traces[0].elements}
        cid = int(main["Comm_dup"]["newCid"])
        assert dict(main["Win_create"], time=None, end=None) == {
            "cid": str(cid), "wid": "0", "size": "64", "dispUnit": "8", "time": None, "end": None}
        assert main["Win_free"]["wid"] == "0"
        for info in infos:
            assert info.wins == {0: {"cid": cid, "size": 64, "dispUnit": 8, "kind": "create",
                                     "line": info.wins[0]["line"]}}
            assert info.comms[cid]["map"] == {r: r for r in range(nranks)}
            assert info.comms[cid]["line"] < info.wins[0]["line"]
        epoch = [(e.tag, dict(e.attrib)) for e in traces[1].elements]
        for _, attrs in epoch:
            del attrs["time"], attrs["end"]
        double = next(tid for tid, t in infos[1].types.items() if t["name"] == "MPI_DOUBLE")
        assert epoch == [
            ("Win_fence", {"wid": "0", "assert": "0"}),
            ("Put", {"size": "8", "count": "1", "tid": str(double),
                     "targetRank": str((rank + 1) % nranks), "disp": str(rank), "wid": "0"}),
            ("Win_fence", {"wid": "0", "assert": "0"})]
