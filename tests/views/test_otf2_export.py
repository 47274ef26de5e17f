"""hdtrace export --otf2: otf2-print (Debian's otf2-tools) reads the archive back, and its
events and definitions are the trace's calls, messages, collectives and file accesses."""
import collections
import re
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree

import pytest
import tracegen

OTF2_PRINT = shutil.which("otf2-print") or "/usr/bin/otf2-print"
COLLECTIVES = {"Barrier", "Bcast", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather",
               "Allgatherv", "Alltoall", "Alltoallv", "Allreduce", "Reduce", "Reduce_scatter",
               "Scan", "Exscan"}


def otf2_print(*arguments):
    result = subprocess.run([OTF2_PRINT, *map(str, arguments)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout


def event_lines(anchor):
    """[(event, location, timestamp, rest)] of every event otf2-print lists."""
    events = []
    for line in otf2_print(anchor).splitlines():
        match = re.match(r"^([A-Z_]+)\s+(\d+)\s+(\d+)\s*(.*)$", line)
        if match:
            events.append((match[1], int(match[2]), int(match[3]), match[4]))
    return events


def export(hdtrace_command, project, directory):
    result = hdtrace_command("export", "--otf2", directory, project)
    assert result.returncode == 0, result.stderr
    anchor = directory / "traces.otf2"
    assert anchor.is_file()
    return anchor


def field(rest, name):
    return int(re.search(rf"{name}: (\d+)", rest)[1])


def test_events_are_the_generated_calls(generated_run, hdtrace_command, tmp_path):
    anchor = export(hdtrace_command, generated_run.project, tmp_path / "archive")
    events = event_lines(anchor)
    counts = collections.Counter(event for event, *_ in events)
    calls = generated_run.calls
    named = collections.Counter(call.name for call in calls)
    collectives = sum(1 for call in calls if call.name in COLLECTIVES)
    assert counts == {
        "ENTER": len(calls), "LEAVE": len(calls),
        "MPI_SEND": named["Send"], "MPI_RECV": named["Recv"],
        "MPI_ISEND": named["Isend"], "MPI_ISEND_COMPLETE": named["Isend"],
        "MPI_IRECV_REQUEST": named["Irecv"], "MPI_IRECV": named["Irecv"],
        "MPI_COLLECTIVE_BEGIN": collectives, "MPI_COLLECTIVE_END": collectives,
        "IO_OPERATION_BEGIN": len(generated_run.accesses),
        "IO_OPERATION_COMPLETE": len(generated_run.accesses),
    }

    # Locations 0..3 are the ranks' main threads (WORLD: local rank = world rank).
    sends = collections.Counter((location, field(rest, "Receiver"), field(rest, "Tag"), field(rest, "Length"))
                                for event, location, _, rest in events if event in ("MPI_SEND", "MPI_ISEND"))
    expected = collections.Counter((m.send.rank, m.recv.rank, m.tag, m.size) for m in generated_run.messages)
    assert sends == expected
    receives = collections.Counter((location, field(rest, "Sender"), field(rest, "Tag"), field(rest, "Length"))
                                   for event, location, _, rest in events if event in ("MPI_RECV", "MPI_IRECV"))
    assert receives == collections.Counter((m.recv.rank, m.send.rank, m.tag, m.size)
                                           for m in generated_run.messages)

    # Every Enter of the first rank at the generated time, in order.
    first = [(timestamp, re.search(r'Region: "([^"]+)"', rest)[1])
             for event, location, timestamp, rest in events if event == "ENTER" and location == 0]
    expected_enters = sorted((tracegen.TIME_ADJUSTMENT * 10**9 + call.start_ns, call.name)
                             for call in calls if call.rank == 0 and call.thread == 0)
    assert first == expected_enters

    io_bytes = collections.Counter()
    for event, location, _, rest in events:
        if event == "IO_OPERATION_BEGIN":
            mode = re.search(r"Mode: (\w+)", rest)[1]
            io_bytes[(location, mode)] += field(rest, "Bytes Request")
    assert io_bytes == collections.Counter(
        {(rank, mode): sum(a.size for a in generated_run.accesses
                           if a.rank == rank and a.op == mode[0].lower())
         for rank in range(generated_run.ranks) for mode in ("READ", "WRITE")})


def test_definitions(generated_run, hdtrace_command, tmp_path):
    anchor = export(hdtrace_command, generated_run.project, tmp_path / "archive")
    definitions = collections.Counter(
        line.split()[0] for line in otf2_print("-G", anchor).splitlines()
        if re.match(r"^[A-Z_]+\s+\d+", line))
    threads = sum(generated_run.threads.values())
    assert definitions["LOCATION"] == threads == 5
    assert definitions["LOCATION_GROUP"] == generated_run.ranks
    assert definitions["REGION"] == len({call.name for call in generated_run.calls})
    assert definitions["COMM"] == 1 + generated_run.ranks          # WORLD and each rank's SELF
    assert definitions["IO_REGULAR_FILE"] == 1
    assert definitions["IO_HANDLE"] == generated_run.ranks


def test_refuses_a_non_empty_directory(generated_run, hdtrace_command, tmp_path):
    target = tmp_path / "occupied"
    target.mkdir()
    (target / "keep.txt").write_text("mine")
    result = hdtrace_command("export", "--otf2", target, generated_run.project)
    assert result.returncode != 0
    assert "not an empty directory" in result.stderr
    assert [path.name for path in target.iterdir()] == ["keep.txt"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["occupied", "run"]


def test_partdiff_counts(partdiff_project, hdtrace_command, tmp_path):
    anchor = export(hdtrace_command, partdiff_project, tmp_path / "archive")
    counts = collections.Counter(event for event, *_ in event_lines(anchor))
    timed = sends = receives = collectives = io = 0
    for trace_file in partdiff_project.parent.glob("partdiff-par_*.trc"):
        for element in ElementTree.parse(trace_file).getroot().iter():
            if "time" not in element.attrib:
                continue
            timed += 1
            tag = element.tag
            if tag in ("Send", "Sendrecv") and int(element.get("toRank")) >= 0:
                sends += 1
            if tag in ("Recv", "Sendrecv") and int(element.get("fromRank")) >= 0:
                receives += 1
            collectives += tag in COLLECTIVES
            io += tag.startswith(("File_read", "File_write")) and element.get("size") is not None
    assert counts["ENTER"] == counts["LEAVE"] == timed
    assert counts["MPI_SEND"] == sends > 0
    assert counts["MPI_RECV"] == receives > 0
    assert counts["MPI_COLLECTIVE_BEGIN"] == counts["MPI_COLLECTIVE_END"] == collectives > 0
    assert counts["IO_OPERATION_BEGIN"] == counts["IO_OPERATION_COMPLETE"] == io > 0


def test_writer_rejects_bad_records_and_leaves_nothing(tmp_path):
    """hdtrace._otf2 checks what it is given before writing: here a record that goes back
    in time on its location, and one naming a location that does not exist."""
    import numpy as np
    from hdtrace import _otf2

    def records(location, time):
        count = len(time)
        zeros = np.zeros(count, dtype=np.int64)
        return {"location": np.array(location, dtype=np.uint32),
                "kind": np.array([0, 1][:count] + [0] * (count - 2), dtype=np.int32),
                "time": np.array(time, dtype=np.uint64), "a": zeros, "b": zeros, "c": zeros,
                "d": zeros, "e": zeros}

    arguments = ("run", 10**18, [("Barrier", 4)], [(0, 0, "host")], [("WORLD", [0])], [], [])
    with pytest.raises(RuntimeError, match="goes back in time"):
        _otf2.write_archive(str(tmp_path / "a"), *arguments, records([0, 0], [5, 4]))
    with pytest.raises(RuntimeError, match="names location 3"):
        _otf2.write_archive(str(tmp_path / "b"), *arguments, records([3, 3], [4, 5]))
    assert list(tmp_path.iterdir()) == []
    anchor = _otf2.write_archive(str(tmp_path / "c"), *arguments, records([0, 0], [4, 5]))["anchor"]
    assert [event for event, *_ in event_lines(anchor)] == ["ENTER", "LEAVE"]


def test_a_trace_without_calls_is_a_location_without_events(generated_run, hdtrace_command,
                                                            tmp_path):
    # Rank 3's trace cut before its first call, read with --partial: its
    # location is defined and has an event file with no event in it.
    trace = next(path for path in (tmp_path / "run").iterdir() if path.name.endswith("_3_0.trc"))
    trace.write_text(trace.read_text().split("\n", 2)[0] + "\n<Program timeAdjustment='1'>\n")
    directory = tmp_path / "archive"
    result = hdtrace_command("export", "--otf2", directory, "--partial", generated_run.project)
    assert result.returncode == 0, result.stderr
    events = event_lines(directory / "traces.otf2")
    locations = {location for _, location, *_ in events}
    kept = [call for call in generated_run.calls if call.rank != 3]
    assert sum(1 for event, *_ in events if event == "ENTER") == len(kept)
    definitions = otf2_print("-G", directory / "traces.otf2")
    assert len(re.findall(r"^LOCATION ", definitions, re.MULTILINE)) == len(locations) + 1
