"""The report as a person and a script see it: the page in headless
Chromium, the JSON from both trace forms, the command's output and errors."""
import io
import json
import os
import pathlib
import shutil
import sys

import pytest

import hdtrace
from hdtrace import native
from hdtrace import report as reporting
from hdtrace.calls import io_layer_of
from runs import MIB, RunBuilder, posix

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "views"))

import tracegen  # noqa: E402
from browser import Browser  # noqa: E402

SECTIONS = ("findings", "job", "layers", "io-cost", "heatmaps", "access-sizes", "files",
            "datasets", "mpi", "waits", "thresholds")


def busy_run(directory):
    """A run with every layer, messages, collectives and findings that fire:
    the view tests' generated run with its POSIX calls, and two ranks that
    write over each other and read the same bytes."""
    run = tracegen.generate(directory, ranks=4, iterations=3, posix=True)
    return run.project


def overlapping_run(directory):
    builder = RunBuilder(2)
    for rank in range(2):
        builder.open(rank)
        builder.write_at(rank, rank * MIB, 2 * MIB, nested=[posix("pwrite", 0, rank * MIB,
                                                                  2 * MIB)])
        builder.read_at(rank, 0, 2 * MIB)
        builder.call(rank, "Allreduce", 1000 * (rank + 1), size=8, cid=0, count=1, tid=3)
    builder.call(0, "Send", 1000, size=4096, count=1024, tid=1, toRank=1, toTag=3, cid=0)
    builder.call(1, "Recv", 1000, fromRank=0, fromTag=3, cid=0)
    return builder.write(directory)


def artifact_dir():
    """Where screenshots are kept after the run: $HDTRACE_TEST_ARTIFACTS, else
    test-artifacts/ in the build tree."""
    import buildtree
    path = pathlib.Path(os.environ.get("HDTRACE_TEST_ARTIFACTS",
                                       buildtree.build_dir() / "test-artifacts"))
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="module")
def browser():
    with Browser(width=1200, height=900) as session:
        yield session


@pytest.mark.parametrize("make_run", [busy_run, overlapping_run])
def test_page_in_chromium(tmp_path, hdtrace_command, browser, make_run):
    project = make_run(tmp_path / "run")
    page = tmp_path / "report.html"
    result = hdtrace_command("report", project, "-o", page)
    assert result.returncode == 0, result.stderr
    text = page.read_text()
    # Self-contained: nothing fetched from anywhere.
    assert "http://" not in text.replace("http://www.w3.org", "") and "https://" not in text
    assert "<script src" not in text and "<link" not in text
    browser.open(page.as_uri())
    assert browser.console_errors() == []
    present = browser.evaluate("Array.from(document.querySelectorAll('section')).map(s => s.id)")
    assert present == list(SECTIONS)
    figures = browser.evaluate(
        "Array.from(document.querySelectorAll('figure')).map(f => { const s = "
        "f.querySelector('svg'); const r = s ? s.getBoundingClientRect() : null; return "
        "[f.dataset.figure, s ? s.querySelectorAll('path, use, image, rect').length : 0, "
        "r ? r.width : 0, r ? r.height : 0]; })")
    report = reporting.build(hdtrace.open(project))
    assert [name for name, *_ in figures] == list(report.figures())
    for name, marks, width, height in figures:
        assert marks > 10 and width > 200 and height > 100, (name, marks, width, height)
    names = [name for name, *_ in figures]
    assert "io-cost" in names and "heatmap-MPI-IO" in names and "access-sizes" in names
    # Every finding that fired is on the page, with its id and message.
    shown = browser.evaluate(
        "Array.from(document.querySelectorAll('.finding')).map(f => f.innerText)")
    assert len(shown) == len(report.findings)
    for finding, line in zip(report.findings, shown):
        assert line.startswith(finding.id) and finding.message in line
    picture = tmp_path / "report.png"
    picture.write_bytes(browser.screenshot())
    shutil.copyfile(picture, artifact_dir() / f"report-{make_run.__name__}.png")
    from PIL import Image
    image = Image.open(io.BytesIO(picture.read_bytes()))
    assert image.size == (1200, 900)


