"""How a traced program ends: the trace is well-formed XML after a normal
exit, exit() without MPI_Finalize, MPI_Abort and a fatal signal (docs/format/trace.md),
and holds every call made before the end."""
import shutil

import pytest

import tracecheck

# argument, the calls the trace must end with
ENDINGS = {
    "exit": ["Init", "Barrier"],
    "abort": ["Init", "Barrier", "Abort"],
    "segv": ["Init", "Barrier"],
    "sigabrt": ["Init", "Barrier"],
}


@pytest.mark.parametrize("how", sorted(ENDINGS))
def test_trace_is_complete_after(runner, how):
    if how == "exit":
        # Whether a rank's exit without MPI_Finalize fails the job is the
        # launcher's choice (Open MPI: yes, MPICH: no): as without the wrapper.
        plain, run = runner.run_untraced_and_traced("endings_plain", "endings_traced", 1,
                                                    args=[how])
        assert run.result.returncode == plain.result.returncode, (
            f"exit: status {run.result.returncode} traced, {plain.result.returncode} plain")
    else:
        run = runner.run("endings_traced", 1, args=[how])
        assert run.result.returncode != 0, f"ending by {how} should fail the job"
    assert f"r0 ending by {how}" in run.result.stdout
    base = tracecheck.trace_base(run.trace_dir, "endings_traced", 0)
    trace = tracecheck.parse_trc(base.with_suffix(".trc"))  # well-formed, times in order
    info = tracecheck.parse_info(base.with_suffix(".info"))
    expected = [r for r in tracecheck.read_expectations(run.expect_dir, 0) if r["kind"] == "call"]
    assert [r["tag"] for r in expected] == ENDINGS[how]
    calls = [e for e in trace.elements
             if not (e.tag in tracecheck.BOOKKEEPING_CALLS and tracecheck.is_ordinary(e))]
    assert [e.tag for e in calls] == ENDINGS[how]
    checker = tracecheck.Checker(trace, info, tracecheck.read_expectations(run.expect_dir, 0))
    for record, element in zip(expected, calls):
        checker.compare(record, element, str(trace.path), timed=True)


# Each wait4 of the launcher's processes 3 ms late: before the test programs
# closed their output first (detach_output.h), Hydra 4.0.2 then reported the
# plain program's exit(0) as "Hangup (signal 1)" in 17 runs of 20.
SLOW_LAUNCHER = ("strace", "-f", "--seccomp-bpf", "-o", "/dev/null", "-e", "trace=wait4",
                 "-e", "inject=wait4:delay_enter=3000")


@pytest.mark.parametrize("program,how", [("endings", "exit"), ("crashes", "own-term")])
def test_ending_without_finalize_keeps_its_status_when_the_launcher_is_slow(
        runner, program, how):
    """A rank that exits without MPI_Finalize (exit(0), or _exit in its own
    signal handler): the job's status does not depend on the launcher's
    timing, so the comparisons of statuses with and without the wrapper
    compare what the programs did."""
    if shutil.which("strace") is None:
        pytest.fail("strace is missing: run scripts/install-deps")
    expected = runner.run(f"{program}_plain", 1, args=[how]).result.returncode
    statuses = [runner.run(f"{program}_{variant}", 1, args=[how], cached=False,
                           prefix=SLOW_LAUNCHER).result.returncode
                for variant in ("plain", "traced") for _ in range(2)]
    assert statuses == [expected] * 4, (
        f"{how}: statuses {statuses} under a slow launcher (plain, plain, traced, traced); "
        f"{expected} without the delay")


def test_normal_end_writes_finalize_last(runner):
    run = runner.run("endings_traced", 1, args=["normal"])
    checker = run.check()[0]
    assert checker.trace.elements[-1].tag == "Finalize"


def test_nested_calls_inside_mpi_io(runner):
    """HDTRACE_NESTED=1 on the MPI-IO program: the top-level trace is unchanged,
    and no <Nested> block is the first child of an element with <Data> children."""
    run = runner.run("fileio_traced", 2, env={"HDTRACE_NESTED": "1"})
    run.assert_ok()
    for rank in range(2):
        base = tracecheck.trace_base(run.trace_dir, "fileio_traced", rank)
        trace = tracecheck.parse_trc(base.with_suffix(".trc"))
        for element in trace.root.iter():
            children = list(element)
            if any(child.tag == "Data" for child in children):
                assert children[0].tag != "Nested", (
                    f"{trace.path}: <{element.tag}> starts with a <Nested> block")
    run.check(allow_nested=True, type_findings=False)


def test_file_name_with_control_character_and_invalid_utf8(runner):
    """Any file name gives a well-formed trace and a one-line-per-object .info."""
    run = runner.run("endings_traced", 1, args=["oddname"])
    run.assert_ok()
    base = tracecheck.trace_base(run.trace_dir, "endings_traced", 0)
    trace = tracecheck.parse_trc(base.with_suffix(".trc"))  # well-formed XML, UTF-8
    info = tracecheck.parse_info(base.with_suffix(".info"))  # UTF-8, one object per line
    tags = [e.tag for e in trace.elements]
    assert ["File_open", "File_close", "File_delete"] == [t for t in tags if t.startswith("File")]
    # the MPI calls' file (the POSIX layer also declares the files the
    # program and ROMIO open with the C library)
    fids = {int(e.attrib["fid"]) for e in trace.elements if "fid" in e.attrib}
    assert len(fids) == 1
    name = info.files[fids.pop()]["name"]
    opened = next(e for e in trace.elements if e.tag == "File_open").attrib["name"]
    assert name == opened, "the .info and the trace spell the name differently"
    assert name.startswith("ctl") and name.endswith("-name.dat"), name


def test_init_without_argv_names_the_trace_after_the_executable(runner):
    """MPI_Init(NULL, NULL): <program> is the basename of /proc/self/exe."""
    run = runner.run("initnull_traced", 2)
    run.assert_ok()
    for rank in range(2):
        base = tracecheck.trace_base(run.trace_dir, "initnull_traced", rank)
        trace = tracecheck.parse_trc(base.with_suffix(".trc"))
        tracecheck.parse_info(base.with_suffix(".info"))
        tags = [e.tag for e in trace.elements
                if not (e.tag in tracecheck.BOOKKEEPING_CALLS and tracecheck.is_ordinary(e))]
        assert tags == ["Init", "Barrier", "Finalize"], tags
    assert len(list(run.trace_dir.iterdir())) == 4
