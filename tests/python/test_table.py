"""Project.to_numpy(): the columns, and peer ranks as world ranks in both dialects."""
import os

import numpy as np
import pytest

import hdtrace
from hdtrace import native
from expected import expected_events

NO = hdtrace.NO_PEER


def rows(table, rank, columns):
    return [tuple(row) for row in table[table["rank"] == rank][list(columns)].tolist()]


def test_columns_of_our_traces(data_dir):
    table = hdtrace.open(data_dir / "ours" / "app.proj").to_numpy()
    assert table.dtype.names == tuple(name for name, _ in hdtrace.TABLE_COLUMNS)
    columns = ("name", "size", "peer", "tag", "cid", "fid", "offset", "rid")
    assert rows(table, 0, columns) == [
        ("Init", -1, NO, NO, -1, -1, -1, -1),
        ("Send", 8, 1, 5, 0, -1, -1, -1),
        # cid 2 is the reversed communicator; our ranks are world ranks already.
        ("Isend", 4, 1, 6, 2, -1, -1, 0),
        ("hdT_Test_nested", -1, NO, NO, -1, -1, -1, -1),
        ("Wait", -1, NO, NO, -1, -1, -1, -1),
        ("File_open", -1, NO, NO, 0, 0, -1, -1),
        ("File_write_at", 400, NO, NO, -1, 0, 0, -1),
        ("File_write_all_begin", 40, NO, NO, -1, 0, 400, 1),  # from <Data>
        ("Wait", -1, NO, NO, -1, -1, -1, -1),
        ("File_read_at", 16, NO, NO, -1, 0, 0, -1),
        ("File_close", -1, NO, NO, -1, 0, -1, -1),
        ("Event", -1, NO, NO, -1, -1, -1, -1),
        ("Finalize", -1, NO, NO, -1, -1, -1, -1),
    ]
    assert rows(table, 1, ("name", "peer", "tag", "cid", "rid")) == [
        ("Init", NO, NO, -1, -1), ("Recv", 0, 5, 0, -1), ("Irecv", 0, 6, 3, 0),
        ("hdT_Test_nested", NO, NO, -1, -1), ("Waitall", NO, NO, -1, -1),
        ("Send", 0, 99, 0, -1), ("Finalize", NO, NO, -1, -1)]


def test_times_and_order(data_dir):
    project = hdtrace.open(data_dir / "ours" / "app.proj")
    table = project.to_numpy()
    assert np.all(np.diff(table["start_ns"]) >= 0)
    assert len(table) == sum(len(expected_events(leaf.path)) for leaf in project.topology)
    send = table[(table["rank"] == 0) & (table["name"] == "Send")][0]
    assert send["start_ns"] == 1_700_000_000_100_000_001
    assert send["end_ns"] == 1_700_000_000_100_000_500
    assert send["duration"] == (500 - 1) / 1e9
    assert send["start"] == send["start_ns"] / 1e9
    events = list(project.events())
    assert [(e.rank, e.name, e.start_ns, e.end_ns) for e in events] == [
        (int(r["rank"]), str(r["name"]), int(r["start_ns"]), int(r["end_ns"])) for r in table]


def test_original_peers_are_translated_to_world_ranks(data_dir):
    table = hdtrace.open(data_dir / "original" / "orig.proj").to_numpy()
    # Communicator cid 1 is reversed: local 0 is world 1, local 1 is world 0.
    assert rows(table, 0, ("name", "peer", "tag", "cid", "fid", "size")) == [
        ("Bcast", 0, NO, 1, -1, 4),           # rootRank='1' (local) is world 0
        ("File_open", NO, NO, 0, 0, -1),
        ("Sendrecv", 1, 1, 1, -1, 8),          # toRank='0' (local) is world 1
        ("File_write_at", NO, NO, -1, 0, 16),
        ("Finalize", NO, NO, -1, -1, -1)]
    assert rows(table, 1, ("name", "peer")) == [("Bcast", 0), ("Sendrecv", 0), ("Finalize", NO)]


def test_filters(data_dir):
    project = hdtrace.open(data_dir / "ours" / "app.proj")
    table = project.to_numpy(names=["Send", "Recv"])
    assert sorted(set(table["name"])) == ["Recv", "Send"]
    assert len(table) == 3
    base = 1_700_000_000
    window = project.to_numpy(window=(base + 0.6, base + 0.7))
    assert list(zip(window["rank"], window["name"])) == [
        (0, "File_write_at"), (1, "Send"), (0, "File_write_all_begin"), (0, "Wait"),
        (0, "File_read_at")]


