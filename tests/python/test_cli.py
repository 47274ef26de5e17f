"""The hdtrace command, run as `/usr/bin/python3 -m hdtrace` from the build tree."""
import csv
import io
import json
import os
import subprocess
import xml.etree.ElementTree as ET

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
    assert partial.returncode == 0
    # One line of the command's own, however many threads and steps met the
    # damage, and none of Python's source lines.
    damage = f"kept every complete call before the damage: {trace}:"
    assert partial.stderr.startswith("hdtrace stats: warning: trace is damaged, " + damage)
    assert partial.stderr.count("\n") == 1 and partial.stderr.count(damage) == 1
    assert partial.stdout.startswith("Functions")
    missing = run(build_dir, "events", tmp_path / "none.proj")
    assert missing.returncode == 1 and "cannot open" in missing.stderr


INFO_HEADER = ("Mpi library='Open MPI v4.1.4' order_c=56 order_fortran=57 distribute_block=121 "
               "distribute_cyclic=122 distribute_none=123 distribute_dflt_darg=-49767\n")


def write_run(directory, data_dir):
    """A two-rank run as the wrapper leaves it: .trc (ours) and .info per rank."""
    directory.mkdir()
    for rank in (0, 1):
        trace = (data_dir / "ours" / f"app_node01_{rank}_0.trc").read_text()
        (directory / f"run_node01_{rank}_0.trc").write_text(trace)
        (directory / f"run_node01_{rank}_0.info").write_text(
            INFO_HEADER + "Comm map='0..1->0..1;' id=0 name='WORLD'\n"
            f"Comm map='{rank}->0;' id=1 name='SELF'\n"
            "Type id='6' combiner='MPI_COMBINER_NAMED' name='MPI_INT'\n"
            'File name="out.bin" Size=0 id=0\n')


def test_merge_writes_a_project_that_opens(build_dir, data_dir, tmp_path):
    run_dir = tmp_path / "run"
    write_run(run_dir, data_dir)
    result = run(build_dir, "merge", run_dir, "-d", "merged & read", "--chunk-size", "1M")
    assert result.returncode == 0, result.stderr
    proj = run_dir / "run.proj"
    assert result.stdout.startswith(f"{proj}: 2 ranks, 2 traces, 1 files")
    root = ET.parse(proj).getroot()
    assert root.find("Description").text == "merged & read"
    assert root.find("FileList/File/Distribution/ChunkSize").text == "1M"
    project = hdtrace.open(proj)
    assert project.dialect == "hdtrace"
    assert project.description == "merged & read"
    assert [(leaf.host, leaf.rank, leaf.thread) for leaf in project.topology] == [
        ("node01", 0, 0), ("node01", 1, 0)]
    assert project.communicators[0].name == "WORLD"
    assert project.datatypes[0][6].size == 4
    assert len(project.to_numpy()) == 13 + 7


def test_merge_through_the_python_api(data_dir, tmp_path):
    run_dir = tmp_path / "run"
    write_run(run_dir, data_dir)
    result = hdtrace.merge(run_dir, output=tmp_path / "run" / "run.proj")
    assert result["ranks"] == 2 and result["output_path"] == str(run_dir / "run.proj")
    with pytest.raises(hdtrace.MergeError):
        hdtrace.merge(tmp_path / "nothing-here")


def test_merge_bad_input_writes_nothing(build_dir, data_dir, tmp_path):
    run_dir = tmp_path / "run"
    write_run(run_dir, data_dir)
    (run_dir / "run_node01_1_0.info").write_text(INFO_HEADER + "Comm map='broken\n")
    result = run(build_dir, "merge", run_dir)
    assert result.returncode == 1
    assert "run_node01_1_0.info" in result.stderr and "no project file written" in result.stderr
    assert not (run_dir / "run.proj").exists()
    usage = run(build_dir, "merge")
    assert usage.returncode == 2 and "usage: hdtrace merge" in usage.stderr


def test_install_puts_the_package_and_the_command_in_place(build_dir, data_dir, tmp_path):
    stage = tmp_path / "stage"
    installed = subprocess.run(["cmake", "--install", str(build_dir)], capture_output=True,
                               text=True, timeout=120, env=dict(os.environ, DESTDIR=str(stage)))
    assert installed.returncode == 0, installed.stderr
    # Under the prefix (default /usr/local), in Debian's layout.
    package = stage / "usr" / "local" / "lib" / "python3" / "dist-packages" / "hdtrace"
    assert (package / "__init__.py").is_file()
    assert list(package.glob("_core*.so"))
    commands = list(stage.rglob("bin/hdtrace"))
    assert len(commands) == 1 and os.access(commands[0], os.X_OK)
    # The command finds its package without PYTHONPATH; Python needs it.
    no_path = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run([str(commands[0]), "stats", str(data_dir / "ours" / "app.proj")],
                            env=no_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "File_write_at" in result.stdout
    imported = subprocess.run(["/usr/bin/python3", "-c", "import hdtrace; print(hdtrace.__file__)"],
                              env=dict(no_path, PYTHONPATH=str(package.parent)),
                              capture_output=True, text=True, timeout=60, cwd="/")
    assert imported.stdout.strip() == str(package / "__init__.py")


def test_merge_falls_back_to_the_project_merger_program(build_dir, data_dir, tmp_path, monkeypatch,
                                                        capsys):
    """A build without the merger library runs the project-merger program instead."""
    from hdtrace import _core, cli
    merger_dir = build_dir / "merger"
    assert (merger_dir / "project-merger").is_file(), "build project-merger for this test"
    monkeypatch.setattr(_core, "HAVE_MERGER", False)
    monkeypatch.setenv("PATH", f"{merger_dir}{os.pathsep}{os.environ['PATH']}")
    run_dir = tmp_path / "run"
    write_run(run_dir, data_dir)
    assert cli.main(["merge", str(run_dir), "-d", "via the program"]) == 0
    assert ET.parse(run_dir / "run.proj").getroot().find("Description").text == "via the program"
