"""The times of the trace against the program's own clock (docs/format/trace.md,
"Times"): every call's time and end lie between the clock_gettime readings the
program took just before and just after it, with either clock of the wrapper."""
import decimal
import pathlib
import platform
import re

import pytest

import tracecheck

# The TSC clock is anchored to CLOCK_REALTIME every millisecond; its readings
# stay within tens of ns of clock_gettime (hdtrace/include/hdtrace/Clock.hpp).
TSC_TOLERANCE_NS = 500


def tsc_clock_expected():
    """What the wrapper should decide, from what Linux reports."""
    if platform.machine() != "x86_64":
        return False
    flags = set()
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    source = pathlib.Path("/sys/devices/system/clocksource/clocksource0/current_clocksource")
    current = source.read_text().strip() if source.exists() else ""
    # kvm-clock: a virtual machine's clock, the TSC scaled by the hypervisor.
    return {"constant_tsc", "nonstop_tsc"} <= flags and current in ("tsc", "kvm-clock")


def nanoseconds(adjustment, relative):
    return adjustment * 1_000_000_000 + int(decimal.Decimal(relative) * 1_000_000_000)


@pytest.mark.parametrize("clock", ["tsc", "realtime"])
def test_call_times_lie_within_the_programs_clock_readings(runner, clock):
    run = runner.run("timing_traced", 1, env={"HDTRACE_CLOCK": clock, "HDTRACE_VERBOSE": "1"})
    run.assert_ok()
    uses_tsc = clock == "tsc" and tsc_clock_expected()
    said = "TSC anchored to CLOCK_REALTIME" if uses_tsc else "clock_gettime"
    assert f"(clock: {said};" in run.result.stderr, run.result.stderr

    brackets = [tuple(map(int, line.split())) for line in run.result.stdout.splitlines()
                if re.fullmatch(r"\d+ \d+", line)]
    base = tracecheck.trace_base(run.trace_dir, "timing_traced", 0)
    trace = tracecheck.parse_trc(base.with_suffix(".trc"))
    probes = [element for element in trace.elements if element.tag == "Iprobe"]
    assert len(brackets) > 2000 and len(probes) == len(brackets), (len(brackets), len(probes))

    tolerance = TSC_TOLERANCE_NS if uses_tsc else 0
    worst_early = worst_late = 0
    for index, ((before, after), probe) in enumerate(zip(brackets, probes)):
        start = nanoseconds(trace.time_adjustment, probe.attrib["time"])
        end = nanoseconds(trace.time_adjustment, probe.attrib["end"])
        assert start <= end, f"Iprobe {index}: end {end} before time {start}"
        worst_early = max(worst_early, before - start)
        worst_late = max(worst_late, end - after)
        assert before - tolerance <= start and end <= after + tolerance, (
            f"Iprobe {index} ({clock} clock): time..end {start}..{end} is not within the "
            f"program's readings {before}..{after} (tolerance {tolerance} ns)")
    print(f"{clock}: {len(probes)} calls, at most {worst_early} ns early, {worst_late} ns late")
