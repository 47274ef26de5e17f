"""What the PIOsim tools need from the wrapper, on Open MPI and MPICH.

- rootRank right after root on Gather, Gatherv, Scatter, Scatterv (world rank);
- no negative time when MPI_Init straddles a second boundary;
- File_seek_shared logs the shared pointer right after the seek, race-free;
- every predefined datatype the library defines: its .info line carries size,
  extent (and data blocks where it has holes), equal to what MPI says; merged
  (with the merger of this tree, or of the tree HDTRACE_TOOLS_BUILD_DIR names,
  which scripts/test sets for the MPICH tree), the .proj holds only the
  tools' names or byte layouts whose size and extent are MPI's, the Python
  reader gives the MPI name back, and `hdtrace check` passes.
"""
import decimal
import json
import os
import pathlib
import subprocess
import xml.etree.ElementTree as ET

import pytest

import tracecheck
from piosim_tools import ToolsRank
from tool_trees import tools_tree_or_fail

ROOTED_WITH_ROOT = ("Gather", "Gatherv", "Scatter", "Scatterv")
FILTERS = pathlib.Path(__file__).resolve().parents[2] / "examples" / "filters"
# hdtrace/include/hdtrace/PiosimTypes.hpp
PIOSIM_NAMED = {"MPI_BYTE": 1, "MPI_CHAR": 1, "MPI_UNSIGNED_CHAR": 1, "MPI_PACKED": 1,
                "MPI_INT": 4, "MPI_INTEGER": 4, "MPI_FLOAT": 4, "MPI_DOUBLE": 8,
                "MPI_DOUBLE_PRECISION": 8, "MPI_LONG_LONG": 8, "MPI_LB": 0, "MPI_UB": 0,
                "MPI_LONG": 4}


def all_elements(trace):
    return [element for element in trace.root.iter() if element is not trace.root]


# ---------------------------------------------------------------- rootRank

def test_gather_scatter_write_root_rank_equal_to_root(runner):
    run = runner.run("collectives_traced", 4)
    run.check(type_findings=False)  # every attribute in order, against the program
    not_zero = 0
    for rank in range(4):
        trace = tracecheck.parse_trc(tracecheck.trace_base(run.trace_dir, run.program, rank)
                                     .with_suffix(".trc"))
        for element in all_elements(trace):
            if element.tag not in ROOTED_WITH_ROOT:
                continue
            names = list(element.attrib)
            assert names[names.index("root") + 1] == "rootRank", (element.tag, names)
            assert element.attrib["rootRank"] == element.attrib["root"], element.attrib
            not_zero += element.attrib["root"] != "0"
    assert not_zero > 0, "no Gather/Scatter with a root other than world rank 0"


# ---------------------------------------------------------------- times

def test_init_straddling_a_second_boundary_gives_no_negative_time(runner):
    run = runner.run("collectives_traced", 4, env={"HDTRACE_TEST_INIT_STRADDLE": "1"},
                     cached=False)
    run.check(type_findings=False)
    for rank in range(4):
        trace = tracecheck.parse_trc(tracecheck.trace_base(run.trace_dir, run.program, rank)
                                     .with_suffix(".trc"))
        init = trace.root[0]
        assert init.tag == "Init", init.tag
        # The hook read Init's start in the last 3 ms of a second and created
        # the trace in the next one: the start lies in timeAdjustment's second.
        start = decimal.Decimal(init.attrib["time"])
        assert decimal.Decimal("0.997") <= start < 1, (rank, start)
        for element in all_elements(trace):
            for key in ("time", "end"):
                if key in element.attrib:
                    assert not element.attrib[key].startswith("-"), (rank, element.tag,
                                                                     element.attrib)


# ---------------------------------------------------------------- File_seek_shared

def test_seek_shared_logs_the_pointer_right_after_the_seek(runner):
    # 3 ranks x 50 x (Set, Cur, End), each seek followed at once by
    # File_write_shared on every rank; the program's expectations hold the
    # exact pointer in bytes for every seek.
    run = runner.run("seekshared_traced", 3, env={"OMPI_MCA_io": "romio321"}, cached=False)
    run.check(type_findings=False)
    for rank in range(3):
        trace = tracecheck.parse_trc(tracecheck.trace_base(run.trace_dir, run.program, rank)
                                     .with_suffix(".trc"))
        seeks = [e for e in trace.root if e.tag == "File_seek_shared"]
        assert len(seeks) == 150, len(seeks)


