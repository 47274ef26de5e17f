"""Every tool reads a run traced in compact form as if it were XML: the
wrapper writes compact traces (HDTRACE_FORMAT=compact) of real MPI programs,
linked and preloaded, with threads and force-flush; the merger finds them;
and the reader (columns, events, slices, windows), the Python package
(open, to_numpy, to_dataframe, to_dask, match_messages, stats) and the
hdtrace commands give exactly what they give for the XML form of the same
traces, written beside them by `hdtrace convert`. That XML form is checked
against what the program did (tracecheck's expectations), so the values
read from the compact traces are the program's.

In the MPICH tree the merger and the Python package come from
HDTRACE_TOOLS_BUILD_DIR (as in test_clocks.py)."""
import pathlib
import re
import shutil
import subprocess

import pytest

import tracecheck
from tool_trees import hdtrace, python_env, tools_tree_or_fail

HERE = pathlib.Path(__file__).resolve().parent
SVG_DATE = re.compile(r"<dc:date>[^<]*</dc:date>")
SVG_IDS = re.compile(r"\b[a-z][0-9a-f]{10}\b")

# (program, ranks, environment, preloaded, checked against expectations).
# The threads program writes a trace per thread, which check_run (rank
# traces of thread 0) does not take: its XML form is compared with the
# compact reads all the same.
CASES = [
    ("nested_traced", 2, {"HDTRACE_NESTED": "1"}, False, False),
    ("p2p_traced", 2, {"HDTRACE_FORCE_FLUSH": "1"}, False, True),
    ("p2p_plain", 2, {}, True, True),
    ("fileio_traced", 1, {"HDTRACE_FILE_INFO": "1"}, False, True),
    ("collectives_plain", 3, {}, True, True),
    ("threads_traced", 2, {}, False, False),
]


