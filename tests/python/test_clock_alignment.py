"""hdtrace.clocks, `hdtrace align` and `project-merger --align-clocks` on small
runs with hand-written Clock lines (the end-to-end test with the wrapper is
tests/mpiwrapper/test_clocks.py; pytest collects tests/ as one tree, so the
two names differ).

data/ours has two ranks; here rank 1's clock is said to be 200 ms ahead of
rank 0's, so its Recv of rank 0's Send would end 99 ms before the Send
starts: the order repair moves that Recv's end to the Send's start and every
later time of rank 1 by as much.

The correction is computed in C++ (clocks/); former_clocks.py is the former
pure-Python correction, the oracle that the C++ one must agree with."""
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import hdtrace
from hdtrace import clocks
from hdtrace.align import AlignError, align, rewrite_trace, undo

import former_clocks

S = 1_000_000_000
BASE = 1_700_000_000 * S
OFFSET = 200_000_000  # rank 1 ahead of rank 0


def write_clock_lines(project, rank1_lines, rank0_lines=None):
    directory = project.parent
    rank0 = rank0_lines if rank0_lines is not None else [
        f"Clock at='init' time={BASE} offset=0 rtt=0 leader=0 exchanges=0",
        f"Clock at='finalize' time={BASE + S} offset=0 rtt=0 leader=0 exchanges=0"]
    for rank, lines in ((0, rank0), (1, rank1_lines)):
        (directory / f"app_node01_{rank}_0.info").write_text(
            "Mpi library='x' order_c=0 order_fortran=1 distribute_block=0 distribute_cyclic=1 "
            "distribute_none=2 distribute_dflt_darg=-1\n" + "".join(line + "\n" for line in lines))


def rank1_constant():
    return [f"Clock at='init' time={BASE} offset={OFFSET} rtt=900 leader=1 exchanges=20",
            f"Clock at='finalize' time={BASE + S} offset={OFFSET} rtt=800 leader=1 exchanges=20"]


def events_of(project, rank):
    return [(e.name, e.start_ns, e.end_ns) for e in project.trace(rank)]


def test_offsets_interpolate_linearly_and_extrapolate_along_the_nearest_segment():
    measured = [clocks.ClockMeasurement("init", BASE, 1000, 10, 1, 20),
                clocks.ClockMeasurement("finalize", BASE + 2 * S, 3000, 10, 1, 20)]
    correction = clocks.ClockCorrection({1: measured})
    times = np.array([BASE, BASE + S, BASE + 2 * S, BASE - S, BASE + 4 * S], dtype=np.int64)
    assert (times - correction.interpolate(1, times)).tolist() == [1000, 2000, 3000, 0, 5000]
    # A rank without measurements, and a rank with one, stay / move by a constant.
    assert correction.interpolate(0, times).tolist() == times.tolist()
    single = clocks.ClockCorrection({2: measured[:1]})
    assert (times - single.interpolate(2, times)).tolist() == [1000] * 5


def test_reader_corrects_and_repairs_the_order(copy_project):
    project_path = copy_project("ours")
    write_clock_lines(project_path, rank1_constant())
    raw = hdtrace.open(project_path, align=False)
    aligned = hdtrace.open(project_path)
    assert aligned.clock_correction is not None and raw.clock_correction is None

    raw_matches, matches = hdtrace.match_messages(raw), hdtrace.match_messages(aligned)
    late = lambda m: [p for p in m.pairs if p["recv_complete"] < p["send_start"]]  # noqa: E731
    assert len(late(raw_matches)) == 0  # as written, rank 1's clock hides the problem ...
    assert len(late(matches)) == 0      # ... and after the repair there is none either
    send_start = BASE + 100_000_001
    recv = next(e for e in events_of(aligned, 1) if e[0] == "Recv")
    raw_recv = next(e for e in events_of(raw, 1) if e[0] == "Recv")
    # Its start is only interpolated; its end waits for the send.
    assert recv[1] == raw_recv[1] - OFFSET
    assert recv[2] == send_start
    shift = send_start - (raw_recv[2] - OFFSET)
    assert shift == 199_000_001
    for (name, start, end), (_, raw_start, raw_end) in zip(events_of(aligned, 1),
                                                           events_of(raw, 1)):
        if name == "Init":
            assert (start, end) == (raw_start - OFFSET, raw_end - OFFSET)
        elif name != "Recv":
            assert (start, end) == (raw_start - OFFSET + shift, raw_end - OFFSET + shift), name
    # Rank 0 is the reference: unchanged.
    assert events_of(aligned, 0) == events_of(raw, 0)
    # The table says the same as the events.
    table = aligned.to_numpy()
    rows = sorted((str(r["name"]), int(r["start_ns"]), int(r["end_ns"])) for r in table
                  if r["rank"] == 1)
    assert rows == sorted(events_of(aligned, 1))
    assert np.all(np.diff(table["start_ns"]) >= 0)
    # A window selects by corrected times.
    window = aligned.to_numpy(window=((send_start + 1000) / S, None))
    assert "Recv" not in [str(name) for name in window["name"][window["rank"] == 1]]


