"""Four threads calling MPI at the same time under MPI_THREAD_MULTIPLE:
every thread has its own trace and .info, numbered
1..4 after the main thread, and every call of every thread is in its trace
with the values the program used. Thread 0 completes a request the main
thread created, which must still be matched to its rid."""
import re

import tracecheck

NRANKS, THREADS, ITERATIONS = 2, 4, 300
PROGRAM = "threads_concurrent_traced"


def _calls(trace):
    return [e for e in trace.elements
            if not (e.tag in tracecheck.BOOKKEEPING_CALLS and tracecheck.is_ordinary(e))]


def _check_rank(run, rank):
    peer = 1 - rank
    bases = {n: tracecheck.trace_base(run.trace_dir, PROGRAM, rank, n) for n in range(THREADS + 1)}
    traces = {n: tracecheck.parse_trc(b.with_suffix(".trc")) for n, b in bases.items()}
    infos = {n: tracecheck.parse_info(b.with_suffix(".info")) for n, b in bases.items()}

    main = _calls(traces[0])
    tags = [e.tag for e in main]
    assert tags == (["Init_thread"] + ["Comm_dup"] * THREADS + ["Irecv", "Send"]
                    + ["Comm_free"] * THREADS + ["Finalize"]), tags
    dup_cids = [int(e.attrib["newCid"]) for e in main[1:1 + THREADS]]
    assert len(set(dup_cids)) == THREADS
    main_irecv = main[1 + THREADS].attrib
    assert (main_irecv["fromRank"], main_irecv["fromTag"], main_irecv["cid"]) == (
        str(peer), "77", "0")
    main_rid = int(main_irecv["rid"])

    int_tid = double_tid = None
    seen_rids = {main_rid}
    threads_of_t = {}
    for n in range(1, THREADS + 1):
        calls = _calls(traces[n])
        assert calls, f"{traces[n].path} holds no call"
        # Which program thread wrote this trace: its communicator says.
        t = dup_cids.index(int(calls[0].attrib["cid"]))
        assert t not in threads_of_t, f"threads {threads_of_t[t]} and {n} both ran thread {t}"
        threads_of_t[t] = n
        count = t + 1
        expected_tags = ["Irecv", "Isend", "Waitall", "Allreduce", "Iprobe"] * ITERATIONS
        if t == 0:
            expected_tags.append("Wait")
        assert [e.tag for e in calls] == expected_tags, f"{traces[n].path}: calls differ"
        info = infos[n]
        assert info.comms[0]["name"] == "WORLD" and info.comms[1]["name"] == "SELF"
        assert dup_cids[t] in info.comms, f"{info.path} does not define cid {dup_cids[t]}"
        assert info.comms[dup_cids[t]]["map"] == {r: r for r in range(NRANKS)}
        for i in range(ITERATIONS):
            irecv, isend, waitall, allreduce, iprobe = calls[5 * i:5 * i + 5]
            tag = str(1000 * t + i)
            assert list(irecv.attrib) == ["fromRank", "fromTag", "cid", "rid", "time", "end"]
            assert (irecv.attrib["fromRank"], irecv.attrib["fromTag"],
                    irecv.attrib["cid"]) == (str(peer), tag, str(dup_cids[t]))
            assert list(isend.attrib) == ["size", "count", "tid", "toRank", "toTag", "cid", "rid",
                                          "time", "end"]
            assert (isend.attrib["size"], isend.attrib["count"], isend.attrib["toRank"],
                    isend.attrib["toTag"], isend.attrib["cid"]) == (
                        str(4 * count), str(count), str(peer), tag, str(dup_cids[t]))
            tid = int(isend.attrib["tid"])
            int_tid = tid if int_tid is None else int_tid
            assert tid == int_tid and info.types[tid]["name"] == "MPI_INT"
            rids = [int(irecv.attrib["rid"]), int(isend.attrib["rid"])]
            assert not seen_rids & set(rids), f"rid reused: {rids}"
            seen_rids.update(rids)
            assert [int(c.attrib["rid"]) for c in waitall if c.tag == "For"] == rids, (
                f"{traces[n].path}: Waitall {i} completes "
                f"{[c.attrib for c in waitall]}, not {rids}")
            assert (allreduce.attrib["size"], allreduce.attrib["cid"],
                    allreduce.attrib["count"]) == (str(8 * count), str(dup_cids[t]), str(count))
            double_tid = int(allreduce.attrib["tid"]) if double_tid is None else double_tid
            assert int(allreduce.attrib["tid"]) == double_tid
            assert info.types[double_tid]["name"] == "MPI_DOUBLE"
            assert (iprobe.attrib["source"], iprobe.attrib["tag"], iprobe.attrib["cid"]) == (
                "-1", str(t), str(dup_cids[t]))
        if t == 0:
            wait = calls[-1]
            assert [int(c.attrib["rid"]) for c in wait if c.tag == "For"] == [main_rid], (
                "the Wait in another thread does not complete the main thread's Irecv")
    assert sorted(threads_of_t) == list(range(THREADS))


def test_four_threads_concurrently(runner):
    run = runner.run(PROGRAM, NRANKS)
    run.assert_ok()
    assert "provided" not in run.result.stderr, run.result.stderr
    for rank in range(NRANKS):
        for t in range(THREADS):
            assert f"r{rank} thread {t} errors=0" in run.result.stdout, run.result.stdout
    want = {f"{tracecheck.trace_base(run.trace_dir, PROGRAM, rank, n).name}{s}"
            for rank in range(NRANKS) for n in range(THREADS + 1) for s in (".trc", ".info")}
    assert {p.name for p in run.trace_dir.iterdir()} == want
    assert all(re.search(r"_[0-4]\.(trc|info)$", name) for name in want)
    for rank in range(NRANKS):
        _check_rank(run, rank)


def test_four_threads_repeatedly(runner):
    """Races show up only sometimes: the same run three more times."""
    for _ in range(3):
        run = runner.run(PROGRAM, NRANKS, cached=False)
        run.assert_ok()
        for rank in range(NRANKS):
            _check_rank(run, rank)
