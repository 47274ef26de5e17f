"""examples/hdtrace/hdtrace-states: the trace it writes, read back with ElementTree."""
import re
import socket
import subprocess
import xml.etree.ElementTree as ET

import pytest

TIME = re.compile(r"-?\d+\.\d{9}")
BLOCK = 1 << 20


def nanoseconds(text):
    assert TIME.fullmatch(text), f"bad time {text!r}"
    seconds, fraction = text.split(".")
    value = abs(int(seconds)) * 10**9 + int(fraction)
    return -value if text.startswith("-") else value


@pytest.fixture()
def example_trace(build_dir, tmp_path):
    steps = 4
    program = build_dir / "examples" / "hdtrace" / "hdtrace-states"
    result = subprocess.run([program, str(tmp_path), str(steps)], capture_output=True,
                            text=True, timeout=60, check=True)
    assert result.stderr == ""
    host = re.sub(r"[^A-Za-z0-9.-]", "-", socket.gethostname())
    trace = tmp_path / f"hdtrace-states_{host}_0_0.trc"
    assert trace.is_file(), sorted(p.name for p in tmp_path.iterdir())
    return trace, steps


def test_example_writes_every_step(example_trace):
    trace, steps = example_trace
    root = ET.parse(trace).getroot()
    assert root.tag == "Program"
    assert int(root.get("timeAdjustment")) > 1_600_000_000

    elements = list(root)
    # Per step: <Compute>, then the <Nested> block of the flushes, then <Checkpoint>.
    assert [e.tag for e in elements] == ["Compute", "Nested", "Checkpoint"] * steps
    previous_start = None
    for step in range(steps):
        compute, nested, checkpoint = elements[3 * step: 3 * step + 3]
        assert list(compute.attrib) == ["step", "time", "end"]
        assert compute.get("step") == str(step)
        assert list(checkpoint.attrib) == ["fid", "offset", "size", "time", "end"]
        assert checkpoint.get("offset") == str(step * BLOCK)
        assert checkpoint.get("size") == str(BLOCK)

        data = list(checkpoint)
        assert [d.tag for d in data] == ["Data"] * 4
        for piece, element in enumerate(data):
            assert element.attrib == {"offset": str(step * BLOCK + piece * BLOCK // 4),
                                      "size": str(BLOCK // 4)}

        flushes = list(nested)
        assert [f.get("piece") for f in flushes] == ["0", "1", "2", "3"]
        outer = (nanoseconds(checkpoint.get("time")), nanoseconds(checkpoint.get("end")))
        for flush in flushes:
            assert outer[0] <= nanoseconds(flush.get("time")) <= nanoseconds(flush.get("end")) <= outer[1]

        for state in (compute, checkpoint):
            start, end = nanoseconds(state.get("time")), nanoseconds(state.get("end"))
            assert start <= end
            if previous_start is not None:
                assert previous_start <= start
            previous_start = start
        # The compute step busy-waits 200 microseconds.
        assert nanoseconds(compute.get("end")) - nanoseconds(compute.get("time")) >= 200_000


def test_example_writes_its_info_line(example_trace):
    trace, _ = example_trace
    info = trace.with_suffix(".info").read_text()
    assert info == 'File name="checkpoint.dat" Size=0 id=0\n'