def merged(tools, directory, program):
    done = subprocess.run([str(tools / "merger" / "project-merger"), "-q",
                           str(directory / tracecheck.sanitize(program))],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return directory / f"{tracecheck.sanitize(program)}.proj"


def compact_run_and_xml_twin(runner, tools, tmp_path, program, ranks, env, preload):
    """The compact run's directory (merged), and a copy of it whose traces
    are their XML form (merged likewise)."""
    run = runner.run(program, ranks, env={**env, "HDTRACE_FORMAT": "compact"}, preload=preload)
    run.assert_ok()
    traces = sorted(run.trace_dir.glob("*.ctrc"))
    assert traces, f"no compact traces in {run.trace_dir}"
    assert not list(run.trace_dir.glob("*.trc")), "compact mode wrote XML traces"
    compact_dir, xml_dir = tmp_path / "compact", tmp_path / "xml"
    shutil.copytree(run.trace_dir, compact_dir)
    xml_dir.mkdir()
    for info in compact_dir.glob("*.info"):
        shutil.copy(info, xml_dir)
    for trace in sorted(compact_dir.glob("*.ctrc")):
        hdtrace(tools, "convert", "-q", trace, "-o", xml_dir / (trace.stem + ".trc"), check=True)
    return run, merged(tools, compact_dir, program), merged(tools, xml_dir, program)


@pytest.mark.parametrize("program,ranks,env,preload,expectations", CASES,
                         ids=[f"{case[0]}-{case[1]}" for case in CASES])
def test_every_reader_reads_compact_as_xml(runner, build_dir, tmp_path, program, ranks, env,
                                          preload, expectations):
    tools = tools_tree_or_fail(build_dir)
    run, compact_project, xml_project = compact_run_and_xml_twin(runner, tools, tmp_path,
                                                                 program, ranks, env, preload)
    if expectations:
        tracecheck.check_run(xml_project.parent, run.expect_dir, program, ranks)
    # The XML form goes to compact and back byte for byte.
    for trace in sorted(xml_project.parent.glob("*.trc")):
        again = tmp_path / "again"
        again.mkdir(exist_ok=True)
        hdtrace(tools, "convert", "-q", trace, "-o", again / (trace.stem + ".ctrc"), check=True)
        hdtrace(tools, "convert", "-q", again / (trace.stem + ".ctrc"), "-o", again / trace.name,
                check=True)
        assert (again / trace.name).read_bytes() == trace.read_bytes(), trace
    done = subprocess.run(["/usr/bin/python3", str(HERE / "compact_reading.py"),
                           str(compact_project), str(xml_project)],
                          env=python_env(tools), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    # The commands print and write the same for both, but the project's own path.
    for command, written in ((["events"], None), (["events", "--format", "jsonl"], None),
                             (["stats"], None), (["export", "--chrome"], "out.json"),
                             (["view", "-o"], "out.html"), (["plot-io", "-o"], "out.svg")):
        outputs = []
        for project in (compact_project, xml_project):
            target = [project.parent / written] if written else []
            text = hdtrace(tools, *command, *target, project, check=True).stdout
            if written:
                text += (project.parent / written).read_text()
            # The SVG holds the time it was drawn and ids hashed from it.
            text = SVG_IDS.sub("ID", SVG_DATE.sub("<dc:date/>", text))
            outputs.append(text.replace(str(project.parent), "<run>"))
        assert outputs[0] == outputs[1], f"hdtrace {' '.join(command)} differs"
        assert outputs[0].strip(), f"hdtrace {' '.join(command)} gave nothing"


def test_check_says_how_to_get_xml_then_passes(runner, build_dir, tmp_path):
    tools = tools_tree_or_fail(build_dir)
    _, compact_project, xml_project = compact_run_and_xml_twin(
        runner, tools, tmp_path, "p2p_traced", 2, {}, False)
    done = hdtrace(tools, "check", compact_project, check=False)
    assert done.returncode == 1
    command = f"hdtrace convert --to xml {compact_project}"
    lines = [line for line in done.stdout.splitlines() if "compact form" in line]
    assert len(lines) == 2 and all(command in line for line in lines), done.stdout
    assert hdtrace(tools, "check", xml_project).returncode == 0
    # What it says to run writes the XML beside the compact traces; the
    # project then names those, and the check passes.
    hdtrace(tools, *command.split()[1:], check=True)
    assert sorted(p.stem for p in compact_project.parent.glob("*.trc")) == \
        sorted(p.stem for p in compact_project.parent.glob("*.ctrc"))
    for trace in compact_project.parent.glob("*.trc"):
        assert trace.read_bytes() == (xml_project.parent / trace.name).read_bytes()
    done = hdtrace(tools, "check", compact_project, check=True)
    assert "2 trace(s) pass" in done.stdout


def test_merger_writes_xml_traces_beside_compact_ones(runner, build_dir, tmp_path):
    tools = tools_tree_or_fail(build_dir)
    _, compact_project, xml_project = compact_run_and_xml_twin(
        runner, tools, tmp_path, "collectives_plain", 3, {}, True)
    done = subprocess.run([str(tools / "merger" / "project-merger"), "--xml-traces",
                           str(compact_project.parent)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    written = sorted(compact_project.parent.glob("*.trc"))
    assert [p.name for p in written] == sorted(p.name for p in xml_project.parent.glob("*.trc"))
    for trace in written:
        assert trace.read_bytes() == (xml_project.parent / trace.name).read_bytes()
    assert "3 XML trace(s) written beside the compact ones" in done.stdout


def test_a_killed_force_flush_run_reads_as_cut(runner, build_dir, tmp_path):
    """SIGKILL after the fourth Barrier with HDTRACE_FORCE_FLUSH=1: every call
    reads back from the compact trace, which is reported cut at its last
    frame; a strict read refuses it with the file and byte offset."""
    tools = tools_tree_or_fail(build_dir)
    run = runner.run("flush_traced", 1, args=["kill"], cached=False,
                     env={"HDTRACE_FORCE_FLUSH": "1", "HDTRACE_FORMAT": "compact"})
    assert run.result.returncode != 0, "the program was meant to be killed"
    trace = tracecheck.trace_base(run.trace_dir, "flush_traced", 0).with_suffix(".ctrc")
    script = f"""
import hdtrace._core as core
partial = core.read_columns({str(trace)!r}, partial=True)
print(" ".join(partial["names"][code] for code in partial["name_code"]))
print(partial["damage"])
try:
    core.read_columns({str(trace)!r})
except core.ReadError as error:
    print("strict:", error)
"""
    done = subprocess.run(["/usr/bin/python3", "-c", script], env=python_env(tools),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    names, damage, strict = done.stdout.splitlines()
    # the MPI calls (the program's own file I/O is in the trace too)
    calls = [name for name in names.split()
             if name not in tracecheck.BOOKKEEPING_CALLS and name not in tracecheck.POSIX_CALLS]
    assert calls == ["Init"] + ["Barrier"] * 4
    size = trace.stat().st_size
    assert damage.startswith(f"{trace}: byte {size}: cut after its last complete frame (frame ")
    assert damage.endswith("): its writer did not close it")
    assert strict == f"strict: {damage}"
