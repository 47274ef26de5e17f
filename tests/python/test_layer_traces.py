"""How a thread's calls nest across a layer's trace and the main trace
(hdtrace.layer_traces): a main-trace call beneath the layer call whose time
holds it, every other call at the top level, all in start order; and which
layer traces lie beside a main trace."""
import numpy as np

from hdtrace.events import Event
from hdtrace.layer_traces import OWN_TRACE_LAYERS, layer_trace_paths, nest_beneath, \
    nest_tree_beneath, tree_with_layers, with_layers


def call(name, start, end):
    return Event(name, start, end)


def shape(events):
    return [(e.name, shape(e.children)) if e.children else e.name for e in events]


def test_calls_within_a_layer_call_go_beneath_it_and_the_rest_stay_on_top():
    outer = [call("H5Fcreate", 10, 20), call("H5Dwrite", 30, 40), call("H5Fclose", 50, 60),
             call("H5Fflush", 70, 80)]
    inner = [call("Init", 0, 5), call("File_open", 11, 19), call("Barrier", 21, 29),
             call("File_write_at_all", 30, 35), call("File_set_view", 36, 40),
             call("File_close", 55, 60), call("Finalize", 90, 95)]
    assert shape(nest_beneath(outer, inner)) == [
        "Init", ("H5Fcreate", ["File_open"]), "Barrier",
        ("H5Dwrite", ["File_write_at_all", "File_set_view"]), ("H5Fclose", ["File_close"]),
        "H5Fflush", "Finalize"]


def test_a_call_that_outlasts_the_layer_call_stays_on_top_after_it():
    outer = [call("H5Dread", 10, 20)]
    inner = [call("File_read_at", 12, 18), call("Wait", 15, 25), call("Barrier", 26, 27)]
    assert shape(nest_beneath(outer, inner)) == [("H5Dread", ["File_read_at"]), "Wait",
                                                 "Barrier"]


def test_either_stream_may_be_empty():
    assert shape(nest_beneath([], [call("Init", 0, 1)])) == ["Init"]
    assert shape(nest_beneath([call("H5Fopen", 0, 1), call("H5Fclose", 2, 3)], [])) == [
        "H5Fopen", "H5Fclose"]
    assert shape(with_layers(iter([call("Init", 0, 1)]), [])) == ["Init"]


def test_a_layer_call_keeps_the_calls_it_made_in_their_order_with_their_own():
    posix = call("pwrite", 31, 33)
    mpi = Event("File_write_at_all", 30, 35, children=[posix])
    [h5] = nest_beneath([call("H5Dwrite", 29, 36)], [mpi])
    assert h5.children == [mpi] and mpi.children == [posix]


def test_the_layer_traces_beside_a_main_trace_are_found_in_either_form(tmp_path):
    assert OWN_TRACE_LAYERS == ("hdf5",)
    main = tmp_path / "app_h_0_0.trc"
    main.write_text("")
    assert layer_trace_paths(str(main)) == []
    (tmp_path / "app_h_0_0.hdf5.ctrc").write_text("")
    assert layer_trace_paths(str(main)) == [("hdf5", str(tmp_path / "app_h_0_0.hdf5.ctrc"))]
    (tmp_path / "app_h_0_0.hdf5.trc").write_text("")
    assert layer_trace_paths(str(tmp_path / "app_h_0_0.ctrc")) == [
        ("hdf5", str(tmp_path / "app_h_0_0.hdf5.trc"))]


# The same nesting on call trees (the columns the C++ reader gives): a tree
# is built from Events in pre-order, each row's values its own (the fid a
# number per call, so that a row's columns are seen to move with it), and
# read back into Events by its depth and parent columns.
TREE_COLUMNS = ("offset", "size", "asked", "failed", "data_size", "data_offset")


def tree_of(events, opens=()):
    rows = []

    def visit(event, depth, parent, top):
        row = len(rows)
        rows.append((event, depth, parent, top))
        for child in event.children:
            visit(child, depth + 1, row, top)

    for top, event in enumerate(events):
        visit(event, 0, -1, top)
    names = sorted({event.name for event, _, _, _ in rows})
    tree = {"names": names,
            "name_code": np.array([names.index(e.name) for e, _, _, _ in rows], np.int32),
            "depth": np.array([d for _, d, _, _ in rows], np.int8),
            "parent": np.array([p for _, _, p, _ in rows], np.int64),
            "top_row": np.array([t for _, _, _, t in rows], np.int64),
            "start_ns": np.array([e.start_ns for e, _, _, _ in rows], np.int64),
            "end_ns": np.array([e.end_ns for e, _, _, _ in rows], np.int64),
            "fid": np.array([e.start_ns * 1000 + e.end_ns for e, _, _, _ in rows], np.int32),
            "damage": ""}
    for column in TREE_COLUMNS:
        tree[column] = tree["fid"].astype(np.int64) + len(column)
    opened = [row for row, (event, _, _, _) in enumerate(rows) if event.name in opens]
    tree["open_row"] = np.array(opened, np.int64)
    tree["open_fid"] = tree["fid"][opened]
    tree["open_name"] = [rows[row][0].name for row in opened]
    return tree


