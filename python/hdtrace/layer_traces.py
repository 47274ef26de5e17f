"""The traces of layers kept beside a main trace (a layer with own_trace in
the definition: HDF5, as <base>.hdf5.trc) and how a thread's calls nest
across them: a call of the main trace lies beneath the layer call of the
same thread whose time holds it (docs/format/layers.md), so an H5Dwrite
holds the File_write_at_all it made, which holds its pwrite calls. The C++
reader nests call trees the same way (reader/include/hdtrace/reader/
LayerTraces.hpp; native.read_call_tree(path, layers=True))."""
import os

from .calls import LAYERS, layer_key

#: The keys of the layers with traces of their own, outermost first.
OWN_TRACE_LAYERS = tuple(key for key, layer in LAYERS.items() if layer[4])
#: Their names, as the I/O tables and statistics name layers (HDF5).
OWN_TRACE_LAYER_NAMES = tuple(LAYERS[key][0] for key in OWN_TRACE_LAYERS)
_SUFFIXES = (".trc", ".ctrc")


def is_layer_call(name):
    """Whether a call is one of a layer with a trace of its own (an HDF5 call),
    whose children are calls of the main trace."""
    return layer_key(name) in OWN_TRACE_LAYERS


def layer_trace_paths(main_path):
    """[(layer key, path)] of the layer traces beside the main trace at
    main_path (.trc or .ctrc) that exist, outermost layer first."""
    base = main_path
    for suffix in _SUFFIXES:
        if main_path.endswith(suffix):
            base = main_path[: -len(suffix)]
            break
    found = []
    for layer in OWN_TRACE_LAYERS:
        for suffix in _SUFFIXES:
            path = f"{base}.{layer}{suffix}"
            if os.path.isfile(path):
                found.append((layer, path))
                break
    return found


def nest_beneath(outer, inner):
    """The calls of two traces of one thread as one stream of top-level
    Events in start order: each inner call whose time lies within an outer
    call becomes the last of that call's children (the calls it made come
    before a call's own child elements, and an outer layer's calls have
    none); the other inner calls stay at the top level. Both inputs are in
    start order, and the outer calls of a thread do not overlap."""
    outer = iter(outer)
    waiting = next(outer, None)  # the next outer call not yet open
    open_call = None  # the outer call inner calls may still fall into
    for event in inner:
        while waiting is not None and waiting.start_ns <= event.start_ns:
            if open_call is not None:
                yield open_call
            open_call, waiting = waiting, next(outer, None)
        if open_call is not None:
            if event.end_ns <= open_call.end_ns:
                open_call.children.append(event)
                continue
            yield open_call
            open_call = None
        yield event
    if open_call is not None:
        yield open_call
    while waiting is not None:
        yield waiting
        waiting = next(outer, None)


def with_layers(main_events, layer_streams):
    """main_events with the calls of each layer's stream (outermost first)
    above them."""
    events = main_events
    for stream in reversed(layer_streams):
        events = nest_beneath(stream, events)
    return events


__all__ = ["OWN_TRACE_LAYERS", "OWN_TRACE_LAYER_NAMES", "is_layer_call", "layer_trace_paths",
           "nest_beneath", "with_layers"]
