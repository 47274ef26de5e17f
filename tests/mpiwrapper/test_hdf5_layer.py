"""The HDF5 layer end to end (programs/hdf5_layers.c): a parallel HDF5
program, linked with libhdtracempi.a or with libhdtracempi.so preloaded,
leaves beside each main trace a trace of its HDF5 calls (<base>.hdf5.trc):
- every call the program made, in its order, with the values it printed
  (dataset numbers and names, the selection's bytes, type sizes, layout,
  extent, transfer mode) and the file's id from the main .info;
- the MPI-IO calls HDF5 made lie within the HDF5 call that made them (the
  readers nest them so), and the POSIX calls within those: three levels;
- the bytes per layer add up to what the program asked for;
- a call on an invalid id gets HDF5's own error, and the trace records it;
- HDTRACE_HDF5=0 writes no layer trace and the same main trace, which is
  all the PIOsim tools read;
- the Python package reads the three levels (an HDF5 call, the MPI-IO
  calls beneath it, their C library calls) from XML and compact traces,
  and the main trace alone on request."""
import collections
import json
import re
import shutil
import subprocess

import pytest

import tracecheck
from hdf5_programs import RANKS, run_program, said as _said, traces as _traces
from hdf5_programs import nanoseconds as _nanoseconds, spans as _spans, within as _within
from tool_trees import hdtrace, python_env, tools_tree_or_fail

PROGRAM = "hdf5_layers"
ON_FILE_EXCEPT = ("H5Pset_fapl_mpio", "H5Pset_dxpl_mpio")


def _run(runner, how, env=None):
    return run_program(runner, PROGRAM, how, env)


@pytest.mark.parametrize("how", ["linked", "preloaded"])
def test_every_hdf5_call_is_in_the_layer_trace_as_the_program_made_it(runner, how):
    run = _run(runner, how)
    for rank in range(RANKS):
        main, layer, info = _traces(run, rank)
        where = f"{layer.path}"
        assert layer.time_adjustment == main.time_adjustment, where
        data = [fid for fid, entry in info.files.items()
                if entry["name"] == "data.h5"]
        assert len(data) == 1, (where, info.files)
        said = _said(run, rank)
        calls = list(layer.root)
        assert [element.tag for element in calls] == [tag for tag, _ in said], where
        for index, (element, (tag, values)) in enumerate(zip(calls, said)):
            at = f"{where} <{tag}> #{index}"
            for key, value in values.items():
                assert element.attrib.get(key) == value, (at, key, element.attrib)
            if "error" in values:
                assert element.attrib["fid"] == "-1", at
            elif tag in ON_FILE_EXCEPT:
                assert "fid" not in element.attrib, at
            else:
                assert element.attrib["fid"] == str(data[0]), at
                assert "error" not in element.attrib, at
        # The communicator H5Pset_fapl_mpio was given: WORLD.
        fapl = calls[0]
        assert info.comms[int(fapl.attrib["cid"])]["name"] == "WORLD", info.comms


def test_mpi_io_and_posix_calls_lie_within_the_hdf5_call_that_made_them(runner):
    run = _run(runner, "linked")
    posix = set(tracecheck.POSIX_CALLS)
    written = collections.Counter()  # by level, of the contiguous dataset's writes
    for rank in range(RANKS):
        main, layer, _ = _traces(run, rank)
        spans = _spans(layer)
        top = list(main.root)
        file_calls = 0
        for position, element in enumerate(top):
            if not element.tag.startswith("File_"):
                continue
            file_calls += 1
            made_by = _within(element, spans)
            assert made_by is not None, (
                f"{main.path}: <{element.tag} time={element.attrib['time']}> lies within no "
                f"HDF5 call: HDF5 made every MPI-IO call of this program")
            # The C library's calls it made: in the <Nested> block before it.
            nested = top[position - 1] if position and top[position - 1].tag == "Nested" else None
            inner = [] if nested is None else [e for e in nested if e.tag in posix]
            for state in inner:
                assert _within(state, [(made_by, *_nanoseconds(made_by))]) is not None, (
                    main.path, state.tag, state.attrib)
            if made_by.tag == "H5Dwrite" and made_by.attrib["dataset"] == "0" and \
                    element.tag.startswith("File_write"):
                written["mpiio"] += int(element.attrib.get("size", 0))
                written["posix"] += sum(int(state.attrib.get("size", 0)) for state in inner
                                        if state.tag.startswith(("pwrite", "write")))
        assert file_calls, f"{main.path}: no MPI-IO call at all"
        for write in (e for e in layer.root if e.tag in ("H5Dwrite", "H5Dread")
                      and e.attrib["dataset"] in ("0", "2") and "error" not in e.attrib):
            start, end = _nanoseconds(write)
            inside = [e.tag for e in top if e.tag.startswith("File_")
                      and start <= _nanoseconds(e)[0] and _nanoseconds(e)[1] <= end]
            kind = "File_write" if write.tag == "H5Dwrite" else "File_read"
            assert any(tag.startswith(kind) for tag in inside), (
                f"{layer.path}: <{write.tag} dataset={write.attrib['dataset']}> holds no "
                f"{kind} call: {inside}")
        written["hdf5"] += sum(int(e.attrib["size"]) for e in layer.root
                               if e.tag == "H5Dwrite" and e.attrib["dataset"] == "0")
    # Each rank asked for its block: the MPI-IO calls carry every rank's,
    # the C library's (by the aggregators of a collective write) all of it.
    asked = RANKS * 1000 * 8
    assert written["hdf5"] == asked, written
    assert written["mpiio"] == asked, written
    assert written["posix"] >= asked, written


