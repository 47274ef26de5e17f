"""The dialect scanner against libxml2's reader through the Python package:
equal columns and tables on every trace of the test data and the
fixtures, equal errors (class and location) and equal partial reads on
damaged and hostile traces, and memory bounded by the chunk, not the trace."""
import re
import subprocess

import numpy as np
import pytest

import hdtrace
from hdtrace import _core
from hdtrace import native

ARRAY_KEYS = ("name_code", "start_ns", "end_ns", "size", "offset", "rid", "peer", "tag", "cid",
              "fid", "recv_peer", "recv_tag", "completion_row", "completion_rid", "open_row",
              "open_fid")
VALUE_KEYS = ("names", "open_name", "untranslated_peers", "damage", "time_fraction_digits")


def read_with(reader, path, **options):
    """The columns, or the ReadError's (text, file, line, column, problem)."""
    try:
        return _core.read_columns(str(path), reader=reader, **options), None
    except hdtrace.ReadError as error:
        return None, (str(error), error.file, error.line, error.column, error.problem)


def assert_same_reading(path, **options):
    """Both readers give the same columns or the same error; returns (columns, error)."""
    reference, reference_error = read_with("libxml2", path, **options)
    columns, error = read_with("auto", path, **options)
    assert error == reference_error, f"{path}: {error} against libxml2's {reference_error}"
    if reference is not None:
        assert reference["fallback"] is None  # the libxml2 reader is never a fallback
        for key in ARRAY_KEYS:
            assert np.array_equal(columns[key], reference[key]), (path, key)
        for key in VALUE_KEYS:
            assert columns[key] == reference[key], (path, key)
    return columns, error


def assert_scanner_reads(path, **options):
    columns, error = assert_same_reading(path, **options)
    assert error is None, error
    assert columns["fallback"] is None, f"{path} was left to libxml2: {columns['fallback']}"
    return columns


@pytest.mark.parametrize("dialect", ["ours", "original", "seed"])
def test_test_data_traces_are_read_by_the_scanner_with_equal_columns(data_dir, dialect):
    traces = sorted((data_dir / dialect).glob("*.trc"))
    assert len(traces) == 2
    for trace in traces:
        columns = assert_scanner_reads(trace)
        assert len(columns["name_code"]) > 0
        assert_scanner_reads(trace, names=["Send", "Wait"])
        assert_scanner_reads(trace, partial=True)


def test_the_original_implementations_fixtures_are_read_by_the_scanner(fixtures_dir):
    traces = sorted(fixtures_dir.rglob("*.trc"))
    assert len(traces) >= 5
    for trace in traces:
        assert_scanner_reads(trace)
        assert_scanner_reads(trace, local_to_world={0: [4, 3, 2, 1, 0], 1: [0, 1, 2, 3, 4]})


@pytest.mark.parametrize("dialect", ["ours", "original", "seed"])
def test_to_numpy_is_the_same_with_either_reader(copy_project, monkeypatch, dialect):
    proj = copy_project(dialect)
    fast = hdtrace.open(proj).to_numpy()
    real_read_columns = _core.read_columns

    def libxml2_read_columns(*args, **kwargs):
        return real_read_columns(*args, reader="libxml2", **kwargs)

    # Every read of the package goes through hdtrace.native.
    monkeypatch.setattr(native, "read_columns", libxml2_read_columns)
    reference = hdtrace.open(proj).to_numpy()
    assert len(fast) == len(reference) > 0
    assert fast.dtype == reference.dtype
    assert np.array_equal(fast, reference)


def test_an_unknown_reader_is_refused(data_dir):
    with pytest.raises(ValueError, match="reader must be"):
        _core.read_columns(str(data_dir / "ours" / "app_node01_0_0.trc"), reader="pugixml")