def test_stats_trace_by_trace_equal_the_tables_with_and_without_correction(copy_project):
    """stats reads a project trace by trace unless its table was read; both
    ways give the same tables. A run whose clocks are corrected had its table
    read to work the correction out, and stats reduces that table."""
    project_path = copy_project("ours")
    write_clock_lines(project_path, rank1_constant())
    for aligned in (True, False):
        project = hdtrace.open(project_path, align=aligned)
        assert (project.clock_correction is not None) == aligned
        by_trace = hdtrace.stats(project)
        assert (project._raw is not None or project._table is not None) == aligned
        project.to_numpy()
        from_table = hdtrace.stats(project)
        for name in ("functions", "ranks", "files", "layers"):
            got, want = getattr(by_trace, name), getattr(from_table, name)
            assert len(want) > 0 and got.dtype == want.dtype, name
            for field in want.dtype.names:
                if want.dtype[field].kind == "f":
                    np.testing.assert_allclose(got[field], want[field], rtol=1e-12, atol=0,
                                               err_msg=f"{name}.{field}")
                else:
                    assert got[field].tolist() == want[field].tolist(), f"{name}.{field}"
    # The correction moves rank 1's times: its span differs from the raw one.
    spans = [hdtrace.stats(hdtrace.open(project_path, align=aligned)).ranks["span"][1]
             for aligned in (True, False)]
    assert spans[0] != spans[1]


def test_rewrite_trace_changes_only_times_exactly():
    text = (b"<?xml version=\"1.0\"?>\n<Program timeAdjustment='100'>\n"
            b"<A x='time=1' time='0.000000001' end='1.5'/>\n<Nested>\n"
            b"  <B time='-0.25' end='2'/>\n</Nested>\n<Event name='e' time='3.000000007'/>\n"
            b"</Program>\n")
    rewritten = rewrite_trace(text, "t.trc", lambda ns: ns - 2 * S)
    assert rewritten == (
        b"<?xml version=\"1.0\"?>\n<Program timeAdjustment='97'>\n"
        b"<A x='time=1' time='1.000000001' end='2.500000000'/>\n<Nested>\n"
        b"  <B time='0.750000000' end='3.000000000'/>\n</Nested>\n"
        b"<Event name='e' time='4.000000007'/>\n</Program>\n")


def test_align_and_undo(copy_project, capsys):
    project_path = copy_project("ours")
    write_clock_lines(project_path, rank1_constant())
    directory = project_path.parent
    before = {p.name: p.read_bytes() for p in directory.iterdir()}
    expected = {rank: events_of(hdtrace.open(project_path), rank) for rank in (0, 1)}
    assert align(project_path) == 2
    after = hdtrace.open(project_path, align=False)
    assert after.clock_correction is None
    assert {rank: events_of(after, rank) for rank in (0, 1)} == expected
    assert {rank: events_of(hdtrace.open(project_path), rank) for rank in (0, 1)} == expected
    aligned_bytes = {p.name: p.read_bytes() for p in directory.iterdir()}
    assert align(project_path) == 0
    assert "already aligned; nothing changed" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in directory.iterdir()} == aligned_bytes
    assert undo(project_path) == 2
    assert {p.name: p.read_bytes() for p in directory.iterdir()} == before


