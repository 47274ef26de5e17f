"""The POSIX layer in the views: stats per layer, plot-io's POSIX accesses,
the view and the exports with the nested calls, and message matching, the
clocks and hdtrace check unchanged by them.

The run is tracegen's with posix=True: POSIX reads and writes nested under
the MPI-IO calls (one short, one failed) and fopen/fwrite/fclose outside
any MPI call. Every expected value comes from what the generator wrote."""
import collections
import json
import pathlib
import re
import shutil

import hdtrace
import numpy as np
import pytest
import tracegen
from hdtrace import plot_io
from hdtrace.calls import POSIX_CALLS
from hdtrace.view.html import page_data
from hdtrace.view.model import build_timeline

OP = {"r": "read", "w": "write"}


@pytest.fixture
def posix_run(tmp_path):
    return tracegen.generate(tmp_path / "run", ranks=4, iterations=2, posix=True)


def without_posix(run, directory):
    """A copy of the run's project with every POSIX element taken out (and
    the <Nested> blocks left empty by that): the same run as if the POSIX
    layer had not been traced."""
    shutil.copytree(pathlib.Path(run.project).parent, directory)
    tag = re.compile(r"^\s*<(\w+)[ />]")
    for trace in directory.glob("*.trc"):
        kept = [line for line in trace.read_text().splitlines()
                if not (tag.match(line) and tag.match(line)[1] in POSIX_CALLS)]
        lines = []
        for line in kept:
            if line.strip() == "</Nested>" and lines and lines[-1].strip() == "<Nested>":
                lines.pop()
                continue
            lines.append(line)
        trace.write_text("\n".join(lines) + "\n")
    return directory / pathlib.Path(run.project).name


def test_the_generated_run_holds_posix_calls_nested_and_at_the_top_level(posix_run):
    nested = [call for call in posix_run.calls if call.name in POSIX_CALLS and call.depth]
    top = [call for call in posix_run.calls if call.name in POSIX_CALLS and not call.depth]
    assert len(nested) == posix_run.ranks * 2 * 6 and len(top) == 6


def expected_layers(run):
    """{(layer, rank): (bytes read, reads, bytes written, writes)}, rank -1 the sum."""
    sums = collections.defaultdict(lambda: [0, 0, 0, 0])
    for access in run.accesses:
        for rank in (access.rank, -1):
            at = 0 if access.op == "r" else 2
            sums[("MPI", rank)][at] += access.size
            sums[("MPI", rank)][at + 1] += 1
    for access in run.posix:
        for rank in (access.rank, -1):
            at = 0 if access.op == "r" else 2
            sums[("POSIX", rank)][at] += access.done
            sums[("POSIX", rank)][at + 1] += 1
    return {key: tuple(values) for key, values in sums.items()}


def layers_of(stats):
    return {(row["layer"], int(row["rank"])): (int(row["bytes_read"]), int(row["reads"]),
                                               int(row["bytes_written"]), int(row["writes"]))
            for row in stats.layers}


def test_stats_report_bytes_per_layer_per_rank_and_in_total(posix_run):
    stats = hdtrace.stats(hdtrace.open(posix_run.project))
    expected = expected_layers(posix_run)
    assert layers_of(stats) == expected
    # POSIX bytes are what the calls did: the short write and the failed one
    # count what they moved, not what they asked for.
    asked = sum(access.asked for access in posix_run.posix if access.op == "w")
    assert expected[("POSIX", -1)][2] < asked
    # Rows: MPI by rank then all, then POSIX.
    assert [(row["layer"], int(row["rank"])) for row in stats.layers] == \
        [("MPI", r) for r in (0, 1, 2, 3, -1)] + [("POSIX", r) for r in (0, 1, 2, 3, -1)]


def test_stats_keep_posix_calls_outside_mpi_out_of_the_time_in_mpi(posix_run, tmp_path):
    stats = hdtrace.stats(hdtrace.open(posix_run.project))
    for row in stats.ranks:
        rank = int(row["rank"])
        in_mpi = sum(call.end_ns - call.start_ns for call in posix_run.top_level()
                     if call.rank == rank and call.name not in POSIX_CALLS)
        assert row["mpi"] == pytest.approx(in_mpi / 1e9, abs=1e-12)
    # The files table is MPI-IO's: the same as without the POSIX calls.
    plain = hdtrace.stats(hdtrace.open(without_posix(posix_run, tmp_path / "plain")))
    assert stats.files.tolist() == plain.files.tolist()
    assert [tuple(row) for row in plain.layers if row["layer"] == "POSIX"] == []


