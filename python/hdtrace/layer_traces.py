"""The traces of layers kept beside a main trace (a layer with own_trace in
the definition: HDF5, as <base>.hdf5.trc) and how a thread's calls nest
across them: a call of the main trace lies beneath the layer call of the
same thread whose time holds it (docs/format/layers.md), so an H5Dwrite
holds the File_write_at_all it made, which holds its pwrite calls."""
import os

import numpy as np

from .calls import LAYERS, layer_key

#: The keys of the layers with traces of their own, outermost first.
OWN_TRACE_LAYERS = tuple(key for key, layer in LAYERS.items() if layer[4])
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


#: The columns of a call tree (native.read_call_tree) with a value per row.
_ROW_COLUMNS = ("depth", "start_ns", "end_ns", "fid", "offset", "size", "asked", "failed",
                "data_size", "data_offset")


def nest_tree_beneath(outer, inner):
    """nest_beneath for call trees (native.read_call_tree's dicts): one tree,
    in pre-order, whose rows are the outer tree's and the inner tree's; each
    top-level inner call whose time lies within a top-level outer call is
    that call's child, one level deeper with all it holds. The opening calls
    (open_row, open_fid, open_name) are the inner tree's: an outer layer's
    names are of its own objects (an HDF5 dataset), not of files."""
    outer_count, inner_count = len(outer["depth"]), len(inner["depth"])
    outer_top = np.flatnonzero(outer["depth"] == 0)
    top_start = outer["start_ns"][outer_top]
    top_end = outer["end_ns"][outer_top]
    inner_top = inner["top_row"]  # the number of each row's top-level call
    # The outer call each inner top-level call falls within (-1: none).
    heads = np.flatnonzero(inner["depth"] == 0)
    within = np.searchsorted(top_start, inner["start_ns"][heads], side="right") - 1
    held = within >= 0
    held[held] = inner["end_ns"][heads][held] <= top_end[within[held]]
    container = np.full(inner_count, -1, dtype=np.int64)
    if len(outer_top) and inner_count:
        container = np.where(held, outer_top[np.maximum(within, 0)], -1)[inner_top]

    # Pre-order: an outer call's rows, then the inner calls it holds, then
    # the next; inner calls held by none go where their start puts them (at
    # one start, after the outer call, as nest_beneath puts them).
    outer_key = top_start[outer["top_row"]] if outer_count else np.zeros(0, np.int64)
    inner_held = container >= 0
    own_key = inner["start_ns"][heads][inner_top] if inner_count else np.zeros(0, np.int64)
    held_key = outer["start_ns"][np.maximum(container, 0)] if outer_count else own_key
    inner_key = np.where(inner_held, held_key, own_key)
    key = np.concatenate([outer_key, inner_key]).astype(np.int64)
    rank = np.concatenate([np.zeros(outer_count, np.int8), np.ones(inner_count, np.int8)])
    row = np.concatenate([np.arange(outer_count), np.arange(inner_count)])
    order = np.lexsort((row, rank, key))
    place = np.empty(len(order), dtype=np.int64)
    place[order] = np.arange(len(order))
    outer_place, inner_place = place[:outer_count], place[outer_count:]

    merged = {"names": list(outer["names"]) + list(inner["names"])}
    merged["name_code"] = np.concatenate(
        [outer["name_code"], inner["name_code"] + len(outer["names"])])[order].astype(
            inner["name_code"].dtype)
    for column in _ROW_COLUMNS:
        merged[column] = np.concatenate([outer[column], inner[column]])[order].astype(
            inner[column].dtype)
    merged["depth"] += np.concatenate([np.zeros(outer_count, merged["depth"].dtype),
                                       inner_held.astype(merged["depth"].dtype)])[order]
    outer_parent = np.where(outer["parent"] >= 0, outer_place[np.maximum(outer["parent"], 0)],
                            -1) if outer_count else np.zeros(0, np.int64)
    container_place = outer_place[np.maximum(container, 0)] if outer_count else container
    inner_parent = np.where(inner["parent"] >= 0, inner_place[np.maximum(inner["parent"], 0)],
                            np.where(inner_held, container_place, -1))
    merged["parent"] = np.concatenate([outer_parent, inner_parent])[order].astype(
        inner["parent"].dtype)
    merged["top_row"] = (np.cumsum(merged["depth"] == 0) - 1).astype(inner["top_row"].dtype)
    merged["open_row"] = inner_place[inner["open_row"]].astype(inner["open_row"].dtype) \
        if len(inner["open_row"]) else inner["open_row"]
    merged["open_fid"] = inner["open_fid"]
    merged["open_name"] = inner["open_name"]
    merged["damage"] = "; ".join(damage for damage in (outer["damage"], inner["damage"])
                                 if damage)
    return merged


def tree_with_layers(main_tree, layer_trees):
    """main_tree with the calls of each layer's tree (outermost first) above
    them: with_layers for call trees."""
    tree = main_tree
    for layer_tree in reversed(layer_trees):
        tree = nest_tree_beneath(layer_tree, tree)
    return tree


__all__ = ["OWN_TRACE_LAYERS", "is_layer_call", "layer_trace_paths", "nest_beneath",
           "nest_tree_beneath", "tree_with_layers", "with_layers"]