@pytest.mark.parametrize("line", [
    "Clock at='init' time=12 offset=3",
    f"Clock at='init' time={BASE} offset=1.5 rtt=0 leader=1 exchanges=20",
    "ClockAligned backup=''",
])
def test_damaged_clock_lines_are_errors_that_change_nothing(copy_project, line):
    project_path = copy_project("ours")
    write_clock_lines(project_path, rank1_constant() + [line])
    directory = project_path.parent
    before = {p.name: p.read_bytes() for p in directory.iterdir()}
    with pytest.raises(hdtrace.ReadError) as raised:
        align(project_path)
    assert raised.value.file.endswith("app_node01_1_0.info") and raised.value.line == 4
    assert "damaged Clock" in str(raised.value)
    assert {p.name: p.read_bytes() for p in directory.iterdir()} == before
    with pytest.raises(hdtrace.ReadError):
        list(hdtrace.open(project_path).trace(1))


def test_no_measurements_leaves_the_run_with_a_warning(copy_project, capsys):
    project_path = copy_project("ours")
    before = {p.name: p.read_bytes() for p in project_path.parent.iterdir()}
    assert align(project_path) == 0
    assert "has no clock measurements" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in project_path.parent.iterdir()} == before
    assert hdtrace.open(project_path).clock_correction is None


def test_a_rank_without_measurements_is_named(copy_project):
    project_path = copy_project("ours")
    write_clock_lines(project_path, [])
    with pytest.warns(clocks.ClockWarning, match=r"ranks \[1\] have no clock measurement"):
        correction = hdtrace.open(project_path).clock_correction
    assert correction is None  # rank 0 shares its own clock: nothing to correct


def test_a_run_on_rank_0s_clock_needs_no_correction(copy_project, capsys):
    """One host: every rank measured in rank 0's clock group. The reader
    corrects nothing (so to_dask works), and `hdtrace align` says so."""
    project_path = copy_project("ours")
    same = [f"Clock at='init' time={BASE} offset=0 rtt=0 leader=0 exchanges=0",
            f"Clock at='finalize' time={BASE + S} offset=0 rtt=0 leader=0 exchanges=0"]
    write_clock_lines(project_path, same)
    before = {p.name: p.read_bytes() for p in project_path.parent.iterdir()}
    assert hdtrace.open(project_path).clock_correction is None
    assert align(project_path) == 0
    assert "every rank ran on rank 0's clock" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in project_path.parent.iterdir()} == before
    # one rank measured on a clock of its own: corrected
    write_clock_lines(project_path, rank1_constant())
    assert hdtrace.open(project_path).clock_correction is not None


def test_command_line(copy_project):
    project_path = copy_project("ours")
    write_clock_lines(project_path, rank1_constant())
    run = lambda *args: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "hdtrace", "align", *args, str(project_path)],
        capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    events = lambda *options: subprocess.run(  # noqa: E731
        [sys.executable, "-m", "hdtrace", "events", "--rank", "1", "--name", "Init", *options,
         str(project_path)], capture_output=True, text=True,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))).stdout.splitlines()[1]
    raw, corrected = events("--raw-times"), events()
    init_raw = int(raw.split(",")[6])
    assert int(corrected.split(",")[6]) == init_raw - OFFSET
    done = run()
    assert done.returncode == 0 and "2 trace(s) put on rank 0's clock" in done.stdout, done
    done = run("--undo")
    assert done.returncode == 0 and "restored the times as written in 2 trace(s)" in done.stdout


def test_collectives_are_repaired(tmp_path):
    """Rank 1's clock 1 s ahead: corrected, its Barrier would end 100 ms before
    rank 0's starts, and its Bcast (root 0) 40 ms before the root's starts."""
    header = ("Mpi library='x' order_c=0 order_fortran=1 distribute_block=0 "
              "distribute_cyclic=1 distribute_none=2 distribute_dflt_darg=-1\n"
              "Comm map='0..1->0..1;' id=0 name='WORLD'\n")
    calls = {0: [("Init", 0.0, 0.001), ("Barrier", 0.2, 0.3), ("Bcast", 0.4, 0.41),
                 ("Finalize", 0.5, 0.5001)],
             1: [("Init", 1.0, 1.001), ("Barrier", 1.05, 1.1), ("Bcast", 1.25, 1.26),
                 ("Finalize", 1.5, 1.5001)]}
    attributes = {"Init": "", "Finalize": "", "Barrier": " cid='0'",
                  "Bcast": " size='4' count='1' tid='1275069445' rootRank='0' cid='0'"}
    for rank, rank_calls in calls.items():
        lines = [f"<{name}{attributes[name]} time='{start:.9f}' end='{end:.9f}'/>\n"
                 for name, start, end in rank_calls]
        (tmp_path / f"app_h_{rank}_0.trc").write_text(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='1700000000'>\n"
            + "".join(lines) + "</Program>\n")
        offset = rank * S
        (tmp_path / f"app_h_{rank}_0.info").write_text(
            header + "Type id='1275069445' combiner='MPI_COMBINER_NAMED' name='MPI_INT' "
            "size='4' extent='4'\n"
            f"Clock at='init' time={BASE + offset} offset={offset} rtt=10 leader={rank} "
            f"exchanges={20 * rank}\n")
    project_path = hdtrace.merge(tmp_path / "app")["output_path"]
    aligned = events_of(hdtrace.open(project_path), 1)
    ms = 1_000_000
    assert aligned == [("Init", BASE, BASE + 1 * ms),
                       ("Barrier", BASE + 50 * ms, BASE + 200 * ms),          # waits for rank 0
                       ("Bcast", BASE + 350 * ms, BASE + 400 * ms),           # waits for the root
                       ("Finalize", BASE + 640 * ms, BASE + 640 * ms + 100_000)]
    assert events_of(hdtrace.open(project_path), 0) == \
        events_of(hdtrace.open(project_path, align=False), 0)


