"""native.read_run_table: a run read into one table by the C++ reader
(hdtrace/reader/RunTable.hpp, which the clocks use too) holds exactly the
rows, in the same order, that a trace-by-trace build of the package's table gives
(Project.to_numpy reads a project of many traces through it)."""
import pathlib
import sys

import numpy as np
import pytest

import hdtrace
from hdtrace import native
from hdtrace.table import read_table_as_run, read_table_trace_by_trace

COLUMNS = ("rank", "thread", "start_ns", "end_ns", "size", "peer", "tag", "cid", "fid",
           "offset", "rid")


def assert_same_table(project, names=None, window=None):
    expected = read_table_trace_by_trace(project, names, window)
    from_ns, to_ns = project._window_ns(window)
    run = native.read_run_table(project.path, list(names or ()), from_ns, to_ns, project.partial,
                               project.ranks_in_traces == "local")
    assert len(run["name_code"]) == len(expected.array) > 0
    run_names = np.array(run["names"])
    assert list(run_names[run["name_code"]]) == list(expected.array["name"])
    for column in COLUMNS:
        np.testing.assert_array_equal(run[column], expected.array[column], err_msg=column)
    np.testing.assert_array_equal(run["recv_peer"], expected.recv_peer)
    np.testing.assert_array_equal(run["recv_tag"], expected.recv_tag)
    # Completions and opens name rows of the sorted table.
    completions = sorted(zip(run["completion_row"].tolist(), run["completion_rid"].tolist()))
    assert completions == sorted(zip(expected.completion_row.tolist(),
                                     expected.completion_rid.tolist()))
    opens = sorted(zip(run["open_row"].tolist(), run["open_fid"].tolist(), run["open_name"]))
    assert opens == sorted(zip(expected.open_row.tolist(), expected.open_fid.tolist(),
                               expected.open_name))
    assert run["damage"] == []
    return run


@pytest.mark.parametrize("dialect, project", [("ours", "app.proj"), ("original", "orig.proj")])
def test_run_table_has_the_rows_of_the_package_table(data_dir, dialect, project):
    opened = hdtrace.open(data_dir / dialect / project)
    run = assert_same_table(opened)
    assert set(run["rank"].tolist()) == {leaf.rank for leaf in opened.topology}


def test_run_table_filters_as_the_package_table(data_dir):
    project = hdtrace.open(data_dir / "ours" / "app.proj")
    run = assert_same_table(project, names=["Send", "Recv", "Wait"])
    assert sorted(set(np.array(run["names"])[run["name_code"]].tolist())) == ["Recv", "Send",
                                                                                "Wait"]
    full = project.to_numpy()
    middle = (full["start"][1] + full["start"][-2]) / 2
    run = assert_same_table(project, window=(full["start"][1], middle))
    assert 0 < len(run["name_code"]) < len(full)


def test_run_table_tells_damage_and_refuses_it_unless_partial(copy_project):
    project_path = copy_project("ours")
    leaf = hdtrace.open(project_path).topology.leaves[0]
    text = open(leaf.path, encoding="utf-8").read()
    cut = text.index("<Send")
    with open(leaf.path, "w", encoding="utf-8") as trace:
        trace.write(text[:cut] + "<Send time='oops'")
    with pytest.raises(hdtrace.ReadError) as refused:
        native.read_run_table(str(project_path))
    assert refused.value.file == leaf.path and refused.value.line > 0
    run = native.read_run_table(str(project_path), partial=True)
    assert len(run["damage"]) == 1 and run["damage"][0].startswith(f"{leaf.path}:")
    kept = [name for rank, name in zip(run["rank"], np.array(run["names"])[run["name_code"]])
            if rank == leaf.rank]
    assert kept == ["Init"]


def assert_same_package_tables(left, right):
    assert left.array.dtype == right.array.dtype
    for column in left.array.dtype.names:
        np.testing.assert_array_equal(left.array[column], right.array[column], err_msg=column)
    for column in ("recv_peer", "recv_tag", "name_code"):
        np.testing.assert_array_equal(getattr(left, column), getattr(right, column),
                                      err_msg=column)
    assert left.names == right.names
    assert sorted(zip(left.completion_row.tolist(), left.completion_rid.tolist())) == \
        sorted(zip(right.completion_row.tolist(), right.completion_rid.tolist()))
    assert sorted(zip(left.open_row.tolist(), left.open_fid.tolist(), left.open_name)) == \
        sorted(zip(right.open_row.tolist(), right.open_fid.tolist(), right.open_name))


@pytest.mark.parametrize("dialect, project", [("ours", "app.proj"), ("original", "orig.proj")])
def test_the_table_from_the_run_table_is_the_table_built_trace_by_trace(data_dir, dialect,
                                                                        project):
    """Project.to_numpy reads a project of many traces as one run table
    (read_table_as_run), of few trace by trace: both give the same Table,
    whole, filtered by names and by a time window."""
    opened = hdtrace.open(data_dir / dialect / project)
    full = read_table_trace_by_trace(opened, None, None)
    assert len(full.array) > 0
    assert_same_package_tables(read_table_as_run(opened, None, None), full)
    names = ["Send", "Recv", "Wait"]
    assert_same_package_tables(read_table_as_run(opened, names, None),
                               read_table_trace_by_trace(opened, names, None))
    window = (full.array["start"][1], (full.array["start"][1] + full.array["start"][-2]) / 2)
    assert_same_package_tables(read_table_as_run(opened, None, window),
                               read_table_trace_by_trace(opened, None, window))


def test_a_project_of_many_traces_reads_as_one_run_table(tmp_path, monkeypatch):
    """Beyond TRACES_READ_ONE_BY_ONE traces, small ones on average, the
    table comes from the run table, damaged traces warned of one by one as
    before; larger ones are still read trace by trace."""
    import warnings
    from hdtrace import table as table_module
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "views"))
    import tracegen
    run = tracegen.generate(tmp_path / "run", ranks=6, iterations=2, posix=False)
    trace = sorted((tmp_path / "run").glob("*_3_0.trc"))[0]
    text = trace.read_text()
    trace.write_text(text[:len(text) * 2 // 3])
    monkeypatch.setattr(table_module, "TRACES_READ_ONE_BY_ONE", 2)
    called = []
    original = table_module.read_table_as_run
    monkeypatch.setattr(table_module, "read_table_as_run",
                        lambda *args: called.append(1) or original(*args))
    project = hdtrace.open(run.project, partial=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = project.to_numpy()
    assert called and len(table) > 0
    damaged = [w for w in caught if issubclass(w.category, hdtrace.TraceDamageWarning)]
    assert len(damaged) == 1 and str(trace) in str(damaged[0].message)
    assert_same_package_tables(
        table_module.read_table_as_run(hdtrace.open(run.project, partial=True), None, None),
        read_table_trace_by_trace(hdtrace.open(run.project, partial=True), None, None))
    called.clear()
    monkeypatch.setattr(table_module, "SMALL_TRACE_BYTES", {"xml": 100, "compact": 100})
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        again = hdtrace.open(run.project, partial=True).to_numpy()
    assert not called
    np.testing.assert_array_equal(again, table)
