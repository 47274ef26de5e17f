"""Threads: a trace per thread number, <thread> = 0 for the thread that called
MPI_Init_thread, then 1, 2, ... in the order of the threads' first MPI call;
a thread that starts after another ended continues its trace
(docs/format/trace.md, "File names" and "Threads")."""
import tracecheck

NRANKS = 2


def _resolve_comm(infos, cid):
    for info in infos:
        if cid in info.comms:
            return info.comms[cid]
    return None


def test_one_trace_per_thread(runner):
    run = runner.run("threads_traced", NRANKS)
    run.assert_ok()
    assert run.result.stderr == ""
    want = {f"{tracecheck.trace_base(run.trace_dir, 'threads_traced', rank, thread).name}{s}"
            for rank in range(NRANKS) for thread in range(2) for s in (".trc", ".info")}
    assert {p.name for p in run.trace_dir.iterdir()} == want
    for rank in range(NRANKS):
        bases = [tracecheck.trace_base(run.trace_dir, "threads_traced", rank, thread)
                 for thread in range(2)]
        traces = [tracecheck.parse_trc(base.with_suffix(".trc")) for base in bases]
        infos = [tracecheck.parse_info(base.with_suffix(".info")) for base in bases]

        def calls(trace):
            return [e for e in trace.elements
                    if not (e.tag in tracecheck.BOOKKEEPING_CALLS and tracecheck.is_ordinary(e))]

        main = [e.tag for e in calls(traces[0])]
        assert main == ["Init_thread", "Barrier", "Comm_dup", "Comm_free", "Finalize"], main
        dup_cid = int(calls(traces[0])[2].attrib["newCid"])

        # the first thread's calls, then the second's, which came after it ended
        lane = calls(traces[1])
        assert [e.tag for e in lane] == ["Bcast", "Barrier", "Allreduce"]
        assert float(lane[1].attrib["end"]) <= float(lane[2].attrib["time"])
        first, second = lane[:2], lane[2:]
        bcast = first[0].attrib
        assert list(bcast) == ["size", "rootRank", "cid", "count", "tid", "time", "end"]
        assert (bcast["size"], bcast["rootRank"], bcast["count"]) == ("12", "0", "3")
        allreduce = second[0].attrib
        assert (allreduce["size"], allreduce["count"]) == ("16", "2")
        for element in (first[0], first[1], second[0]):
            cid = int(element.attrib["cid"])
            assert cid == dup_cid, f"<{element.tag}> in a thread uses cid {cid}, the dup is " \
                                   f"{dup_cid}"
            comm = _resolve_comm(infos, cid)
            assert comm is not None, f"cid {cid} is defined in no .info of rank {rank}"
            assert comm["map"] == {r: r for r in range(NRANKS)}
