"""The environment variables of the wrapper (docs/user/tracing.md, "Environment variables")."""
import os
import re

import pytest

import tracecheck

# Ordinary functions (docs/format/trace.md): time and end only, written only while
# HDTRACE_ALL_FUNCTIONS=1.
ORDINARY_TAGS = {"Init", "Init_thread", "Finalize", "Abort", "File_get_position",
                 "File_get_position_shared", "Probe", "Type_free", "Type_dup", "Type_contiguous",
                 "Type_create_hvector", "Type_indexed", "Type_create_hindexed",
                 "Type_create_indexed_block", "Type_create_hindexed_block", "Type_create_struct",
                 "Type_create_subarray", "Type_create_darray", "Type_create_resized"}


def _info_children(run, rank, program):
    base = tracecheck.trace_base(run.trace_dir, program, rank)
    trace = tracecheck.parse_trc(base.with_suffix(".trc"))
    return [(element.tag, child.attrib) for element in trace.elements for child in element
            if child.tag == "Info"]


def test_file_info_on(runner):
    """HDTRACE_FILE_INFO=1: <Info key value/> children of File_open, File_delete,
    File_set_view and File_set_info, as passed by the program (escaped)."""
    run = runner.run("fileio_traced", 2, env={"HDTRACE_FILE_INFO": "1"})
    run.check(type_findings=False)
    for rank in range(2):
        children = _info_children(run, rank, "fileio_traced")
        tags = {tag for tag, _ in children}
        assert tags == {"File_open", "File_set_info", "File_set_view", "File_delete"}, tags
        values = {child["key"]: child["value"] for _, child in children}
        assert values["hdtrace_test"] == "a&b<c>'d\"e"


def test_file_info_default_off(runner):
    run = runner.run("fileio_traced", 2)
    run.assert_ok()
    assert _info_children(run, 0, "fileio_traced") == []


def test_all_functions_off(runner):
    """HDTRACE_ALL_FUNCTIONS=0 drops the ordinary functions, and only those."""
    run = runner.run("datatypes_traced", 2, env={"HDTRACE_ALL_FUNCTIONS": "0"})
    run.assert_ok()
    for rank in range(2):
        checker = tracecheck.load_rank(run.trace_dir, run.expect_dir, "datatypes_traced", rank)
        tags = [element.tag for element in checker.trace.elements]
        dropped = sorted(set(tags) & ORDINARY_TAGS)
        assert not dropped, f"rank {rank}: ordinary functions still written: {dropped}"
        others = [e for e in checker.trace.elements if tracecheck.is_ordinary(e)
                  and e.tag in tracecheck.BOOKKEEPING_CALLS]
        assert not others, f"rank {rank}: ordinary functions still written: " \
                           f"{sorted({e.tag for e in others})}"
        checker.calls = [c for c in checker.calls if c["tag"] not in ORDINARY_TAGS]
        assert any(c["tag"] == "Type_commit" for c in checker.calls)
        checker.check(type_findings=False)  # those are test_datatypes' findings


def test_all_functions_default_on(runner):
    run = runner.run("datatypes_traced", 2)
    run.assert_ok()
    trace = tracecheck.parse_trc(
        tracecheck.trace_base(run.trace_dir, "datatypes_traced", 0).with_suffix(".trc"))
    tags = {element.tag for element in trace.elements}
    assert {"Init", "Finalize", "Type_contiguous", "Type_create_darray", "Type_free"} <= tags


def test_force_flush(runner):
    """HDTRACE_FORCE_FLUSH=1: every call is in the file when the next one starts."""
    run = runner.run("flush_traced", 2, env={"HDTRACE_FORCE_FLUSH": "1"})
    run.check()
    for rank in range(2):
        lines = [line for line in tracecheck.per_rank_lines(run.result.stdout)
                 if line.startswith(f"r{rank} after")]
        assert lines == [f"r{rank} after barrier {i}: {i} on disk" for i in range(1, 7)]


def test_force_flush_survives_kill(runner):
    """After SIGKILL the trace ends mid-file, but with FORCE_FLUSH=1 every call
    before the kill is there, complete and correct."""
    run = runner.run("flush_traced", 1, env={"HDTRACE_FORCE_FLUSH": "1"}, args=["kill"])
    assert run.result.returncode != 0, "the program was meant to be killed"
    base = tracecheck.trace_base(run.trace_dir, "flush_traced", 0)
    tracecheck.check_calls_before_kill(base, tracecheck.parse_trc_prefix(base.with_suffix(".trc")),
                                       run.expect_dir, ["Init"] + ["Barrier"] * 4)


def test_flush_default_still_complete(runner):
    run = runner.run("flush_traced", 2)
    run.check()


@pytest.mark.parametrize("variable", ["HDTRACE_FORCE_FLUSH", "HDTRACE_NESTED",
                                      "HDTRACE_FILE_INFO", "HDTRACE_ALL_FUNCTIONS",
                                      "HDTRACE_CLOCK", "HDTRACE_WRITER_THREAD"])