def test_stats_command_prints_the_layers(posix_run, hdtrace_command):
    result = hdtrace_command("stats", posix_run.project)
    assert result.returncode == 0, result.stderr
    text = result.stdout.split("Layers", 1)[1].splitlines()
    rows = {}
    for line in text[2:]:
        fields = line.split()
        rows[(fields[0], -1 if fields[1] == "all" else int(fields[1]))] = \
            tuple(int(value) for value in fields[2:])
    assert rows == expected_layers(posix_run)


def test_stats_of_a_dask_frame_have_the_same_layers(posix_run):
    pytest.importorskip("dask", reason="python3-dask is needed (scripts/install-deps)")
    project = hdtrace.open(posix_run.project)
    assert layers_of(hdtrace.stats(project.to_dask())) == expected_layers(posix_run)


def file_name(access):
    return tracegen.FILE_NAME if access.fid == 0 else f"fid {access.fid} of rank {access.rank}"


def test_plot_io_collects_the_posix_accesses(posix_run):
    project = hdtrace.open(posix_run.project)
    io = plot_io.collect_accesses(project, plot_io.LAYER_CHOICES["posix"])
    origin = min(call.start_ns for call in posix_run.calls)
    assert io.origin_ns == tracegen.TIME_ADJUSTMENT * 10**9 + origin
    got = collections.Counter((a.rank, a.op, a.file, a.offset, a.size, a.call, a.layer,
                               round(a.start * 1e9), round(a.end * 1e9)) for a in io.accesses)
    assert got == collections.Counter(
        (a.rank, OP[a.op], file_name(a), a.offset, a.done, a.name, "POSIX",
         a.start_ns - origin, a.end_ns - origin) for a in posix_run.posix)
    assert io.without_offset == 0
    # The default stays the MPI-IO calls, as without a POSIX layer.
    mpi = plot_io.collect_accesses(project)
    assert collections.Counter((a.rank, a.op, a.offset, a.size, a.file, a.layer)
                               for a in mpi.accesses) == \
        collections.Counter((a.rank, OP[a.op], a.offset, a.size, a.name, "MPI")
                            for a in posix_run.accesses)


def test_plot_io_command_draws_both_layers(posix_run, hdtrace_command, tmp_path):
    output = tmp_path / "io.svg"
    result = hdtrace_command("plot-io", "--layer", "both", "-o", output, posix_run.project)
    assert result.returncode == 0, result.stderr
    total = len(posix_run.accesses) + len(posix_run.posix)
    assert f"{total} accesses" in result.stdout
    svg = output.read_text()
    for rank in range(posix_run.ranks):
        assert f'id="time-offset|{tracegen.FILE_NAME}|{rank}|write|POSIX"' in svg
        assert f'id="time-offset|{tracegen.FILE_NAME}|{rank}|write"' in svg
    assert f'id="time-offset|fid 1 of rank 0|0|write|POSIX"' in svg


def test_view_model_holds_every_nested_posix_call_under_its_mpi_call(posix_run):
    timeline = build_timeline(hdtrace.open(posix_run.project, align=False))
    base = tracegen.TIME_ADJUSTMENT * 10**9
    calls = {}
    for call in range(len(timeline)):
        row = timeline.rows[timeline.row[call]]
        calls[(row.rank, row.thread, timeline.start_ns[call] - base, timeline.call_name(call))] = call
    expected_parent = {}
    for call in posix_run.calls:
        for inner in call.nested:
            expected_parent[(inner.rank, inner.thread, inner.start_ns, inner.name)] = \
                (call.rank, call.thread, call.start_ns, call.name)
    assert len(calls) == len(posix_run.calls) == len(timeline)
    for access in posix_run.posix:
        key = next(k for k in calls if k[0] == access.rank and k[2] == access.start_ns)
        call = calls[key]
        assert timeline.call_name(call) == access.name
        assert timeline.attrs[call]["size"] == access.done
        assert timeline.attrs[call]["asked"] == access.asked
        if access.parent:
            assert timeline.depth[call] == 1
            parent = timeline.parent[call]
            assert calls[expected_parent[key]] == parent
            assert timeline.call_name(parent) == access.parent
            assert timeline.start_ns[parent] <= timeline.start_ns[call]
            assert timeline.end_ns[call] <= timeline.end_ns[parent]
        else:
            assert timeline.depth[call] == 0 and timeline.parent[call] == -1
    data = page_data(timeline)
    posix_family = data["families"].index("POSIX I/O")
    for name in POSIX_CALLS & set(timeline.names):
        assert data["nameFamily"][timeline.names.index(name)] == posix_family


