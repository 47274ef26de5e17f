"""How a thread's calls nest across a layer's trace and the main trace
(hdtrace.layer_traces): a main-trace call beneath the layer call whose time
holds it, every other call at the top level, all in start order; and which
layer traces lie beside a main trace."""
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
