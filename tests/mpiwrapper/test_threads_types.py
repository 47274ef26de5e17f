"""Type records are counted references and the threads' type
caches follow each record's retirement. programs/threads_types.c has 4
threads build, use, share and free HDF5-like types at the same time; every
Sendrecv's tid must resolve, through that thread's .info, to the type the
program built for that round, and a type two threads used must have one id."""
import tracecheck

THREADS, ITERATIONS = 4, 200


def chain(info, tid, where):
    """(t, i) of the struct -> resized -> vector -> contiguous -> MPI_INT
    chain that thread t built in round i, checking every line on the way."""
    struct = info.types[tid]
    assert struct["combiner"] == "MPI_COMBINER_STRUCT", f"{where}: {struct}"
    assert struct["integers"] == [1, 1] and len(struct["addresses"]) == 1, f"{where}: {struct}"
    t = struct["addresses"][0] // 4
    resized = info.types[struct["types"][0]]
    assert resized["combiner"] == "MPI_COMBINER_RESIZED", f"{where}: {resized}"
    assert resized["addresses"][0] == 0, f"{where}: {resized}"
    i = resized["addresses"][1] // 8 - 2
    vector = info.types[resized["types"][0]]
    assert (vector["combiner"], vector["integers"]) == ("MPI_COMBINER_VECTOR", [i + 1, 1, 2]), \
        f"{where}: {vector} in round {i}"
    element = info.types[vector["types"][0]]
    assert (element["combiner"], element["integers"]) == ("MPI_COMBINER_CONTIGUOUS", [t + 1]), \
        f"{where}: {element} of thread {t}"
    assert info.types[element["types"][0]]["name"] == "MPI_INT", where
    return t, i


def test_threads_share_and_free_types(runner):
    run = runner.run("threads_types_traced", 1)
    run.assert_ok()
    assert f"threads={THREADS} iterations={ITERATIONS}" in run.result.stdout
    ids = {}  # (t, i) -> tid, from every thread that used it
    workers = set()
    for thread in range(1, THREADS + 1):
        base = tracecheck.trace_base(run.trace_dir, "threads_types_traced", 0, thread)
        trace = tracecheck.parse_trc(base.with_suffix(".trc"))
        info = tracecheck.parse_info(base.with_suffix(".info"))
        tids = [int(e.attrib["tid"]) for e in trace.elements if e.tag == "Sendrecv"]
        assert len(tids) == 2 * ITERATIONS, f"{base}: {len(tids)} Sendrecv tids"
        worker = None
        for k, tid in enumerate(tids):
            where = f"{base}: Sendrecv {k}"
            t, i = chain(info, tid, where)
            if worker is None:
                worker = t
            own = k % 2 == 0
            expected = (worker if own else (worker + THREADS - 1) % THREADS, k // 2)
            assert (t, i) == expected, f"{where}: type of thread {t} round {i}, expected {expected}"
            assert ids.setdefault((t, i), tid) == tid, (
                f"{where}: the type of thread {t} round {i} is {tid} here, "
                f"{ids[(t, i)]} in another thread")
        workers.add(worker)
    assert workers == set(range(THREADS))
    assert len(set(ids.values())) == len(ids) == THREADS * ITERATIONS, "a type id was reused"
