"""Running the HDF5 test programs (programs/hdf5_*.c) and reading what they
printed and traced. Each program prints the HDF5 calls it made, one per
line, as "r<rank> call <tag> [key=value]...", then "r<rank> ok"."""
from decimal import Decimal

import pytest

import tracecheck

RANKS = 2
IO_ENV = {"OMPI_MCA_io": "ompio"}


def require_program(runner, name):
    if "--oversubscribe" not in tracecheck.launcher():
        pytest.skip("the MPICH tree has no HDF5 layer: Debian's parallel HDF5 is built for "
                    "Open MPI (mpiwrapper/hdf5 says so when it configures)")
    runner.path(name)  # fails naming the missing program


def run_program(runner, program, how, env=None, args=()):
    """how: linked (libhdtracempi.a), preloaded (libhdtracempi.so), untraced;
    args: the program's after the file's name."""
    name = f"{program}_{'traced' if how == 'linked' else 'plain'}"
    require_program(runner, name)
    run = runner.run(name, RANKS, env={**IO_ENV, **(env or {})}, args=["data.h5", *args],
                     preload=how == "preloaded")
    run.assert_ok()
    return run


def said(run, rank):
    """The calls rank printed: [(tag, {key: value})]."""
    calls = []
    for line in run.result.stdout.splitlines():
        fields = line.split()
        if fields[:2] != [f"r{rank}", "call"]:
            continue
        calls.append((fields[2], dict(field.split("=", 1) for field in fields[3:])))
    assert f"r{rank} ok" in run.result.stdout.splitlines(), run.result.stdout
    return calls


def traces(run, rank):
    """The main trace, the HDF5 layer's trace and the .info of rank."""
    base = tracecheck.trace_base(run.trace_dir, run.program, rank)
    main = tracecheck.parse_trc(base.with_name(base.name + ".trc"))
    layer = tracecheck.parse_trc(base.with_name(base.name + ".hdf5.trc"))
    info = tracecheck.parse_info(base.with_name(base.name + ".info"))
    return main, layer, info


def nanoseconds(element):
    """A trace element's start and end, in nanoseconds."""
    return (int(Decimal(element.attrib["time"]) * 1_000_000_000),
            int(Decimal(element.attrib["end"]) * 1_000_000_000))


def spans(layer, tags=None):
    """[(element, start, end)] of a layer trace's calls (those of tags)."""
    return [(element, *nanoseconds(element)) for element in layer.root
            if tags is None or element.tag in tags]


def within(element, spans):
    """The call of spans whose time holds element's, or None."""
    start, end = nanoseconds(element)
    for span, span_start, span_end in spans:
        if span_start <= start and end <= span_end:
            return span
    return None