def test_the_bytes_of_the_layer_are_what_the_program_asked_for(runner):
    run = _run(runner, "linked")
    for rank in range(RANKS):
        _, layer, _ = _traces(run, rank)
        said = _said(run, rank)
        for tag in ("H5Dwrite", "H5Dread", "H5Awrite", "H5Aread"):
            traced = sum(int(e.attrib["size"]) for e in layer.root if e.tag == tag)
            asked = sum(int(values.get("size", 0)) for said_tag, values in said if said_tag == tag)
            assert traced == asked and asked > 0, (layer.path, tag, traced, asked)


def _diagnostics(stderr):
    """HDF5's error reports in a run's stderr, however the ranks' lines
    interleave: each report's opening, and each function and reason named."""
    return sorted(re.findall(r"HDF5-DIAG: Error detected in HDF5 \([\d.]+\)|"
                             r"in \w+\(\): [a-z_ ]+ ID", stderr))


def test_a_call_on_an_invalid_id_gets_hdf5s_own_error(runner):
    plain = _run(runner, "untraced")
    traced = _run(runner, "linked")
    assert plain.result.stdout.splitlines() and \
        sorted(plain.result.stdout.splitlines()) == sorted(traced.result.stdout.splitlines())
    expected = _diagnostics(plain.result.stderr)
    assert len([found for found in expected if "HDF5-DIAG" in found]) == RANKS and \
        expected.count("in H5Dwrite(): dset_id is not a dataset ID") == RANKS, plain.result.stderr
    assert _diagnostics(traced.result.stderr) == expected, traced.result.stderr
    for rank in range(RANKS):
        _, layer, _ = _traces(traced, rank)
        failed = [e for e in layer.root if "error" in e.attrib]
        assert [(e.tag, e.attrib["error"]) for e in failed] == [("H5Dwrite", "-1")], layer.path


def test_the_layer_off_leaves_the_main_trace_as_it_is_with_it(runner):
    on = _run(runner, "linked")
    off = _run(runner, "linked", env={"HDTRACE_HDF5": "0"})
    assert not list(off.trace_dir.glob("*.hdf5.*")), list(off.trace_dir.iterdir())
    assert len(list(on.trace_dir.glob("*.hdf5.trc"))) == RANKS
    for rank in range(RANKS):
        with_layer, _, _ = _traces(on, rank)
        base = tracecheck.trace_base(off.trace_dir, off.program, rank)
        without = tracecheck.parse_trc(base.with_name(base.name + ".trc"))
        # The same calls with the same values but for times (and the ids of
        # the objects they name, which the .info of each run declares alike).
        def calls(trace):
            return [(e.tag, {k: v for k, v in e.attrib.items() if k not in ("time", "end")})
                    for e in trace.root if e.tag != "Nested"]
        assert calls(with_layer) == calls(without), (with_layer.path, base)


def test_a_bad_switch_value_warns_and_keeps_the_layer_on(runner):
    run = _run(runner, "linked", env={"HDTRACE_HDF5": "maybe"})
    assert "HDTRACE_HDF5='maybe' is not 0 or 1" in run.result.stderr, run.result.stderr
    assert len(list(run.trace_dir.glob("*.hdf5.trc"))) == RANKS


# Read by the tree's Python package in a process of its own: every rank's
# calls with the layers (top-level names; beneath each HDF5 call, its calls
# and theirs) and without (the main trace alone).
READ_LEVELS = """
import json, sys, hdtrace
project = hdtrace.open(sys.argv[1])
def calls(events):
    return [[e.name, e.attrs.get("dataset"), calls(e.children)] for e in events if e.is_call]
print(json.dumps([{"layered": calls(project.trace(rank)),
                   "main": [e.name for e in project.trace(rank, layers=False)],
                   "merged": [e.name for e in project.events() if e.rank == rank]}
                  for rank in range(int(sys.argv[2]))]))
"""