def write_run(directory, calls, offsets, extra_info=""):
    """A run written by hand: calls[rank] = [(tag, attributes, start, end, children)] in
    seconds after timeAdjustment 1700000000 of that rank's clock, whose offset against
    rank 0's is offsets[rank] ns (constant, measured at init and one second later)."""
    header = ("Mpi library='x' order_c=0 order_fortran=1 distribute_block=0 "
              "distribute_cyclic=1 distribute_none=2 distribute_dflt_darg=-1\n"
              f"Comm map='0..{len(calls) - 1}->0..{len(calls) - 1};' id=0 name='WORLD'\n"
              "Type id='1275069445' combiner='MPI_COMBINER_NAMED' name='MPI_INT' "
              "size='4' extent='4'\n")
    for rank, rank_calls in calls.items():
        lines = []
        for tag, attributes, start, end, children in rank_calls:
            inner = "".join(f"<For rid='{rid}'/>" for rid in children)
            times = f"time='{start:.9f}' end='{end:.9f}'"
            lines.append(f"<{tag}{attributes} {times}>{inner}</{tag}>\n" if inner else
                         f"<{tag}{attributes} {times}/>\n")
        (directory / f"app_h_{rank}_0.trc").write_text(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='1700000000'>\n"
            + "".join(lines) + "</Program>\n")
        offset = offsets.get(rank)
        clock = "" if offset is None else "".join(
            f"Clock at='{at}' time={BASE + offset + k * S} offset={offset} rtt=10 "
            f"leader={rank} exchanges={20 if offset else 0}\n"
            for k, at in enumerate(("init", "finalize")))
        (directory / f"app_h_{rank}_0.info").write_text(header + clock + extra_info)
    return pathlib.Path(hdtrace.merge(directory / "app")["output_path"])


SEND_5 = " size='4' count='1' tid='1275069445' toRank='1' toTag='5' cid='0'"
RECV_INIT_5 = " size='4' count='1' tid='1275069445' fromRank='0' fromTag='5' cid='0' rid='7'"


def persistent_run(directory, start_call):
    """Rank 1, 1 s ahead, receives rank 0's Send through Recv_init, started by
    Start or Startall, and its Wait would end 200 ms before the Send starts."""
    start = ("Start", " rid='7'", 1.1, 1.101, ()) if start_call == "Start" else \
        ("Startall", "", 1.1, 1.101, (7,))
    calls = {0: [("Init", "", 0.0, 0.001, ()), ("Send", SEND_5, 0.5, 0.501, ()),
                 ("Finalize", "", 0.9, 0.901, ())],
             1: [("Init", "", 1.0, 1.001, ()), ("Recv_init", RECV_INIT_5, 1.05, 1.051, ()),
                 start, ("Wait", "", 1.2, 1.3, (7,)), ("Finalize", "", 1.6, 1.601, ())]}
    return write_run(directory, calls, {0: 0, 1: S})