def test_fixture_table_matches_the_xml(fixtures_dir):
    project = hdtrace.open(fixtures_dir / "original-traces" / "partdiff" / "partdiff-par.proj")
    table = project.to_numpy()
    for leaf in project.topology:
        expected = expected_events(leaf.path)
        mine = table[table["rank"] == leaf.rank]
        assert list(mine["name"]) == [event["name"] for event in expected]
        assert list(mine["start_ns"]) == [event["start_ns"] for event in expected]
        sizes = [event["attrs"].get("size", -1) for event in expected]
        assert list(mine["size"]) == sizes
    # In partdiff every communicator maps local to world identically.
    sends = table[table["name"] == "Sendrecv"]
    assert len(sends) == 4000 and set(sends["peer"]) <= {0, 1, 2, 3, 4}


# --- fill_table's rows (to_numpy writes each call straight to its place in start order) ---

def _columns_of_a_trace(data_dir):
    """read_columns of one trace of data/ours, its number of calls and the table's dtype."""
    from hdtrace import _core
    trace = next((data_dir / "ours").glob("*.trc"))
    columns = _core.read_columns(str(trace))
    width = max(len(name) for name in columns["names"])
    dtype = [(name, kind or f"U{width}") for name, kind in hdtrace.TABLE_COLUMNS]
    return columns, len(columns["name_code"]), dtype


def test_fill_table_writes_rows_where_told_and_refuses_rows_beyond_the_table(data_dir):
    import pytest
    from hdtrace import _core
    columns, count, dtype = _columns_of_a_trace(data_dir)
    in_order = np.zeros(count, dtype=dtype)
    _core.fill_table(in_order, 0, columns, 3, 0, columns["names"])
    reversed_rows = np.arange(count - 1, -1, -1, dtype=np.int64)
    placed = np.zeros(count, dtype=dtype)
    _core.fill_table(placed, 0, columns, 3, 0, columns["names"], reversed_rows)
    assert placed.tolist() == in_order[::-1].tolist()
    assert list(placed["start_ns"][::-1]) == list(columns["start_ns"])
    for bad in (np.full(count, count, dtype=np.int64), np.full(count, -1, dtype=np.int64),
                np.zeros(count + 1, dtype=np.int64)):
        with pytest.raises(ValueError):
            _core.fill_table(placed, 0, columns, 3, 0, columns["names"], bad)


def test_fill_table_writes_name_codes_and_receive_sides_in_the_same_rows(data_dir):
    import pytest
    from hdtrace import _core
    columns, count, dtype = _columns_of_a_trace(data_dir)
    # The trace's name codes become these (say, a project's sorted names').
    code_map = [10 + 3 * code for code in range(len(columns["names"]))]
    for rows in (None, np.arange(count - 1, -1, -1, dtype=np.int64)):
        table = np.zeros(count + 2, dtype=dtype)
        outputs = {key: np.full(count + 2, 7, dtype=np.int32)
                   for key in ("name_code_out", "recv_peer_out", "recv_tag_out")}
        _core.fill_table(table, 2 if rows is None else 0, columns, 3, 0, columns["names"], rows,
                         code_map=code_map, **outputs)
        at = np.arange(2, count + 2) if rows is None else rows
        assert list(outputs["name_code_out"][at]) == [code_map[code]
                                                      for code in columns["name_code"]]
        assert list(outputs["recv_peer_out"][at]) == list(columns["recv_peer"])
        assert list(outputs["recv_tag_out"][at]) == list(columns["recv_tag"])
        untouched = np.setdiff1d(np.arange(count + 2), at)
        assert all(list(values[untouched]) == [7] * len(untouched) for values in outputs.values())
        assert [str(name) for name in table["name"][at]] == [columns["names"][code]
                                                              for code in columns["name_code"]]
    table = np.zeros(count, dtype=dtype)
    for bad in ({"name_code_out": np.zeros(count, np.int32)},  # no code_map
                {"name_code_out": np.zeros(count, np.int32), "code_map": [0]},
                {"recv_peer_out": np.zeros(count, np.int64)},
                {"recv_tag_out": np.zeros(count - 1, np.int32)}):
        with pytest.raises(ValueError):
            _core.fill_table(table, 0, columns, 3, 0, columns["names"], **bad)


