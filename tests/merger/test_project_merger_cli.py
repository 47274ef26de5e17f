"""project-merger and project-description-merger.py as commands: options,
exit status, messages, no partial output, and the progress bar."""
import os
import pathlib
import pty
import subprocess
import xml.etree.ElementTree as ET

import pytest

OPEN_MPI_LINE = ("Mpi library='Open MPI v4.1.4' order_c=0 order_fortran=1 distribute_block=0 "
                 "distribute_cyclic=1 distribute_none=2 distribute_dflt_darg=-1\n")


@pytest.fixture(scope="module")
def merger(build_dir) -> pathlib.Path:
    path = build_dir / "merger" / "project-merger"
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is missing: build the merger (HDTRACE_BUILD_MERGER=ON)")
    return path


def write_run(directory: pathlib.Path, ranks: int, program: str = "app", extra=None) -> None:
    for rank in range(ranks):
        base = directory / f"{program}_node{rank // 4}_{rank}_0"
        info = (OPEN_MPI_LINE
                + f"Comm map='0..{ranks - 1}->0..{ranks - 1};' id=0 name='WORLD'\n"
                + f"Comm map='{rank}->0;' id=1 name='SELF'\n"
                + 'File name="out.dat" Size=4096 id=0\n'
                + "Type id='6' combiner='MPI_COMBINER_NAMED' name='MPI_INT'\n"
                + "Type id='16777216' combiner='MPI_COMBINER_CONTIGUOUS' name='' "
                  "integers='3;' addresses='' types='6;'\n")
        if extra:
            info += extra(rank)
        base.with_suffix(".info").write_text(info)
        base.with_suffix(".trc").write_text(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Program timeAdjustment='0'>\n</Program>\n")


def run(command, **kwargs):
    return subprocess.run([str(part) for part in command], capture_output=True, text=True,
                          timeout=60, **kwargs)


def test_help_and_version(merger):
    result = run([merger, "--help"])
    assert result.returncode == 0
    for option in ("-o, --output=FILE", "-d, --description=TEXT", "--distribution-class=CLASS",
                   "--chunk-size=SIZE", "--force", "--version"):
        assert option in result.stdout, option
    result = run([merger, "--version"])
    assert result.returncode == 0
    assert result.stdout == "project-merger (HDTrace) 0.1.0\n"


def test_usage_errors_exit_2(merger, tmp_path):
    result = run([merger, "--no-such-option", tmp_path])
    assert result.returncode == 2
    assert "Unknown option --no-such-option" in result.stderr
    result = run([merger])
    assert result.returncode == 2
    assert "empty input" in result.stderr


def test_merges_a_run_with_the_seeds_options(merger, tmp_path):
    write_run(tmp_path, 3)
    result = run([merger, "-o", tmp_path / "app.proj", "-d", "a <test> run",
                  "--distribution-class=my.Distribution", "--chunk-size=1M",
                  tmp_path / "app_node0_0_0.info", tmp_path / "app_node0_1_0.info",
                  tmp_path / "app_node0_2_0.info"])
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout == (f"{tmp_path}/app.proj: 3 ranks, 3 traces, 1 files, "
                             "4 communicators, 6 datatypes\n")
    root = ET.parse(tmp_path / "app.proj").getroot()
    assert root.tag == "Application" and root.get("name") == "app"
    assert root.find("Description").text == "a <test> run"
    distribution = root.find("FileList/File/Distribution")
    assert distribution.get("implementation") == "my.Distribution"
    assert distribution.find("ChunkSize").text == "1M"
    world = root.find("CommunicatorList/Communicator[@name='WORLD']")
    assert [(r.get("global"), r.get("local"), r.get("cid")) for r in world] == [
        ("0", "0", "0"), ("1", "1", "0"), ("2", "2", "0")]


def test_default_output_is_beside_the_traces(merger, tmp_path):
    write_run(tmp_path, 2)
    result = run([merger, "-q", tmp_path / "app"], cwd="/")
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert (tmp_path / "app.proj").is_file()


def test_bad_input_names_file_and_line_and_writes_nothing(merger, tmp_path):
    write_run(tmp_path, 2, extra=lambda rank: "Comm map='0->0;1->' id=2 name=''\n" if rank else "")
    (tmp_path / "app.proj").write_text("earlier")
    result = run([merger, tmp_path])
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        f"project-merger: error: {tmp_path}/app_node0_1_0.info:7: Comm line: map entry '1->' "
        "has no local rank\nproject-merger: no project file written\n")
    assert (tmp_path / "app.proj").read_text() == "earlier"
    assert sorted(p.name for p in tmp_path.iterdir() if ".proj" in p.name) == ["app.proj"]


