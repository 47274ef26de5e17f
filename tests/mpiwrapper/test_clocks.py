"""Time across hosts: measured clock offsets and their correction.

One machine emulates hosts with HDTRACE_CLOCK_SKEW: ranks 1 and 3 write
every time off by +20 ms / -20 ms and drifting by +50 / -50 ppm from the start
of their MPI_Init. The real clock is shared, so the test knows the truth of
every time a skewed rank wrote, and checks:
- the .info Clock lines: one per occasion, each skewed rank measured as a
  host of its own (leader = itself), the unskewed ranks as rank 0's host;
- before alignment some receives end before their send starts; after
  (hdtrace.open(align=True), and `hdtrace align`) none does, and every
  corrected time lies within the tolerance of the truth (tolerance_for:
  the largest round trip kept, more for a time outside the measurements);
- `hdtrace align` twice changes nothing the second time, `--undo` restores
  every byte, a damaged Clock line changes nothing (error with file and
  line), a run without measurements is left as it is with a warning, and a
  rank with fewer measurements than the others is still corrected.
- `project-merger --align-clocks` rewrites the run as `hdtrace align` does,
  and the C++ correction (reader, merger, `hdtrace align`) gives the times
  the former pure-Python one gave (tests/python/former_clocks.py).
The merging and reading need the merger and the Python package: on the
MPICH tree they come from HDTRACE_TOOLS_BUILD_DIR (as in test_piosim.py).
"""
import json
import pathlib
import shutil
import subprocess

import pytest

import tracecheck
from tool_trees import hdtrace, python_env, tools_tree_or_fail

NRANKS = 4
OFFSET_NS, DRIFT_PPM = 20_000_000, 50.0
SKEWS = {1: (OFFSET_NS, DRIFT_PPM), 3: (-OFFSET_NS, -DRIFT_PPM)}
SKEW_KNOB = ",".join(f"{rank}:{offset}:{drift:g}" for rank, (offset, drift) in SKEWS.items())
# How far a corrected time may lie from the truth. A measured offset is off
# by at most half the round trip it kept, and the order repair can add the
# other side's error: so the largest round trip kept, at least 5 us. (On this
# 2-core machine, 4 ranks and other jobs, round trips are 5-15 us.)
MIN_TOLERANCE_NS = 5_000


def tolerance_of(run):
    rtts = [clock["rtt"] for rank in range(NRANKS) for clock in info_of(run, rank).clocks]
    return max([MIN_TOLERANCE_NS, *rtts])


def tolerance_for(run, rank):
    """How far the corrected time of a time written by rank may lie from the
    truth, as a function of that time. Between the rank's two measurements,
    tolerance_of(run). Outside them (the start of MPI_Init comes before the
    first), the correction extends the line through the two measured
    offsets, whose slope is off by up to the two measurements' errors (half
    a round trip each) over the time between them: so the error grows by
    the tolerance times how far out the time lies, in units of that time. A
    long MPI_Init on a loaded machine (0.45 s of a 1 s run) takes it past
    the tolerance alone."""
    tolerance = tolerance_of(run)
    clocks = info_of(run, rank).clocks
    if rank not in SKEWS or len(clocks) < 2:
        return lambda written: tolerance
    first, last = clocks[0]["time"], clocks[-1]["time"]
    return lambda written: tolerance + tolerance * max(0, first - written, written - last) / (
        last - first)
PROGRAM = "clockskew_traced"

# Prints, per event of the project as read by hdtrace (align on or off):
# rank, thread, name, start_ns, end_ns; then the message pairs whose receive
# ends before the send starts.
READ_SCRIPT = r"""
import json, sys, warnings
import hdtrace
align = sys.argv[2] == "1"
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    project = hdtrace.open(sys.argv[1], align=align)
    table = project.to_numpy()
    matches = hdtrace.match_messages(project)
late = [(int(p["sender"]), int(p["receiver"]), float(p["send_start"]), float(p["recv_complete"]))
        for p in matches.pairs if p["recv_complete"] < p["send_start"]]
events = [(int(r["rank"]), int(r["thread"]), str(r["name"]), int(r["start_ns"]), int(r["end_ns"]))
          for r in table]
traced = {}
for leaf in project.topology.leaves:
    traced[leaf.rank] = [(e.name, e.start_ns, e.end_ns) for e in project.trace(leaf.rank, leaf.thread)]
print(json.dumps({"events": events, "late": late, "pairs": len(matches.pairs),
                  "traced": traced, "warnings": [str(w.message) for w in caught]}))
"""


