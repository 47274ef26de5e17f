"""hdtrace score on runs written call by call (tests/report/runs.py), so that
every visit and time is known: the table's figures, the bytes adding up to
each trace's size in both forms, what a filter keeps, the extrapolation, the
JSON form, the initial filter and the errors."""
import json
import os
import subprocess
import sys

import pytest

import hdtrace
from hdtrace import native
from hdtrace.score import initial_filter, proposed_calls, score, score_document

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report"))
from runs import RunBuilder, posix  # noqa: E402

RANKS = 3
PROBES = 400  # Iprobe visits per rank: the frequent, cheap call


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """Per rank: Init, 400 Iprobes of 200 ns, an open file, 4 writes of 1 MiB
    (each with two nested pwrites), an Allreduce of 30 us, Finalize; rank 2
    makes 100 more Iprobes."""
    builder = RunBuilder(RANKS)
    for rank in range(RANKS):
        builder.call(rank, "Init", 5000)
        for _ in range(PROBES + (100 if rank == 2 else 0)):
            builder.call(rank, "Iprobe", 200, fromRank=-1, fromTag=-1, cid=0)
        builder.open(rank)
        for step in range(4):
            offset = (rank * 4 + step) << 20
            builder.write_at(rank, offset, 1 << 20, duration_ns=50_000,
                             nested=[posix("pwrite", 0, offset, 1 << 19),
                                     posix("pwrite", 0, offset + (1 << 19), 1 << 19)])
        builder.call(rank, "Allreduce", 30_000, size=8, cid=0, count=1, tid=3)
        builder.call(rank, "Finalize", 2000)
    directory = tmp_path_factory.mktemp("score")
    return hdtrace.open(builder.write(directory), align=False)


def row(result, tag):
    found = result.calls[result.calls["tag"] == tag]
    assert len(found) == 1, tag
    return found.iloc[0]


def test_visits_and_time_are_the_calls_written(run):
    result = score(run)
    iprobe = row(result, "Iprobe")
    assert iprobe.visits == RANKS * PROBES + 100
    assert iprobe.time_s == pytest.approx(iprobe.visits * 200e-9)
    assert iprobe.time_per_visit_s == pytest.approx(200e-9)
    pwrite = row(result, "pwrite")
    assert (pwrite.visits, pwrite.nested_visits) == (RANKS * 8, RANKS * 8)
    assert pwrite.time_s == pytest.approx(RANKS * 8 * 100e-9)
    assert row(result, "File_write_at").visits == RANKS * 4
    assert row(result, "Allreduce").time_s == pytest.approx(RANKS * 30e-6)
    assert list(result.calls["name"][:1]) == ["MPI_Iprobe"]  # the most bytes first
    assert row(result, "pwrite")["name"] == "pwrite"
    assert "p2p-probe" in row(result, "Iprobe").groups
    # Time in total: the top-level calls only (the pwrites are inside the writes).
    top = sum(row(result, tag).time_s for tag in
              ("Init", "Iprobe", "File_open", "File_write_at", "Allreduce", "Finalize"))
    assert result.total.time_s == pytest.approx(top)


def test_bytes_add_up_to_each_trace_in_both_forms(run, tmp_path):
    result = score(run)
    traces = sorted(leaf.path for leaf in run.topology.leaves)
    xml_sizes = sum(os.path.getsize(path) for path in traces)
    assert result.total.bytes_xml == xml_sizes
    compact_sizes = 0
    for path in traces:
        converted = tmp_path / (os.path.basename(path)[:-4] + ".ctrc")
        native.convert_trace(path, str(converted), "compact")
        compact_sizes += os.path.getsize(converted)
    assert result.total.bytes_compact == compact_sizes
    # Each row's XML bytes: its elements' lines.
    with open(traces[0]) as text:
        lines = text.read().splitlines(keepends=True)
    probe_bytes = sum(len(line) for line in lines if line.startswith("<Iprobe "))
    per_rank = result.per_rank
    assert probe_bytes > 0
    assert row(result, "Iprobe").bytes_xml == pytest.approx(
        probe_bytes * (RANKS * PROBES + 100) / PROBES, rel=0.01)
    assert per_rank.loc[0, "bytes_xml"] == os.path.getsize(traces[0])