def test_overlapping_run_findings_on_the_command_line(tmp_path, hdtrace_command):
    project = overlapping_run(tmp_path / "run")
    result = hdtrace_command("report", project, "--json", tmp_path / "r.json", "--no-html")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    document = json.loads((tmp_path / "r.json").read_text())
    assert [line.split()[1].rstrip(":") for line in lines[:-1]] == \
        [finding["id"] for finding in document["findings"]]
    assert {"overlapping-writes", "redundant-reads"} <= {f["id"] for f in document["findings"]}
    assert lines[-1] == f"wrote {tmp_path / 'r.json'} ({(tmp_path / 'r.json').stat().st_size:,} bytes)"
    assert not (tmp_path / "run" / "run-report.html").exists()


def test_table_sorts_on_a_click(tmp_path, hdtrace_command, browser):
    project = tracegen.generate(tmp_path / "run", ranks=4, iterations=2, posix=True).project
    page = tmp_path / "report.html"
    assert hdtrace_command("report", project, "-o", page).returncode == 0
    browser.open(page.as_uri())
    column = "document.querySelector('#mpi table tbody').rows"
    before = browser.evaluate(f"Array.from({column}).map(r => r.cells[0].textContent)")
    browser.evaluate("document.querySelector('#mpi table th:nth-child(2)').click()")
    after = browser.evaluate(f"Array.from({column}).map(r => parseFloat(r.cells[1].dataset.v))")
    assert after == sorted(after, reverse=True) and len(before) == len(after) > 3
    assert browser.console_errors() == []


def document_without_form(project):
    document = reporting.build(hdtrace.open(project)).document()
    for key in ("trace_form", "trace_bytes", "project"):
        document["job"].pop(key)
    return document


def test_compact_and_xml_give_the_same_json(tmp_path):
    xml = tracegen.generate(tmp_path / "xml", ranks=4, iterations=3, posix=True).project
    compact_dir = tmp_path / "compact"
    shutil.copytree(tmp_path / "xml", compact_dir)
    for trace in compact_dir.glob("*.trc"):
        native.convert_trace(str(trace), str(trace.with_suffix(".ctrc")), "compact")
        trace.unlink()
    compact = compact_dir / os.path.basename(xml)
    assert reporting.build(hdtrace.open(compact)).model.job.trace_form == "compact"
    assert document_without_form(compact) == document_without_form(xml)


def test_layers_match_what_the_generator_wrote(tmp_path):
    run = tracegen.generate(tmp_path / "run", ranks=4, iterations=3, posix=True)
    layers = {layer["name"]: layer for layer in
              reporting.build(hdtrace.open(run.project)).document()["layers"]}
    mpi_writes = [access for access in run.accesses if access.op == "w"]
    mpi_reads = [access for access in run.accesses if access.op == "r"]
    assert layers["MPI-IO"]["bytes_written"] == sum(a.size for a in mpi_writes)
    assert layers["MPI-IO"]["bytes_read"] == sum(a.size for a in mpi_reads)
    assert layers["MPI-IO"]["writes"] == len(mpi_writes)
    for name, calls in (("POSIX", [a for a in run.posix if a.name not in ("fwrite",)]),
                        ("STDIO", [a for a in run.posix if a.name == "fwrite"])):
        assert layers[name]["bytes_written"] == sum(a.done for a in calls if a.op == "w")
        assert layers[name]["bytes_read"] == sum(a.done for a in calls if a.op == "r")
        assert layers[name]["writes"] == sum(1 for a in calls if a.op == "w")
    beneath = layers["POSIX"]["beneath_mpi_io"]
    assert beneath["bytes_written"] == sum(a.done for a in run.posix
                                           if a.op == "w" and a.parent)
    assert layers["MPI-IO"]["access_sizes"]["write"]["1K-10K"] == \
        sum(1 for a in mpi_writes if 1024 <= a.size < 10240)
    assert layers["MPI-IO"]["access_sizes"]["write"]["100-1K"] == \
        sum(1 for a in mpi_writes if 100 <= a.size < 1024)


