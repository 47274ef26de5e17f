"""hdtrace run: trace an MPI program with one command.

    hdtrace run [-n N] [-o DIR] [--launcher CMD] [--env K=V] -- ./app ARGS

starts the program under the MPI library's launcher with libhdtracempi.so
preloaded (unless the program is linked with the wrapper already) and
HDTRACE_DIR set to a fresh run directory, then merges the run into
DIR/<program>.proj, writes its HTML view DIR/<program>.html and its report
DIR/<program>-report.html (with -report.json), and prints a summary and
the report's findings on stderr. stdin, stdout and stderr are the program's own; the exit
status is the launcher's (128+N when the launcher itself is killed by signal
N, as a shell reports it).
"""
import argparse
import datetime
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import warnings

from . import elf, native
from .merging import find_project_merger
from .project import open as open_project
from .report import build as build_report
from .statistics import stats
from .view.html import write_html
from .view.model import build_timeline

try:  # written by the installation only: where the installed libhdtracempi.so lies
    from . import _paths
except ImportError:
    _paths = None

PREFIX = "hdtrace run"

#: Launchers tried for each MPI library, first found wins. The generic names
#: are taken only when their --version names that library.
LAUNCHERS = {
    "openmpi": (["mpiexec.openmpi", "mpirun.openmpi"], ["mpiexec", "mpirun"], ("Open MPI", "OpenRTE")),
    "mpich": (["mpiexec.mpich", "mpiexec.hydra", "mpirun.mpich"], ["mpiexec", "mpirun"], ("HYDRA",)),
}
LIBRARY_NAMES = {"openmpi": "Open MPI", "mpich": "MPICH"}
SIGNAL_EXIT_BASE = 128
TOP_FUNCTIONS = 5


class RunError(Exception):
    """A problem found before the program starts; carries the exit status."""

    def __init__(self, message, status=2):
        super().__init__(message)
        self.status = status


def register(commands):
    """Adds the `run` subcommand to the hdtrace command's subparsers."""
    run = commands.add_parser(
        "run", help="trace an MPI program: launch, merge, summarise",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="""\
Runs PROGRAM under the MPI launcher with libhdtracempi.so preloaded and
HDTRACE_DIR set to a fresh run directory DIR, merges the traces into
DIR/<program>.proj, writes the HTML view DIR/<program>.html and the report
DIR/<program>-report.html (and -report.json; see hdtrace report), and prints
a summary on stderr: ranks, calls, time in MPI, bytes per file, top
functions, then the report's findings, one line each.

example: hdtrace run -n 4 -- ./app input.dat""",
        epilog="""\
launcher:
  By default the launcher of the MPI library that libhdtracempi.so (or the
  program, when it is linked with libhdtracempi.a) was built against:
  mpiexec.openmpi for Open MPI, mpiexec.mpich (Hydra) for MPICH, else an
  mpiexec on PATH that says it is that library's. --launcher takes any
  other command, with its own options, that runs `CMD -n N PROGRAM ARGS...`
  on every rank, e.g. --launcher srun or --launcher 'mpiexec --oversubscribe'.
  Every rank runs `env LD_PRELOAD=... HDTRACE_DIR=... K=V PROGRAM ARGS`,
  so no launcher-specific option is needed to pass the environment.

program:
  A program linked with libhdtracempi.a or libhdtracempi.so is recognised by
  the wrapper's symbols (or, stripped, its strings) and run without preload.

exit status:
  The launcher's, unchanged: Open MPI's and MPICH's mpiexec return the status
  of a rank that failed; for a rank killed by signal N, Open MPI's returns
  128+N and MPICH's N. When the launcher itself is killed by signal N,
  128+N, as a shell reports it. Before the program runs: 127 when the
  launcher or the program is not found, 2 on a usage error. When the
  program ran but its run could not be merged, its status, or 1 if that
  was 0. SIGTERM and SIGHUP sent to hdtrace run are passed on to the
  launcher; after them, or Ctrl-C, the run is merged and hdtrace run exits
  with 128+N for that signal N.

The run is merged also after a failed or killed program: whatever the ranks
wrote is kept (damaged traces are read up to the damage), and the summary
says so.""")
    run.add_argument("-n", "--ranks", "--np", type=int, metavar="N",
                     help="number of ranks (default: the launcher's own default)")
    run.add_argument("-o", "--output", metavar="DIR",
                     help="run directory, created, must be empty if it exists "
                          "(default: hdtrace-<program>-<date>-<time>/ in the working directory)")
    run.add_argument("--launcher", metavar="CMD",
                     help="launcher command line, split like a shell does (default: detected)")
    run.add_argument("--env", action="append", default=[], metavar="K=V",
                     help="set K=V for every rank (repeatable), e.g. --env HDTRACE_NESTED=1")
    run.add_argument("--filter", metavar="FILE",
                     help="trace only what the filter file chooses (docs/user/filters.md); "
                          "checked before the launch, and kept in the run directory as "
                          "<program>.filter")
    run.add_argument("--library", metavar="FILE",
                     help="the libhdtracempi.so to preload (default: the one installed with this "
                          "command, or the build tree's)")
    run.add_argument("--no-view", action="store_true",
                     help="do not write the HTML view (for very large runs)")
    run.add_argument("--no-report", action="store_true",
                     help="do not write the report (hdtrace report) nor print its findings")
    run.add_argument("command", nargs=argparse.REMAINDER, metavar="-- PROGRAM ARGS",
                     help="the program and its arguments")
    run.set_defaults(handler=command_run)


