"""hdtrace export --chrome: the JSON structure, and every call and message of the trace."""
import collections
import json
import xml.etree.ElementTree as ElementTree

import tracegen

# What the generated run's calls must be filed under (the timeline's families).
EXPECTED_CATEGORY = {
    "Init": "other", "Finalize": "other", "File_open": "file I/O", "File_close": "file I/O",
    "File_write_at": "file I/O", "File_read_at": "file I/O", "File_write": "file I/O",
    "Send": "point-to-point", "Recv": "point-to-point", "Isend": "point-to-point",
    "Irecv": "point-to-point", "Waitall": "wait", "Allreduce": "collective",
    "Bcast": "collective", "Barrier": "collective",
}


def export(hdtrace_command, project, path):
    result = hdtrace_command("export", "--chrome", path, project)
    assert result.returncode == 0, result.stderr
    with open(path) as source:
        return json.load(source)


def by_phase(trace, phase):
    return [event for event in trace["traceEvents"] if event["ph"] == phase]


def test_structure_and_metadata(generated_run, hdtrace_command, tmp_path):
    trace = export(hdtrace_command, generated_run.project, tmp_path / "out.json")
    assert isinstance(trace["traceEvents"], list)
    for event in trace["traceEvents"]:
        assert event["ph"] in {"M", "X", "s", "f"}
        assert isinstance(event["pid"], int) and isinstance(event["tid"], int)
        if event["ph"] != "M":
            assert isinstance(event["ts"], (int, float)) and event["ts"] >= 0
    processes = {event["pid"]: event["args"]["name"] for event in by_phase(trace, "M")
                 if event["name"] == "process_name"}
    assert processes == {rank: f"rank {rank} ({tracegen.HOST})"
                         for rank in range(generated_run.ranks)}
    threads = {(event["pid"], event["tid"]) for event in by_phase(trace, "M")
               if event["name"] == "thread_name"}
    assert threads == {(rank, thread) for rank, count in generated_run.threads.items()
                       for thread in range(count)}
    origin = tracegen.TIME_ADJUSTMENT * 10**9 + min(call.start_ns for call in generated_run.calls)
    assert int(trace["otherData"]["origin_ns"]) == origin


def test_every_call_is_a_complete_event(generated_run, hdtrace_command, tmp_path):
    trace = export(hdtrace_command, generated_run.project, tmp_path / "out.json")
    complete = by_phase(trace, "X")
    assert len(complete) == len(generated_run.calls)
    expected_counts = collections.Counter((c.rank, c.thread, c.name) for c in generated_run.calls)
    assert collections.Counter((e["pid"], e["tid"], e["name"]) for e in complete) == expected_counts

    origin = min(call.start_ns for call in generated_run.calls)
    found = {(e["pid"], e["tid"], e["name"], round(e["ts"] * 1000)): e for e in complete}
    for call in generated_run.calls:
        event = found[(call.rank, call.thread, call.name, call.start_ns - origin)]
        assert round(event["dur"] * 1000) == call.end_ns - call.start_ns
        assert event["cat"] == EXPECTED_CATEGORY[call.name]
        args = dict(event["args"])
        elements = args.pop("elements", [])
        assert args.pop("depth", 0) == call.depth
        assert args == call.attrs
        assert [(e.pop("element"), e) for e in elements] == call.elements
    waits = [e for e in complete if e["name"] == "Waitall"]
    assert waits and all(len(e["args"]["elements"]) == 2 for e in waits)


