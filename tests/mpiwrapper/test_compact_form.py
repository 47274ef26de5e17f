"""Compact form against XML form on real MPI programs: each program runs once
with HDTRACE_FORMAT=xml and once with HDTRACE_FORMAT=compact; every compact
trace, converted by hdtrace-compact-to-xml, must be the XML run's trace of
the same rank and thread byte for byte once what differs between two runs
is masked (times, timeAdjustment, the runs' own directories)."""
import re
import subprocess

import pytest

import tracecheck
from tool_trees import built_tool_or_fail

TIMES = re.compile(r"(time|end|timeAdjustment)='[^']*'")
# The .info's clock measurements: when, and what they found.
CLOCK_FIGURES = re.compile(r"\b(time|offset|rtt)=-?[0-9]+")
# ROMIO's shared file pointer file (its File line comes from the POSIX
# layer): named after a number of the run.
SHARED_POINTER_FILE = re.compile(r"\.shfp\.[0-9]+\.[0-9]+")

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
    text = SHARED_POINTER_FILE.sub(".shfp.N", text)
    for directory in (run.work_dir, run.trace_dir, run.expect_dir):
        text = text.replace(str(directory), "<run>")
    return text


def converter(build_dir):
    return built_tool_or_fail(build_dir, "reader/hdtrace-compact-to-xml")


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
    tracecheck.check_calls_before_kill(base, tracecheck.parse_trc_prefix(converted),
                                       run.expect_dir, ["Init"] + ["Barrier"] * 4)


# Fatal signals, after few calls and after enough to fill several frames
# (the last ones possibly still queued for the writer thread), and fork():
# the compact trace is closed by the crash path (with its index) and holds
# what the XML trace of the same ending holds.
@pytest.mark.parametrize("how,calls,writer_thread", [
    ("segv", 3, "1"), ("term", 300000, "1"), ("abrt", 300000, "0"), ("segv-fault", 3, "1"),
    ("fork-crash", 3, "1"), ("fork-exit", 3, "1"),
])
def test_compact_crash_endings_convert_to_the_xml_of_the_same_ending(runner, build_dir, tmp_path,
                                                                     how, calls, writer_thread):
    runs = {}
    for form in ("xml", "compact"):
        runs[form] = runner.run("crashes_traced", 1, args=[how, str(calls)], cached=False,
                                env={"HDTRACE_FORMAT": form, "HDTRACE_WRITER_THREAD": writer_thread})
        assert f"ending by {how}" in runs[form].result.stdout, runs[form].result.stdout
    assert runs["xml"].result.returncode == runs["compact"].result.returncode
    base = tracecheck.trace_base(runs["compact"].trace_dir, "crashes_traced", 0)
    converted = tmp_path / "crash.trc"
    result = subprocess.run([str(converter(build_dir)), str(base.with_suffix(".ctrc")),
                             str(converted)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stderr == "", "the crash path left the trace without its index"
    xml_base = tracecheck.trace_base(runs["xml"].trace_dir, "crashes_traced", 0)
    text = masked(converted.read_text(), runs["compact"])
    assert text == masked(xml_base.with_suffix(".trc").read_text(), runs["xml"])
    assert text.count("<Allreduce ") == calls


def test_compact_level_zero_stores_the_same_records_uncompressed(runner, build_dir, tmp_path):
    """HDTRACE_COMPACT_LEVEL=0: frames stored as the records are, several
    times larger than zstd's (20,000 Allreduce calls a rank), and converting
    to the XML the default level's trace converts to; a level zstd does not
    have warns and keeps level 1."""
    runs = {level: runner.run("crashes_traced", 2, args=["normally", "20000"], cached=False,
                              env={"HDTRACE_FORMAT": "compact", "HDTRACE_COMPACT_LEVEL": level})
            for level in ("0", "1", "fastest")}
    for level, run in runs.items():
        run.assert_ok()
        warned = "HDTRACE_COMPACT_LEVEL='fastest' is not a zstd level nor 0; using 1"
        assert (warned in run.result.stderr) == (level == "fastest"), run.result.stderr
    traces = {level: sorted(run.trace_dir.glob("*.ctrc")) for level, run in runs.items()}
    assert len(traces["0"]) == 2 and [p.name for p in traces["1"]] == [p.name for p in traces["0"]]
    for index, stored in enumerate(traces["0"]):
        compressed = traces["1"][index]
        assert stored.stat().st_size > 3 * compressed.stat().st_size, (
            stored.stat().st_size, compressed.stat().st_size)
        # The invalid level compressed too. Its size is not compared with
        # level 1's: a run's times, which differ from run to run, are most
        # of a compact trace's bytes.
        fastest = traces["fastest"][index]
        assert stored.stat().st_size > 3 * fastest.stat().st_size, (
            stored.stat().st_size, fastest.stat().st_size)
        texts = {}
        for level in ("0", "1", "fastest"):
            converted = tmp_path / f"{level}-{stored.stem}.trc"
            result = subprocess.run([str(converter(build_dir)), str(traces[level][index]),
                                     str(converted)], capture_output=True, text=True, timeout=120)
            assert result.returncode == 0, result.stderr
            texts[level] = masked(converted.read_text(), runs[level])
        assert texts["0"] == texts["1"] == texts["fastest"]