def _read_levels(tools, run):
    done = subprocess.run([str(tools / "merger" / "project-merger"), "-q",
                           str(run.trace_dir / tracecheck.sanitize(run.program))],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    project = run.trace_dir / f"{tracecheck.sanitize(run.program)}.proj"
    read = subprocess.run(["/usr/bin/python3", "-c", READ_LEVELS, str(project), str(RANKS)],
                          env=python_env(tools), capture_output=True, text=True, timeout=300)
    assert read.returncode == 0, read.stderr
    return json.loads(read.stdout)


def _merged(runner, build_dir, form="xml"):
    """(tools tree, run, its project) of a linked run in form, merged."""
    tools = tools_tree_or_fail(build_dir)
    run = _run(runner, "linked", env={"HDTRACE_FORMAT": form} if form == "compact" else None)
    _read_levels(tools, run)  # merges the run
    return tools, run, run.trace_dir / f"{tracecheck.sanitize(run.program)}.proj"


def _python_json(tools, script, project):
    """What script prints as JSON, run by the tree's Python package on project."""
    read = subprocess.run(["/usr/bin/python3", "-c", script, str(project)],
                          env=python_env(tools), capture_output=True, text=True, timeout=300)
    assert read.returncode == 0, read.stderr
    return json.loads(read.stdout)


@pytest.mark.parametrize("form", ["xml", "compact"])
def test_python_reads_three_levels_and_the_main_trace_alone(runner, build_dir, form):
    tools = tools_tree_or_fail(build_dir)
    run = _run(runner, "linked", env={"HDTRACE_FORMAT": form} if form == "compact" else None)
    levels = _read_levels(tools, run)
    posix = set(tracecheck.POSIX_CALLS)
    beneath_dataset_write = collections.Counter()
    for rank, read in enumerate(levels):
        said = [tag for tag, _ in _said(run, rank)]
        top = [name for name, _, _ in read["layered"]]
        # Every HDF5 call at the top level in the program's order, and no
        # MPI-IO call beside them: HDF5 made them all.
        assert [name for name in top if name.startswith("H5")] == said, top
        assert not [name for name in top if name.startswith("File_")], top
        assert read["merged"] == top
        # Without the layers: the main trace's calls, as the PIOsim tools
        # read them; with them, the same calls, some beneath HDF5's.
        def flatten(calls):
            for name, _, children in calls:
                if name.startswith("H5"):
                    yield from flatten(children)  # the main trace's calls it made
                else:
                    yield name
        main = [name for name in read["main"]]
        assert not [name for name in main if name.startswith("H5")], main
        assert sorted(flatten(read["layered"])) == sorted(main)
        for name, dataset, children in read["layered"]:
            if name == "H5Dwrite" and dataset == 0:
                for child, _, grandchildren in children:
                    if child.startswith("File_write"):
                        beneath_dataset_write[child] += 1
                        beneath_dataset_write["posix"] += sum(
                            1 for grandchild, _, _ in grandchildren if grandchild in posix)
    # Three levels: the collective write of dataset 0 on every rank, and the
    # C library's writes beneath them (on the aggregators at least).
    assert sum(count for key, count in beneath_dataset_write.items() if key != "posix") >= RANKS
    assert beneath_dataset_write["posix"] >= 1, beneath_dataset_write


# The timeline every view and export is drawn from, and the Chrome export.
READ_TIMELINE = """
import json, sys, hdtrace
from hdtrace.view.model import build_timeline
timeline = build_timeline(hdtrace.open(sys.argv[1]))
print(json.dumps([[timeline.row[i], timeline.depth[i], timeline.call_name(i),
                   timeline.parent[i]] for i in range(len(timeline))]))
"""


def test_the_views_and_exports_show_three_levels(runner, build_dir, tmp_path):
    tools = tools_tree_or_fail(build_dir)
    run = _run(runner, "linked")
    _read_levels(tools, run)  # merges the run
    project = run.trace_dir / f"{tracecheck.sanitize(run.program)}.proj"
    read = subprocess.run(["/usr/bin/python3", "-c", READ_TIMELINE, str(project)],
                          env=python_env(tools), capture_output=True, text=True, timeout=300)
    assert read.returncode == 0, read.stderr
    calls = json.loads(read.stdout)
    posix = set(tracecheck.POSIX_CALLS)
    for row in range(RANKS):
        mine = [call for call in calls if call[0] == row]
        assert {name for _, depth, name, _ in mine if depth == 0 and name.startswith("File_")} \
            == set(), "an MPI-IO call outside the HDF5 call that made it"
        assert any(name.startswith("File_") and depth == 1 and
                   calls[parent][2].startswith("H5") for _, depth, name, parent in mine)
    # The C library's calls two levels below an HDF5 call (on an aggregator).
    assert any(depth == 2 and name in posix and calls[calls[parent][3]][2].startswith("H5")
               for _, depth, name, parent in calls)
    chrome = tmp_path / "trace.json"
    done = hdtrace(tools, "export", "--chrome", chrome, project)
    assert done.returncode == 0, done.stderr
    events = json.loads(chrome.read_text())["traceEvents"]
    depths = {(event["name"], event.get("args", {}).get("depth", 0)) for event in events
              if event.get("ph") == "X"}
    assert ("H5Dwrite", 0) in depths and ("File_write_at_all", 1) in depths, sorted(depths)[:20]


# The calls on files with the layers and without, and the report built on
# each: the HDF5 layer adds its own row and the nesting beneath it, and
# changes none of the figures of the files, ranks and other layers.
READ_REPORT = """
import json, sys, hdtrace
from hdtrace.io_calls import project_io_calls, walked_io_calls
import hdtrace.report
project = hdtrace.open(sys.argv[1])
io = project_io_calls(project)
walked = walked_io_calls(project)
def rows(calls):
    columns = ("rank", "thread", "layer", "kind", "fid", "offset", "requested", "done",
               "start_ns", "end_ns", "depth", "parent", "failed")
    return [[calls.names[calls["call"][i]],
             calls.files[calls["file"][i]] if calls["file"][i] >= 0 else None,
             calls.names[calls["parent_call"][i]] if calls["parent_call"][i] >= 0 else None]
            + [calls[c][i].item() for c in columns] for i in range(len(calls))]
print(json.dumps({"columns": rows(io), "walked": rows(walked), "layers": io.layers,
                  "with": hdtrace.report.build(project).document(),
                  "without": hdtrace.report.build(project, layers=False).document()}))
"""


@pytest.mark.parametrize("form", ["xml", "compact"])
def test_the_report_has_the_hdf5_layer_and_keeps_every_other_figure(runner, build_dir, form):
    tools, run, project = _merged(runner, build_dir, form)
    result = _python_json(tools, READ_REPORT, project)
    # The columns from the C++ call trees are the walk over Events, row by row.
    assert result["columns"] == result["walked"]
    layer_names = result["layers"]
    hdf5_rows = [row for row in result["columns"] if layer_names[row[5]] == "HDF5"]
    said = [(tag, values) for rank in range(RANKS) for tag, values in _said(run, rank)]
    assert sorted(row[0] for row in hdf5_rows) == sorted(tag for tag, _ in said)
    assert all(row[1] == "data.h5" for row in hdf5_rows if row[7] >= 0), hdf5_rows
    # Every MPI-IO call of the run lies beneath the HDF5 call that made it.
    mpi_io = [row for row in result["columns"] if layer_names[row[5]] == "MPI-IO"]
    assert mpi_io and all(row[2] is not None and row[2].startswith("H5") and row[13] == 1
                          for row in mpi_io), [row for row in mpi_io if row[13] != 1][:3]

    with_layer, without = result["with"], result["without"]
    layers = {layer["name"]: layer for layer in with_layer["layers"]}
    hdf5 = layers["HDF5"]
    asked = collections.Counter()
    for tag, values in said:
        kind = "read" if tag in ("H5Dread", "H5Aread") else \
            "write" if tag in ("H5Dwrite", "H5Awrite") else None
        if kind and "error" not in values:
            asked[kind] += int(values["size"])
            asked[kind + "s"] += 1
    assert (hdf5["calls"], hdf5["bytes_written"], hdf5["bytes_read"]) == (
        len(said), asked["write"], asked["read"]), hdf5
    assert hdf5["own_trace"] and hdf5["beneath"] == {} and "beneath_mpi_io" not in hdf5
    under = layers["MPI-IO"]["beneath"]["HDF5"]
    assert (under["calls"], under["bytes_written"], under["bytes_read"]) == (
        layers["MPI-IO"]["calls"], layers["MPI-IO"]["bytes_written"],
        layers["MPI-IO"]["bytes_read"]), layers["MPI-IO"]
    # Without the layer: the same report, but for HDF5's row and naming, and
    # what only the layer tells: its datasets and own file I/O, the finding
    # on them, and the calls an overlap's writes were made within (HDF5's,
    # or MPI-IO's).
    only_the_layer = "broken-hdf5-collectives"
    assert only_the_layer in {finding["id"] for finding in with_layer["findings"]}

    def unnamed(finding):
        if finding["id"] not in ("overlapping-writes", "conflicting-reads"):
            return finding
        values = {key: value for key, value in finding["values"].items() if key != "calls"}
        message = re.sub(r", rank \d+ within \S+ and rank \d+ within \S+", "",
                         finding["message"])
        return dict(finding, values=values, message=message)

    def plain(document):
        kept = {key: value for key, value in document.items()
                if key not in ("layers", "job", "files", "generated", "datasets", "findings",
                               "checked", "library_io")}
        kept["findings"] = [unnamed(finding) for finding in document["findings"]
                            if finding["id"] != only_the_layer]
        kept["checked"] = [entry for entry in document["checked"]
                           if entry["id"] != only_the_layer]
        kept["layers"] = [{key: value for key, value in layer.items() if key != "beneath"}
                          for layer in document["layers"] if layer["name"] != "HDF5"]
        kept["files"] = [{key: value for key, value in entry.items() if key != "layers"}
                         for entry in document["files"]]
        return kept
    assert plain(with_layer) == plain(without)
    assert with_layer["library_io"] and without["library_io"] == []
    data = [entry for entry in with_layer["files"] if entry["name"] == "data.h5"]
    assert data and data[0]["layers"][0] == "HDF5", with_layer["files"]


# hdtrace stats, in this process and per partition on Dask's scheduler.
READ_STATS = """
import json, sys, dask, hdtrace
project = hdtrace.open(sys.argv[1])
def tables(stats):
    return {"functions": [[row["name"], int(row["calls"]), int(row["bytes"])]
                          for row in stats.functions],
            "layers": [[str(row["layer"]), int(row["rank"]), int(row["bytes_read"]),
                        int(row["reads"]), int(row["bytes_written"]), int(row["writes"])]
                       for row in stats.layers],
            "ranks": [[int(row["rank"]), float(row["mpi"])] for row in stats.ranks],
            "text": stats.format()}
with dask.config.set(scheduler="synchronous"):
    on_dask = tables(hdtrace.stats(project.to_dask()))
print(json.dumps({"here": tables(hdtrace.stats(project)), "dask": on_dask}))
"""


@pytest.mark.parametrize("form", ["xml", "compact"])
def test_stats_count_the_hdf5_calls_beside_the_main_traces(runner, build_dir, form, tmp_path):
    tools, run, project = _merged(runner, build_dir, form)
    result = _python_json(tools, READ_STATS, project)
    here = result["here"]
    assert {key: value for key, value in result["dask"].items() if key != "ranks"} == \
        {key: value for key, value in here.items() if key != "ranks"}
    functions = {name: (calls, moved) for name, calls, moved in here["functions"]}
    expected_layers = []
    for rank in range(RANKS):
        said = _said(run, rank)
        sums = collections.Counter()
        for tag, values in said:
            kind = "read" if tag in ("H5Dread", "H5Aread") else \
                "write" if tag in ("H5Dwrite", "H5Awrite") else None
            if kind:
                sums[kind] += max(int(values.get("size", 0)), 0)
                sums[kind + "s"] += 1
        expected_layers.append(["HDF5", rank, sums["read"], sums["reads"], sums["write"],
                                sums["writes"]])
    totals = [sum(row[i] for row in expected_layers) for i in range(2, 6)]
    assert [row for row in here["layers"] if row[0] == "HDF5"] == \
        expected_layers + [["HDF5", -1, *totals]]
    said = collections.Counter(tag for rank in range(RANKS) for tag, _ in _said(run, rank))
    for tag, count in said.items():
        assert functions[tag][0] == count, (tag, functions[tag], count)
    written = sum(max(int(values.get("size", 0)), 0) for rank in range(RANKS)
                  for tag, values in _said(run, rank) if tag == "H5Dwrite")
    assert functions["H5Dwrite"][1] == written
    assert "HDF5: bytes of the selections" in here["text"]
    # The ranks' time in MPI is the main traces' alone (an HDF5 call holds
    # MPI calls): as the stats of a copy of the run without the layer traces.
    copy = tmp_path / "without-layer"
    shutil.copytree(run.trace_dir, copy)
    for layer_trace in copy.glob("*.hdf5.*"):
        layer_trace.unlink()
    assert _python_json(tools, READ_STATS, copy / project.name)["here"]["ranks"] == \
        here["ranks"]


def _score(tools, project, *args):
    done = hdtrace(tools, "score", project, "--json", "-", *args, check=True)
    return json.loads(done.stdout)


def _trace_bytes(run, pattern):
    return sum(path.stat().st_size for path in run.trace_dir.glob(pattern))


def test_score_counts_the_layer_traces_and_what_a_filter_of_the_layer_keeps(
        runner, build_dir, tmp_path):
    tools, run, project = _merged(runner, build_dir)
    layer_off = tmp_path / "no-hdf5.filter"
    layer_off.write_text("layer hdf5 off\n")
    score = _score(tools, project, "--filter", layer_off)
    # Every byte of every trace, the layer traces' too; the HDF5 calls with
    # their visits; the run's time only once (an HDF5 call holds MPI calls).
    assert score["total"]["bytes_xml"] == _trace_bytes(run, "*.trc")
    said = collections.Counter(tag for rank in range(RANKS) for tag, _ in _said(run, rank))
    visits = {entry["tag"]: entry["visits"] for entry in score["calls"]}
    assert {tag: visits.get(tag) for tag in said} == dict(said)
    main = _score(tools, project)
    assert score["total"]["time_s"] == main["total"]["time_s"]
    # The filter keeps the main traces (and a layer trace without calls,
    # where the run with the filter writes none): within 10 % of that run.
    filtered = _run(runner, "linked", env={"HDTRACE_FILTER": str(layer_off)})
    assert not list(filtered.trace_dir.glob("*.hdf5.*"))
    written = _trace_bytes(filtered, "*.trc")
    kept = score["kept"]["bytes_xml"]
    assert abs(kept - written) <= 0.1 * written, (kept, written)
    assert kept < score["total"]["bytes_xml"] - _trace_bytes(run, "*.hdf5.trc") // 2
    assert not [entry for entry in score["calls"] if entry["tag"].startswith("H5")
                and entry["kept"]["visits"]]


def test_converting_a_project_converts_its_layer_traces(runner, build_dir, tmp_path):
    tools, run, merged = _merged(runner, build_dir)
    copy = tmp_path / "run"
    shutil.copytree(run.trace_dir, copy)
    project = copy / merged.name
    layer_traces = sorted(copy.glob("*.hdf5.trc"))
    assert len(layer_traces) == RANKS
    written = {path.name: path.read_bytes() for path in layer_traces}
    hdtrace(tools, "convert", "--to", "compact", "-q", project, check=True)
    assert sorted(path.name for path in copy.glob("*.hdf5.ctrc")) == \
        sorted(name.replace(".trc", ".ctrc") for name in written)
    for path in layer_traces:
        path.unlink()
    hdtrace(tools, "convert", "-q", project, check=True)  # a project goes to XML
    assert {path.name: path.read_bytes() for path in copy.glob("*.hdf5.trc")} == written


def test_check_reads_the_layer_traces_and_names_a_bad_one(runner, build_dir, tmp_path):
    tools, run, merged = _merged(runner, build_dir)
    done = hdtrace(tools, "check", merged)
    assert done.returncode == 0 and f"{RANKS} trace(s) pass" in done.stdout, done.stdout
    copy = tmp_path / "run"
    shutil.copytree(run.trace_dir, copy)
    project = copy / merged.name
    damaged, foreign = sorted(copy.glob("*.hdf5.trc"))
    text = damaged.read_text()
    damaged.write_text(text[:text.index("<H5Dwrite")] + "<H5Dwrite fid='0")
    foreign.write_text(foreign.read_text().replace("<H5Fflush ", "<Barrier ", 1))
    done = hdtrace(tools, "check", project)
    assert done.returncode == 1, done.stdout
    lines = done.stdout.splitlines()
    assert lines[0].startswith(f"{damaged}:0: the HDF5 layer's trace cannot be read ({damaged}:"), \
        lines
    assert lines[1] == (f"{foreign}:0: <Barrier> is no call of the HDF5 layer: this is not the "
                        f"layer trace HDTrace writes beside "
                        f"{str(foreign).replace('.hdf5.trc', '.trc')}"), lines
    assert lines[2] == (f"hdtrace check: 2 problem(s): HDTrace's readers (not the PIOsim tools) "
                        f"would fail on {project}"), lines


def test_the_report_finds_the_independent_transfers_of_shared_files(runner, build_dir, tmp_path):
    tools, run, project = _merged(runner, build_dir)
    said = [(rank, tag, values) for rank in range(RANKS) for tag, values in _said(run, rank)
            if tag in ("H5Dwrite", "H5Dread") and "error" not in values]
    independent = [values for _, _, values in said if values["transfer"] == "independent"]
    expected = {"calls": len(said), "independent_calls": len(independent),
                "bytes": sum(int(values["size"]) for _, _, values in said),
                "independent_bytes": sum(int(values["size"]) for values in independent)}
    assert 0 < expected["independent_calls"] < expected["calls"], said
    share = expected["independent_calls"] / expected["calls"]

    def findings(*settings):
        page, document = tmp_path / "report.html", tmp_path / "report.json"
        done = hdtrace(tools, "report", project, "-o", page, "--json", document, *settings,
                       check=True)
        assert page.is_file(), done.stderr
        return {finding["id"]: finding for finding in json.loads(document.read_text())["findings"]}

    # The defaults (Drishti's): a handful of transfers is no finding.
    assert "independent-hdf5-transfers" not in findings()
    fired = findings("--set", f"independent-hdf5-transfers.share={share - 0.1}",
                     "--set", "independent-hdf5-transfers.count=0")["independent-hdf5-transfers"]
    assert fired["values"] == expected
    assert fired["files"] == ["data.h5"] and fired["ranks"] == list(range(RANKS))
    assert fired["message"].startswith(
        f"{expected['independent_calls']} of the {expected['calls']} HDF5 dataset reads and "
        f"writes on files shared by ranks ({100 * share:.1f} %; "), fired["message"]
    # At the share itself it stays silent: it fires above it.
    assert "independent-hdf5-transfers" not in findings(
        "--set", f"independent-hdf5-transfers.share={share}",
        "--set", "independent-hdf5-transfers.count=0")


# The report's datasets, from what the program printed: each transfer's
# bytes and mode, the creations and openings, and, beneath, the file bytes
# its selection's elements take in the dataset's type.
READ_DATASETS = """
import json, sys, hdtrace
import hdtrace.report
project = hdtrace.open(sys.argv[1])
report = hdtrace.report.build(project)
page = sys.argv[1] + ".html"
report.write_html(page)
one = hdtrace.report.build(project, dataset_limit=1)
one.write_html(page + ".one.html")
print(json.dumps({"with": report.document(), "page": open(page).read(),
                  "without": hdtrace.report.build(project, layers=False).document(),
                  "one": one.document(), "one_page": open(page + ".one.html").read()}))
"""


def _expected_datasets(run):
    """{dataset name: figures} as the ranks' printed calls give them."""
    expected = {}
    for rank in range(RANKS):
        names = {}
        for tag, values in _said(run, rank):
            if "dataset" not in values or "error" in values:
                continue
            if "name" in values:
                names[values["dataset"]] = values["name"]
            entry = expected.setdefault(names[values["dataset"]], collections.Counter())
            entry["ranks " + str(rank)] = 1
            if "name" in values:  # a creation or an opening, of either API
                entry["opens"] += 1
                if "layout" in values:
                    entry["layout " + values["layout"]] = 1
            if "elements" in values:  # a creation or a resizing: the last one holds
                entry["elements"] = int(values["elements"])
            for key in ("typeSize", "fileTypeSize"):
                if key in values:
                    entry["type_size"] = int(values[key])
            if tag not in ("H5Dwrite", "H5Dread"):
                continue
            op = "writes" if tag == "H5Dwrite" else "reads"
            size, memory, stored = (int(values[key]) for key in
                                    ("size", "memTypeSize", "fileTypeSize"))
            entry[op] += 1
            entry["bytes_" + ("written" if op == "writes" else "read")] += size
            entry["file_bytes_" + ("written" if op == "writes" else "read")] += \
                size // memory * stored
            collective = values["transfer"] == "collective"
            entry["collective" if collective else "independent"] += 1
            if memory != stored:
                entry["converted"] += 1
                # HDF5 does a transfer that converts independently.
                entry["collective_done_independently"] += collective
    return expected


@pytest.mark.parametrize("form", ["xml", "compact"])
def test_the_report_sums_each_dataset_and_finds_collectives_done_independently(
        runner, build_dir, form):
    tools, run, project = _merged(runner, build_dir, form)
    result = _python_json(tools, READ_DATASETS, project)
    expected = _expected_datasets(run)
    assert set(expected) == {"contiguous", "chunked", "legacy"}, expected
    document = result["with"]
    datasets = {entry["name"]: entry for entry in document["datasets"]}
    assert sorted(datasets) == sorted(expected)
    assert [entry["name"] for entry in document["datasets"]] == sorted(
        expected, key=lambda name: -(expected[name]["bytes_read"] +
                                     expected[name]["bytes_written"]))
    for name, figures in expected.items():
        entry = datasets[name]
        assert entry["file"] == "data.h5"
        assert entry["ranks"] == sum(1 for key in figures if key.startswith("ranks "))
        assert entry["layout"] == next(key.split()[1] for key in figures
                                       if key.startswith("layout "))
        for key in ("opens", "writes", "reads", "bytes_written", "bytes_read", "collective",
                    "independent", "converted", "collective_done_independently"):
            assert entry[key] == figures[key], (name, key, entry)
        # What reached MPI-IO and the file beneath: the selections' elements
        # in the dataset's type (ompio moves each byte once).
        for layer in ("mpi_io", "posix"):
            assert entry[f"{layer}_bytes_written"] == figures["file_bytes_written"], entry
            assert entry[f"{layer}_bytes_read"] == figures["file_bytes_read"], entry
        if figures["reads"] + figures["writes"]:
            assert entry["time_s"] > 0 and 0 < entry["file_calls_s"] < entry["time_s"]
            assert entry["library_s"] == pytest.approx(entry["time_s"] - entry["file_calls_s"])
        else:  # created and opened only
            assert entry["time_s"] == entry["file_calls_s"] == entry["library_s"] == 0
    assert datasets["chunked"]["collective_done_independently"] == RANKS
    assert datasets["contiguous"]["collective_done_independently"] == 0
    # Each dataset's size: its last extent times its type's size in the file
    # (the chunked one was resized after its creation).
    for name, figures in expected.items():
        assert figures["elements"] > 0 and figures["type_size"] > 0, (name, figures)
        assert datasets[name]["elements"] == figures["elements"], (name, datasets[name])
        assert datasets[name]["dataset_bytes"] == figures["elements"] * figures["type_size"]
    # The most common transfer sizes (reads and writes together), as the
    # ranks printed them; the slowest rank by its time in the transfers.
    sizes = collections.defaultdict(collections.Counter)
    for rank in range(RANKS):
        names = {}
        for tag, values in _said(run, rank):
            if "name" in values and "dataset" in values:
                names[values["dataset"]] = values["name"]
            if tag in ("H5Dwrite", "H5Dread") and "error" not in values:
                sizes[names[values["dataset"]]][int(values["size"])] += 1
    for name, entry in datasets.items():
        common = sorted(sizes[name].items(), key=lambda item: (-item[1], item[0]))[:4]
        assert entry["common_sizes"] == [{"size": size, "count": count}
                                         for size, count in common], (name, entry)
        if not common:
            assert (entry["slowest_rank"], entry["slowest_rank_s"]) == (-1, 0.0)
        else:
            assert entry["slowest_rank"] in range(RANKS)
            assert entry["time_s"] / RANKS <= entry["slowest_rank_s"] <= entry["time_s"]
    if form == "xml":  # the times from the layer traces as written
        for name, entry in datasets.items():
            seconds = collections.Counter()
            for rank in range(RANKS):
                _, layer, _ = _traces(run, rank)
                named = {}
                for element in layer.root:
                    if "name" in element.attrib and "dataset" in element.attrib:
                        named[element.attrib["dataset"]] = element.attrib["name"]
                    if element.tag in ("H5Dwrite", "H5Dread") and "error" not in \
                            element.attrib and named[element.attrib["dataset"]] == name:
                        start, end = _nanoseconds(element)
                        seconds[rank] += end - start
            if seconds:
                rank, most = min(seconds.items(), key=lambda item: (-item[1], item[0]))
                assert entry["slowest_rank"] == rank, (name, seconds, entry)
                assert entry["slowest_rank_s"] == pytest.approx(most / 1e9, rel=1e-9)

    fired = {finding["id"]: finding for finding in document["findings"]}
    broken = fired["broken-hdf5-collectives"]
    asked = sum(figures["collective"] for figures in expected.values())
    assert broken["values"] == {
        "asked_collective": asked, "done_independently": RANKS, "converted": RANKS,
        "datasets": [{"file": "data.h5", "name": "chunked", "done_independently": RANKS}]}
    assert broken["files"] == ["data.h5"] and broken["ranks"] == list(range(RANKS))
    assert broken["message"].startswith(
        f"{RANKS} of the {asked} HDF5 dataset transfers asked to be collective"), broken
    # Where ranks wrote the same bytes (HDF5's fill values of a chunk when it
    # creates the dataset, then the program's data), or one read what the
    # other wrote, collectives ordered them.
    for finding_id in ("overlapping-writes", "conflicting-reads"):
        overlap = fired.get(finding_id)
        assert overlap is None or (overlap["severity"] == "info" and
                                   overlap["values"]["unordered_bytes"] == 0 and
                                   all(call.startswith("H5")  # the HDF5 calls that did it
                                       for call in overlap["values"]["calls"])), overlap

    # The page's table: a row per dataset with the same figures.
    section = result["page"].split("<section id='datasets'>", 1)[1].split("</section>", 1)[0]
    section = section.split("<div id='library-io'>", 1)[0]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", row)
            for row in re.findall(r"<tr>(<td.*?)</tr>", section)]
    assert [row[1] for row in rows] == [entry["name"] for entry in document["datasets"]]
    for row in rows:
        entry = datasets[row[1]]
        assert row[0] == "data.h5" and row[2] == entry["layout"]
        assert [int(cell.replace(",", "")) for cell in row[3:11]] == [
            entry[key] for key in ("ranks", "writes", "bytes_written", "reads", "bytes_read",
                                   "collective", "collective_done_independently",
                                   "converted")]

    # With one dataset listed, the others summed below it.
    one = result["one"]
    assert one["datasets"] == document["datasets"][:1]
    left = document["datasets"][1:]
    assert one["datasets_left_out"] == dict(
        {key: sum(entry[key] for entry in left) for key in left[0]
         if key not in ("file", "name", "layout", "ranks", "common_sizes", "slowest_rank",
                        "slowest_rank_s", "elements", "dataset_bytes")}, datasets=len(left))
    assert document["datasets_left_out"] is None
    assert (f"{len(left)} more datasets: {one['datasets_left_out']['bytes_read']:,} B read"
            in result["one_page"])

    # Without the layer traces: no dataset, and the check stays silent.
    without = result["without"]
    assert without["datasets"] == []
    assert {"id": "broken-hdf5-collectives", "fired": False, "checked": True} in \
        without["checked"]


