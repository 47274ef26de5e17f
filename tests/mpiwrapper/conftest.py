"""Fixtures of the libhdtracempi end-to-end tests: build the run, cache it."""
import dataclasses
import pathlib
import subprocess
import sys
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import tracecheck  # noqa: E402
from tool_trees import built_tool_or_fail  # noqa: E402

# Open MPI 4.1.4's OMPIO hangs in MPI_File_read_all_begin after a split
# collective write (also without any wrapper), so the MPI-IO programs use ROMIO.
IO_ENV = {"OMPI_MCA_io": "romio321"}
# Open MPI 4.1.4's default one-sided component fails in this container
# (BRIEFING.md); pt2pt does every window but shared ones, which need sm.
RMA_ENV = {"OMPI_MCA_osc": "sm,pt2pt"}


@dataclasses.dataclass
class Run:
    program: str            # the executable's name, as in the trace file names
    nranks: int
    result: subprocess.CompletedProcess
    trace_dir: pathlib.Path
    expect_dir: pathlib.Path
    work_dir: pathlib.Path
    started: float
    finished: float

    def assert_ok(self):
        assert self.result.returncode == 0, (
            f"{self.program} exited with {self.result.returncode}\n"
            f"stdout:\n{self.result.stdout}\nstderr:\n{self.result.stderr}")

    def check(self, allow_nested=False, type_findings=True, keep=None):
        """Exit code 0, then every rank's trace against its expectations.

        type_findings=False: tests about something else than datatypes leave
        the Type lines' names and ids of constructor arguments to
        test_datatypes and test_fileio, so that one finding fails one test."""
        self.assert_ok()
        checkers = tracecheck.check_run(self.trace_dir, self.expect_dir, self.program,
                                        self.nranks, allow_nested=allow_nested,
                                        type_findings=type_findings, keep=keep)
        for checker in checkers:
            adjustment = checker.trace.time_adjustment
            assert self.started - 2 <= adjustment <= self.finished + 1, (
                f"{checker.trace.path}: timeAdjustment {adjustment} is not the start of this "
                f"run ({self.started:.0f}..{self.finished:.0f})")
            for element in checker.trace.elements:
                if "time" in element.attrib:
                    absolute = adjustment + float(element.attrib["time"])
                    assert self.started - 2 <= absolute <= self.finished + 2, (
                        f"{checker.trace.path}: <{element.tag}> time {element.attrib['time']} + "
                        f"{adjustment} lies outside the run")
        return checkers


class Runner:
    def __init__(self, build_dir: pathlib.Path, factory):
        self.programs = build_dir / "tests" / "mpiwrapper"
        self.shared_library = build_dir / "mpiwrapper" / "libhdtracempi.so"
        self.factory = factory
        self.cache = {}
        self.trace_dirs = []  # of every run, for column_readers_agree_on_every_trace

    def path(self, name: str) -> pathlib.Path:
        path = self.programs / name
        if not path.is_file():
            pytest.fail(f"{path} is missing: build the tests (scripts/build) first")
        return path

    def run(self, name, nranks, env=None, args=(), cached=True, trace_dir=None,
            preload=False, timeout=tracecheck.MPIEXEC_TIMEOUT, prefix=()) -> Run:
        env = dict(env or {})
        key = (name, nranks, tuple(sorted(env.items())), tuple(args), preload, tuple(prefix))
        if cached and trace_dir is None and key in self.cache:
            return self.cache[key]
        base = self.factory.mktemp(name)
        work = base / "work"
        expect = base / "expected"
        work.mkdir()
        expect.mkdir()
        if trace_dir is None:
            trace_dir = base / "traces"
            trace_dir.mkdir()
        if nranks == 1:
            # After a rank dies of a signal, Open MPI's launcher gives the
            # job's other ranks time to end after SIGTERM (1 s, twice) before
            # it exits; a job of one rank has none, so the wait is only time.
            env.setdefault("OMPI_MCA_odls_base_sigkill_timeout", "0")
        if name.startswith("fileio"):
            env = {**IO_ENV, **env}
        if name.startswith("rma"):
            env = {**RMA_ENV, **env}
        if preload:
            if not self.shared_library.is_file():
                pytest.fail(f"{self.shared_library} is missing")
            env["LD_PRELOAD"] = str(self.shared_library)
        if trace_dir == "cwd":  # HDTRACE_DIR unset: the traces go to the working directory
            trace_dir = work
            env["HDTRACE_DIR"] = None
        else:
            env.setdefault("HDTRACE_DIR", trace_dir)
        full_env = tracecheck.mpi_env(HDTRACE_EXPECT_DIR=expect, **env)
        self.trace_dirs.append(pathlib.Path(trace_dir))
        started = time.time()
        result = tracecheck.mpiexec(self.path(name), nranks, full_env, work, args, timeout,
                                    prefix)
        run = Run(name, nranks, result, pathlib.Path(trace_dir), expect, work, started,
                  time.time())
        if cached:
            self.cache[key] = run
        return run

    def run_untraced_and_traced(self, untraced, traced, nranks, args=(), env=None):
        """Both runs of a comparison of how a job ends. The programs that end
        without MPI_Finalize close their output first (detach_output.h), so
        that MPICH's launcher reports the status they exited with."""
        plain = self.run(untraced, nranks, args=args)
        run = self.run(traced, nranks, args=args, env=env)
        return plain, run


@pytest.fixture(scope="session")
def runner(build_dir, tmp_path_factory):
    return Runner(build_dir, tmp_path_factory)


@pytest.fixture(scope="session")
def max_nested_levels():
    """HD_LOG_MAX_DEPTH - 1, from libhdtrace's header (docs/user/tracing.md, HDTRACE_NESTED)."""
    header = (pathlib.Path(__file__).resolve().parents[2] / "hdtrace" / "include" / "hdtrace"
              / "hdTrace.h").read_text()
    import re
    match = re.search(r"#define HD_LOG_MAX_DEPTH ([0-9]+)", header)
    assert match, "HD_LOG_MAX_DEPTH not found in hdTrace.h"
    return int(match.group(1)) - 1


# --- Both column readers agree on every trace the runs write ---
@pytest.fixture(scope="session", autouse=True)
def column_readers_agree_on_every_trace(build_dir, runner):
    """At the end of the session, every .trc the wrapper wrote in the
    session's runs (not the damaged or hand-made traces of other tests, which
    the scanner may rightly leave to libxml2) goes through reader_agreement
    (tests/reader/ReaderAgreement.cpp):
    the dialect scanner and libxml2's reader give the same columns or the same
    error, strict and partial, and a trace libxml2 reads is read by the scanner
    itself. The MPICH tree has no reader: the tool comes from
    HDTRACE_TOOLS_BUILD_DIR then, as for test_piosim."""
    yield
    traces = sorted({str(path) for directory in runner.trace_dirs if directory.is_dir()
                     for path in directory.rglob("*.trc")})
    if not traces:
        return
    tool = built_tool_or_fail(build_dir, "tests/reader/reader_agreement")
    for start in range(0, len(traces), 200):
        result = subprocess.run([str(tool), "compare", *traces[start:start + 200]],
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, (
            f"the two column readers disagree:\n{result.stdout}{result.stderr}")
