"""hdtrace.clocks and `hdtrace align` on a small run with hand-written Clock
lines (the end-to-end test with the wrapper is tests/mpiwrapper/test_clocks.py;
pytest collects tests/ as one tree, so the two names differ).

data/ours has two ranks; here rank 1's clock is said to be 200 ms ahead of
rank 0's, so its Recv of rank 0's Send would end 99 ms before the Send
starts: the order repair moves that Recv's end to the Send's start and every
later time of rank 1 by as much."""
import os
import subprocess
import sys

import numpy as np
import pytest

import hdtrace
from hdtrace import clocks
from hdtrace.align import AlignError, align, rewrite_trace, undo

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