def test_the_report_page_of_an_hdf5_run_in_chromium(runner, build_dir, tmp_path):
    """The page as a person sees it: no console error, every figure drawn,
    the datasets' table with a row per dataset and the library's own file
    I/O with a row per call; a screenshot of that section is kept with the
    test artifacts."""
    import os
    import pathlib
    import sys
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "views"))
    import buildtree
    from browser import Browser
    tools, run, project = _merged(runner, build_dir)
    page = tmp_path / "report.html"
    hdtrace(tools, "report", project, "-o", page, check=True)
    expected = _expected_datasets(run)
    with Browser(width=1200, height=900) as browser:
        browser.open(page.as_uri())
        assert browser.console_errors() == []
        figures = browser.evaluate(
            "Array.from(document.querySelectorAll('figure svg')).map(s => "
            "s.querySelectorAll('path, use, rect').length)")
        assert figures and min(figures) > 10, figures
        rows = browser.evaluate(
            "Array.from(document.querySelectorAll('#dataset-table tbody tr')).map(r => "
            "Array.from(r.cells).map(c => c.innerText))")
        assert sorted(row[1] for row in rows) == sorted(expected)
        for row in rows:
            figures = expected[row[1]]
            assert [int(cell.replace(",", "")) for cell in (row[4], row[5], row[6], row[7])] == [
                figures["writes"], figures["bytes_written"], figures["reads"],
                figures["bytes_read"]], row
        library = browser.evaluate(
            "Array.from(document.querySelectorAll('#library-io tbody tr')).map(r => "
            "Array.from(r.cells).map(c => c.innerText))")
        library_expected = _expected_library_io(run)
        assert sorted(row[1] for row in library) == sorted(library_expected)
        for row in library:
            figures = library_expected[row[1]]
            assert [int(cell.replace(",", "")) for cell in row[4:8]] == [
                figures["reads"], figures["bytes_read"], figures["writes"],
                figures["bytes_written"]], row
        browser.evaluate("document.getElementById('datasets').scrollIntoView()")
        picture = browser.screenshot()
    artifacts = pathlib.Path(os.environ.get("HDTRACE_TEST_ARTIFACTS",
                                            buildtree.build_dir() / "test-artifacts"))
    artifacts.mkdir(parents=True, exist_ok=True)
    (artifacts / "report-hdf5-datasets.png").write_bytes(picture)