# Changes to data/ours/app_node01_0_0.trc: (what, function of its text).
# Those in ACCEPTED are well-formed XML that the scanner leaves to libxml2;
# the others are errors.
ACCEPTED = {"100,000 distinct names", "comment", "text between calls"}
DAMAGE = [
    ("overflowing time", lambda t: t.replace("timeAdjustment='1700000000'",
                                             "timeAdjustment='1795333123'", 1)
     .replace("<Init time='0.000001000'", "<Init time='8281797364'", 1)),
    ("size beyond 64 bits", lambda t: t.replace("<Send size='8'",
                                                "<Send size='99999999999999999999999'", 1)),
    ("rank beyond 32 bits", lambda t: t.replace("toRank='1'", "toRank='4294967297'", 1)),
    ("50,000 nested blocks", lambda t: t.replace(
        "<Send ", "<Nested>" * 50000 + "</Nested>" * 50000 + "\n<Send ", 1)),
    ("100,000 distinct names", lambda t: t.replace(
        "</Program>", "".join(f"<N{i} time='1.0'/>\n" for i in range(100000)) + "</Program>")),
    ("DTD with an entity", lambda t: t.replace(
        "<Program", "<!DOCTYPE Program [<!ENTITY x 'y'>]>\n<Program", 1)),
    ("external entity", lambda t: t.replace(
        "<Program", "<!DOCTYPE Program [<!ENTITY x SYSTEM '/etc/passwd'>]>\n<Program", 1)
     .replace("<Init ", "<Init name='&x;' ", 1)),
    ("comment", lambda t: t.replace("<Init ", "<!-- c -->\n<Init ", 1)),
    ("cut in a tag", lambda t: t[:t.index("<Isend") + 20]),
    ("cut between tags", lambda t: t[:t.index("<Isend")]),
    ("cut after the root", lambda t: t[:t.index("</Program>") + 3]),
    ("mismatched end tag", lambda t: t.replace("</Wait>", "</Waitall>", 1)),
    ("repeated attribute", lambda t: t.replace("<Init ", "<Init cid='1' cid='2' ", 1)),
    ("invalid UTF-8", lambda t: t.replace("<Init ", "<Init name='\udcff' ", 1)),
    ("control character", lambda t: t.replace("<Init ", "<Init name='\x01' ", 1)),
    ("text between calls", lambda t: t.replace("<Init ", "text\n<Init ", 1)),
    ("content after the root", lambda t: t + "<Init/>\n"),
    # Below a call, outside <Nested>: not in the table, but refused by the
    # Event reader, so refused by the columns too (found by fuzz_trace).
    ("bad end below a call", lambda t: t.replace("<For rid='0'/>",
                                                 "<For rid='0' end='12404=7.1'/>", 1)),
    ("bad time two below a call", lambda t: t.replace(
        "<For rid='0'/>", "<For rid='0'><Step time='x'/></For>", 1)),
    ("count beyond 64 bits below a call", lambda t: t.replace(
        "count='10'", "count='99999999999999999999999'", 1)),
]


@pytest.mark.parametrize("what,damage", DAMAGE, ids=[what for what, _ in DAMAGE])
def test_damaged_traces_give_the_same_error_and_partial_read(copy_project, what, damage):
    proj = copy_project("ours")
    trace = proj.parent / "app_node01_0_0.trc"
    text = trace.read_text()
    damaged = damage(text)
    assert damaged != text
    trace.write_bytes(damaged.encode("utf-8", "surrogateescape"))
    columns, error = assert_same_reading(trace)
    if what in ACCEPTED:
        assert error is None and len(columns["name_code"]) > 0
    else:
        assert error is not None and error[1] == str(trace) and error[2] > 0, error
        assert re.match(re.escape(str(trace)) + r":\d+(:\d+)?: ", error[0]), error
    assert_same_reading(trace, partial=True)
    assert_same_reading(trace, names=["Send"])
    # The Event reader refuses what the columns refuse, but the columns' own
    # limit of 32 bits for ranks, tags and ids.
    event_error = None
    try:
        list(_core.TraceReader(str(trace)))
    except hdtrace.ReadError as caught:
        event_error = caught
    if error is not None and "does not fit in 32 bits" in error[4]:
        assert event_error is None
    else:
        assert (event_error is None) == (error is None), (event_error, error)


@pytest.mark.parametrize("kind", ["directory", "fifo", "missing"])
def test_what_is_not_a_trace_file_gives_the_same_error(tmp_path, kind):
    import os
    path = tmp_path / "app_h_0_0.trc"
    if kind == "directory":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    _, error = assert_same_reading(path)
    assert error is not None and error[1] == str(path)
    assert ("not a regular file" if kind != "missing" else "cannot open") in error[4]


def _peak(build_dir, trace, *names):
    tool = build_dir / "tests" / "reader" / "reader_agreement"
    if not tool.is_file():
        pytest.fail(f"{tool} is missing: build the tests (scripts/build) first")
    result = subprocess.run([str(tool), "peak-memory", str(trace), *names],
                            capture_output=True, text=True, timeout=300, check=True)
    rows, peak_kb, fallback = re.match(r"rows (\d+) peak_kb (\d+) fallback (.*)",
                                       result.stdout).groups()
    return int(rows), int(peak_kb) * 1024, fallback


def test_memory_is_bounded_by_the_chunk_not_the_trace(build_dir, tmp_path):
    """A 500,000-call trace (about 55 MB): read for one name the scanner needs
    a few MB whatever the length; read whole, the columns and little more."""
    generator = build_dir / "bench" / "reader" / "reader_bench_generate"
    if not generator.is_file():
        pytest.fail(f"{generator} is missing: build with the benchmarks (scripts/build)")
    subprocess.run([str(generator), str(tmp_path), "500000"], check=True,
                   stdout=subprocess.DEVNULL)
    trace = tmp_path / "bench_node01_0_0.trc"
    size = trace.stat().st_size
    assert size > 50e6
    rows, peak, fallback = _peak(build_dir, trace, "NoSuchCall")
    assert (rows, fallback) == (0, "none")
    assert peak < 24e6, f"peak {peak / 1e6:.0f} MB for a {size / 1e6:.0f} MB trace"
    rows, peak, fallback = _peak(build_dir, trace)
    assert (rows, fallback) == (500000, "none")
    columns_bytes = rows * (4 * 7 + 8 * 5)  # the 32-bit and 64-bit columns of EventColumns
    assert peak < columns_bytes + 24e6, (
        f"peak {peak / 1e6:.0f} MB for {columns_bytes / 1e6:.0f} MB of columns")
    trace.unlink()  # 55 MB the end-of-session reader comparison need not read again
