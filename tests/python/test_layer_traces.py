"""How a thread's calls nest across a layer's trace and the main trace
(hdtrace.layer_traces): a main-trace call beneath the layer call whose time
holds it, every other call at the top level, all in start order; and which
layer traces lie beside a main trace."""
import pytest

from hdtrace import native
from hdtrace.errors import ReadError
from hdtrace.events import Event
from hdtrace.layer_traces import OWN_TRACE_LAYERS, layer_trace_paths, nest_beneath, with_layers


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


# The same nesting in the C++ reader's call trees (native.read_call_tree
# with layers): the scenes below written as a main trace and an HDF5 layer
# trace beside it, each call's fid a number of its own (so that a row's
# values are seen to move with it), read back into Events by the tree's
# depth and parent columns, and compared with nest_beneath's Events.

def _seconds(nanoseconds):
    return f"{nanoseconds // 10**9}.{nanoseconds % 10**9:09d}"


def _fid(event):
    return event.start_ns * 1000 + event.end_ns


def write_trace(path, events):
    lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>", "<Program timeAdjustment='0'>"]
    for event in events:
        if event.children:
            lines.append("<Nested>")
            lines += [f"  <{child.name} fid='{_fid(child)}' time='{_seconds(child.start_ns)}' "
                      f"end='{_seconds(child.end_ns)}'/>" for child in event.children]
            lines.append("</Nested>")
        lines.append(f"<{event.name} fid='{_fid(event)}' time='{_seconds(event.start_ns)}' "
                     f"end='{_seconds(event.end_ns)}'/>")
    lines.append("</Program>")
    path.write_text("\n".join(lines) + "\n")


def events_of(tree):
    """The tree's rows as Events again, checking its columns on the way."""
    count = len(tree["depth"])
    made, top = [], []
    for row in range(count):
        start, end = int(tree["start_ns"][row]), int(tree["end_ns"][row])
        event = Event(tree["names"][tree["name_code"][row]], start, end)
        assert tree["fid"][row] == _fid(event) % 2**31  # the row's values travelled with it
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


def read_layered(tmp_path, outer, inner, name="app_h_0_0"):
    main = tmp_path / f"{name}.trc"
    write_trace(main, inner)
    if outer is not None:
        write_trace(tmp_path / f"{name}.hdf5.trc", outer)
    return native.read_call_tree(str(main), layers=True)


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
    "no outer calls": ([], [call("Init", 0, 1), Event("File_open", 2, 3,
                                                      children=[call("open", 2, 3)])]),
    "no inner calls": ([call("H5Fopen", 0, 1), call("H5Fclose", 2, 3)], []),
    "nothing": ([], []),
}


def test_the_readers_tree_nests_as_the_events_do(tmp_path):
    for index, (scene, (outer, inner)) in enumerate(SCENES.items()):
        tree = read_layered(tmp_path, outer, inner, name=f"app_h_{index}_0")
        assert shape(events_of(tree)) == shape(nest_beneath(outer, inner)), scene


def test_without_a_layer_trace_or_without_layers_the_tree_is_the_main_traces(tmp_path):
    _, inner = SCENES["beneath and beside"]
    alone = read_layered(tmp_path, None, inner)
    assert shape(events_of(alone)) == shape(inner)
    write_trace(tmp_path / "app_h_0_0.hdf5.trc", SCENES["beneath and beside"][0])
    plain = native.read_call_tree(str(tmp_path / "app_h_0_0.trc"))
    assert shape(events_of(plain)) == shape(inner)


def test_the_tree_keeps_the_main_traces_openings_only(tmp_path):
    outer = [call("H5Fcreate", 10, 20), call("H5Dcreate2", 21, 30)]
    inner = [call("Init", 0, 5), call("File_open", 11, 19), call("File_write_at", 22, 29)]
    main = tmp_path / "app_h_0_0.trc"
    write_trace(main, inner)
    main.write_text(main.read_text().replace("<File_open ", "<File_open name='data.h5' "))
    layer = tmp_path / "app_h_0_0.hdf5.trc"
    write_trace(layer, outer)
    layer.write_text(layer.read_text().replace("<H5Dcreate2 ", "<H5Dcreate2 name='d' "))
    tree = native.read_call_tree(str(main), layers=True)
    names = [tree["names"][code] for code in tree["name_code"]]
    assert names == ["Init", "H5Fcreate", "File_open", "H5Dcreate2", "File_write_at"]
    assert tree["open_row"].tolist() == [2] and tree["open_name"] == ["data.h5"]
    assert tree["open_fid"].tolist() == [tree["fid"][2]]


def test_a_damaged_layer_trace_is_named_or_kept_up_to_its_damage(tmp_path):
    outer, inner = SCENES["beneath and beside"]
    main = tmp_path / "app_h_0_0.trc"
    write_trace(main, inner)
    layer = tmp_path / "app_h_0_0.hdf5.trc"
    write_trace(layer, outer)
    text = layer.read_text()
    layer.write_text(text[:text.index("<H5Fclose")] + "<H5Fclose fid='1' time='0.0000")
    with pytest.raises(ReadError, match="app_h_0_0.hdf5.trc"):
        native.read_call_tree(str(main), layers=True)
    tree = native.read_call_tree(str(main), partial=True, layers=True)
    assert "app_h_0_0.hdf5.trc" in tree["damage"]
    assert [name for name, _ in shape_pairs(events_of(tree))][:4] == [
        "Init", "H5Fcreate", "Barrier", "H5Dwrite"]


def shape_pairs(events):
    return [(e.name, len(e.children)) for e in events]