def test_force_writes_and_lists_what_was_dropped(merger, tmp_path):
    write_run(tmp_path, 2, extra=lambda rank: "Comm map='0->0;1->' id=2 name=''\n" if rank else "")
    result = run([merger, "--force", tmp_path])
    assert result.returncode == 0
    assert result.stderr == (
        f"project-merger: warning: {tmp_path}/app_node0_1_0.info:7: Comm line: map entry '1->' "
        "has no local rank; dropped the line\n")
    root = ET.parse(tmp_path / "app.proj").getroot()
    assert len(root.findall("Datatypes/Rank")) == 2


def test_the_seeds_name_is_the_same_merger(merger, tmp_path):
    front_end = merger.parent / "project-description-merger.py"
    assert os.access(front_end, os.X_OK)
    write_run(tmp_path, 2)
    result = run([front_end, "-o", tmp_path / "app.proj", "-d", "via the original tool's name",
                  tmp_path / "app_node0_0_0.info", tmp_path / "app_node0_1_0.info"])
    assert result.returncode == 0, result.stderr
    root = ET.parse(tmp_path / "app.proj").getroot()
    assert root.find("Description").text == "via the original tool's name"
    assert run([front_end, "--version"]).stdout == "project-merger (HDTrace) 0.1.0\n"
    result = run([front_end, tmp_path / "missing.info"])
    assert result.returncode == 1
    assert f"{tmp_path}/missing.info: no such file" in result.stderr


def run_with_terminal_stderr(command):
    """Runs command with stderr on a pseudo-terminal; returns (status, stderr text)."""
    controller, terminal = pty.openpty()
    process = subprocess.Popen([str(part) for part in command], stdout=subprocess.DEVNULL,
                               stderr=terminal)
    os.close(terminal)
    output = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        output += chunk
    os.close(controller)
    return process.wait(timeout=60), output.decode()


def finished_lines(terminal_text):
    """The lines as they stand on the terminal once each is done (each update
    of a bar begins with a carriage return; the terminal ends lines with CR LF)."""
    lines = terminal_text.replace("\r\n", "\n").split("\n")
    return [line.rsplit("\r", 1)[-1] for line in lines if line]


def test_progress_bar_only_on_a_terminal_and_for_many_files(merger, tmp_path):
    many = tmp_path / "many"
    few = tmp_path / "few"
    many.mkdir()
    few.mkdir()
    write_run(many, 320)
    write_run(few, 8)
    status, stderr = run_with_terminal_stderr([merger, many])
    assert status == 0
    # One finished line per stage: files read, ranks unified, ranks written
    # with the project's size, which is the size of the file written.
    lines = finished_lines(stderr)
    size = (many / "app.proj").stat().st_size
    assert lines == [
        "project-merger: reading [" + "=" * 40 + "] 320/320 .info files\x1b[K",
        "project-merger: unifying [" + "=" * 40 + "] 320/320 ranks\x1b[K",
        "project-merger: writing [" + "=" * 40 + f"] 320/320 ranks, {size / 2**20:.1f} MiB\x1b[K"]
    status, stderr = run_with_terminal_stderr([merger, "--quiet", many])
    assert status == 0
    assert stderr == ""
    status, stderr = run_with_terminal_stderr([merger, few])
    assert status == 0
    assert stderr == ""
    result = run([merger, many])  # stderr is a pipe: no bar
    assert result.returncode == 0 and result.stderr == ""


def test_hdtrace_merge_shows_the_same_progress(merger, build_dir, tmp_path, monkeypatch):
    write_run(tmp_path, 320)
    command = ["/usr/bin/python3", "-m", "hdtrace", "merge"]
    monkeypatch.setenv("PYTHONPATH", str(build_dir / "python"))
    status, stderr = run_with_terminal_stderr(command + [tmp_path])
    assert status == 0, stderr
    lines = finished_lines(stderr)
    assert [line.split(" [")[0] for line in lines] == [
        "hdtrace merge: reading", "hdtrace merge: unifying", "hdtrace merge: writing"]
    size = (tmp_path / "app.proj").stat().st_size
    assert lines[2].endswith(f"] 320/320 ranks, {size / 2**20:.1f} MiB\x1b[K")
    status, stderr = run_with_terminal_stderr(command + ["--quiet", tmp_path])
    assert status == 0 and stderr == ""
