"""The hdtrace command, run as `/usr/bin/python3 -m hdtrace` from the build tree."""
import csv
import io
import json
import os
import subprocess
import sys

import pytest

import hdtrace


def run(build_dir, *args):
    env = dict(os.environ, PYTHONPATH=str(build_dir / "python"))
    return subprocess.run(["/usr/bin/python3", "-m", "hdtrace", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("args", [[], ["stats"], ["events"]])
def test_help_everywhere(build_dir, args):
    result = run(build_dir, *args, "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage: hdtrace")


def test_stats_tables(build_dir, data_dir):
    result = run(build_dir, "stats", data_dir / "ours" / "app.proj")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    header = lines[1].split()
    assert lines[0] == "Functions" and header == ["name", "calls", "total", "mean", "max", "bytes"]
    rows = {line.split()[0]: line.split() for line in lines[2:lines.index("")]}
    expected = {row["name"]: row for row in hdtrace.stats(hdtrace.open(data_dir / "ours" /
                                                                       "app.proj")).functions}
    assert set(rows) == set(expected)
    for name, fields in rows.items():
        assert int(fields[1]) == expected[name]["calls"]
        assert float(fields[2]) == pytest.approx(expected[name]["total"], abs=1e-6)
        assert int(fields[5]) == expected[name]["bytes"]
    # Columns are aligned: every row of a table has the same width.
    table = lines[1:lines.index("")]
    assert len({len(line) for line in table}) == 1


def test_events_csv(build_dir, data_dir):
    result = run(build_dir, "events", data_dir / "ours" / "app.proj")
    assert result.returncode == 0, result.stderr
    records = list(csv.DictReader(io.StringIO(result.stdout)))
    events = list(hdtrace.open(data_dir / "ours" / "app.proj").events())
    assert [(int(r["rank"]), r["name"], int(r["start_ns"]), int(r["end_ns"])) for r in records] == [
        (e.rank, e.name, e.start_ns, e.end_ns) for e in events]
    send = next(r for r in records if r["name"] == "Send")
    assert send["attrs"] == "size=8;count=2;tid=1275069445;toRank=1;toTag=5;cid=0"


def test_events_jsonl_with_filters(build_dir, data_dir):
    base = 1_700_000_000
    result = run(build_dir, "events", data_dir / "ours" / "app.proj", "--format", "jsonl",
                 "--rank", "0", "--name", "Wait", "--name", "File_write_all_begin",
                 "--from", base + 0.5, "--to", base + 0.7)
    assert result.returncode == 0, result.stderr
    records = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(r["rank"], r["name"]) for r in records] == [
        (0, "File_write_all_begin"), (0, "Wait")]
    assert records[0]["children"] == [{"name": "Data", "attrs": {
        "offset": 400, "size": 40, "count": 10, "tid": 1275069445}}]
    assert records[1]["start_ns"] == 1_700_000_000_660_000_000


def test_bad_input_exits_non_zero_with_the_location(build_dir, tmp_path, copy_project):
    proj = copy_project("ours")
    trace = proj.parent / "app_node01_1_0.trc"
    trace.write_text(trace.read_text()[:200])
    result = run(build_dir, "stats", proj)
    assert result.returncode == 1
    assert result.stdout == ""
    assert f"hdtrace stats: {trace}:" in result.stderr
    partial = run(build_dir, "stats", proj, "--partial")
    assert partial.returncode == 0 and "TraceDamageWarning" in partial.stderr
    missing = run(build_dir, "events", tmp_path / "none.proj")
    assert missing.returncode == 1 and "cannot open" in missing.stderr


def test_merge_reaches_the_merger(build_dir):
    result = run(build_dir, "merge", "--help")
    assert result.returncode in (0, 1)
    text = (result.stdout + result.stderr).lower()
    assert "merge" in text