def test_bad_thresholds_are_refused_before_anything_is_written(tmp_path, hdtrace_command):
    project = tracegen.generate(tmp_path / "run", ranks=2, iterations=1).project
    page = tmp_path / "out.html"
    for arguments, message in (
            (["--set", "small-requests.shares=0.2"],
             "finding 'small-requests' has no threshold 'shares'"),
            (["--set", "tiny-requests.share=0.2"], "no finding 'tiny-requests'"),
            (["--set", "small-requests.share=lots"], "takes a number, not 'lots'"),
            (["--set", "share=0.2"], "is not FINDING.KEY=VALUE"),
            (["--files", "-1"], "--files takes a number of at least 0"),
            (["--datasets", "-1"], "--datasets takes a number of at least 0")):
        result = hdtrace_command("report", project, "-o", page, *arguments)
        assert result.returncode == 2 and message in result.stderr, result.stderr
        assert not page.exists() and result.stdout == ""
    toml = tmp_path / "limits.toml"
    toml.write_text("[small-requests]\nshare = 'x'\n")
    result = hdtrace_command("report", project, "-o", page, "--thresholds", toml)
    assert result.returncode == 2 and f"{toml}: small-requests.share takes a number" in \
        result.stderr
    toml.write_text("[small-requests\n")
    result = hdtrace_command("report", project, "-o", page, "--thresholds", toml)
    assert result.returncode == 2 and str(toml) in result.stderr and not page.exists()
    toml.write_text("[small-requests]\nshare = 0.5\n[many-files]\ncount = 3\n")
    result = hdtrace_command("report", project, "--json", tmp_path / "r.json", "--no-html",
                             "--thresholds", toml, "--set", "many-files.count=7")
    assert result.returncode == 0, result.stderr
    thresholds = json.loads((tmp_path / "r.json").read_text())["thresholds"]
    assert thresholds["small-requests"]["share"] == 0.5 and thresholds["many-files"]["count"] == 7


def test_damaged_trace_is_named_at_the_top(tmp_path, hdtrace_command):
    run = tracegen.generate(tmp_path / "run", ranks=2, iterations=2, posix=True)
    trace = pathlib.Path(run.project).parent / "demo_node-a_1_0.trc"
    data = trace.read_bytes()
    trace.write_bytes(data[:len(data) * 2 // 3])  # cut in the middle of an element
    page = tmp_path / "report.html"
    result = hdtrace_command("report", run.project, "-o", page)
    assert result.returncode == 1 and str(trace) in result.stderr
    assert "Traceback" not in result.stderr and not page.exists()
    result = hdtrace_command("report", "--partial", run.project, "-o", page)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"damage: trace is damaged, kept every complete call "
                                    f"before the damage: {trace}")
    text = page.read_text()
    assert text.index("Damaged or partial project") < text.index("id='findings'")
    assert str(trace) in text


def test_missing_trace(tmp_path, hdtrace_command):
    run = tracegen.generate(tmp_path / "run", ranks=2, iterations=1)
    missing = pathlib.Path(run.project).parent / "demo_node-a_1_0.trc"
    missing.unlink()
    result = hdtrace_command("report", run.project, "-o", tmp_path / "r.html")
    assert result.returncode == 1 and str(missing) in result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "r.html").exists()
    result = hdtrace_command("report", "--partial", run.project, "-o", tmp_path / "r.html",
                             "--json", tmp_path / "r.json")
    assert result.returncode == 0, result.stderr
    document = json.loads((tmp_path / "r.json").read_text())
    assert document["job"]["missing_traces"] == [str(missing)]
    assert f"missing trace: {missing}" in (tmp_path / "r.html").read_text()


def test_python_users_get_frames_and_figures(tmp_path):
    run = tracegen.generate(tmp_path / "run", ranks=4, iterations=2, posix=True)
    report = hdtrace.report.build(hdtrace.open(run.project))
    tables = report.tables()
    assert list(tables["layers"]["name"]) == ["MPI-IO", "POSIX", "STDIO"]
    assert list(tables["ranks"]["rank"]) == [0, 1, 2, 3]
    assert tables["files"]["name"].iloc[0] == tracegen.FILE_NAME
    figures = report.figures()
    assert figures["io-cost"].axes and figures["heatmap-POSIX"].axes