def test_a_filter_keeps_what_its_rules_choose(run, tmp_path):
    rules = tmp_path / "f.filter"
    rules.write_text("exclude group p2p-probe\nexclude call pwrite\nranks 0-1\n")
    result = score(run, filter_path=str(rules))
    iprobe, write_at, pwrite = (row(result, tag) for tag in ("Iprobe", "File_write_at", "pwrite"))
    assert (iprobe.kept_visits, iprobe.kept_bytes_xml, iprobe.kept_bytes_compact) == (0, 0, 0)
    assert pwrite.kept_visits == 0
    assert write_at.kept_visits == 2 * 4  # ranks 0 and 1
    assert result.kept_ranks == [0, 1]
    kept_calls = result.calls["kept_visits"].sum()
    assert result.kept.visits == kept_calls == 2 * (1 + 1 + 4 + 1 + 1)
    assert result.kept.bytes_xml < result.total.bytes_xml / 3
    # Rank 2 keeps only its bytes outside calls: its trace is still written.
    rank2 = next(leaf.path for leaf in run.topology.leaves if leaf.rank == 2)
    with open(rank2) as text:
        lines = text.read().splitlines(keepends=True)
    outside = len(lines[0]) + len(lines[1]) + len(lines[-1])  # prolog, <Program>, </Program>
    assert result.per_rank.loc[2, "kept_bytes_xml"] == outside
    document = score_document(result)
    assert document["kept"]["visits"] == result.kept.visits
    assert document["total"]["bytes_xml"] == result.total.bytes_xml
    assert {"visits", "time_s", "bytes_xml", "bytes_compact"} <= set(document["kept"])
    first = document["calls"][0]
    assert {"name", "visits", "time_s", "bytes_xml", "bytes_compact", "kept"} <= set(first)


def test_extrapolation_is_per_rank_times_ranks_with_the_spread(run):
    result = score(run, ranks=1000)
    e = result.extrapolation
    sizes = [os.path.getsize(leaf.path) for leaf in sorted(run.topology.leaves,
                                                           key=lambda leaf: leaf.rank)]
    assert e.per_rank["bytes_xml"] == (min(sizes), sorted(sizes)[1], max(sizes))
    assert e.traces_bytes_xml == round(sum(sizes) * 1000 / RANKS)
    assert e.project_bytes_xml >= e.traces_bytes_xml
    assert e.writer_memory_xml > 1 << 20
    assert e.writer_memory_compact > e.writer_memory_xml
    assert e.threads_per_rank == 1


def test_the_initial_filter_leaves_out_the_frequent_cheap_calls_only(run, tmp_path):
    result = score(run)
    chosen = proposed_calls(result)
    assert list(chosen["tag"]) == ["Iprobe"]  # not the writes, not Init or Finalize
    text = initial_filter(result)
    path = tmp_path / "initial.filter"
    path.write_text(text)
    rules = native.read_filter(str(path))
    assert not rules.traces_call("Iprobe")
    assert all(rules.traces_call(tag) for tag in ("File_write_at", "pwrite", "Allreduce", "Init"))
    kept = score(run, filter_path=str(path))
    assert kept.kept.bytes_xml < result.total.bytes_xml / 2
    assert row(kept, "File_write_at").kept_visits == RANKS * 4


def hdtrace_score(*args):
    """`python3 -m hdtrace score ARGS` with the package these tests import."""
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(hdtrace.__file__)))
    return subprocess.run(["/usr/bin/python3", "-m", "hdtrace", "score", *map(str, args)],
                          env=dict(os.environ, PYTHONPATH=package_parent),
                          capture_output=True, text=True, timeout=120)


def test_the_command_prints_the_table_and_writes_json_and_a_filter(run, tmp_path):
    out_json, generated = tmp_path / "s.json", tmp_path / "g.filter"
    done = hdtrace_score(run.path, "--json", out_json, "-g", generated, "--ranks", "64", "-G")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].startswith("run: 3 ranks, 3 traces")
    table = done.stdout[done.stdout.index("name "):]
    assert table.splitlines()[1].split()[0] == "MPI_Iprobe"
    assert "at 64 ranks" in done.stdout
    assert "p2p-probe" in done.stdout  # -G
    document = json.loads(out_json.read_text())
    assert document["format"] == "hdtrace-score" and document["version"] == 1
    assert document["total"] == document["kept"]
    assert document["extrapolation"]["ranks"] == 64
    assert "exclude call MPI_Iprobe" in generated.read_text()
    assert f"wrote {generated}" in done.stderr


def test_groups_need_no_project():
    done = hdtrace_score("--groups")
    assert done.returncode == 0
    assert "p2p-probe (group, 4 calls)" in done.stdout
    assert "posix (layer, 14 calls)" in done.stdout


def test_a_bad_filter_or_argument_is_a_clear_error(run, tmp_path):
    bad = tmp_path / "bad.filter"
    bad.write_text("exclude group nothing\n")
    done = hdtrace_score(run.path, "--filter", bad)
    assert done.returncode == 2
    assert f"{bad}:1:15: unknown group 'nothing'" in done.stderr
    done = hdtrace_score(run.path, "--ranks", "0")
    assert done.returncode == 2 and "--ranks 0" in done.stderr
    done = hdtrace_score()
    assert done.returncode == 2 and "a project (.proj) is needed" in done.stderr