# ---------------------------------------------------------------- predefined types

@pytest.fixture(scope="module")
def predefined_run(runner):
    # Open MPI's default OMPIO: its ROMIO fails MPI_File_set_view with
    # MPI_DOUBLE_INT as etype (MPI_ERR_INTERN in MPI_Type_get_contents), also
    # without the wrapper.
    run = runner.run("predefined_traced", 1, args=["predefined.dat"])
    run.assert_ok()
    types, skipped = {}, []
    for line in run.result.stdout.splitlines():
        fields = line.split()
        if fields and fields[0] == "TYPE":
            macro, name, c2f, size, extent, lb, use = fields[1:]
            types.setdefault(int(c2f), dict(macros=[], name=name, size=int(size),
                                            extent=int(extent), lb=int(lb), use=use))
            types[int(c2f)]["macros"].append(macro)
        elif fields and fields[0] == "SKIP":
            skipped.append(fields[1:])
        else:
            assert not fields or fields[0] != "FAILED", line
    assert len(types) > 50, run.result.stdout
    print(f"{len(types)} predefined types; not supported by the library: {skipped}")
    return run, types


def test_every_predefined_type_has_size_extent_and_blocks_in_the_info(predefined_run):
    run, types = predefined_run
    base = tracecheck.trace_base(run.trace_dir, run.program, 0)
    info = tracecheck.parse_info(base.with_suffix(".info"))
    for tid, expected in types.items():
        entry = info.types.get(tid)
        assert entry is not None, f"{expected['macros']}: no Type line for id {tid}"
        assert entry["combiner"] == "MPI_COMBINER_NAMED" and entry["name"] == expected["name"]
        assert (entry["size"], entry["extent"]) == (expected["size"], expected["extent"]), (
            expected, entry)
        blocks = entry["blocks"]
        assert sum(length for _, length in blocks) == expected["size"], (expected, blocks)
        assert all(0 <= offset and offset + length <= expected["extent"]
                   for offset, length in blocks), (expected, blocks)
        if PIOSIM_NAMED.get(expected["name"]) != expected["size"]:
            byte = info.types.get(next(t for t, e in info.types.items() if e["name"] == "MPI_BYTE"))
            assert byte["line"] < entry["line"], "MPI_BYTE's line must come first"
    by_name = {expected["name"]: tid for tid, expected in types.items()}
    # A type with an inner hole: short at 0, int at 4 (the C struct's layout).
    assert info.types[by_name["MPI_SHORT_INT"]]["blocks"] == [(0, 2), (4, 4)]
    trace = tracecheck.parse_trc(base.with_suffix(".trc"))
    views = [e for e in trace.root if e.tag == "File_set_view"]
    writes = [e for e in trace.root if e.tag == "File_write_at"]
    assert len(views) == len(writes)
    viewed = set()
    for view, write in zip(views, writes):
        tid = int(view.attrib["etid"])
        assert view.attrib["filetid"] == view.attrib["etid"] and write.attrib["tid"] == str(tid)
        assert int(write.attrib["size"]) == 2 * types[tid]["size"]
        viewed.add(tid)
    transferred = {int(e.attrib["tid"]) for e in trace.root if e.tag == "Sendrecv"}
    for tid, expected in types.items():
        assert tid in (viewed if expected["use"] == "view" else transferred), expected
    in_view = [e["name"] for e in types.values() if e["use"] == "view"]
    print(f"in a view and a transfer: {len(in_view)}; in a transfer only: "
          f"{[e['name'] for e in types.values() if e['use'] != 'view']}")