def _say(message):
    print(f"{PREFIX}: {message}", file=sys.stderr, flush=True)


def default_library():
    """libhdtracempi.so installed beside this package, or in its build tree."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = []
    if _paths is not None:
        candidates.append(os.path.join(here, _paths.LIBDIR_FROM_PACKAGE, "libhdtracempi.so"))
    candidates.append(os.path.join(here, "..", "..", "mpiwrapper", "libhdtracempi.so"))
    for candidate in candidates:
        if os.path.isfile(candidate):
            return os.path.normpath(candidate)
    return None


def mpi_library_of(path):
    """'openmpi' or 'mpich' from the MPI library the ELF file needs, else None."""
    try:
        needed = elf.needed_libraries(path)
    except (OSError, ValueError, IndexError):
        return None
    if any(name.startswith("libmpich") for name in needed):
        return "mpich"
    if any(name.startswith("libmpi.so") for name in needed):
        return "openmpi"
    return None


def linked_with_wrapper(path):
    """Whether the program carries the wrapper already (archive or shared library)."""
    try:
        if any(name.startswith("libhdtracempi.so") for name in elf.needed_libraries(path)):
            return True
        if any(name.startswith("_ZN10hdtracempi") for name in elf.symbol_names(path)):
            return True
    except (OSError, ValueError, IndexError, elf.NotElfError):
        return False
    # Stripped: the wrapper's own warning text is in its read-only data.
    return elf.contains_bytes(path, b"hdtracempi: warning:")


def _launcher_says(command, words):
    try:
        result = subprocess.run([command, "--version"], capture_output=True, text=True,
                                timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return any(word in result.stdout + result.stderr for word in words)


def detect_launcher(mpi):
    """The launcher command for that MPI library ('openmpi', 'mpich' or None)."""
    families = [mpi] if mpi else list(LAUNCHERS)
    for family in families:
        specific, generic, words = LAUNCHERS[family]
        for name in specific:
            found = shutil.which(name)
            if found:
                return [found]
        for name in generic:
            found = shutil.which(name)
            if found and (mpi is None or _launcher_says(found, words)):
                return [found]
    wanted = LIBRARY_NAMES.get(mpi, "an MPI library")
    names = ", ".join(LAUNCHERS[mpi][0] + LAUNCHERS[mpi][1]) if mpi else "mpiexec"
    raise RunError(f"no launcher for {wanted} found on PATH (looked for {names}); install it "
                   "or name one with --launcher CMD", status=127)


def program_name(program):
    """The <program> part of the trace names (docs/format/trace.md: sanitised basename)."""
    return re.sub(r"[^A-Za-z0-9.-]", "-", os.path.basename(program)) or "program"


def fresh_run_directory(requested, name, now=None):
    if requested:
        path = os.path.abspath(requested)
        if os.path.isdir(path) and os.listdir(path):
            raise RunError(f"the run directory {requested} exists and is not empty; "
                           "give a new one with -o")
        os.makedirs(path, exist_ok=True)
        return path
    stamp = (now or datetime.datetime.now()).strftime("%Y%m%d-%H%M%S")
    base = os.path.abspath(f"hdtrace-{name}-{stamp}")
    for attempt in range(1, 1000):
        path = base if attempt == 1 else f"{base}-{attempt}"
        try:
            os.mkdir(path)
            return path
        except FileExistsError:
            continue
    raise RunError(f"could not create a fresh run directory {base}-N")


def _parse_env(assignments):
    for assignment in assignments:
        key, equals, _ = assignment.partition("=")
        if not equals or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise RunError(f"--env {assignment!r}: expected NAME=VALUE")
    return list(assignments)


def _checked_filter(path):
    """The filter's rules, read as the wrapper will; RunError (status 2) when
    the wrapper would stop at MPI_Init. (Its warnings are the wrapper's to say.)"""
    try:
        return native.read_filter(path)
    except native.FilterError as error:
        raise RunError(f"--filter: {error}", status=2) from None


def build_command(args):
    """The launcher's argv and the fresh run directory; RunError before anything is created."""
    command = list(args.command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        raise RunError("no program given: hdtrace run [options] -- PROGRAM ARGS")
    if args.ranks is not None and args.ranks < 1:
        raise RunError(f"-n {args.ranks}: the number of ranks must be at least 1")
    user_env = _parse_env(args.env)
    rules = _checked_filter(args.filter) if args.filter else None
    program = command[0]
    located = shutil.which(program) if os.sep not in program else (
        program if os.access(program, os.X_OK) and os.path.isfile(program) else None)
    if located is None:
        raise RunError(f"program {program!r} not found or not executable", status=127)

    if linked_with_wrapper(located):
        library, mpi = None, mpi_library_of(located)
    else:
        library = os.path.abspath(args.library) if args.library else default_library()
        if library is None or not os.path.isfile(library):
            where = args.library or "neither installed beside this command nor in the build tree"
            raise RunError(f"libhdtracempi.so not found ({where}); give it with --library")
        mpi = mpi_library_of(library)

    if args.launcher:
        launcher = shlex.split(args.launcher)
        if not launcher or shutil.which(launcher[0]) is None:
            raise RunError(f"launcher {args.launcher!r} not found", status=127)
    else:
        launcher = detect_launcher(mpi)

    name = program_name(program)
    directory = fresh_run_directory(args.output, name)
    assignments = [f"HDTRACE_DIR={directory}"]
    if rules is not None:
        kept = os.path.join(directory, f"{name}.filter")
        shutil.copyfile(args.filter, kept)
        assignments.append(f"HDTRACE_FILTER={kept}")
    if library:
        preload = os.environ.get("LD_PRELOAD")
        assignments.insert(0, f"LD_PRELOAD={library}" + (f":{preload}" if preload else ""))
    argv = list(launcher)
    if args.ranks is not None:
        argv += ["-n", str(args.ranks)]
    argv += [shutil.which("env") or "/usr/bin/env", *assignments, *user_env, *command]
    return argv, directory


def _wait_forwarding_signals(process):
    """Waits for the launcher; returns its returncode and the first stopping
    signal hdtrace run itself received (None if none). SIGTERM and SIGHUP are
    passed on to the launcher; Ctrl-C (SIGINT) reaches the launcher from the
    terminal itself, so it is only noted. Either way the run is merged
    afterwards."""
    received = []

    def forward(number, _frame):
        received.append(number)
        try:
            process.send_signal(number)
        except ProcessLookupError:
            pass
    previous = {number: signal.signal(number, forward) for number in (signal.SIGTERM, signal.SIGHUP)}
    previous[signal.SIGINT] = signal.signal(signal.SIGINT, lambda number, _: received.append(number))
    try:
        return process.wait(), (received[0] if received else None)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def describe_status(returncode, stopped_by=None):
    """(exit status to return, words for the summary). A run stopped by a
    signal sent to hdtrace run exits as if killed by it, whatever the
    launcher then returned (MPICH's returns 0 or 15 after passing SIGTERM on)."""
    if stopped_by is not None:
        return SIGNAL_EXIT_BASE + stopped_by, (
            f"stopped by {_signal_name(stopped_by)} (the launcher's status: {returncode})")
    if returncode < 0:
        return (SIGNAL_EXIT_BASE - returncode,
                f"the launcher was killed by {_signal_name(-returncode)}")
    if returncode == 0:
        return 0, "the program finished with status 0"
    return returncode, f"the program failed with status {returncode}"


def merge_run(directory, description, force):
    """Writes <program>.proj in the run directory; returns (path, warnings)."""
    if native.has_merger():
        # A long merge shows its progress when stderr is a terminal.
        result = native.merge([directory], "", description, native.DEFAULT_DISTRIBUTION_CLASS,
                              native.DEFAULT_CHUNK_SIZE, force, progress=True)
        return result["output_path"], list(result["warnings"])
    merger = find_project_merger()
    if merger is None:
        raise RunError("no merger: this build has neither the merger library nor project-merger",
                       status=1)
    argv = [merger, "-d", description, directory] + (["--force"] if force else [])
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode != 0:
        raise RunError(result.stderr.strip() or f"project-merger failed ({result.returncode})", 1)
    projects = sorted(name for name in os.listdir(directory) if name.endswith(".proj"))
    return os.path.join(directory, projects[0]), result.stderr.strip().splitlines()


def summarise(project_path, partial, write_view):
    """The summary's lines, and the view's path (None when not written)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        project = open_project(project_path, partial=partial)
        figures = stats(project)
    # Every traced rank counts, also one whose trace was cut before its first call.
    ranks = len({leaf.rank for leaf in project.topology.leaves})
    lines = [f"  ranks          {ranks}",
             f"  calls          {int(figures.ranks['calls'].sum())}",
             f"  time in MPI    {figures.ranks['mpi'].sum():.6f} s (sum over ranks; "
             f"most on one rank {figures.ranks['mpi'].max() if len(figures.ranks) else 0:.6f} s)"]
    for row in figures.files.tolist():
        name, bytes_read, reads, bytes_written, writes = row
        lines.append(f"  file           {name}: read {bytes_read} bytes in {reads} calls, "
                     f"written {bytes_written} bytes in {writes} calls")
    for index, row in enumerate(figures.functions[:TOP_FUNCTIONS].tolist()):
        name, calls, total = row[0], row[1], row[2]
        label = "top functions" if index == 0 else ""
        lines.append(f"  {label:<14} {name} {total:.6f} s in {calls} calls")
    for warning in caught:
        lines.append(f"  damaged        {warning.message}")
    view_path = None
    if write_view:
        view_path = os.path.splitext(project_path)[0] + ".html"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the damage is in the summary already
            write_html(build_timeline(project), view_path)
    return lines, view_path


def write_run_report(project_path, partial, view_path):
    """Writes <program>-report.html and -report.json beside the project;
    returns the findings' lines and the page's path."""
    base = os.path.splitext(project_path)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the damage is in the summary already
        report = build_report(open_project(project_path, partial=partial))
        page = base + "-report.html"
        report.write_html(page, view_path)
        report.write_json(base + "-report.json")
    lines = [f"  {finding.severity:<14} {finding.id}: {finding.message}"
             for finding in report.findings]
    if not lines:
        lines = [f"  findings       none of {len(report.checked)} fired"]
    return lines, page


def describe_traces(directory):
    """Where the traces went and in which form, e.g. '4 compact (.ctrc) in run-1/'."""
    counts = {}
    for name in sorted(os.listdir(directory)):
        if name.endswith((native.XML_TRACE_SUFFIX, native.COMPACT_TRACE_SUFFIX)):
            path = os.path.join(directory, name)
            form = native.trace_form(path)
            suffix = os.path.splitext(name)[1]
            counts[(form, suffix)] = counts.get((form, suffix), 0) + 1
    parts = [f"{count} {form} ({suffix})" for (form, suffix), count in sorted(counts.items())]
    return f"{', '.join(parts) or 'none'} in {_relative(directory)}{os.sep}"


def _relative(path):
    relative = os.path.relpath(path)
    return relative if not relative.startswith("..") else path


def command_run(args):
    try:
        argv, directory = build_command(args)
    except RunError as error:
        _say(f"error: {error}")
        return error.status
    except OSError as error:
        _say(f"error: {error}")
        return 1
    try:
        process = subprocess.Popen(argv)
    except OSError as error:
        _say(f"error: cannot start {argv[0]}: {error}")
        return 127
    status, outcome = describe_status(*_wait_forwarding_signals(process))
    failed = status != 0

    infos = [entry for entry in os.listdir(directory) if entry.endswith(".info")]
    if not infos:
        hint = ("did the launcher start the program? see its messages above; with more "
                "ranks than cores, Open MPI's needs --launcher 'mpiexec --oversubscribe'"
                if failed else "did the program call MPI_Init?")
        _say(f"{outcome}; no trace was written in {_relative(directory)} ({hint})")
        return status
    _say(f"{outcome}; merging {'what was written: ' if failed else ''}"
         f"{len(infos)} traces in {_relative(directory)}")
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    description = "hdtrace run -- " + " ".join(shlex.quote(part) for part in command)
    try:
        project_path, merge_warnings = merge_run(directory, description, force=failed)
        for warning in merge_warnings:
            _say(f"merge warning: {warning}")
        lines, view_path = summarise(project_path, partial=failed, write_view=not args.no_view)
        report_lines, report_path = [], None
        if not args.no_report:
            report_lines, report_path = write_run_report(project_path, failed, view_path)
    except RunError as error:
        _say(f"error: the run in {_relative(directory)} could not be merged: {error}")
        return status or 1
    except Exception as error:  # the reader's and merger's errors: say what, keep the status
        _say(f"error: the run in {_relative(directory)} could not be merged or read: {error}")
        return status or 1
    lines.append(f"  traces         {describe_traces(directory)}")
    lines.append(f"  project        {_relative(project_path)}")
    if view_path:
        lines.append(f"  view           {_relative(view_path)}")
    if report_path:
        lines.append(f"  report         {_relative(report_path)}")
    lines.extend(report_lines)
    print("\n".join([f"{PREFIX}: summary{' (incomplete run)' if failed else ''}"] + lines),
          file=sys.stderr, flush=True)
    return status