def test_view_page_has_a_colour_for_every_family(posix_run, hdtrace_command, tmp_path):
    output = tmp_path / "view.html"
    result = hdtrace_command("view", "-o", output, posix_run.project)
    assert result.returncode == 0, result.stderr
    page = output.read_text()
    colours = json.loads(re.search(r'"familyColours":(\[[^\]]*\])', page)[1])
    families = json.loads(re.search(r'"families":(\[[^\]]*\])', page)[1])
    assert len(colours) == len(set(colours)) == len(families)
    assert all(re.fullmatch(r"#[0-9a-f]{6}", colour) for colour in colours), colours
    assert "POSIX I/O" in families


def test_chrome_export_holds_every_posix_call_at_its_depth(posix_run, hdtrace_command, tmp_path):
    output = tmp_path / "trace.json"
    result = hdtrace_command("export", "--chrome", output, posix_run.project)
    assert result.returncode == 0, result.stderr
    events = json.loads(output.read_text())["traceEvents"]
    origin = min(call.start_ns for call in posix_run.calls)
    got = collections.Counter(
        (event["pid"], event["name"], round(event["ts"] * 1000), event["args"].get("depth", 0),
         event["args"]["size"], event["args"]["asked"])
        for event in events if event["ph"] == "X" and event["cat"] == "POSIX I/O"
        and "asked" in event["args"])
    assert got == collections.Counter(
        (a.rank, a.name, a.start_ns - origin, 1 if a.parent else 0, a.done, a.asked)
        for a in posix_run.posix)
    opens = [event for event in events if event["ph"] == "X" and event["name"] == "fopen"]
    assert len(opens) == 2 and all(event["cat"] == "POSIX I/O" for event in opens)


def test_otf2_export_has_the_posix_io_operations(posix_run, hdtrace_command, tmp_path):
    from test_otf2_export import event_lines, export, field
    anchor = export(hdtrace_command, posix_run.project, tmp_path / "archive")
    events = event_lines(anchor)
    counts = collections.Counter(event for event, *_ in events)
    accesses = len(posix_run.accesses) + len(posix_run.posix)
    assert counts["ENTER"] == counts["LEAVE"] == len(posix_run.calls)
    assert counts["IO_OPERATION_BEGIN"] == counts["IO_OPERATION_COMPLETE"] == accesses
    asked = collections.Counter()
    done = collections.Counter()
    for event, location, _, rest in events:
        if event == "IO_OPERATION_BEGIN":
            asked[location] += field(rest, "Bytes Request")
        elif event == "IO_OPERATION_COMPLETE":
            done[location] += field(rest, "Bytes Result")
    for rank in range(posix_run.ranks):
        mpi = sum(a.size for a in posix_run.accesses if a.rank == rank)
        assert asked[rank] == mpi + sum(a.asked for a in posix_run.posix if a.rank == rank)
        assert done[rank] == mpi + sum(a.done for a in posix_run.posix if a.rank == rank)


def test_message_matching_ignores_the_posix_calls(posix_run, tmp_path):
    with_posix = hdtrace.open(posix_run.project, align=False)
    plain = hdtrace.open(without_posix(posix_run, tmp_path / "plain"), align=False)
    matched, plain_matched = hdtrace.match_messages(with_posix), hdtrace.match_messages(plain)
    table, plain_table = with_posix.to_numpy(), plain.to_numpy()

    def described(matches, table):
        rows = matches.pairs
        return sorted(zip(table["name"][rows["send_row"]].tolist(),
                          table["start_ns"][rows["send_row"]].tolist(),
                          table["name"][rows["recv_row"]].tolist(),
                          table["start_ns"][rows["recv_row"]].tolist(),
                          rows["tag"].tolist(), rows["size"].tolist()))
    assert described(matched, table) == described(plain_matched, plain_table)
    assert len(matched) == len(posix_run.messages)
    assert len(matched.unmatched_sends) == len(plain_matched.unmatched_sends) == 0
    assert len(matched.unmatched_recvs) == len(plain_matched.unmatched_recvs) == 0


