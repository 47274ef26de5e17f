"""hdtrace view --rank/--from/--to: the page holds the calls of the chosen
ranks and time, with their nested calls, and the messages between them;
compared with what the generated program did."""
import collections
import json
import re

import tracegen


def page_data(page):
    return json.loads(re.search(r"window\.HDTRACE_DATA = (\{.*?\});?\n", page.read_text(),
                                re.DOTALL)[1])


def drawn_calls(data):
    """(rank, thread, name, depth, start, end) of every call on the page,
    times in ns since TIME_ADJUSTMENT."""
    origin = int(data["originNs"]) - tracegen.TIME_ADJUSTMENT * 1_000_000_000
    calls = data["calls"]
    return collections.Counter(
        (data["rows"][row]["rank"], data["rows"][row]["thread"], data["names"][name], depth,
         start + origin, end + origin)
        for row, name, depth, start, end in zip(calls["row"], calls["name"], calls["depth"],
                                                calls["start"], calls["end"]))


def generated_calls(run, keep):
    """The same of the generated calls whose top-level call keep() accepts."""
    chosen = collections.Counter()

    def add(call, depth):
        chosen[(call.rank, call.thread, call.name, depth, call.start_ns, call.end_ns)] += 1
        for inner in call.nested:
            add(inner, depth + 1)

    for call in run.top_level():
        if keep(call):
            add(call, 0)
    return chosen


def view(hdtrace_command, tmp_path, run, *options):
    page = tmp_path / "part.html"
    result = hdtrace_command("view", "-o", page, *options, run.project)
    assert result.returncode == 0, result.stderr
    return page_data(page), result


def test_ranks_chosen(generated_run, hdtrace_command, tmp_path):
    data, _ = view(hdtrace_command, tmp_path, generated_run, "--rank", "1", "--rank", "2")
    assert [row["rank"] for row in data["rows"]] == [1, 2]
    assert drawn_calls(data) == generated_calls(generated_run, lambda call: call.rank in (1, 2))
    # Only the messages whose two calls are on the page: rank 1's to rank 2.
    expected = sum(1 for message in generated_run.messages
                   if message.send.rank in (1, 2) and message.recv.rank in (1, 2))
    assert expected > 0 and len(data["messages"]["send"]) == expected