# --- the table's memory (the reader's column memory, reused once freed) ---

def test_empty_array_gives_writable_rows_that_no_other_array_shares():
    import pytest
    from hdtrace import _core
    dtype = np.dtype([(name, kind or "U16") for name, kind in hdtrace.TABLE_COLUMNS])
    # 30,000 rows: several MB, the mapped path; 7 rows: the small one.
    for rows in (30_000, 7):
        first = _core.empty_array(rows, dtype)
        assert first.shape == (rows,) and first.dtype == dtype and first.flags.writeable
        first["start_ns"] = np.arange(rows)
        first["name"] = "Send"
        second = _core.empty_array(rows, dtype)
        second["start_ns"] = -np.arange(rows)
        second["name"] = "Recv"
        assert list(first["start_ns"]) == list(range(rows))
        assert set(first["name"]) == {"Send"}
        # The freed first array's memory may serve the third: the second keeps its rows.
        del first
        third = _core.empty_array(rows, dtype)
        third["start_ns"] = 5
        assert list(second["start_ns"]) == [-row for row in range(rows)]
        assert set(second["name"]) == {"Recv"} and set(third["start_ns"]) == {5}
    assert _core.empty_array(0, np.int32).shape == (0,)
    assert _core.empty_array(3, np.int32).dtype == np.int32
    with pytest.raises(ValueError):
        _core.empty_array(-1, np.int32)
    with pytest.raises(ValueError):
        _core.empty_array(3, object)


def stable_rows(starts_by_trace):
    """What start_order_rows gives, by numpy: the inverse of a stable argsort."""
    keys = np.concatenate([np.asarray(starts, dtype=np.int64) for starts in starts_by_trace] +
                          [np.empty(0, dtype=np.int64)])
    rows = np.empty(len(keys), dtype=np.int64)
    rows[np.argsort(keys, kind="stable")] = np.arange(len(keys))
    return rows


def test_start_order_rows_merges_traces_as_a_stable_sort_orders_them():
    generator = np.random.default_rng(7)
    cases = [
        [],
        [[]],
        [[5, 5, 5]],
        [[1, 3, 3, 7], [], [3, 3, 4], [0, 7, 7]],  # ties across traces keep trace order
        [[-2**63, 0, 2**63 - 1], [-2**63, 2**63 - 1]],
        # Interleaved traces, as ranks running at once write them, with ties.
        [np.cumsum(generator.integers(0, 4, size=5000)) for _ in range(3)],
        # Two traces (merged without the heap): turns, ties, one ending first.
        [np.cumsum(generator.integers(0, 3, size=4000)) for _ in range(2)],
        [[4, 6, 8], [1, 2, 3, 5, 9, 10]],
        [[2, 2, 7], [2, 2, 2]],
        [[], [3, 4], [1, 2]],
        # Many traces of few calls (each heap step).
        [np.sort(generator.integers(0, 50, size=generator.integers(0, 6))) for _ in range(200)],
        # A trace out of order sends every call to the sort: the same rows.
        [[1, 2, 3], [9, 4, 4, 1], [2, 2]],
        [generator.integers(-100, 100, size=3000) for _ in range(4)],
    ]
    for starts_by_trace in cases:
        expected = stable_rows(starts_by_trace)
        rows = hdtrace.native.start_order_rows(
            [np.asarray(starts, dtype=np.int64) for starts in starts_by_trace])
        assert rows.dtype == np.int64
        assert rows.tolist() == expected.tolist(), starts_by_trace


def test_start_order_rows_refuses_what_is_no_list_of_starts():
    with pytest.raises(ValueError, match="one-dimensional"):
        hdtrace.native.start_order_rows([np.zeros((2, 2), dtype=np.int64)])
    with pytest.raises(TypeError):
        hdtrace.native.start_order_rows([["a", "b"]])


def test_usable_cores_follow_the_affinity():
    """The thread pools that read traces run as many threads as the process
    may use cores (a batch system's cpuset, taskset), as the C++ reader does."""
    saved = os.sched_getaffinity(0)
    try:
        assert native.usable_cores() == len(saved)
        os.sched_setaffinity(0, {min(saved)})
        assert native.usable_cores() == 1
    finally:
        os.sched_setaffinity(0, saved)