def write_clock_lines(project_path, ranks):
    """Clock lines saying rank r's clock is r * 150 us ahead of rank 0's: the
    correction moves later ranks back, and the order repair has work to do."""
    base = tracegen.TIME_ADJUSTMENT * 10**9
    for rank in range(ranks):
        offset = rank * 150_000
        lines = [f"Clock at='init' time={base} offset={offset} rtt=900 leader={int(rank > 0)} "
                 "exchanges=20",
                 f"Clock at='finalize' time={base + 10**9} offset={offset} rtt=800 "
                 f"leader={int(rank > 0)} exchanges=20"]
        (project_path.parent / f"demo_{tracegen.HOST}_{rank}_0.info").write_text(
            "Mpi library='x' order_c=0 order_fortran=1 distribute_block=0 distribute_cyclic=1 "
            "distribute_none=2 distribute_dflt_darg=-1\n" + "".join(line + "\n" for line in lines))


def test_clock_alignment_ignores_the_posix_calls(posix_run, tmp_path):
    write_clock_lines(pathlib.Path(posix_run.project), posix_run.ranks)
    plain_path = without_posix(posix_run, tmp_path / "plain")
    with_posix, plain = hdtrace.open(posix_run.project), hdtrace.open(plain_path)
    assert with_posix.clock_correction is not None
    table, plain_table = with_posix.to_numpy(), plain.to_numpy()
    mpi = ~np.isin(table["name"], sorted(POSIX_CALLS))
    assert (table[mpi] == plain_table).all()
    for leaf in with_posix.topology.leaves:
        calls = [event for event in with_posix.trace(leaf.rank, leaf.thread)
                 if event.name not in POSIX_CALLS]
        plain_calls = list(plain.trace(leaf.rank, leaf.thread))
        assert [(e.name, e.start_ns, e.end_ns) for e in calls] == \
            [(e.name, e.start_ns, e.end_ns) for e in plain_calls]
        # Every nested POSIX call stays inside its MPI call, aligned as it is.
        for event in calls:
            for inner in event.nested:
                assert event.start_ns <= inner.start_ns <= inner.end_ns <= event.end_ns


def test_check_finds_nothing_more_with_the_posix_calls(posix_run, tmp_path):
    from hdtrace.check import check
    plain, plain_traces = check(str(without_posix(posix_run, tmp_path / "p")))
    problems, traces = check(str(posix_run.project))
    assert [problem.text for problem in problems] == [problem.text for problem in plain]
    assert traces == plain_traces == len(posix_run.threads) + 1


def test_view_opens_with_the_nested_posix_calls_shown(posix_run, hdtrace_command, tmp_path):
    from browser import Browser
    output = tmp_path / "view.html"
    result = hdtrace_command("view", "-o", output, posix_run.project)
    assert result.returncode == 0, result.stderr
    with Browser(width=1400, height=900) as page:
        page.open(output.as_uri())
        assert page.console_errors() == []
        assert page.evaluate("hdtraceView.view")["nested"] is True
        page.evaluate("hdtraceView.render()")
        bars = page.evaluate("hdtraceView.drawn")
    # Bars narrower than a pixel and a half are merged: count the calls they stand for.
    counted = collections.Counter()
    for bar in bars:
        counted[bar["depth"]] += bar["count"]
    nested = [call for call in posix_run.calls if call.depth == 1]
    assert counted[1] == len(nested)
    assert counted[0] == len(posix_run.calls) - len(nested)


def write_trace(path, body):
    path.write_text('<?xml version="1.0" encoding="UTF-8"?>\n'
                    f"<Program timeAdjustment='{tracegen.TIME_ADJUSTMENT}'>\n{body}")


