"""Compact form against XML form on real MPI programs: each program runs once
with HDTRACE_FORMAT=xml and once with HDTRACE_FORMAT=compact; every compact
trace, converted by hdtrace-compact-to-xml, must be the XML run's trace of
the same rank and thread byte for byte once what differs between two runs
is masked (times, timeAdjustment, the runs' own directories)."""
import pathlib
import re
import subprocess

import pytest

import tracecheck

TIMES = re.compile(r"(time|end|timeAdjustment)='[^']*'")
# The .info's clock measurements: when, and what they found.
CLOCK_FIGURES = re.compile(r"\b(time|offset|rtt)=-?[0-9]+")

# (program, ranks, environment, preloaded): nested calls, requests, file
# I/O (one rank: ordered accesses of two ranks land in either order),
# threads, linked and preloaded (the _plain builds). Programs whose calls
# depend on timing (polling with Test) differ between any two runs.
CASES = [
    ("nested_traced", 2, {"HDTRACE_NESTED": "1"}, False),
    ("p2p_traced", 2, {"HDTRACE_FORCE_FLUSH": "1"}, False),
    ("p2p_plain", 2, {}, True),
    ("fileio_traced", 1, {"HDTRACE_FILE_INFO": "1"}, False),
    ("fileio_plain", 1, {}, True),
    ("collectives_traced", 3, {}, False),
    ("collectives_plain", 2, {"HDTRACE_NESTED": "1"}, True),
    ("threads_traced", 2, {}, False),
]


def masked(text, run):
    text = TIMES.sub(r"\1='T'", text)
    text = CLOCK_FIGURES.sub(r"\1=N", text)
    for directory in (run.work_dir, run.trace_dir, run.expect_dir):
        text = text.replace(str(directory), "<run>")
    return text


def converter(build_dir):
    tool = pathlib.Path(build_dir) / "reader" / "hdtrace-compact-to-xml"
    if not tool.is_file():
        pytest.fail(f"{tool} is missing: build the reader (scripts/build)")
    return tool


@pytest.mark.parametrize("program,ranks,env,preload", CASES,
                         ids=[f"{case[0]}-{case[1]}" for case in CASES])
def test_compact_converts_to_the_xml_of_the_same_run(runner, build_dir, tmp_path, program, ranks,
                                                     env, preload):
    xml = runner.run(program, ranks, env={**env, "HDTRACE_FORMAT": "xml"}, preload=preload,
                     cached=False)
    compact = runner.run(program, ranks, env={**env, "HDTRACE_FORMAT": "compact"},
                         preload=preload, cached=False)
    xml.assert_ok()
    compact.assert_ok()
    xml_traces = sorted(xml.trace_dir.glob("*.trc"))
    compact_traces = sorted(compact.trace_dir.glob("*.ctrc"))
    assert xml_traces, f"no XML traces in {xml.trace_dir}"
    assert [p.stem for p in compact_traces] == [p.stem for p in xml_traces]
    assert not list(compact.trace_dir.glob("*.trc")), "compact mode wrote XML traces"
    for xml_trace, compact_trace in zip(xml_traces, compact_traces):
        converted = tmp_path / (compact_trace.stem + ".trc")
        result = subprocess.run([str(converter(build_dir)), str(compact_trace), str(converted)],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        assert masked(converted.read_text(), compact) == masked(xml_trace.read_text(), xml), (
            f"{compact_trace} does not convert to the XML of {xml_trace}")
        # The .info stays text, the same in both forms.
        assert (masked((compact.trace_dir / (compact_trace.stem + ".info")).read_text(), compact)
                == masked((xml.trace_dir / (xml_trace.stem + ".info")).read_text(), xml))


def test_compact_force_flush_survives_kill(runner, build_dir, tmp_path):
    """SIGKILL after the fourth Barrier, with HDTRACE_FORCE_FLUSH=1: every
    frame written reads back, the trace is reported as cut, and its calls
    are the ones the program made, with the values it passed."""
    run = runner.run("flush_traced", 1, args=["kill"], cached=False,
                     env={"HDTRACE_FORCE_FLUSH": "1", "HDTRACE_FORMAT": "compact"})
    assert run.result.returncode != 0, "the program was meant to be killed"
    base = tracecheck.trace_base(run.trace_dir, "flush_traced", 0)
    converted = tmp_path / "flush.trc"
    result = subprocess.run([str(converter(build_dir)), str(base.with_suffix(".ctrc")),
                             str(converted)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "cut after its last complete frame" in result.stderr
    elements = tracecheck.parse_trc_prefix(converted)
    info = tracecheck.parse_info(base.with_suffix(".info"))
    expected = [r for r in tracecheck.read_expectations(run.expect_dir, 0) if r["kind"] == "call"]
    assert [r["tag"] for r in expected] == ["Init"] + ["Barrier"] * 4
    calls = [e for e in elements if e.tag not in tracecheck.BOOKKEEPING_CALLS]
    assert [e.tag for e in calls] == ["Init"] + ["Barrier"] * 4
    checker = tracecheck.Checker(tracecheck.Trace(base, None, 0), info, [])
    for record, element in zip(expected, calls):
        checker.compare(record, element, str(base), timed=True)
