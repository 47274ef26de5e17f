"""Ids of predefined datatypes (docs/format/README.md, "Ids"): MPI_Type_c2f(type), which on MPICH
is the handle itself, so that MPICH traces carry the ids of the PIOsim design's examples
(MPI_INT is 1275069445 there)."""
import re

import tracecheck


def test_predefined_type_ids(runner):
    run = runner.run("typeids_traced", 1)
    run.assert_ok()
    printed = {m.group(1): (int(m.group(2)), int(m.group(3))) for m in
               re.finditer(r"^(MPI_\w+) c2f=(-?\d+) handle=(-?\d+)$", run.result.stdout, re.M)}
    assert len(printed) == 5, run.result.stdout
    base = tracecheck.trace_base(run.trace_dir, "typeids_traced", 0)
    trace = tracecheck.parse_trc(base.with_suffix(".trc"))
    info = tracecheck.parse_info(base.with_suffix(".info"))
    bcasts = [e for e in trace.elements if e.tag == "Bcast"]
    assert len(bcasts) == 5
    mpich = "MPICH" in info.header["library"]
    for (name, (c2f, handle)), bcast in zip(printed.items(), bcasts):
        tid = int(bcast.attrib["tid"])
        assert tid == c2f, f"{name}: tid {tid}, MPI_Type_c2f {c2f}"
        assert info.types[tid]["name"] == name
        assert info.types[tid]["combiner"] == "MPI_COMBINER_NAMED"
        if mpich:
            assert tid == handle, f"{name}: tid {tid} is not the MPICH handle {handle}"
    if mpich:
        assert printed["MPI_INT"][1] == 1275069445
        assert int(bcasts[0].attrib["tid"]) == 1275069445


def test_type_kept_after_program_frees_what_get_contents_returned(runner):
    """MPICH's MPI_Type_get_contents gives back the program's own handle with
    its reference count raised, and the program frees it: the wrapper keeps
    the type under its id, and declares it once. (Open MPI gives back a new
    handle, which is freed like any other.)"""
    run = runner.run("typecontents_traced", 2)
    run.assert_ok()
    returned = [line.strip() for line in run.result.stdout.splitlines() if line.strip()]
    info_probe = tracecheck.parse_info(
        tracecheck.trace_base(run.trace_dir, "typecontents_traced", 0).with_suffix(".info"))
    if "MPICH" in info_probe.header["library"]:
        assert returned == ["same handle"], run.result.stdout  # the case under test
    for rank in range(2):
        base = tracecheck.trace_base(run.trace_dir, "typecontents_traced", rank)
        trace = tracecheck.parse_trc(base.with_suffix(".trc"))
        info = tracecheck.parse_info(base.with_suffix(".info"))
        tids = [int(e.attrib["tid"]) for e in trace.elements if e.tag == "Sendrecv"]
        assert len(tids) == 3, f"{base}: {tids}"
        assert tids[0] == tids[1] == tids[2], f"{base}: the inner type's id changed: {tids}"
        inner = info.types[tids[0]]
        assert (inner["combiner"], inner["integers"]) == ("MPI_COMBINER_CONTIGUOUS", [4])
        contiguous = [t for t, e in info.types.items() if e["combiner"] == "MPI_COMBINER_CONTIGUOUS"]
        assert contiguous == [tids[0]], f"{base}: the inner type is declared as {contiguous}"