# The file I/O HDF5 did on its own (metadata, a chunked dataset's fill
# values), from the traces as written: each MPI-IO call at the top level of
# the main trace lies within the HDF5 call that made it.
READ_LIBRARY_IO = """
import json, sys, hdtrace
import hdtrace.report
report = hdtrace.report.build(hdtrace.open(sys.argv[1]))
page = sys.argv[1] + ".html"
report.write_html(page)
print(json.dumps({"document": report.document(), "page": open(page).read(),
                  "table": report.tables()["library_io"].to_dict("records")}))
"""
MOVES_PROGRAM_DATA = ("H5Dwrite", "H5Dread", "H5Awrite", "H5Aread")


def _expected_library_io(run):
    """{HDF5 call: figures} of the MPI-IO calls within the HDF5 calls that
    move none of the program's data, as the XML traces hold them."""
    expected = {}
    made = collections.defaultdict(set)
    for rank in range(RANKS):
        main, layer, _ = _traces(run, rank)
        spans = _spans(layer)
        for element in main.root:
            # A <Nested> block holds the C library calls of the MPI call
            # after it, beneath MPI-IO.
            if "time" not in element.attrib:
                continue
            made_by = _within(element, spans)
            if made_by is None or made_by.tag in MOVES_PROGRAM_DATA:
                continue
            # HDF5's MPI-IO driver makes every file access through MPI-IO.
            assert element.tag not in tracecheck.POSIX_CALLS, (main.path, element.tag)
            if not element.tag.startswith("File_"):
                continue
            entry = expected.setdefault(made_by.tag, collections.Counter())
            made[made_by.tag].add((rank, made_by.attrib["time"]))
            entry["ranks " + str(rank)] = 1
            start, end = _nanoseconds(element)
            entry["time_ns"] += end - start
            if element.tag.startswith(("File_read", "File_iread")):
                entry["reads"] += 1
                entry["bytes_read"] += int(element.attrib["size"])
            elif element.tag.startswith(("File_write", "File_iwrite")):
                entry["writes"] += 1
                entry["bytes_written"] += int(element.attrib["size"])
            else:
                entry["other"] += 1
    for tag, entry in expected.items():
        entry["calls"] = len(made[tag])
        entry["ranks"] = sum(1 for key in list(entry) if key.startswith("ranks "))
    return expected