@pytest.mark.parametrize("start_call", ["Start", "Startall"])
def test_persistent_receives_wait_for_their_send(tmp_path, start_call):
    project_path = persistent_run(tmp_path, start_call)
    ms = 1_000_000
    assert events_of(hdtrace.open(project_path), 1) == [
        ("Init", BASE, BASE + 1 * ms),
        ("Recv_init", BASE + 50 * ms, BASE + 51 * ms),
        (start_call, BASE + 100 * ms, BASE + 101 * ms),
        ("Wait", BASE + 200 * ms, BASE + 500 * ms),             # waits for the Send's start
        ("Finalize", BASE + 800 * ms, BASE + 801 * ms)]         # later times move as much
    matches = hdtrace.match_messages(hdtrace.open(project_path))
    assert len(matches.pairs) == 1
    assert matches.pairs[0]["recv_complete"] >= matches.pairs[0]["send_start"]
    # The former Python correction left Startall's receive unrepaired.
    former, _ = former_clocks.former_alignment(project_path)
    wait = former[(former["rank"] == 1) & (former["name"] == "Wait")][0]
    assert int(wait["end_ns"]) == (BASE + 500 * ms if start_call == "Start" else BASE + 300 * ms)


def assert_same_as_former(project_path):
    """The C++ correction (hdtrace.open) gives every row the times the former
    Python one gave, in the same order, with the same repair steps."""
    aligned = hdtrace.open(project_path)
    table = aligned.to_numpy()
    former, former_correction = former_clocks.former_alignment(project_path)
    for column in ("rank", "thread", "name", "start_ns", "end_ns"):
        assert table[column].tolist() == former[column].tolist(), column
    steps = aligned.clock_correction.steps
    assert sorted(steps) == sorted(former_correction.steps)
    for lane, (breaks, shifts) in former_correction.steps.items():
        assert steps[lane][0].tolist() == breaks.tolist()
        assert steps[lane][1].tolist() == shifts.tolist()
    return table


def test_cxx_correction_agrees_with_the_former_python_one(copy_project):
    project_path = copy_project("ours")
    write_clock_lines(project_path, rank1_constant())
    assert_same_as_former(project_path)
    # With drift: rank 1 gains 30 us per second.
    write_clock_lines(project_path, [
        f"Clock at='init' time={BASE} offset={OFFSET} rtt=900 leader=1 exchanges=20",
        f"Clock at='finalize' time={BASE + S} offset={OFFSET + 30_000} rtt=800 leader=1 "
        "exchanges=20"])
    assert_same_as_former(project_path)


def test_cxx_correction_agrees_on_collectives_and_wildcards(tmp_path):
    """Collectives of every kind of wait, and a receive from MPI_ANY_SOURCE,
    with rank 2 200 ms behind and rank 1 1 s ahead."""
    bcast = " size='4' count='1' tid='1275069445' rootRank='0' cid='0'"
    reduce = " size='4' count='1' tid='1275069445' rootRank='2' cid='0'"
    barrier = " cid='0'"
    any_source = " size='4' count='1' tid='1275069445' fromRank='-1' fromTag='5' cid='0'"
    send_to_0 = " size='4' count='1' tid='1275069445' toRank='0' toTag='5' cid='0'"
    calls = {
        0: [("Init", "", 0.0, 0.001, ()), ("Barrier", barrier, 0.2, 0.3, ()),
            ("Bcast", bcast, 0.4, 0.41, ()), ("Reduce", reduce, 0.45, 0.46, ()),
            ("Recv", any_source, 0.47, 0.48, ()), ("Recv", any_source, 0.49, 0.5, ()),
            ("Finalize", "", 0.6, 0.601, ())],
        1: [("Init", "", 1.0, 1.001, ()), ("Barrier", barrier, 1.05, 1.1, ()),
            ("Bcast", bcast, 1.25, 1.26, ()), ("Reduce", reduce, 1.3, 1.31, ()),
            ("Send", send_to_0, 1.55, 1.56, ()), ("Finalize", "", 1.6, 1.601, ())],
        2: [("Init", "", -0.2, -0.199, ()), ("Barrier", barrier, 0.0, 0.05, ()),
            ("Bcast", bcast, 0.2, 0.25, ()), ("Reduce", reduce, 0.26, 0.27, ()),
            ("Send", send_to_0, 0.28, 0.29, ()), ("Finalize", "", 0.4, 0.401, ())]}
    project_path = write_run(tmp_path, calls, {0: 0, 1: S, 2: -200_000_000})
    table = assert_same_as_former(project_path)
    matches = hdtrace.match_messages(hdtrace.open(project_path))
    assert len(matches.pairs) == 2
    assert all(p["recv_complete"] >= p["send_start"] for p in matches.pairs)
    barriers = table[table["name"] == "Barrier"]
    assert barriers["end_ns"].min() >= barriers["start_ns"].max()


