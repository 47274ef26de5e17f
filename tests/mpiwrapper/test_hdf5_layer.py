"""The HDF5 layer end to end (programs/hdf5_layers.c): a parallel HDF5
program, linked with libhdtracempi.a or with libhdtracempi.so preloaded,
leaves beside each main trace a trace of its HDF5 calls (<base>.hdf5.trc):
- every call the program made, in its order, with the values it printed
  (dataset numbers and names, the selection's bytes, type sizes, layout,
  extent, transfer mode) and the file's id from the main .info;
- the MPI-IO calls HDF5 made lie within the HDF5 call that made them (the
  readers nest them so), and the POSIX calls within those: three levels;
- the bytes per layer add up to what the program asked for;
- a call on an invalid id gets HDF5's own error, and the trace records it;
- HDTRACE_HDF5=0 writes no layer trace and the same main trace, which is
  all the PIOsim tools read."""
import collections
import re
import xml.etree.ElementTree as ET
from decimal import Decimal

import pytest

import tracecheck

PROGRAM = "hdf5_layers"
RANKS = 2
IO_ENV = {"OMPI_MCA_io": "ompio"}
ON_FILE_EXCEPT = ("H5Pset_fapl_mpio", "H5Pset_dxpl_mpio")


def _require_program(runner, name):
    if "--oversubscribe" not in tracecheck.launcher():
        pytest.skip("the MPICH tree has no HDF5 layer: Debian's parallel HDF5 is built for "
                    "Open MPI (mpiwrapper/hdf5 says so when it configures)")
    runner.path(name)  # fails naming the missing program


def _run(runner, how, env=None):
    """how: linked (libhdtracempi.a), preloaded (libhdtracempi.so), untraced."""
    name = f"{PROGRAM}_{'traced' if how == 'linked' else 'plain'}"
    _require_program(runner, name)
    run = runner.run(name, RANKS, env={**IO_ENV, **(env or {})}, args=["data.h5"],
                     preload=how == "preloaded")
    run.assert_ok()
    return run


def _said(run, rank):
    """The calls rank printed: [(tag, {key: value})]."""
    calls = []
    for line in run.result.stdout.splitlines():
        fields = line.split()
        if fields[:2] != [f"r{rank}", "call"]:
            continue
        calls.append((fields[2], dict(field.split("=", 1) for field in fields[3:])))
    assert f"r{rank} ok" in run.result.stdout.splitlines(), run.result.stdout
    return calls


def _nanoseconds(element):
    return (int(Decimal(element.attrib["time"]) * 1_000_000_000),
            int(Decimal(element.attrib["end"]) * 1_000_000_000))


def _traces(run, rank):
    base = tracecheck.trace_base(run.trace_dir, run.program, rank)
    main = tracecheck.parse_trc(base.with_name(base.name + ".trc"))
    layer = tracecheck.parse_trc(base.with_name(base.name + ".hdf5.trc"))
    info = tracecheck.parse_info(base.with_name(base.name + ".info"))
    return main, layer, info


@pytest.mark.parametrize("how", ["linked", "preloaded"])
def test_every_hdf5_call_is_in_the_layer_trace_as_the_program_made_it(runner, how):
    run = _run(runner, how)
    for rank in range(RANKS):
        main, layer, info = _traces(run, rank)
        where = f"{layer.path}"
        assert layer.time_adjustment == main.time_adjustment, where
        data = [fid for fid, entry in info.files.items()
                if entry["name"] == "data.h5"]
        assert len(data) == 1, (where, info.files)
        said = _said(run, rank)
        calls = list(layer.root)
        assert [element.tag for element in calls] == [tag for tag, _ in said], where
        for index, (element, (tag, values)) in enumerate(zip(calls, said)):
            at = f"{where} <{tag}> #{index}"
            for key, value in values.items():
                assert element.attrib.get(key) == value, (at, key, element.attrib)
            if "error" in values:
                assert element.attrib["fid"] == "-1", at
            elif tag in ON_FILE_EXCEPT:
                assert "fid" not in element.attrib, at
            else:
                assert element.attrib["fid"] == str(data[0]), at
                assert "error" not in element.attrib, at
        # The communicator H5Pset_fapl_mpio was given: WORLD.
        fapl = calls[0]
        assert info.comms[int(fapl.attrib["cid"])]["name"] == "WORLD", info.comms


def _spans(layer, tags=None):
    return [(element, *_nanoseconds(element)) for element in layer.root
            if tags is None or element.tag in tags]


def _within(element, spans):
    start, end = _nanoseconds(element)
    for span, span_start, span_end in spans:
        if span_start <= start and end <= span_end:
            return span
    return None