def test_the_report_ties_the_librarys_own_file_io_to_the_call_that_made_it(runner, build_dir):
    tools, run, project = _merged(runner, build_dir)
    result = _python_json(tools, READ_LIBRARY_IO, project)
    expected = _expected_library_io(run)
    # The program creates a chunked dataset (its fill values), opens files
    # and datasets (metadata read) and flushes and closes (metadata written).
    assert {"H5Dcreate2", "H5Fopen", "H5Dopen2", "H5Fflush", "H5Fclose"} <= set(expected), \
        expected
    assert expected["H5Dcreate2"]["bytes_written"] > 0 and expected["H5Fopen"]["reads"] > 0
    entries = result["document"]["library_io"]
    assert sorted(entry["call"] for entry in entries) == sorted(expected)
    assert [entry["time_s"] for entry in entries] == sorted(
        (entry["time_s"] for entry in entries), reverse=True)
    for entry in entries:
        figures = expected[entry["call"]]
        assert entry["layer"] == "HDF5"
        for key in ("calls", "ranks", "reads", "bytes_read", "writes", "bytes_written", "other"):
            assert entry[key] == figures[key], (entry["call"], key, entry, figures)
        assert entry["time_s"] == pytest.approx(figures["time_ns"] / 1e9, rel=1e-9, abs=1e-9)
    assert result["table"] == entries
    # The page's table: a row per call with the same figures.
    section = result["page"].split("<div id='library-io'>", 1)[1].split("</div>", 1)[0]
    rows = [re.findall(r"<td[^>]*>(.*?)</td>", row)
            for row in re.findall(r"<tr>(<td.*?)</tr>", section)]
    assert [row[1] for row in rows] == [entry["call"] for entry in entries]
    for row, entry in zip(rows, entries):
        assert [int(cell.replace(",", "")) for cell in row[2:9]] == [
            entry[key] for key in ("calls", "ranks", "reads", "bytes_read", "writes",
                                   "bytes_written", "other")]
    # A run in the compact form: the same figures but the times.
    _, _, compact = _merged(runner, build_dir, "compact")
    compact_entries = _python_json(tools, READ_LIBRARY_IO, compact)["document"]["library_io"]

    def untimed(listed):
        return sorted((dict(entry, time_s=None) for entry in listed), key=lambda e: e["call"])
    assert untimed(compact_entries) == untimed(entries)
    assert all(entry["time_s"] > 0 for entry in compact_entries)