def test_unparsable_value_warns_once_and_uses_default(runner, variable):
    run = runner.run("nested_traced", 1, env={variable: "banana"})
    run.assert_ok()
    warnings = [line for line in run.result.stderr.splitlines() if line.strip()]
    assert len(warnings) == 1, f"expected one warning, stderr was {run.result.stderr!r}"
    assert variable in warnings[0] and "banana" in warnings[0], warnings[0]
    # default behaviour: ordinary functions written (Init, Finalize), no <Nested>
    run.check()
    assert run.result.stdout.count("rc=0") == 3


def test_unparsable_file_info_means_no_info_children(runner):
    run = runner.run("fileio_traced", 1, env={"HDTRACE_FILE_INFO": "banana"})
    run.assert_ok()
    warnings = [line for line in run.result.stderr.splitlines() if line.strip()]
    assert len(warnings) == 1 and "HDTRACE_FILE_INFO" in warnings[0], run.result.stderr
    assert _info_children(run, 0, "fileio_traced") == []
    run.check(type_findings=False)


def test_hdtrace_dir_created_if_missing(runner, tmp_path):
    target = tmp_path / "not-yet-there"
    run = runner.run("p2p_traced", 2, trace_dir=target, cached=False)
    assert target.is_dir(), "HDTRACE_DIR was not created"
    run.check()


def test_default_directory_is_the_working_directory(runner):
    run = runner.run("p2p_traced", 2, trace_dir="cwd", cached=False)
    run.check()


def test_unwritable_hdtrace_dir(runner, tmp_path):
    """A trace that cannot be written: one warning, the program unchanged."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    run = runner.run("fileio_traced", 1, trace_dir=blocker / "traces", cached=False)
    plain = runner.run("fileio_plain", 1)
    assert run.result.returncode == 0, run.result.stderr
    assert tracecheck.per_rank_lines(run.result.stdout) == \
        tracecheck.per_rank_lines(plain.result.stdout)
    warnings = [line for line in run.result.stderr.splitlines() if line.strip()]
    assert len(warnings) == 1, f"expected one warning, stderr was {run.result.stderr!r}"
    assert re.search(r"hdtrace|trace", warnings[0], re.I), warnings[0]


def test_disk_full(runner, tmp_path):
    """Trace files that fail on every write (/dev/full, as on a full disk): at
    most one warning, the program's output and exit code unchanged. A wrapper
    that replaces the files instead of writing through them must then write a
    correct trace."""
    import os
    trace_dir = tmp_path / "full"
    trace_dir.mkdir()
    base = tracecheck.trace_base(trace_dir, "fileio_traced", 0)
    for suffix in (".trc", ".info"):
        os.symlink("/dev/full", base.with_suffix(suffix))
    run = runner.run("fileio_traced", 1, trace_dir=trace_dir, cached=False)
    plain = runner.run("fileio_plain", 1)
    assert run.result.returncode == 0, run.result.stderr
    assert tracecheck.per_rank_lines(run.result.stdout) == \
        tracecheck.per_rank_lines(plain.result.stdout)
    warnings = [line for line in run.result.stderr.splitlines() if line.strip()]
    if base.with_suffix(".trc").is_symlink():
        assert len(warnings) == 1, f"expected one warning, stderr was {run.result.stderr!r}"
    else:
        assert warnings == []
        run.check(type_findings=False)


@pytest.mark.parametrize("writer_thread,nranks", [("0", 2), ("1", 2), ("auto", 1), ("auto", 2),
                                                  (None, 2)])
def test_writer_thread_settings_give_complete_traces(runner, writer_thread, nranks):
    """HDTRACE_WRITER_THREAD only moves the writing; every call is in the trace.
    auto (the default) uses the thread when the node has more CPUs than ranks."""
    env = {"HDTRACE_VERBOSE": "1"}
    if writer_thread is not None:
        env["HDTRACE_WRITER_THREAD"] = writer_thread
    run = runner.run("p2p_traced" if nranks == 2 else "nested_traced", nranks, env=env)
    run.check()
    cpus = os.sysconf("SC_NPROCESSORS_ONLN")
    if writer_thread in ("0", "1"):
        background = writer_thread == "1"
        reason = f"HDTRACE_WRITER_THREAD={writer_thread}"
    else:
        background = cpus > nranks
        # how many ranks share the node: the launcher says
        if nranks == 1:
            source = "a world of one rank"
        elif "--oversubscribe" in tracecheck.launcher():  # Open MPI's mpiexec
            source = "OMPI_COMM_WORLD_LOCAL_SIZE"
        else:  # MPICH's Hydra
            source = "MPI_LOCALNRANKS"
        reason = f"auto: {nranks} ranks on {cpus} CPUs of this node, from {source}"
    said = "a background thread" if background else "the traced thread"
    lines = [line for line in run.result.stderr.splitlines() if "traces into" in line]
    assert len(lines) == nranks, run.result.stderr
    for line in lines:
        assert line.endswith(f"written by: {said}, {reason})"), line


def test_verbose_reports_on_stderr(runner):
    run = runner.run("p2p_traced", 2, env={"HDTRACE_VERBOSE": "1"})
    run.check()
    assert run.result.stderr.strip(), "HDTRACE_VERBOSE=1 reported nothing"