def test_mpi_io_and_posix_calls_lie_within_the_hdf5_call_that_made_them(runner):
    run = _run(runner, "linked")
    posix = set(tracecheck.POSIX_CALLS)
    written = collections.Counter()  # by level, of the contiguous dataset's writes
    for rank in range(RANKS):
        main, layer, _ = _traces(run, rank)
        spans = _spans(layer)
        top = list(main.root)
        file_calls = 0
        for position, element in enumerate(top):
            if not element.tag.startswith("File_"):
                continue
            file_calls += 1
            made_by = _within(element, spans)
            assert made_by is not None, (
                f"{main.path}: <{element.tag} time={element.attrib['time']}> lies within no "
                f"HDF5 call: HDF5 made every MPI-IO call of this program")
            # The C library's calls it made: in the <Nested> block before it.
            nested = top[position - 1] if position and top[position - 1].tag == "Nested" else None
            inner = [] if nested is None else [e for e in nested if e.tag in posix]
            for state in inner:
                assert _within(state, [(made_by, *_nanoseconds(made_by))]) is not None, (
                    main.path, state.tag, state.attrib)
            if made_by.tag == "H5Dwrite" and made_by.attrib["dataset"] == "0" and \
                    element.tag.startswith("File_write"):
                written["mpiio"] += int(element.attrib.get("size", 0))
                written["posix"] += sum(int(state.attrib.get("size", 0)) for state in inner
                                        if state.tag.startswith(("pwrite", "write")))
        assert file_calls, f"{main.path}: no MPI-IO call at all"
        for write in (e for e in layer.root if e.tag in ("H5Dwrite", "H5Dread")
                      and e.attrib["dataset"] in ("0", "2") and "error" not in e.attrib):
            start, end = _nanoseconds(write)
            inside = [e.tag for e in top if e.tag.startswith("File_")
                      and start <= _nanoseconds(e)[0] and _nanoseconds(e)[1] <= end]
            kind = "File_write" if write.tag == "H5Dwrite" else "File_read"
            assert any(tag.startswith(kind) for tag in inside), (
                f"{layer.path}: <{write.tag} dataset={write.attrib['dataset']}> holds no "
                f"{kind} call: {inside}")
        written["hdf5"] += sum(int(e.attrib["size"]) for e in layer.root
                               if e.tag == "H5Dwrite" and e.attrib["dataset"] == "0")
    # Each rank asked for its block: the MPI-IO calls carry every rank's,
    # the C library's (by the aggregators of a collective write) all of it.
    asked = RANKS * 1000 * 8
    assert written["hdf5"] == asked, written
    assert written["mpiio"] == asked, written
    assert written["posix"] >= asked, written


def test_the_bytes_of_the_layer_are_what_the_program_asked_for(runner):
    run = _run(runner, "linked")
    for rank in range(RANKS):
        _, layer, _ = _traces(run, rank)
        said = _said(run, rank)
        for tag in ("H5Dwrite", "H5Dread", "H5Awrite", "H5Aread"):
            traced = sum(int(e.attrib["size"]) for e in layer.root if e.tag == tag)
            asked = sum(int(values.get("size", 0)) for said_tag, values in said if said_tag == tag)
            assert traced == asked and asked > 0, (layer.path, tag, traced, asked)


def _diagnostics(stderr):
    return sorted(line for line in stderr.splitlines() if re.search(r"H5Dwrite\(\)|HDF5-DIAG",
                                                                   line))


def test_a_call_on_an_invalid_id_gets_hdf5s_own_error(runner):
    plain = _run(runner, "untraced")
    traced = _run(runner, "linked")
    assert plain.result.stdout.splitlines() and \
        sorted(plain.result.stdout.splitlines()) == sorted(traced.result.stdout.splitlines())
    expected = _diagnostics(plain.result.stderr)
    assert len([line for line in expected if "HDF5-DIAG" in line]) == RANKS, plain.result.stderr
    assert _diagnostics(traced.result.stderr) == expected, traced.result.stderr
    for rank in range(RANKS):
        _, layer, _ = _traces(traced, rank)
        failed = [e for e in layer.root if "error" in e.attrib]
        assert [(e.tag, e.attrib["error"]) for e in failed] == [("H5Dwrite", "-1")], layer.path


def test_the_layer_off_leaves_the_main_trace_as_it_is_with_it(runner):
    on = _run(runner, "linked")
    off = _run(runner, "linked", env={"HDTRACE_HDF5": "0"})
    assert not list(off.trace_dir.glob("*.hdf5.*")), list(off.trace_dir.iterdir())
    assert len(list(on.trace_dir.glob("*.hdf5.trc"))) == RANKS
    for rank in range(RANKS):
        with_layer, _, _ = _traces(on, rank)
        base = tracecheck.trace_base(off.trace_dir, off.program, rank)
        without = tracecheck.parse_trc(base.with_name(base.name + ".trc"))
        # The same calls with the same values but for times (and the ids of
        # the objects they name, which the .info of each run declares alike).
        def calls(trace):
            return [(e.tag, {k: v for k, v in e.attrib.items() if k not in ("time", "end")})
                    for e in trace.root if e.tag != "Nested"]
        assert calls(with_layer) == calls(without), (with_layer.path, base)


def test_a_bad_switch_value_warns_and_keeps_the_layer_on(runner):
    run = _run(runner, "linked", env={"HDTRACE_HDF5": "maybe"})
    assert "HDTRACE_HDF5='maybe' is not 0 or 1" in run.result.stderr, run.result.stderr
    assert len(list(run.trace_dir.glob("*.hdf5.trc"))) == RANKS