def test_merged_predefined_types_are_the_tools_names_or_byte_layouts(predefined_run, build_dir,
                                                                     tmp_path):
    tools = tools_tree_or_fail(build_dir)
    run, types = predefined_run
    merged = subprocess.run([str(tools / "merger" / "project-merger"),
                             str(run.trace_dir / tracecheck.sanitize(run.program))],
                            capture_output=True, text=True, timeout=60)
    assert merged.returncode == 0, merged.stderr
    project = run.trace_dir / f"{tracecheck.sanitize(run.program)}.proj"
    rank = ET.parse(project).getroot().find("Datatypes").find("Rank")
    by_id = {element.attrib["id"]: element for element in rank}
    for element in rank:
        if element.tag == "NAMED":
            name = element.attrib["name"]
            assert name in PIOSIM_NAMED, f"NAMED {name} is not one the PIOsim tools know"
            tid = int(element.attrib["id"])
            if tid in types:
                assert PIOSIM_NAMED[name] == types[tid]["size"], (name, types[tid])
    # Every element is one the tools read in full, with MPI's size and extent.
    read_as_tools = ToolsRank(rank, "rank 0:")
    layouts = 0
    for tid, expected in types.items():
        element = by_id[str(tid)]
        assert element.attrib["name"] == expected["name"]
        assert expected["lb"] == 0, expected
        assert read_as_tools.size_and_extent(str(tid)) == (expected["size"], expected["extent"]), (
            expected, ET.tostring(element))
        layouts += element.tag != "NAMED"
    assert layouts > 30, layouts

    # The reader gives the MPI name back; `hdtrace check` passes.
    env = dict(os.environ, PYTHONPATH=str(tools / "python"))
    script = ("import json, sys, hdtrace\n"
              "p = hdtrace.open(sys.argv[1])\n"
              "print(json.dumps({t.id: [t.combiner, t.name, t.size, t.extent, t.layout]\n"
              "                  for t in p.datatypes[0].values()}))\n")
    read = subprocess.run(["/usr/bin/python3", "-c", script, str(project)], env=env,
                          capture_output=True, text=True, timeout=60)
    assert read.returncode == 0, read.stderr
    decoded = json.loads(read.stdout)
    for tid, expected in types.items():
        combiner, name, size, extent, _layout = decoded[str(tid)]
        assert (combiner, name, size, extent) == ("NAMED", expected["name"], expected["size"],
                                                  expected["extent"]), (expected, decoded[str(tid)])
    checked = subprocess.run(["/usr/bin/python3", "-m", "hdtrace", "check", str(project)],
                             env=env, capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr


# ---------------------------------------------------------------- hdtrace check

CHECKED_RUNS = [("p2p_traced", 4, {}, []), ("nonblocking_traced", 3, {}, []),
                ("collectives_traced", 4, {}, []), ("fileio_traced", 2, {}, []),
                ("datatypes_traced", 2, {}, []), ("comms_traced", 4, {}, []),
                ("seekshared_traced", 3, {"OMPI_MCA_io": "romio321"}, []),
                ("predefined_traced", 1, {}, ["predefined.dat"]),
                # Filtered runs (docs/user/filters.md): calls, requests and files left out.
                ("nonblocking_traced", 2, {"HDTRACE_FILTER": str(FILTERS / "no-polling.filter")},
                 []),
                ("fileio_traced", 1, {"HDTRACE_FILTER": str(FILTERS / "io-only.filter")}, [])]


def run_id(run):
    return f"{run[0]}-{run[1]}" + ("-filtered" if "HDTRACE_FILTER" in run[2] else "")


@pytest.mark.parametrize("program,nranks,env,args", CHECKED_RUNS,
                         ids=[run_id(run) for run in CHECKED_RUNS])
def test_traced_programs_pass_hdtrace_check(runner, build_dir, tmp_path, program, nranks, env,
                                            args):
    """The test programs' runs, merged, load in the PIOsim tools as far as
    `hdtrace check` can tell (the merger's own check included)."""
    tools = tools_tree_or_fail(build_dir)
    run = runner.run(program, nranks, env=env, args=args)
    run.assert_ok()
    traces = tmp_path / "traces"
    traces.mkdir()
    for path in run.trace_dir.iterdir():
        if path.suffix in (".trc", ".info"):
            (traces / path.name).write_bytes(path.read_bytes())
    merged = subprocess.run([str(tools / "merger" / "project-merger"),
                             str(traces / tracecheck.sanitize(program))],
                            capture_output=True, text=True, timeout=60)
    assert merged.returncode == 0, merged.stderr
    env = dict(os.environ, PYTHONPATH=str(tools / "python"))
    checked = subprocess.run(["/usr/bin/python3", "-m", "hdtrace", "check",
                              str(traces / f"{tracecheck.sanitize(program)}.proj")],
                             env=env, capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert f"{nranks} trace(s) pass the PIOsim checks" in checked.stdout, checked.stdout
