"""Filters (HDTRACE_FILTER, docs/user/filters.md) on real runs: each rule
kind leaves out exactly the calls, files and ranks it names, and what is
written is still checked value by value against what the program did
(tracecheck.filtered_expectations); a left-out call that made a request
leaves its Wait without a <For> naming it; the result passes hdtrace check
and loads in the Python package; the shorthand variables are the rules they
stand for; a bad filter stops every rank in MPI_Init, with one message that
says where it is wrong, and nothing written."""
import json
import pathlib
import subprocess

import pytest

import tracecheck
from test_posix import load, posix_states, read_log, file_name
from tool_trees import hdtrace, python_env, tools_tree_or_fail


EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "filters"


def write_filter(tmp_path, text, name="run.filter"):
    path = tmp_path / name
    path.write_text(text)
    return path


def merged_project(build_dir, run):
    tools = tools_tree_or_fail(build_dir)
    done = subprocess.run([str(tools / "merger" / "project-merger"), "-q",
                           str(run.trace_dir / tracecheck.sanitize(run.program))],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return tools, run.trace_dir / f"{tracecheck.sanitize(run.program)}.proj"


def assert_consistent(build_dir, run):
    """hdtrace check passes on the merged run, and the Python package reads
    every rank's calls."""
    tools, project = merged_project(build_dir, run)
    checked = hdtrace(tools, "check", project)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "pass the PIOsim checks" in checked.stdout, checked.stdout
    script = ("import sys, hdtrace\n"
              "p = hdtrace.open(sys.argv[1])\n"
              "print(p.topology.ranks, sorted(p.to_dataframe()[\"rank\"].unique().tolist()))\n")
    done = subprocess.run(["/usr/bin/python3", "-c", script, str(project)],
                          env=python_env(tools), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return project, done.stdout


def test_left_out_requests_leave_no_dangling_completion(runner, build_dir, tmp_path):
    """Isend, Irecv and the persistent Send_init left out, and the Test calls:
    every other call is written as without the filter, the Waits that complete
    the left-out requests name none of them, and Start names -1."""
    rules = write_filter(tmp_path, "exclude call MPI_Isend MPI_Irecv MPI_Send_init\n"
                                   "exclude group test   # Test, Testall, Testany, Testsome\n")
    left_out = {"Isend", "Irecv", "Send_init", "Test", "Testall", "Testany", "Testsome"}
    run = runner.run("nonblocking_traced", 2, env={"HDTRACE_FILTER": rules})
    checkers = run.check(keep=lambda tag: tag not in left_out)
    tags = {element.tag for checker in checkers for element in checker.trace.elements}
    assert not tags & left_out, tags & left_out
    assert {"Wait", "Waitall", "Ibsend", "Issend", "Recv_init", "Start"} <= tags
    assert run.result.stderr == ""
    assert_consistent(build_dir, run)


def test_the_last_matching_rule_decides_and_groups_count_as_rules(runner, tmp_path):
    rules = write_filter(tmp_path, "exclude group point-to-point\n"
                                   "include call MPI_Sendrecv*\n"
                                   "exclude call MPI_Sendrecv_replace\n")
    run = runner.run("p2p_traced", 2, env={"HDTRACE_FILTER": rules})
    p2p = {"Send", "Bsend", "Ssend", "Rsend", "Recv", "Sendrecv_replace", "Isend", "Irecv",
           "Probe", "Iprobe"}
    checkers = run.check(keep=lambda tag: tag not in p2p)
    tags = [element.tag for checker in checkers for element in checker.trace.elements]
    assert "Sendrecv" in tags and not set(tags) & p2p


def test_a_left_out_file_open_still_names_the_file(runner, tmp_path):
    """MPI_File_open left out: the calls on the file still carry its id, and
    the .info still names it."""
    rules = write_filter(tmp_path, "exclude call MPI_File_open\n")
    run = runner.run("fileio_traced", 1, env={"HDTRACE_FILTER": rules})
    checkers = run.check(keep=lambda tag: tag != "File_open")
    for checker in checkers:
        fids = {int(e.attrib["fid"]) for e in checker.trace.elements
                if e.tag.startswith("File_") and "fid" in e.attrib}
        assert fids and all(fid in checker.info.files for fid in fids if fid >= 0)


def test_left_out_datatype_calls_still_declare_the_types_written_calls_use(runner, build_dir,
                                                                            tmp_path):
    """examples/filters/no-datatypes.filter: no Type_* state is written, every
    other call is, value by value (the tids of the calls that name derived
    types among them, each with its line in the .info), and the run passes
    hdtrace check."""
    rules = EXAMPLES / "no-datatypes.filter"
    run = runner.run("datatypes_traced", 2, env={"HDTRACE_FILTER": rules})
    checkers = run.check(keep=lambda tag: not tag.startswith("Type_"))
    derived = 0
    for checker in checkers:
        assert not [e.tag for e in checker.trace.elements if e.tag.startswith("Type_")]
        for element in checker.trace.elements:
            for name in ("tid", "filetid", "etid"):
                if name in element.attrib and \
                        int(element.attrib[name]) >= tracecheck.DERIVED_TYPE_BASE:
                    assert int(element.attrib[name]) in checker.info.types, element.attrib
                    derived += 1
    assert derived > 0, "no written call names a derived type"
    assert run.result.stderr == ""
    assert_consistent(build_dir, run)


@pytest.mark.parametrize("how", ["filter", "variable"])
def test_all_functions_off_is_the_rule_exclude_group_ordinary(runner, tmp_path, how):
    env = ({"HDTRACE_FILTER": write_filter(tmp_path, "exclude group ordinary\n")}
           if how == "filter" else {"HDTRACE_ALL_FUNCTIONS": "0"})
    run = runner.run("datatypes_traced", 2, env=env)
    run.assert_ok()
    for rank in range(2):
        trace, _ = load(run, rank)
        ordinary = [e.tag for e in trace.elements if tracecheck.is_ordinary(e)]
        assert ordinary == [], ordinary


def test_a_filter_rule_overrides_the_shorthand_before_it(runner, tmp_path):
    rules = write_filter(tmp_path, "include call MPI_Type_contiguous\n")
    run = runner.run("datatypes_traced", 1, env={"HDTRACE_ALL_FUNCTIONS": "0",
                                                 "HDTRACE_FILTER": rules})
    run.assert_ok()
    trace, _ = load(run, 0)
    ordinary = {e.tag for e in trace.elements if tracecheck.is_ordinary(e)}
    assert ordinary == {"Type_contiguous"}


def test_file_rules_choose_the_c_library_calls_by_path(runner, tmp_path):
    """Only the shared file's calls are written; the program's log says which
    calls were made on it, in order."""
    rules = write_filter(tmp_path, "exclude file *\ninclude file */mixed_mpi.dat\n")
    run = runner.run("posix_mixed_traced", 2, env={"HDTRACE_FILTER": rules,
                                                   "OMPI_MCA_io": "romio321"})
    run.assert_ok()
    for rank in range(2):
        trace, info = load(run, rank)
        own = [element for element, parent in posix_states(trace) if parent is None]
        expected = [entry for entry in read_log(run.result.stdout, rank)
                    if entry[1] == "mixed_mpi.dat"]
        assert expected, "the program made no C library call on the shared file"
        assert [(e.tag, file_name(info, e)) for e in own] == \
            [(tag, name) for tag, name, *_ in expected]


@pytest.mark.parametrize("how", ["filter", "variable"])
def test_the_posix_layer_off(runner, tmp_path, how):
    env = ({"HDTRACE_FILTER": write_filter(tmp_path, "layer posix off\nlayer stdio off\n")}
           if how == "filter" else {"HDTRACE_POSIX": "0"})
    run = runner.run("posix_mixed_traced", 2, env={**env, "OMPI_MCA_io": "romio321"})
    run.assert_ok()
    for rank in range(2):
        trace, _ = load(run, rank)
        assert posix_states(trace) == []
        assert any(e.tag == "File_open" for e in trace.elements)


def test_only_the_chosen_ranks_write_calls(runner, build_dir, tmp_path):
    """ranks 1: rank 1's trace is checked whole; ranks 0 and 2 write traces
    without calls and their .info, so the project holds every rank."""
    rules = write_filter(tmp_path, "ranks 1\n")
    run = runner.run("p2p_traced", 3, env={"HDTRACE_FILTER": rules})
    run.assert_ok()
    checker = tracecheck.load_rank(run.trace_dir, run.expect_dir, run.program, 1)
    checker.check()
    for rank in (0, 2):
        trace, info = load(run, rank)
        assert trace.elements == [], [e.tag for e in trace.elements]
        assert 0 in info.comms
    project, listing = assert_consistent(build_dir, run)
    # Every rank is in the project; only rank 1's calls replay.
    assert listing.split() == ["[0,", "1,", "2]", "[1]"], listing


BAD_FILTERS = [
    ("exclude call MPI_Send\nexlcude group test\n",
     ":2:1: expected a rule: include, exclude, layer or ranks; found 'exlcude'"),
    ("exclude group p2p-probes\n", ":1:15: unknown group 'p2p-probes'; expected one of "),
    ("ranks 0-3,7-5\n", ":1:11: the range '7-5' ends before it starts"),
    ("layer posix of\n", ":1:13: expected on or off after 'layer posix'; found 'of'"),
]


@pytest.mark.parametrize("text,message", BAD_FILTERS, ids=["rule", "group", "ranks", "layer"])
def test_a_bad_filter_stops_every_rank_at_init_and_writes_nothing(runner, tmp_path, text,
                                                                  message):
    rules = write_filter(tmp_path, text)
    trace_dir = tmp_path / "traces"
    run = runner.run("p2p_traced", 2, env={"HDTRACE_FILTER": rules}, cached=False,
                     trace_dir=trace_dir)
    assert run.result.returncode != 0
    said = [line for line in run.result.stderr.splitlines() if "hdtracempi: error" in line]
    assert len(said) == 1, run.result.stderr
    assert f"{rules}{message}" in said[0], said[0]
    assert not trace_dir.exists() or list(trace_dir.iterdir()) == []
    assert "r0 " not in run.result.stdout  # the program did not get past MPI_Init


def test_an_unreadable_filter_stops_every_rank(runner, tmp_path):
    missing = tmp_path / "missing.filter"
    run = runner.run("p2p_traced", 2, env={"HDTRACE_FILTER": missing}, cached=False,
                     trace_dir=tmp_path / "traces")
    assert run.result.returncode != 0
    assert f"{missing}: cannot be read: No such file or directory" in run.result.stderr
    assert run.result.stderr.count("hdtracempi: error") == 1


def test_a_filter_that_leaves_out_everything_warns_once(runner, tmp_path):
    rules = write_filter(tmp_path, "exclude call *\n")
    run = runner.run("p2p_traced", 2, env={"HDTRACE_FILTER": rules})
    run.assert_ok()
    assert run.result.stderr.count("leaves out every call") == 1, run.result.stderr
    for rank in range(2):
        trace, _ = load(run, rank)
        assert trace.elements == []


def test_a_pattern_that_matches_nothing_warns_with_its_place(runner, tmp_path):
    rules = write_filter(tmp_path, "exclude call MPI_Iprobe MPI_Isned\n")
    run = runner.run("p2p_traced", 2, env={"HDTRACE_FILTER": rules})
    run.check(keep=lambda tag: tag != "Iprobe")
    assert run.result.stderr.count(
        f"{rules}:1:25: call pattern 'MPI_Isned' matches no call the wrapper writes") == 1


def score_of(tools, project, *options):
    done = hdtrace(tools, "score", project, "--json", "-", *options)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_score_predicts_what_the_filtered_run_writes(runner, build_dir, tmp_path):
    """hdtrace score --filter on a run without the filter gives, call by call,
    the calls the run with the filter writes, and its trace bytes (the times
    differ from run to run, so the bytes within 2 %)."""
    rules = write_filter(tmp_path, "layer mpi off\ninclude group collective\n")
    plain = runner.run("collectives_traced", 3)
    plain.assert_ok()
    filtered = runner.run("collectives_traced", 3, env={"HDTRACE_FILTER": rules})
    filtered.assert_ok()
    tools, plain_project = merged_project(build_dir, plain)
    _, filtered_project = merged_project(build_dir, filtered)
    predicted = score_of(tools, plain_project, "--filter", rules)
    actual = score_of(tools, filtered_project)
    kept = {call["name"]: call["kept"]["visits"] for call in predicted["calls"]
            if call["kept"]["visits"]}
    written = {call["name"]: call["visits"] for call in actual["calls"]}
    assert kept == written
    collective = predicted_groups(predicted, "collective")
    # The C library's calls stay (only the MPI layer is off): the MPI library's own.
    c_library = {call["name"] for call in predicted["calls"]
                 if call["layer"] in ("posix", "stdio")}
    assert kept and set(kept) <= collective | c_library, set(kept) - collective
    bytes_written = sum(path.stat().st_size for path in filtered.trace_dir.glob("*.trc"))
    assert actual["total"]["bytes_xml"] == bytes_written
    assert predicted["kept"]["bytes_xml"] == pytest.approx(bytes_written, rel=0.02)
    assert predicted["kept"]["visits"] == actual["total"]["visits"]


def predicted_groups(document, group):
    return {call["name"] for call in document["calls"] if group in call["groups"]}
