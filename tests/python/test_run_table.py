"""native.read_run_table: a run read into one table by the C++ reader
(hdtrace/reader/RunTable.hpp, which the clocks use too) holds exactly the
rows, in the same order, that the package's table reader builds."""
import numpy as np
import pytest

import hdtrace
from hdtrace import native
from hdtrace.table import read_table

COLUMNS = ("rank", "thread", "start_ns", "end_ns", "size", "peer", "tag", "cid", "fid",
           "offset", "rid")


def assert_same_table(project, names=None, window=None):
    expected = read_table(project, names, window)
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
