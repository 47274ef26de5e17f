"""Ids of predefined datatypes (NOTES.md): MPI_Type_c2f(type), which on MPICH
is the handle itself, so that MPICH traces carry the seed's ids
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