def merger_of(build_dir):
    path = build_dir / "merger" / "project-merger"
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is missing: build the merger (HDTRACE_BUILD_MERGER=ON)")
    return path


def snapshot(directory):
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.suffix != ".proj"}


def test_merger_aligns_clocks_as_the_reader_corrects(tmp_path, build_dir):
    project_path = persistent_run(tmp_path, "Startall")
    expected = {rank: events_of(hdtrace.open(project_path), rank) for rank in (0, 1)}
    before = snapshot(tmp_path)
    merge = lambda *options: subprocess.run(  # noqa: E731
        [str(merger_of(build_dir)), *options, str(tmp_path / "app")],
        capture_output=True, text=True)
    done = merge("--align-clocks")
    assert done.returncode == 0, done.stderr
    assert "2 trace(s) put on rank 0's clock" in done.stdout, done.stdout
    after = snapshot(tmp_path)
    for name in ("app_h_0_0.trc", "app_h_1_0.trc"):
        assert after[name + ".unaligned"] == before[name]
        info = after[name.replace(".trc", ".info")].decode()
        assert info == before[name.replace(".trc", ".info")].decode() + \
            f"ClockAligned backup='{name}.unaligned'\n"
    # Read as written, the rewritten traces hold the corrected times.
    raw = hdtrace.open(project_path, align=False)
    assert {rank: events_of(raw, rank) for rank in (0, 1)} == expected
    assert hdtrace.open(project_path).clock_correction is None
    # Only time values changed.
    old, new = before["app_h_1_0.trc"].decode(), after["app_h_1_0.trc"].decode()
    strip = lambda text: re.sub(r"(time|end)='[^']*'", "", text)  # noqa: E731
    assert strip(old) == strip(new) and old != new
    # A second run changes nothing; undo restores every byte.
    again = merge("--align-clocks")
    assert again.returncode == 0 and "already aligned; nothing changed" in again.stderr, again
    assert snapshot(tmp_path) == after
    assert undo(project_path) == 2
    assert snapshot(tmp_path) == before