def test_messages_are_flow_pairs(generated_run, hdtrace_command, tmp_path):
    trace = export(hdtrace_command, generated_run.project, tmp_path / "out.json")
    starts = {event["id"]: event for event in by_phase(trace, "s")}
    finishes = {event["id"]: event for event in by_phase(trace, "f")}
    assert len(starts) == len(finishes) == len(generated_run.messages) == 16
    assert starts.keys() == finishes.keys()
    origin = min(call.start_ns for call in generated_run.calls)

    def inside(event, call):
        ts_ns = round(event["ts"] * 1000)
        return (event["pid"], event["tid"]) == (call.rank, call.thread) and \
            call.start_ns - origin <= ts_ns <= call.end_ns - origin

    unclaimed = list(generated_run.messages)
    for flow_id, start in starts.items():
        finish = finishes[flow_id]
        assert finish["bp"] == "e"
        match = [m for m in unclaimed if inside(start, m.send) and inside(finish, m.recv)]
        assert len(match) == 1, f"flow {flow_id} matches no generated message: {start} {finish}"
        assert start["args"] == {"tag": match[0].tag, "size": match[0].size}
        unclaimed.remove(match[0])
    assert unclaimed == []


def test_bad_project_fails_without_output(tmp_path, hdtrace_command):
    broken = tmp_path / "run"
    run = tracegen.generate(broken, ranks=2, iterations=1)
    trace_file = broken / f"demo_{tracegen.HOST}_1_0.trc"
    text = trace_file.read_text()
    trace_file.write_text(text[: len(text) // 2])  # cut mid-file, as a killed process would
    output = tmp_path / "out.json"
    result = hdtrace_command("export", "--chrome", output, run.project)
    assert result.returncode != 0
    assert "demo_node-a_1_0.trc" in result.stderr
    assert not output.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".hdtrace-")] == []

    result = hdtrace_command("export", "--chrome", output, tmp_path / "missing.proj")
    assert result.returncode != 0 and "missing.proj" in result.stderr
    assert not output.exists()


def timed_elements(path):
    """Every element of a trace with a time attribute, nested calls included."""
    return [element for element in ElementTree.parse(path).getroot().iter()
            if "time" in element.attrib]


def test_partdiff_counts(partdiff_project, hdtrace_command, tmp_path):
    trace = export(hdtrace_command, partdiff_project, tmp_path / "partdiff.json")
    per_rank = collections.Counter(event["pid"] for event in by_phase(trace, "X"))
    expected, sends = {}, 0
    for trace_file in partdiff_project.parent.glob("partdiff-par_*.trc"):
        rank = int(trace_file.stem.split("_")[2])
        expected[rank] = len(timed_elements(trace_file))
        root = ElementTree.parse(trace_file).getroot()
        sends += sum(1 for element in root if element.tag in {"Send", "Sendrecv", "Isend"}
                     and int(element.get("toRank")) >= 0)
    assert dict(per_rank) == expected
    assert sum(expected.values()) > 5000
    # Every top-level send of this run has its receive.
    assert len(by_phase(trace, "s")) == len(by_phase(trace, "f")) == sends
    assert sends > 0


def test_the_file_written_in_pieces_is_the_whole_trace_as_one_text(generated_run, tmp_path,
                                                                    monkeypatch):
    import hdtrace
    from hdtrace.export import chrome
    from hdtrace.view.model import build_timeline
    timeline = build_timeline(hdtrace.open(generated_run.project))
    whole = json.dumps(chrome.chrome_trace(timeline), separators=(",", ":"))
    events = len(json.loads(whole)["traceEvents"])
    # Pieces that end within the calls, at the last event, and one piece of all.
    for per_piece in (7, events, events + 1):
        monkeypatch.setattr(chrome, "EVENTS_PER_PIECE", per_piece)
        path = tmp_path / f"pieces-{per_piece}.json"
        assert chrome.write_chrome_trace(timeline, path) == events
        assert path.read_text() == whole
    # A run without a call: no event, and no comma before the fields.
    empty = build_timeline(hdtrace.open(generated_run.project), ranks=[], window=None)
    empty.rows = []
    path = tmp_path / "empty.json"
    assert chrome.write_chrome_trace(empty, path) == 0
    assert path.read_text() == json.dumps(chrome.chrome_trace(empty), separators=(",", ":"))
    assert json.loads(path.read_text())["traceEvents"] == []
