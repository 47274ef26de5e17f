"""view, plot-io and export on bad input: a clear error naming the problem, a non-zero
exit, and no output file (not even a partial one)."""
import tracegen


def damaged_run(tmp_path):
    run = tracegen.generate(tmp_path / "run", ranks=2, iterations=1)
    trace_file = tmp_path / "run" / f"demo_{tracegen.HOST}_1_0.trc"
    text = trace_file.read_text()
    trace_file.write_text(text[: len(text) // 2])   # cut mid-file, as a killed process would
    return run


def leftovers(directory):
    return [path.name for path in directory.iterdir() if path.name.startswith(".")]


def test_view_of_a_damaged_trace(tmp_path, hdtrace_command):
    run = damaged_run(tmp_path)
    output = tmp_path / "page.html"
    result = hdtrace_command("view", run.project, "-o", output)
    assert result.returncode != 0
    assert "demo_node-a_1_0.trc" in result.stderr and "Traceback" not in result.stderr
    assert not output.exists() and leftovers(tmp_path) == []
    # --partial keeps every complete call before the damage.
    result = hdtrace_command("view", "--partial", run.project, "-o", output)
    assert result.returncode == 0, result.stderr
    assert output.is_file()


def test_plot_io_of_a_damaged_trace(tmp_path, hdtrace_command):
    run = damaged_run(tmp_path)
    output = tmp_path / "io.svg"
    result = hdtrace_command("plot-io", run.project, "-o", output)
    assert result.returncode != 0
    assert "demo_node-a_1_0.trc" in result.stderr and "Traceback" not in result.stderr
    assert not output.exists() and leftovers(tmp_path) == []


def test_missing_project(tmp_path, hdtrace_command):
    for command in (["view"], ["plot-io"], ["export", "--chrome", tmp_path / "x.json"]):
        result = hdtrace_command(*command, tmp_path / "absent.proj")
        assert result.returncode != 0, command
        assert "absent.proj" in result.stderr and "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_export_needs_a_format(generated_run, hdtrace_command):
    result = hdtrace_command("export", generated_run.project)
    assert result.returncode != 0
    assert "--chrome" in result.stderr and "--otf2" in result.stderr