def test_merger_align_clocks_refuses_damaged_lines_and_warns_without_measurements(
        tmp_path, build_dir):
    calls = {0: [("Init", "", 0.0, 0.001, ()), ("Send", SEND_5, 0.5, 0.501, ()),
                 ("Finalize", "", 0.9, 0.901, ())],
             1: [("Init", "", 1.0, 1.001, ()),
                 ("Recv", " fromRank='0' fromTag='5' cid='0'", 1.2, 1.3, ()),
                 ("Finalize", "", 1.6, 1.601, ())]}
    damaged = tmp_path / "damaged"
    damaged.mkdir()
    write_run(damaged, calls, {0: 0, 1: S}, extra_info="Clock at='init' time=5 offset=x\n")
    before = snapshot(damaged)
    done = subprocess.run([str(merger_of(build_dir)), "--align-clocks", str(damaged / "app")],
                          capture_output=True, text=True)
    assert done.returncode == 1
    assert f"{damaged / 'app_h_0_0.info'}:6: damaged Clock line" in done.stderr, done.stderr
    assert "the traces were not aligned and are unchanged" in done.stderr
    assert snapshot(damaged) == before

    plain = tmp_path / "plain"
    plain.mkdir()
    write_run(plain, calls, {})
    before = snapshot(plain)
    done = subprocess.run([str(merger_of(build_dir)), "--align-clocks", str(plain / "app")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "warning" in done.stderr and "has no clock measurements" in done.stderr, done.stderr
    assert snapshot(plain) == before


def test_align_refuses_a_backup_in_the_way_and_a_damaged_trace(copy_project):
    project_path = copy_project("ours")
    write_clock_lines(project_path, rank1_constant())
    directory = project_path.parent
    (directory / "app_node01_1_0.trc.unaligned").write_bytes(b"someone's file")
    before = {p.name: p.read_bytes() for p in directory.iterdir()}
    with pytest.raises(AlignError, match=r"app_node01_1_0\.trc\.unaligned exists but .*"
                                         r"app_node01_1_0\.info has no ClockAligned line"):
        align(project_path)
    assert {p.name: p.read_bytes() for p in directory.iterdir()} == before
    (directory / "app_node01_1_0.trc.unaligned").unlink()
    trace = directory / "app_node01_0_0.trc"
    trace.write_bytes(trace.read_bytes()[:-40])  # cut short
    before = {p.name: p.read_bytes() for p in directory.iterdir()}
    with pytest.raises(hdtrace.ReadError) as raised:
        align(project_path)
    assert raised.value.file == str(trace)
    assert {p.name: p.read_bytes() for p in directory.iterdir()} == before


def test_matched_probes_pair_by_the_probe_order(tmp_path):
    """Rank 1 (1.2 s ahead) probes rank 0's two messages of one tag in send
    order and receives them in the other: the Mrecv of the second message
    waits for the second Send (79 ms), as the former Python correction did."""
    probe = " fromRank='0' fromTag='5' cid='0' mid='{}'"
    mrecv = " size='4' count='1' tid='1275069445' fromRank='0' fromTag='5' cid='0' mid='{}'"
    calls = {0: [("Init", "", 0.0, 0.001, ()), ("Send", SEND_5, 0.1, 0.101, ()),
                 ("Send", SEND_5, 0.2, 0.201, ()), ("Finalize", "", 0.6, 0.601, ())],
             1: [("Init", "", 1.2, 1.201, ()), ("Mprobe", probe.format(0), 1.3, 1.301, ()),
                 ("Mprobe", probe.format(1), 1.31, 1.311, ()),
                 ("Mrecv", mrecv.format(1), 1.32, 1.321, ()),
                 ("Mrecv", mrecv.format(0), 1.33, 1.331, ()), ("Finalize", "", 1.5, 1.501, ())]}
    project_path = write_run(tmp_path, calls, {0: 0, 1: 1_200_000_000})
    assert_same_as_former(project_path)
    ms = 1_000_000
    mrecvs = [event for event in events_of(hdtrace.open(project_path), 1) if event[0] == "Mrecv"]
    assert mrecvs == [("Mrecv", BASE + 120 * ms, BASE + 200 * ms),
                      ("Mrecv", BASE + 209 * ms, BASE + 210 * ms)]


def numpy_aligned(array, correction):
    """align_table's times and order as numpy computes them, trace by trace:
    the oracle of the C++ pass (the array is corrected in place)."""
    interpolated = np.empty(len(array), dtype=np.int64)
    for rank, thread, rows in former_clocks.lanes_of(array):
        interpolated[rows] = correction.interpolate(rank, array["start_ns"][rows])
        for column in ("start_ns", "end_ns"):
            array[column][rows] = correction.apply(rank, thread, array[column][rows])
    array["start"] = array["start_ns"] / 1e9
    array["end"] = array["end_ns"] / 1e9
    array["duration"] = (array["end_ns"] - array["start_ns"]) / 1e9
    return np.lexsort((interpolated, array["start_ns"]))


def random_table(generator, rows):
    """A table of three traces in raw start order, with ties, and side columns
    whose rows say where each went."""
    from hdtrace.table import Table, table_dtype
    array = np.zeros(rows, dtype=table_dtype(8))
    lanes = [(0, 0), (1, 0), (1, 1)]
    lane = generator.integers(0, len(lanes), size=rows)
    array["rank"] = [lanes[k][0] for k in lane]
    array["thread"] = [lanes[k][1] for k in lane]
    array["start_ns"] = BASE + np.sort(generator.integers(0, 2 * S // 1000, size=rows)) * 1000
    array["end_ns"] = array["start_ns"] + generator.integers(0, 3000, size=rows)
    array["name"] = np.where(lane == 0, "Send", "Recv")
    array["size"] = np.arange(rows)
    row_ids = np.arange(rows, dtype=np.int32)
    return Table(array, row_ids.copy(), -row_ids, np.array([0, rows - 1]), np.array([7, 8]),
                 np.array([rows // 2]), np.array([3]), ["f"], ["Recv", "Send"], row_ids + 100)


@pytest.mark.parametrize("offsets", [
    (1500, 2000),        # rank 1 1.5-2 us ahead: its calls change places with rank 0's
    (0, 0),              # nothing moves: the table keeps its order
    (-S // 4, S // 4),   # half a second of drift over the run
    (0, 3 * S),          # an offset growing faster than time: rank 1's own calls reverse
])
def test_align_table_in_cpp_gives_numpy_times_and_order(offsets):
    generator = np.random.default_rng(sum(offsets) % 1000)
    correction = clocks.ClockCorrection({1: [
        clocks.ClockMeasurement("init", BASE, offsets[0], 900, 1, 20),
        clocks.ClockMeasurement("finalize", BASE + 2 * S, offsets[1], 800, 1, 20)]})
    table = random_table(generator, 20_000)
    expected = table.array.copy()
    order = numpy_aligned(expected, correction)
    moved = not np.array_equal(order, np.arange(len(order)))
    assert moved == (offsets != (0, 0))
    aligned = clocks.align_table(table, correction)
    if not moved:
        assert aligned is table
        assert aligned.array.tolist() == expected.tolist()
        return
    assert aligned.array.tolist() == expected[order].tolist()
    assert aligned.recv_peer.tolist() == order.tolist()
    assert aligned.recv_tag.tolist() == (-order).tolist()
    assert aligned.name_code.tolist() == (order + 100).tolist()
    new_row = np.empty(len(order), dtype=np.int64)
    new_row[order] = np.arange(len(order))
    assert aligned.completion_row.tolist() == new_row[[0, len(order) - 1]].tolist()
    assert aligned.open_row.tolist() == new_row[[len(order) // 2]].tolist()


@pytest.mark.parametrize("permutation", ["identity", "reversed", "one long cycle", "random",
                                         "neighbours swapped"])
def test_reorder_table_rows_in_place_gives_numpys_gather(permutation):
    rows = 5_000
    generator = np.random.default_rng(len(permutation))
    table = random_table(generator, rows).array
    order = {"identity": np.arange(rows),
             "reversed": np.arange(rows)[::-1].copy(),
             "one long cycle": np.roll(np.arange(rows), 1),
             "random": generator.permutation(rows),
             "neighbours swapped": np.arange(rows).reshape(-1, 2)[:, ::-1].ravel().copy()}
    order = order[permutation]
    expected = table[order]
    hdtrace.native.reorder_table_rows(table, order)
    assert table.tolist() == expected.tolist()


def test_align_table_in_cpp_refuses_what_is_no_table():
    correction = clocks.ClockCorrection({1: [clocks.ClockMeasurement("init", BASE, 5, 9, 1, 2)]})
    with pytest.raises(ValueError, match="no column rank"):
        hdtrace.native.align_table_times(correction.native, np.zeros(3, dtype=[("x", "i4")]))
    table = np.zeros(3, dtype=hdtrace.table.table_dtype(4))
    table["rid"] = [10, 11, 12]
    for order, refusal in (([0, 5, 1], "row 5 beyond the table's 3"), ([0, -1, 1], "row -1"),
                           ([2, 0, 2], "row 2 twice"), ([0, 1], "same length")):
        with pytest.raises(ValueError, match=refusal):
            hdtrace.native.reorder_table_rows(table, np.array(order))
        assert table["rid"].tolist() == [10, 11, 12], "a refused order moved rows"


def test_correct_table_reads_the_rows_and_refuses_side_columns_that_do_not_fit(copy_project):
    project_path = copy_project("ours")
    write_clock_lines(project_path, rank1_constant())
    table = hdtrace.open(project_path, align=False)._raw_table()

    def correct(rows=table.array, **changed):
        side = dict(name_code=table.name_code, recv_peer=table.recv_peer,
                    recv_tag=table.recv_tag, completion_row=table.completion_row,
                    completion_rid=table.completion_rid)
        side.update(changed)
        return hdtrace.native.correct_table(str(project_path), list(table.names), rows, side)

    found = correct()
    assert found["state"] == "measured" and found["events"] == len(table.array)
    starts = table.array["start_ns"]
    assert (found["correction"].interpolate(1, starts) == starts - OFFSET).all()
    assert (found["correction"].interpolate(0, starts) == starts).all()
    with pytest.raises(ValueError, match="name code out of range"):
        correct(name_code=np.full(len(table.array), len(table.names), dtype=np.int32))
    with pytest.raises(ValueError, match="completion row out of range"):
        correct(completion_row=np.array([len(table.array)]), completion_rid=np.array([0]))
    with pytest.raises(ValueError, match="recv_peer is missing or has the wrong length"):
        correct(recv_peer=table.recv_peer[:-1])
    with pytest.raises(ValueError, match="no column rid"):
        correct(np.zeros(len(table.array), dtype=[(name, "i4") for name in
                                                   ("rank", "thread", "peer", "tag", "cid")] +
                        [("start_ns", "i8"), ("end_ns", "i8")]))