def events_of(tree):
    """The tree's rows as Events again, checking its columns on the way."""
    count = len(tree["depth"])
    assert all(len(tree[column]) == count for column in ("name_code", "parent", "top_row",
                                                         "start_ns", "end_ns", "fid")
               + TREE_COLUMNS)
    made, top = [], []
    for row in range(count):
        start, end = int(tree["start_ns"][row]), int(tree["end_ns"][row])
        assert tree["fid"][row] == start * 1000 + end  # the row's values travelled with it
        for column in TREE_COLUMNS:
            assert tree[column][row] == tree["fid"][row] + len(column)
        event = Event(tree["names"][tree["name_code"][row]], start, end)
        made.append(event)
        parent = int(tree["parent"][row])
        if parent < 0:
            assert tree["depth"][row] == 0 and tree["top_row"][row] == len(top)
            top.append(event)
        else:
            assert parent < row and tree["depth"][row] == tree["depth"][parent] + 1
            assert tree["top_row"][row] == tree["top_row"][parent]
            made[parent].children.append(event)
    return top


SCENES = {
    "beneath and beside": (
        [call("H5Fcreate", 10, 20), call("H5Dwrite", 30, 40), call("H5Fclose", 50, 60),
         call("H5Fflush", 70, 80)],
        [call("Init", 0, 5), call("File_open", 11, 19), call("Barrier", 21, 29),
         Event("File_write_at_all", 30, 35, children=[call("pwrite", 31, 33),
                                                      call("pwrite", 33, 34)]),
         call("File_set_view", 36, 40), call("File_close", 55, 60), call("Finalize", 90, 95)]),
    "outlasting": ([call("H5Dread", 10, 20)],
                   [call("File_read_at", 12, 18), call("Wait", 15, 25), call("Barrier", 26, 27)]),
    "same start": ([call("H5Fopen", 10, 10), call("H5Dread", 10, 20)],
                   [call("File_open", 10, 10), call("File_read_at", 12, 18)]),
    "no outer": ([], [call("Init", 0, 1), Event("File_open", 2, 3, children=[call("open", 2, 3)])]),
    "no inner": ([call("H5Fopen", 0, 1), call("H5Fclose", 2, 3)], []),
    "nothing": ([], []),
}


def test_trees_nest_as_the_events_do():
    for scene, (outer, inner) in SCENES.items():
        merged = nest_tree_beneath(tree_of(outer), tree_of(inner))
        assert shape(events_of(merged)) == shape(nest_beneath(outer, inner)), scene


def test_a_tree_keeps_the_main_traces_openings_only_and_every_damage():
    outer = [call("H5Fcreate", 10, 20), call("H5Dcreate2", 21, 30)]
    inner = [call("Init", 0, 5), call("File_open", 11, 19), call("File_write_at", 22, 29)]
    outer_tree, inner_tree = tree_of(outer, opens={"H5Dcreate2"}), tree_of(inner, {"File_open"})
    outer_tree["damage"] = "a.hdf5.trc: byte 7"
    inner_tree["damage"] = "a.trc: byte 9"
    merged = nest_tree_beneath(outer_tree, inner_tree)
    names = [merged["names"][code] for code in merged["name_code"]]
    assert names == ["Init", "H5Fcreate", "File_open", "H5Dcreate2", "File_write_at"]
    assert merged["open_row"].tolist() == [2] and merged["open_name"] == ["File_open"]
    assert merged["open_fid"].tolist() == [merged["fid"][2]]
    assert merged["damage"] == "a.hdf5.trc: byte 7; a.trc: byte 9"


def test_trees_of_several_layers_nest_outermost_first():
    netcdf = [call("nc_put_vara", 0, 100)]
    hdf5 = [call("H5Dwrite", 10, 90)]
    main = [Event("File_write_at_all", 20, 80, children=[call("pwrite", 30, 40)])]
    merged = tree_with_layers(tree_of(main), [tree_of(netcdf), tree_of(hdf5)])
    assert shape(events_of(merged)) == [
        ("nc_put_vara", [("H5Dwrite", [("File_write_at_all", ["pwrite"])])])]
    assert merged["depth"].tolist() == [0, 1, 2, 3]