def test_time_window_chosen(generated_run, hdtrace_command, tmp_path):
    top = sorted(generated_run.top_level(), key=lambda call: call.start_ns)
    # From the middle of one call to the middle of a later one: both overlap.
    first, last = top[len(top) // 3], top[2 * len(top) // 3]
    low = (first.start_ns + first.end_ns) // 2
    high = (last.start_ns + last.end_ns) // 2
    seconds = lambda ns: tracegen.TIME_ADJUSTMENT + ns / 1e9  # noqa: E731
    data, _ = view(hdtrace_command, tmp_path, generated_run,
                   "--from", repr(seconds(low)), "--to", repr(seconds(high)))
    expected = generated_calls(generated_run,
                               lambda call: call.end_ns >= low and call.start_ns <= high)
    assert 0 < sum(expected.values()) < len(generated_run.calls)
    assert drawn_calls(data) == expected


def test_time_window_since_the_run_start(generated_run, hdtrace_command, tmp_path):
    # +seconds count from the run's first call, as the view's axis does.
    first = min(call.start_ns for call in generated_run.calls)
    top = sorted(generated_run.top_level(), key=lambda call: call.start_ns)
    # Bounds inside calls: seconds since the epoch as floats resolve to
    # about 0.2 us.
    low = (top[len(top) // 4].start_ns + top[len(top) // 4].end_ns) // 2
    high = (top[len(top) // 2].start_ns + top[len(top) // 2].end_ns) // 2
    data, _ = view(hdtrace_command, tmp_path, generated_run,
                   "--from", f"+{(low - first) / 1e9!r}", "--to", f"+{(high - first) / 1e9!r}")
    expected = generated_calls(generated_run,
                               lambda call: call.end_ns >= low and call.start_ns <= high)
    assert 0 < sum(expected.values()) < len(generated_run.calls)
    assert drawn_calls(data) == expected
    events = hdtrace_command("events", "--format", "jsonl", "--from",
                             f"+{(low - first) / 1e9!r}", "--to", f"+{(high - first) / 1e9!r}",
                             generated_run.project)
    assert events.returncode == 0, events.stderr
    assert len(events.stdout.splitlines()) == sum(
        1 for call in generated_run.top_level() if call.end_ns >= low and call.start_ns <= high)


def test_bad_selections_are_refused(generated_run, hdtrace_command, tmp_path):
    page = tmp_path / "none.html"
    result = hdtrace_command("view", "-o", page, "--rank", "9", generated_run.project)
    assert result.returncode == 1 and "no trace of rank(s) [9]" in result.stderr
    result = hdtrace_command("view", "-o", page, "--from", "5", "--to", "4",
                             generated_run.project)
    assert result.returncode == 1 and "--from is after --to (5.000000000 s > 4.000000000 s" \
        in result.stderr
    result = hdtrace_command("view", "-o", page, "--from", "soon", generated_run.project)
    assert result.returncode == 2 and "not a time: 'soon'" in result.stderr
    assert not page.exists()


def test_a_large_page_is_named_with_the_way_to_a_smaller_one(generated_run, tmp_path, capsys,
                                                             monkeypatch):
    from hdtrace import cli
    from hdtrace.commands import view as view_command

    calls = len(generated_run.calls)
    page = tmp_path / "all.html"
    monkeypatch.setattr(view_command, "LARGE_PAGE_CALLS", calls)
    assert cli.main(["view", "-o", str(page), generated_run.project]) == 0
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(view_command, "LARGE_PAGE_CALLS", calls - 1)
    assert cli.main(["view", "-o", str(page), generated_run.project]) == 0
    assert capsys.readouterr().err == (
        f"hdtrace view: warning: {page} holds {calls:,} calls (0 MiB), which a browser opens "
        "slowly; --rank, --from and --to draw a part of the run\n")


def test_messages_of_sends_with_the_same_start_and_name(tmp_path):
    # Two Sends of one thread at the same nanosecond, received in the other
    # order by tag: each message must be drawn from its own send.
    from hdtrace import open as open_project
    from hdtrace.view.model import build_timeline

    def call(rank, name, start, **attrs):
        return tracegen.Call(rank, 0, name, start, start + 1000, dict(attrs))

    sends = [call(0, "Send", 5000, size=8, count=1, tid=1, toRank=1, toTag=tag, cid=0)
             for tag in (1, 2)]
    receives = [call(1, "Recv", 9000 + 2000 * index, fromRank=0, fromTag=tag, cid=0)
                for index, tag in enumerate((2, 1))]
    for rank, calls in ((0, sends), (1, receives)):
        tracegen._write_trace(str(tmp_path), "same", rank, 0, calls)
    project = tmp_path / "same.proj"
    tracegen._write_project(str(project), "same", 2, {0: 1, 1: 1})
    timeline = build_timeline(open_project(str(project)))
    drawn = sorted((timeline.attrs[send]["toTag"], timeline.attrs[receive]["fromTag"],
                    timeline.start_ns[receive])
                   for send, receive, *_ in timeline.messages)
    base = tracegen.TIME_ADJUSTMENT * 1_000_000_000
    assert drawn == [(1, 1, base + 11000), (2, 2, base + 9000)]


def test_exports_of_a_part(generated_run, hdtrace_command, tmp_path):
    from test_otf2_export import event_lines

    chrome, archive = tmp_path / "part.json", tmp_path / "archive"
    result = hdtrace_command("export", "--chrome", chrome, "--otf2", archive, "--rank", "1",
                             "--rank", "2", generated_run.project)
    assert result.returncode == 0, result.stderr
    expected = generated_calls(generated_run, lambda call: call.rank in (1, 2))
    events = json.loads(chrome.read_text())["traceEvents"]
    base = tracegen.TIME_ADJUSTMENT * 1_000_000_000
    got = collections.Counter((event["pid"], event["name"]) for event in events
                              if event["ph"] == "X")
    assert got == collections.Counter((rank, name) for rank, _, name, *_ in expected.elements())
    entered = [line for line in event_lines(archive / "traces.otf2") if line[0] == "ENTER"]
    assert len(entered) == sum(expected.values())
    assert base > 0