# The former pure-Python correction's table, in READ_SCRIPT's "events" form.
FORMER_SCRIPT = r"""
import json, sys
sys.path.insert(0, sys.argv[2])
import former_clocks
table, _ = former_clocks.former_alignment(sys.argv[1])
print(json.dumps([(int(r["rank"]), int(r["thread"]), str(r["name"]), int(r["start_ns"]),
                   int(r["end_ns"])) for r in table]))
"""
FORMER_DIR = pathlib.Path(__file__).resolve().parent.parent / "python"


def former_events(tools, project):
    done = subprocess.run(["/usr/bin/python3", "-c", FORMER_SCRIPT, str(project), str(FORMER_DIR)],
                          env=python_env(tools), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return [list(event) for event in json.loads(done.stdout)]


def merge(tools, trace_dir):
    merged = subprocess.run([str(tools / "merger" / "project-merger"),
                             str(trace_dir / tracecheck.sanitize(PROGRAM))],
                            capture_output=True, text=True, timeout=60)
    assert merged.returncode == 0, merged.stderr
    return trace_dir / f"{tracecheck.sanitize(PROGRAM)}.proj"


def read(tools, project, align):
    done = subprocess.run(["/usr/bin/python3", "-c", READ_SCRIPT, str(project),
                           "1" if align else "0"], env=python_env(tools),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def snapshot(directory):
    return {path.name: path.read_bytes() for path in sorted(directory.iterdir())
            if path.suffix in (".trc", ".info") or path.name.endswith(".unaligned")}


def copy_run(source, destination):
    destination.mkdir()
    for path in source.iterdir():
        if path.suffix in (".trc", ".info"):
            shutil.copy2(path, destination / path.name)
    return destination


@pytest.fixture(scope="module")
def skewed_run(runner, build_dir):
    tools = tools_tree_or_fail(build_dir)
    run = runner.run(PROGRAM, NRANKS, env={"HDTRACE_CLOCK_SKEW": SKEW_KNOB})
    run.assert_ok()
    print(f"tolerance: {tolerance_of(run)} ns")
    return run, tools


def info_of(run, rank):
    return tracecheck.parse_info(tracecheck.trace_base(run.trace_dir, PROGRAM, rank)
                                 .with_suffix(".info"))


def init_start(run, rank):
    """Absolute start of the Init element of rank's trace, in ns as written."""
    trace = tracecheck.parse_trc(tracecheck.trace_base(run.trace_dir, PROGRAM, rank)
                                 .with_suffix(".trc"))
    init = next(element for element in trace.elements if element.tag == "Init")
    seconds, _, fraction = init.attrib["time"].partition(".")
    return trace.time_adjustment * 1_000_000_000 + int(seconds) * 1_000_000_000 + \
        int(fraction.ljust(9, "0"))


def truth_of(rank, init_start_ns):
    """The true time of a time `written` by rank: the inverse of its skew,
    whose reference (the true start of its MPI_Init) follows from its Init
    element, which is off by exactly the offset."""
    offset, drift = SKEWS.get(rank, (0, 0.0))
    reference = init_start_ns - offset

    def truth(written):
        return reference + round((written - offset - reference) / (1 + drift * 1e-6))
    return truth


def test_clock_lines_measure_each_emulated_host(skewed_run):
    run, _ = skewed_run
    tolerance = tolerance_of(run)
    for rank in range(NRANKS):
        info = info_of(run, rank)
        occasions = [clock["at"] for clock in info.clocks]
        assert occasions == ["init", "finalize"], (rank, info.clocks)
        for clock in info.clocks:
            if rank in SKEWS:
                offset, _ = SKEWS[rank]
                assert clock["leader"] == rank and clock["exchanges"] == 20, clock
                assert 0 < clock["rtt"] < 1_000_000_000, clock  # loaded machine: up to tens of ms
                # The true offset then: the skew at the measurement's true time.
                truth = truth_of(rank, init_start(run, rank))
                expected = clock["time"] - truth(clock["time"])
                assert abs(clock["offset"] - expected) <= tolerance, (clock, expected)
            else:
                assert clock["leader"] == 0 and clock["offset"] == 0 and clock["rtt"] == 0, clock
        if rank in SKEWS:
            init, finalize = info.clocks
            # The drift shows between the two measurements.
            _, drift = SKEWS[rank]
            expected = drift * 1e-6 * (finalize["time"] - init["time"])
            assert abs((finalize["offset"] - init["offset"]) - expected) < tolerance, \
                (init, finalize, expected)


def _assert_corrected_near_truth(read_result, raw_result, run):
    """Each rank's corrected times against the truth from its raw times,
    each within tolerance_for's bound; the largest error."""
    raw_by_rank, corrected_by_rank = {}, {}
    for rank, thread, name, start, end in raw_result["events"]:
        raw_by_rank.setdefault(rank, []).append((name, start, end))
    for rank, thread, name, start, end in read_result["events"]:
        corrected_by_rank.setdefault(rank, []).append((name, start, end))
    worst = 0
    for rank in range(NRANKS):
        raw = sorted(raw_by_rank[rank], key=lambda e: e[1])
        corrected = sorted(corrected_by_rank[rank], key=lambda e: e[1])
        assert [e[0] for e in raw] == [e[0] for e in corrected]
        init = next(e for e in raw if e[0] == "Init")
        truth = truth_of(rank, init[1])
        tolerance_at = tolerance_for(run, rank)
        for (name, start, end), (_, fixed_start, fixed_end) in zip(raw, corrected):
            for written, fixed in ((start, fixed_start), (end, fixed_end)):
                error = abs(fixed - truth(written))
                worst = max(worst, error)
                tolerance = tolerance_at(written)
                assert error <= tolerance, (
                    f"rank {rank} {name}: corrected {fixed} is {error:.0f} ns from the truth "
                    f"{truth(written):.0f}")
    return worst


def test_skewed_receives_end_before_their_sends_until_aligned(skewed_run, tmp_path):
    run, tools = skewed_run
    trace_dir = copy_run(run.trace_dir, tmp_path / "run")
    project = merge(tools, trace_dir)
    raw = read(tools, project, align=False)
    assert raw["pairs"] >= 100 * NRANKS, raw["pairs"]
    # A receive seems to end before its send where it waited less than the
    # skew: 20 ms is longer than the scheduler leaves a busy-polling rank
    # waiting on 2 cores (2 ms let an idle machine's MPICH run show 1 of 700).
    assert len(raw["late"]) >= 5, f"only {len(raw['late'])} receives end before their send"
    print(f"receives ending before their send: {len(raw['late'])} of {raw['pairs']} as written")
    aligned = read(tools, project, align=True)
    assert aligned["pairs"] == raw["pairs"]
    assert aligned["late"] == [], aligned["late"][:5]
    worst = _assert_corrected_near_truth(aligned, raw, run)
    print(f"worst corrected time error: {worst:.0f} ns (tolerance {tolerance_of(run)} ns)")
    # The C++ correction gives what the former Python one gave, row for row.
    assert aligned["events"] == former_events(tools, project)
    # Project.trace() gives the same corrected times as the table.
    for rank, events in aligned["traced"].items():
        table = sorted((name, start, end) for r, _, name, start, end in aligned["events"]
                       if r == int(rank))
        assert sorted(tuple(e) for e in events) == table


def test_hdtrace_align_rewrites_idempotently_and_undoes(skewed_run, tmp_path):
    run, tools = skewed_run
    trace_dir = copy_run(run.trace_dir, tmp_path / "run")
    project = merge(tools, trace_dir)
    raw = read(tools, project, align=False)
    original = snapshot(trace_dir)

    done = hdtrace(tools, "align", project, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "4 trace(s) put on rank 0's clock" in done.stdout, done.stdout
    aligned_files = snapshot(trace_dir)
    # Still what the PIOsim tools load (only times changed).
    checked = hdtrace(tools, "check", project, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    for name, data in original.items():
        if name.endswith(".trc"):
            assert aligned_files[name + ".unaligned"] == data
            assert tracecheck.parse_trc(trace_dir / name).elements  # well-formed
    # Read as written now: the times are those the reader corrects to.
    rewritten = read(tools, project, align=False)
    assert rewritten["late"] == []
    _assert_corrected_near_truth(rewritten, raw, run)
    for rank in range(NRANKS):
        info = tracecheck.parse_info(trace_dir / tracecheck.trace_base(
            trace_dir, PROGRAM, rank).with_suffix(".info").name)
        assert len(info.clocks) == 2  # the measurements stay

    again = hdtrace(tools, "align", project, timeout=120)
    assert again.returncode == 0 and "already aligned; nothing changed" in again.stderr, again
    assert snapshot(trace_dir) == aligned_files

    undone = hdtrace(tools, "align", "--undo", project, timeout=120)
    assert undone.returncode == 0, undone.stderr
    assert snapshot(trace_dir) == original


def _add_layer_traces(trace_dir):
    """Beside each rank's trace, a layer's trace (as the HDF5 layer writes
    one) with a call at the times of the rank's Init."""
    for rank in range(NRANKS):
        base = tracecheck.trace_base(trace_dir, PROGRAM, rank)
        main = tracecheck.parse_trc(base.with_suffix(".trc"))
        init = next(element for element in main.elements if element.tag == "Init")
        base.with_name(base.name + ".hdf5.trc").write_text(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            f"<Program timeAdjustment='{main.time_adjustment}'>\n"
            f"<H5Fcreate fid='0' flags='2' time='{init.attrib['time']}' "
            f"end='{init.attrib['end']}'/>\n</Program>\n")


def test_hdtrace_align_takes_the_layers_traces_along(skewed_run, tmp_path):
    run, tools = skewed_run
    trace_dir = copy_run(run.trace_dir, tmp_path / "run")
    _add_layer_traces(trace_dir)
    project = merge(tools, trace_dir)
    original = snapshot(trace_dir)
    done = hdtrace(tools, "align", project, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "4 trace(s) put on rank 0's clock" in done.stdout, done.stdout
    for rank in range(NRANKS):
        base = tracecheck.trace_base(trace_dir, PROGRAM, rank)
        layer_path = base.with_name(base.name + ".hdf5.trc")
        assert (trace_dir / (layer_path.name + ".unaligned")).read_bytes() == \
            original[layer_path.name]
        # The same correction as the main trace's: the call still has the
        # times of the rank's Init, which moved (rank 0's clock is the
        # reference; the others are skewed).
        main = tracecheck.parse_trc(base.with_suffix(".trc"))
        layer = tracecheck.parse_trc(layer_path)
        init = next(element for element in main.elements if element.tag == "Init")
        [call] = list(layer.root)
        assert (layer.time_adjustment, call.attrib["time"], call.attrib["end"]) == \
            (main.time_adjustment, init.attrib["time"], init.attrib["end"]), rank
        if rank in SKEWS:
            assert layer_path.read_bytes() != original[layer_path.name], rank
    undone = hdtrace(tools, "align", "--undo", project, timeout=120)
    assert undone.returncode == 0, undone.stderr
    assert snapshot(trace_dir) == original


def test_damaged_clock_line_changes_nothing(skewed_run, tmp_path):
    run, tools = skewed_run
    trace_dir = copy_run(run.trace_dir, tmp_path / "run")
    project = merge(tools, trace_dir)
    info = tracecheck.trace_base(trace_dir, PROGRAM, 3).with_suffix(".info")
    lines = info.read_text().splitlines(keepends=True)
    number = next(i for i, line in enumerate(lines) if line.startswith("Clock at='finalize'"))
    lines[number] = lines[number].replace(" rtt=", " rtt=x")
    info.write_text("".join(lines))
    before = snapshot(trace_dir)
    done = hdtrace(tools, "align", project, timeout=120)
    assert done.returncode == 1
    assert f"{info}:{number + 1}: damaged Clock line" in done.stderr, done.stderr
    assert snapshot(trace_dir) == before
    events = hdtrace(tools, "events", project, timeout=120)
    assert events.returncode == 1 and "damaged Clock line" in events.stderr, events.stderr


def test_rank_with_fewer_measurements_is_still_corrected(skewed_run, tmp_path):
    """Rank 3 as if it had ended without MPI_Finalize's measurement: its
    offset is then taken as constant, so its drift stays (up to 50 ppm of the
    run), but no receive ends before its send and the other ranks keep
    their full correction."""
    run, tools = skewed_run
    trace_dir = copy_run(run.trace_dir, tmp_path / "run")
    project = merge(tools, trace_dir)
    info = tracecheck.trace_base(trace_dir, PROGRAM, 3).with_suffix(".info")
    info.write_text("".join(line for line in info.read_text().splitlines(keepends=True)
                            if not line.startswith("Clock at='finalize'")))
    raw = read(tools, project, align=False)
    aligned = read(tools, project, align=True)
    assert aligned["late"] == []
    init = next(e for e in raw["events"] if e[0] == 3 and e[2] == "Init")
    truth = truth_of(3, init[3])
    measured = tracecheck.parse_info(info).clocks[0]["offset"]
    raw3 = sorted((e[3], e[4]) for e in raw["events"] if e[0] == 3)
    fixed3 = sorted((e[3], e[4]) for e in aligned["events"] if e[0] == 3)
    # The drift left uncorrected: 50 ppm of the time since the measurement.
    measured_at = tracecheck.parse_info(info).clocks[0]["time"]
    bound = int(50e-6 * max(abs(end - measured_at) for _, end in raw3)) + tolerance_of(run)
    for (start, _), (fixed, _) in zip(raw3, fixed3):
        # a constant offset, plus the order repair's shifts (at most the drift)
        assert start - measured <= fixed <= start - measured + bound
        assert abs(fixed - truth(start)) <= bound
    raw1 = [e for e in raw["events"] if e[0] == 1]
    fixed1 = [e for e in aligned["events"] if e[0] == 1]
    truth1 = truth_of(1, next(e for e in raw1 if e[2] == "Init")[3])
    tolerance1 = tolerance_for(run, 1)
    for e, f in zip(sorted(raw1, key=lambda e: e[3]), sorted(fixed1, key=lambda e: e[3])):
        assert abs(f[3] - truth1(e[3])) <= tolerance1(e[3])


def test_run_without_measurements_is_left_as_written(runner, build_dir, tmp_path):
    tools = tools_tree_or_fail(build_dir)
    run = runner.run(PROGRAM, NRANKS, env={"HDTRACE_CLOCK_SKEW": SKEW_KNOB,
                                           "HDTRACE_CLOCK_SYNC": "0"})
    run.assert_ok()
    for rank in range(NRANKS):
        assert info_of(run, rank).clocks == []
    trace_dir = copy_run(run.trace_dir, tmp_path / "run")
    project = merge(tools, trace_dir)
    before = snapshot(trace_dir)
    done = hdtrace(tools, "align", project, timeout=120)
    assert done.returncode == 0
    assert "has no clock measurements" in done.stderr and "nothing changed" in done.stderr
    assert snapshot(trace_dir) == before
    raw, aligned = read(tools, project, align=False), read(tools, project, align=True)
    assert aligned["events"] == raw["events"]
    assert raw["late"], "the skew should show without measurements"


def test_periodic_sync_and_a_bad_skew_knob_warn(runner):
    """HDTRACE_CLOCK_SYNC=N > 1 warns and measures at init and finalize only;
    a malformed HDTRACE_CLOCK_SKEW warns and skews no rank."""
    run = runner.run(PROGRAM, 2, env={"HDTRACE_CLOCK_SYNC": "5",
                                      "HDTRACE_CLOCK_SKEW": "1:2ms:0"})
    run.assert_ok()
    assert "HDTRACE_CLOCK_SYNC=5: periodic clock measurement is not supported" in \
        run.result.stderr, run.result.stderr
    assert "HDTRACE_CLOCK_SKEW entry '1:2ms:0' is not <rank>:<offset ns>:<drift ppm>" in \
        run.result.stderr, run.result.stderr
    assert run.result.stderr.count("hdtracempi: warning") == 2, run.result.stderr  # rank 0 only
    clocks = info_of(run, 1).clocks
    assert [c["at"] for c in clocks] == ["init", "finalize"]
    assert all(c["leader"] == 0 and c["offset"] == 0 for c in clocks), clocks


def test_merger_align_clocks_rewrites_the_skewed_run(skewed_run, tmp_path):
    """project-merger --align-clocks on the unmerged run: before, receives end
    before their sends; after, as written, none does, every time is within
    the tolerance of the truth and equal to the former Python correction's;
    a second run changes nothing."""
    run, tools = skewed_run
    trace_dir = copy_run(run.trace_dir, tmp_path / "run")
    project = merge(tools, trace_dir)
    raw = read(tools, project, align=False)
    assert len(raw["late"]) >= 5, raw["late"]
    former = former_events(tools, project)
    project.unlink()
    original = snapshot(trace_dir)

    done = subprocess.run([str(tools / "merger" / "project-merger"), "--align-clocks",
                           str(trace_dir / tracecheck.sanitize(PROGRAM))],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert f"{NRANKS} trace(s) put on rank 0's clock" in done.stdout, done.stdout
    rewritten = read(tools, project, align=False)
    assert rewritten["late"] == [], rewritten["late"][:5]
    assert rewritten["pairs"] == raw["pairs"]
    worst = _assert_corrected_near_truth(rewritten, raw, run)
    print(f"merger --align-clocks: worst error {worst:.0f} ns (tolerance {tolerance_of(run)} ns)")
    # The same rows; calls of two ranks that start in the same nanosecond
    # after the correction may come in either order (the table reads the
    # rewritten traces, the former correction sorted its own table).
    in_order = lambda events: sorted(map(tuple, events),  # noqa: E731
                                     key=lambda e: (e[3], e[0], e[1], e[4], e[2]))
    assert in_order(rewritten["events"]) == in_order(former)
    aligned_files = snapshot(trace_dir)
    for name, data in original.items():
        if name.endswith(".trc"):
            assert aligned_files[name + ".unaligned"] == data
    checked = hdtrace(tools, "check", project, timeout=120)
    assert checked.returncode == 0, checked.stdout + checked.stderr

    again = subprocess.run([str(tools / "merger" / "project-merger"), "--align-clocks",
                            str(trace_dir / tracecheck.sanitize(PROGRAM))],
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0 and "already aligned; nothing changed" in again.stderr, again
    assert snapshot(trace_dir) == aligned_files


COMPACT_MAGIC = b"HDTCOMP\x1a"


def test_a_compact_run_aligns_in_compact_form_as_its_xml_form_does(runner, build_dir, tmp_path):
    """The skewed run traced in compact form, and its XML form (hdtrace
    convert): `hdtrace align` on each. The aligned compact traces stay
    compact, their XML form is byte for byte the aligned XML traces, the
    .info files get the same lines, the originals are kept and --undo
    restores every byte; `project-merger --align-clocks` writes the same
    compact traces as `hdtrace align`."""
    tools = tools_tree_or_fail(build_dir)
    run = runner.run(PROGRAM, NRANKS, env={"HDTRACE_CLOCK_SKEW": SKEW_KNOB,
                                           "HDTRACE_FORMAT": "compact"})
    run.assert_ok()
    compact_dir, xml_dir, merger_dir = tmp_path / "compact", tmp_path / "xml", tmp_path / "merger"
    for directory in (compact_dir, xml_dir, merger_dir):
        directory.mkdir()
    traces = sorted(run.trace_dir.glob("*.ctrc"))
    assert len(traces) == NRANKS and not list(run.trace_dir.glob("*.trc")), \
        sorted(path.name for path in run.trace_dir.iterdir())
    for path in run.trace_dir.iterdir():
        if path.suffix in (".ctrc", ".info"):
            shutil.copy2(path, compact_dir / path.name)
            shutil.copy2(path, merger_dir / path.name)
            if path.suffix == ".info":
                shutil.copy2(path, xml_dir / path.name)
    for trace in traces:
        hdtrace(tools, "convert", "-q", "--to", "xml", "-o", xml_dir / trace.with_suffix(".trc").name,
                trace, check=True)
    compact_project, xml_project = merge(tools, compact_dir), merge(tools, xml_dir)
    raw = read(tools, compact_project, align=False)
    assert raw == read(tools, xml_project, align=False)
    assert len(raw["late"]) >= 5, f"only {len(raw['late'])} receives end before their send"
    original = {path.name: path.read_bytes() for path in compact_dir.iterdir()
                if path.suffix in (".ctrc", ".info")}

    for project in (xml_project, compact_project):
        done = hdtrace(tools, "align", project, timeout=120)
        assert done.returncode == 0, done.stderr
        assert f"{NRANKS} trace(s) put on rank 0's clock" in done.stdout, done.stdout
    for trace in traces:
        aligned = compact_dir / trace.name
        assert aligned.read_bytes().startswith(COMPACT_MAGIC), aligned
        assert (compact_dir / (trace.name + ".unaligned")).read_bytes() == original[trace.name]
        assert not (compact_dir / trace.with_suffix(".trc").name).exists()
        rendered = tmp_path / trace.with_suffix(".trc").name
        hdtrace(tools, "convert", "-q", "--to", "xml", "-o", rendered, aligned, check=True)
        xml_aligned = (xml_dir / rendered.name).read_bytes()
        assert rendered.read_bytes() == xml_aligned, trace.name
        # The skewed ranks' times change. An unskewed rank may change too:
        # the order repair moves a receive that still ends before its send.
        rank = int(trace.stem.split("_")[-2])
        if rank in SKEWS:
            assert xml_aligned != (xml_dir / (rendered.name + ".unaligned")).read_bytes(), \
                trace.name
        # The same ClockAligned line but for the backup's name.
        info = trace.with_suffix(".info").name
        assert (compact_dir / info).read_text() == \
            (xml_dir / info).read_text().replace(".trc.unaligned", ".ctrc.unaligned")
    aligned = read(tools, compact_project, align=False)
    assert aligned["late"] == [] and aligned["pairs"] == raw["pairs"]
    assert aligned == read(tools, xml_project, align=False)
    aligned_files = {path.name: path.read_bytes() for path in compact_dir.iterdir()}

    again = hdtrace(tools, "align", compact_project, timeout=120)
    assert again.returncode == 0 and "already aligned; nothing changed" in again.stderr, again
    assert {path.name: path.read_bytes() for path in compact_dir.iterdir()} == aligned_files

    merged = subprocess.run([str(tools / "merger" / "project-merger"), "-q", "--align-clocks",
                             str(merger_dir / tracecheck.sanitize(PROGRAM))],
                            capture_output=True, text=True, timeout=120)
    assert merged.returncode == 0, merged.stderr
    for trace in traces:
        assert (merger_dir / trace.name).read_bytes() == aligned_files[trace.name]

    undone = hdtrace(tools, "align", "--undo", compact_project, timeout=120)
    assert undone.returncode == 0, undone.stderr
    assert {path.name: path.read_bytes() for path in compact_dir.iterdir()
            if path.suffix in (".ctrc", ".info")} == original
    assert not list(compact_dir.glob("*.unaligned"))
