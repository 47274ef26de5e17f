"""Run by test_compact_reading.py with the tools tree's Python package: every
reader of the package reads a project of compact traces as it reads the same
project with the XML form of those traces, value for value.

    compact_reading.py COMPACT_PROJECT XML_PROJECT

Exits 0, or fails with an AssertionError saying what differs."""
import os
import sys

import numpy as np

import hdtrace
from hdtrace import native


def same_columns(compact, xml, where):
    for key, value in xml.items():
        if key == "fallback":  # which reader read it, not what it read
            continue
        other = compact[key]
        if isinstance(value, np.ndarray):
            assert value.dtype == other.dtype and np.array_equal(value, other), (
                f"{where}: column {key} differs:\ncompact {other[:20]}\nXML     {value[:20]}")
        else:
            assert value == other, f"{where}: {key} differs: compact {other!r}, XML {value!r}"


def events(path, **options):
    return [tuple(event) for event in native.TraceReader(path, **options)]


def without_lines(event):
    """(name, start, end, attributes, children) of a raw event, its children's likewise."""
    name, start, end, attributes, children = event[:5]
    return name, start, end, attributes, [without_lines(child) for child in children]


def check_trace(compact, xml):
    """One rank and thread: columns, events, slices, windows, both column readers."""
    whole = native.read_columns(xml)
    assert len(whole["start_ns"]) > 0, f"{xml}: no calls read"
    assert whole["damage"] is None, whole["damage"]
    read = native.read_columns(compact)
    assert read["fallback"] is None, f"{compact}: read through its XML form: {read['fallback']}"
    same_columns(read, whole, compact)
    same_columns(native.read_columns(compact, reader="libxml2"), whole, f"{compact} (libxml2)")
    assert events(compact) == events(xml), f"{compact}: events differ from {xml}"
    # A window around the middle call, by name and time.
    middle = len(whole["start_ns"]) // 2
    window = dict(from_ns=int(whole["start_ns"][middle]), to_ns=int(whole["end_ns"][middle]))
    same_columns(native.read_columns(compact, **window), native.read_columns(xml, **window),
                 f"{compact} window {window}")
    assert events(compact, **window) == events(xml, **window)
    names = [whole["names"][whole["name_code"][middle]]]
    same_columns(native.read_columns(compact, names=names), native.read_columns(xml, names=names),
                 f"{compact} names {names}")
    # Slices of every size tile the trace: their rows, one after the other, are the whole's.
    size = os.path.getsize(compact)
    for count in (2, 3, 7):
        bounds = [index * size // count for index in range(count)] + [size + 1]
        parts = [native.read_columns(compact, begin=begin, end=end)
                 for begin, end in zip(bounds, bounds[1:])]
        joined = np.concatenate([part["start_ns"] for part in parts])
        assert np.array_equal(joined, whole["start_ns"]), f"{compact}: {count} slices"
        sliced_events = [event for begin, end in zip(bounds, bounds[1:])
                         for event in events(compact, begin=begin, end=end)]
        # Slices do not know the lines of the XML form: compare without them.
        assert [without_lines(event) for event in sliced_events] == \
            [without_lines(event) for event in events(xml)], f"{compact}: {count} event slices"


def same_frames(compact, xml, where):
    assert list(compact.columns) == list(xml.columns), where
    for column in xml.columns:
        assert compact[column].tolist() == xml[column].tolist(), f"{where}: column {column}"


def main(compact_path, xml_path):
    compact, xml = hdtrace.open(compact_path), hdtrace.open(xml_path)
    leaves = list(zip(compact.topology.leaves, xml.topology.leaves))
    assert leaves and all(c.path.endswith(".ctrc") and x.path.endswith(".trc")
                          for c, x in leaves), [(c.path, x.path) for c, x in leaves]
    for compact_leaf, xml_leaf in leaves:
        check_trace(compact_leaf.path, xml_leaf.path)
    table_c, table_x = compact.to_numpy(), xml.to_numpy()
    assert table_c.dtype == table_x.dtype and np.array_equal(table_c, table_x), "to_numpy differs"
    same_frames(compact.to_dataframe(), xml.to_dataframe(), "to_dataframe")
    # Dask partitions of a few hundred bytes: several slices of each trace.
    same_frames(compact.to_dask(slice_bytes=300).compute(), xml.to_dask(slice_bytes=300).compute(),
                "to_dask")
    matches_c, matches_x = hdtrace.match_messages(compact), hdtrace.match_messages(xml)
    for field in ("pairs", "unmatched_sends", "unmatched_recvs", "incomplete"):
        assert np.array_equal(getattr(matches_c, field), getattr(matches_x, field)), field
    assert hdtrace.stats(compact).format() == hdtrace.stats(xml).format(), "stats differ"
    assert list(compact.events()) == list(xml.events()), "Project.events differs"


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
