"""Events of the hand-written traces of every dialect, compared with an
independent ElementTree reading of the same files."""
import pytest

import hdtrace
from expected import as_dict, expected_events

DIALECTS = ["ours", "original", "seed"]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_every_event_of_every_trace_matches_the_xml(data_dir, dialect):
    project = hdtrace.open(next((data_dir / dialect).glob("*.proj")))
    assert len(project.topology) == 2
    for leaf in project.topology:
        events = list(project.trace(leaf.rank, leaf.thread))
        expected = expected_events(leaf.path)
        assert len(events) == len(expected) > 0
        assert [as_dict(event) for event in events] == expected
        assert all(event.rank == leaf.rank and event.thread == leaf.thread for event in events)


def test_times_are_exact_absolute_nanoseconds(data_dir):
    project = hdtrace.open(data_dir / "ours" / "app.proj")
    first = next(project.trace(0))
    assert first.name == "Init"
    assert first.start_ns == 1_700_000_000_000_001_000
    assert first.end_ns == 1_700_000_000_000_002_500
    assert first.start == pytest.approx(1700000000.000001, abs=1e-6)
    assert first.duration == pytest.approx(1.5e-6, abs=1e-12)
    # Rank 1 has another base and negative relative times.
    init = next(project.trace(1))
    assert init.start_ns == 1_700_000_000_000_001_000
    assert init.end_ns == 1_700_000_000_000_002_000


def test_seed_layout_has_absolute_times_without_time_adjustment(data_dir):
    project = hdtrace.open(data_dir / "seed" / "seed.proj")
    isend = list(project.trace(0))[1]
    assert isend.name == "Isend"
    assert isend.start_ns == 1_240_497_420_078_912_000
    assert isend.attrs == {"size": 1, "count": 1, "tid": 1275068673, "toRank": 1, "toTag": 0,
                           "cid": 0, "rid": 1}


def test_nested_block_belongs_to_the_following_call(data_dir):
    project = hdtrace.open(data_dir / "ours" / "app.proj")
    nested = [event for event in project.trace(0) if event.name == "hdT_Test_nested"]
    assert len(nested) == 1
    outer = nested[0]
    assert outer.attrs == {"depth": 1}
    assert [child.name for child in outer.nested] == ["Recv"]
    recv = outer.nested[0]
    assert recv.attrs == {"fromRank": 1, "fromTag": 7, "cid": 0}
    assert recv.start_ns == 1_700_000_000_300_000_100
    assert outer.start_ns < recv.start_ns < recv.end_ns < outer.end_ns


def test_children_data_for_info_and_escaped_names(data_dir):
    project = hdtrace.open(data_dir / "ours" / "app.proj")
    events = {event.name: event for event in project.trace(0)}
    file_open = events["File_open"]
    assert file_open.attrs["name"] == "out & data.bin"
    assert [(c.name, c.attrs) for c in file_open.elements] == [
        ("Info", {"key": "cb_nodes", "value": "2"})]
    begin = events["File_write_all_begin"]
    assert [(c.name, c.attrs, c.start_ns) for c in begin.children] == [
        ("Data", {"offset": 400, "size": 40, "count": 10, "tid": 1275069445}, None)]
    marker = events["Event"]
    assert marker.attrs == {"name": "marker"} and marker.start_ns == marker.end_ns


def test_original_dialect_keeps_cfile_and_cline(data_dir):
    project = hdtrace.open(data_dir / "original" / "orig.proj")
    bcast = next(project.trace(0))
    assert bcast.name == "Bcast"
    assert bcast.attrs["cFile"] == "lib/bcast.c" and bcast.attrs["cLine"] == 10
    assert [(c.name, c.attrs["toRank"]) for c in bcast.nested] == [("Send", 0)]
    sendrecv = [e for e in project.trace(0) if e.name == "Sendrecv"][0]
    assert sendrecv.attrs["sendTid"] == 0 and sendrecv.attrs["recvTid"] == 0


def test_name_filter(data_dir):
    project = hdtrace.open(data_dir / "ours" / "app.proj")
    names = [event.name for event in project.trace(0, names=["Wait", "Send"])]
    assert names == ["Send", "Wait", "Wait"]
    # The nested Recv before hdT_Test_nested is dropped with its call.
    assert [e.name for e in project.trace(0, names=["hdT_Test_nested"])][0] == "hdT_Test_nested"
    only = list(project.trace(0, names=["hdT_Test_nested"]))
    assert [c.name for c in only[0].nested] == ["Recv"]


def test_time_window_keeps_overlapping_calls(data_dir):
    project = hdtrace.open(data_dir / "ours" / "app.proj")
    base = 1_700_000_000
    events = list(project.trace(0, window=(base + 0.2000001, base + 0.5)))
    # Isend ends at .200000100 (inside), Wait, File_open starts at .5 (inside).
    assert [e.name for e in events] == ["Isend", "hdT_Test_nested", "Wait", "File_open"]
    assert list(project.trace(0, window=(base + 2, None))) == []
    assert [e.name for e in project.trace(0, window=(None, base + 0.0000015))] == ["Init"]


def test_events_merges_all_ranks_in_time_order(data_dir):
    project = hdtrace.open(data_dir / "ours" / "app.proj")
    events = list(project.events())
    assert len(events) == sum(len(expected_events(leaf.path)) for leaf in project.topology)
    starts = [event.start_ns for event in events]
    assert starts == sorted(starts)
    assert {event.rank for event in events} == {0, 1}
    # Both ranks' Init start at the same absolute nanosecond.
    assert [(e.rank, e.name) for e in events[:2]] == [(0, "Init"), (1, "Init")]


def test_fixture_traces_match_the_xml(fixtures_dir):
    """Every call of the original implementation's traces, nested blocks included."""
    project = hdtrace.open(fixtures_dir / "original-traces" / "partdiff" / "partdiff-par.proj")
    total = 0
    for leaf in project.topology:
        events = [as_dict(event) for event in project.trace(leaf.rank, leaf.thread)]
        assert events == expected_events(leaf.path)
        total += len(events)
    assert total == len(project.to_numpy())
    first = next(project.trace(0))
    assert (first.name, first.start_ns) == ("Allgather", 1_247_131_125_954_060_000)
    assert [child.name for child in first.nested] == ["Sendrecv"] * 3