def test_posix_sums_count_every_depth_and_refuse_a_bad_size(tmp_path):
    from hdtrace import io_layers
    from hdtrace.errors import TraceDamageWarning
    trace = tmp_path / "deep.trc"
    body = ("<pwrite fid='0' offset='0' asked='5' size='5' time='0.1' end='0.2'/>\n"
            "<Nested>\n"
            "  <Nested>\n"
            "    <pread fid='0' offset='0' asked='7' size='7' time='0.31' end='0.32'/>\n"
            "  </Nested>\n"
            "  <Allreduce size='8' cid='0' count='1' tid='1' time='0.305' end='0.33'/>\n"
            "  <write fid='0' offset='5' asked='9' size='-1' errno='5' time='0.34' end='0.35'/>\n"
            "</Nested>\n"
            "<File_write_all fid='0' size='64' count='64' tid='1' time='0.3' end='0.4'/>\n")
    write_trace(trace, body + "</Program>\n")
    # The depths: a top-level call, one 1 deep, one 2 deep; a failed write moved nothing.
    assert io_layers.posix_sums_of_trace(str(trace), 3, 0) == {(3, "write"): [5, 2],
                                                               (3, "read"): [7, 1]}
    cut = tmp_path / "cut.trc"
    write_trace(cut, body + "<pwrite fid='0' offset='9' asked='4' size='4' time='0.5'")
    with pytest.warns(TraceDamageWarning):
        assert io_layers.posix_sums_of_trace(str(cut), 0, 0, partial=True) == \
            {(0, "write"): [5, 2], (0, "read"): [7, 1]}
    bad = tmp_path / "bad.trc"
    write_trace(bad, "<Nested>\n  <pwrite fid='0' offset='0' asked='5' size='five' time='0.1' "
                     "end='0.2'/>\n</Nested>\n<File_write fid='0' size='5' time='0.1' end='0.3'/>"
                     "\n</Program>\n")
    with pytest.raises(hdtrace.ReadError) as error:
        io_layers.posix_sums_of_trace(str(bad), 0, 0)
    assert error.value.file == str(bad) and error.value.line == 4
    assert "size='five' is not a whole number" in str(error.value)


def test_posix_sums_of_many_traces_are_each_traces_own_in_order(tmp_path):
    from hdtrace import io_layers
    nested = tmp_path / "nested.trc"
    write_trace(nested, "<pwrite fid='0' offset='0' asked='5' size='5' time='0.1' end='0.2'/>\n"
                        "<Nested>\n  <pread fid='0' offset='0' asked='7' size='6' time='0.31' "
                        "end='0.32'/>\n</Nested>\n<File_read fid='0' size='7' time='0.3' "
                        "end='0.4'/>\n</Program>\n")
    top_level = tmp_path / "top.trc"
    write_trace(top_level, "<write fid='1' asked='3' size='3' time='0.1' end='0.2'/>\n"
                           "<write fid='1' asked='4' size='4' time='0.3' end='0.4'/>\n"
                           "</Program>\n")
    # A nested write without its size: counted, with no bytes (as sum_call_bytes does).
    unsized = tmp_path / "unsized.trc"
    write_trace(unsized, "<Nested>\n  <pwrite fid='0' offset='0' asked='5' time='0.1' "
                         "end='0.2'/>\n</Nested>\n<File_write fid='0' size='5' time='0.1' "
                         "end='0.3'/>\n</Program>\n")
    traces = [(str(nested), 4, 0, False), (str(top_level), 5, 1, True),
              (str(top_level), 6, 0, False), (str(unsized), 7, 0, False)]
    assert io_layers.posix_sums_of_traces(traces) == [
        {(4, "write"): [5, 1], (4, "read"): [6, 1]},
        {(5, "write"): [7, 2]},
        {},  # no nested block, and its top-level calls said to hold no POSIX call
        {(7, "write"): [0, 1]},
    ]
    for path, rank, thread, top in traces:
        assert io_layers.posix_sums_of_trace(path, rank, thread, top_level=top) == \
            io_layers.posix_sums_of_traces([(path, rank, thread, top)])[0]
    assert io_layers.posix_sums_of_traces([]) == []


def test_slices_of_traces_with_posix_calls_read_as_the_whole_traces(posix_run):
    pytest.importorskip("dask", reason="python3-dask is needed (scripts/install-deps)")
    project = hdtrace.open(posix_run.project, align=False)
    smallest = min(pathlib.Path(leaf.path).stat().st_size for leaf in project.topology)
    frame = project.to_dask(slice_bytes=smallest // 8)
    assert frame.npartitions >= 8 * len(project.topology.leaves) - 8
    computed = frame.compute().sort_values(["start_ns", "rank", "thread"], kind="stable")
    table = project.to_numpy()
    # The rows are the top-level calls, POSIX ones outside MPI calls included,
    # however the slices cut the <Nested> blocks.
    assert len(computed) == len(table) == len(posix_run.top_level())
    for column in ("rank", "thread", "name", "start_ns", "end_ns", "size", "fid", "offset"):
        assert computed[column].tolist() == table[column].tolist(), column
    assert layers_of(hdtrace.stats(frame)) == expected_layers(posix_run)
