"""Hostile input through the Python package and the hdtrace command:
a clear ReadError naming the file, never a hang, a crash or a wrong value."""
import os
import subprocess

import pytest

import hdtrace
from hdtrace import _core


def run(build_dir, *args):
    env = dict(os.environ, PYTHONPATH=str(build_dir / "python"))
    return subprocess.run(["/usr/bin/python3", "-m", "hdtrace", *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=60)


def test_a_fifo_as_project_is_refused_without_blocking(build_dir, tmp_path):
    fifo = tmp_path / "app.proj"
    os.mkfifo(fifo)
    # In a child process: were the open to block, the timeout would say so.
    result = run(build_dir, "stats", fifo)
    assert result.returncode != 0
    assert f"{fifo}: not a regular file" in result.stderr, result.stderr
    with pytest.raises(hdtrace.ReadError) as caught:
        _core.read_project(str(fifo))
    assert caught.value.file == str(fifo)
    assert caught.value.problem == "not a regular file"


def test_a_fifo_as_trace_is_refused_by_the_core_reader(tmp_path):
    fifo = tmp_path / "app_h_0_0.trc"
    os.mkfifo(fifo)
    with pytest.raises(hdtrace.ReadError, match="not a regular file"):
        _core.TraceReader(str(fifo))
    with pytest.raises(hdtrace.ReadError, match="not a regular file"):
        _core.read_columns(str(fifo))


@pytest.mark.parametrize("kind", ["directory", "fifo"])
def test_a_trace_that_is_not_a_file_is_named_as_such(copy_project, kind):
    proj = copy_project("ours")
    trace = proj.parent / "app_node01_1_0.trc"
    trace.unlink()
    if kind == "directory":
        trace.mkdir()
    else:
        os.mkfifo(trace)
    with pytest.raises(hdtrace.ReadError) as caught:
        hdtrace.open(proj)
    assert caught.value.file == str(trace)
    assert caught.value.problem == "not a regular file"


def test_overflowing_time_is_an_error_in_every_reading_path(copy_project):
    proj = copy_project("ours")
    trace = proj.parent / "app_node01_0_0.trc"
    text = trace.read_text().replace("timeAdjustment='1700000000'",
                                     "timeAdjustment='1795333123'", 1)
    text = text.replace("<Init time='0.000001000'", "<Init time='8281797364'", 1)
    trace.write_text(text)
    line = text[:text.index("<Init")].count("\n") + 1
    project = hdtrace.open(proj)
    expected = f"{trace}:{line}:"
    with pytest.raises(hdtrace.ReadError, match=expected) as caught:
        list(project.trace(0))
    assert caught.value.problem == ("attribute time='8281797364' plus timeAdjustment "
                                    "overflows 64-bit nanoseconds")
    with pytest.raises(hdtrace.ReadError, match=expected):
        project.to_numpy()


def test_a_size_that_does_not_fit_is_an_error_not_a_value(copy_project, build_dir):
    proj = copy_project("ours")
    trace = proj.parent / "app_node01_0_0.trc"
    text = trace.read_text().replace("<Send size='8'", "<Send size='99999999999999999999999'", 1)
    trace.write_text(text)
    line = text[:text.index("<Send")].count("\n") + 1
    with pytest.raises(hdtrace.ReadError) as caught:
        list(hdtrace.open(proj).trace(0))
    assert caught.value.line == line
    assert caught.value.problem == "attribute size='99999999999999999999999' does not fit in 64 bits"
    result = run(build_dir, "stats", proj)
    assert result.returncode != 0
    assert f"{trace}:{line}:" in result.stderr and "does not fit in 64 bits" in result.stderr


def test_a_deep_datatype_is_refused_not_a_crash(copy_project, build_dir):
    proj = copy_project("ours")
    text = proj.read_text()
    deep = "<STRUCT id='7'>" * 100000 + "</STRUCT>" * 100000
    text = text.replace("<Rank name='1'>\n", "<Rank name='1'>\n" + deep + "\n", 1)
    proj.write_text(text)
    line = text[:text.index("<STRUCT")].count("\n") + 1
    with pytest.raises(hdtrace.ReadError) as caught:
        hdtrace.open(proj)
    assert caught.value.line == line
    assert "nested more than" in caught.value.problem
    result = run(build_dir, "stats", proj)
    assert result.returncode == 1 and "nested more than" in result.stderr, result.stderr


def test_a_call_with_deeply_nested_children_is_refused_by_every_command(copy_project, build_dir):
    proj = copy_project("ours")
    trace = proj.parent / "app_node01_0_0.trc"
    text = trace.read_text()
    deep = "<Nested>" * 50000 + "</Nested>" * 50000
    text = text.replace("<Send ", deep + "\n<Send ", 1)
    trace.write_text(text)
    for command in ("events", "stats"):
        result = run(build_dir, command, proj)
        assert result.returncode == 1, (command, result.returncode, result.stderr)
        assert "nested more than" in result.stderr, result.stderr