def test_runs_without_file_io_or_without_calls(tmp_path, hdtrace_command):
    builder = RunBuilder(3)
    for rank in range(3):
        builder.call(rank, "Allreduce", 1000 * (rank + 1), size=8, cid=0, count=1, tid=3)
    for name, project in (("mpi", builder.write(tmp_path / "mpi")),
                          ("empty", RunBuilder(2).write(tmp_path / "empty"))):
        page = tmp_path / f"{name}.html"
        result = hdtrace_command("report", project, "-o", page, "--json", tmp_path / f"{name}.json")
        assert result.returncode == 0, result.stderr
        assert result.stdout.startswith("no findings (20 checked)")
        document = json.loads((tmp_path / f"{name}.json").read_text())
        assert document["layers"] == [] and document["files"] == []
        text = page.read_text()
        for section in SECTIONS:
            assert f"<section id='{section}'>" in text
        assert "No file was read or written." in text
    mpi = json.loads((tmp_path / "mpi.json").read_text())
    assert [call["name"] for call in mpi["mpi"]["calls"]] == ["Allreduce"]
    assert mpi["mpi"]["calls"][0]["calls"] == 3 and mpi["mpi"]["calls"][0]["time_s"] == 6e-06
    assert mpi["job"]["calls"] == 3


def test_listed_thresholds_are_a_thresholds_file(tmp_path, hdtrace_command):
    """--list-thresholds needs no project, names every threshold with its
    default, and its output, edited, is a file --thresholds takes."""
    result = hdtrace_command("report", "--list-thresholds")
    assert result.returncode == 0, result.stderr
    listed = [line.split(" = ")[0] for line in result.stdout.splitlines()]
    assert listed == [f"{finding}.{key}" for finding, keys in reporting.DEFAULTS.items()
                      for key in keys]
    edited = tmp_path / "site.toml"
    # The generated run reads its neighbour's block with nothing ordering the
    # read after the write (conflicting-reads): that check is set aside too.
    edited.write_text(result.stdout.replace("many-files.count = 1000", "many-files.count = 1")
                      .replace("conflicting-reads.min-bytes = 1 ",
                               "conflicting-reads.min-bytes = 1000000000 "))
    project = tracegen.generate(tmp_path / "run", ranks=2, iterations=1, posix=True).project
    result = hdtrace_command("report", project, "--no-html", "--json", tmp_path / "r.json",
                             "--thresholds", edited)
    assert result.returncode == 0, result.stderr
    document = json.loads((tmp_path / "r.json").read_text())
    assert document["thresholds"]["many-files"]["count"] == 1
    assert [f["id"] for f in document["findings"]] == ["many-files"]
    assert document["findings"][0]["message"] == "The run touched 2 files."


def test_steps_on_a_terminal_only(tmp_path, hdtrace_command):
    """On a terminal, the command says each step on stderr as it starts (a
    large run takes a while); piped, stderr stays quiet."""
    import pty
    import subprocess

    import buildtree

    run = tracegen.generate(tmp_path / "run", ranks=2, iterations=1, posix=True)
    project = run.project
    top_level = len(run.top_level())
    on_files = sum(1 for call in run.calls if io_layer_of(call.name) is not None)
    quiet = hdtrace_command("report", project, "-o", tmp_path / "quiet.html")
    assert quiet.returncode == 0 and quiet.stderr == ""
    leader, follower = pty.openpty()
    try:
        result = subprocess.run(
            [sys.executable, "-m", "hdtrace", "report", str(project), "-o",
             str(tmp_path / "loud.html")], stdout=subprocess.PIPE, stderr=follower,
            env=dict(os.environ, PYTHONPATH=str(buildtree.build_dir() / "python")), timeout=300)
        os.close(follower)
        follower = None
        said = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal's other side closed
                break
            if not chunk:
                break
            said += chunk
    finally:
        if follower is not None:
            os.close(follower)
        os.close(leader)
    assert result.returncode == 0
    lines = said.decode().replace("\r", "").splitlines()
    assert lines == ["hdtrace report: reading the calls of 3 traces",
                     "hdtrace report: reading the calls on files, nested ones included "
                     f"({top_level} top-level calls)",
                     f"hdtrace report: computing the model ({on_files} calls on files)",
                     "hdtrace report: checking the findings",
                     f"hdtrace report: drawing the figures and writing {tmp_path / 'loud.html'}"]
