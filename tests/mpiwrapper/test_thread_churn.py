"""Threads that come and go.

MPICH's threads/pt2pt/alltoall starts 10,000 short threads that call MPI.
A thread's context and trace are handed to the next new thread when it ends
(docs/format/trace.md, "Threads"), so a process has as many traces as it had
threads alive at once, not threads ever made. programs/threads_churn.c runs
10,000 threads, 4 at a time, on 2 ranks, each exchanging its number with the
other rank; the test checks that:
- stderr is empty (no warning per thread, none at all) and stdout is that
  of the untraced run;
- the open file descriptors stay within 2 per trace of the untraced run's;
- each rank has at most 5 traces (4 threads at once and the main thread),
  every one well-formed, and together they hold every thread's calls with
  the right tags and a <For> for each completed request.
"""
import collections

import tracecheck

THREADS = 10000
AT_ONCE = 4


def _numbers(run):
    values = {}
    for line in run.result.stdout.splitlines():
        rank, what, number = line.split()
        values[(int(rank[1:]), what)] = int(number)
    return values


def test_ten_thousand_threads(runner):
    # 20,000 blocking exchanges per rank: slow where other jobs load the cores
    plain = runner.run("threads_churn_plain", 2, args=(THREADS, AT_ONCE), timeout=600)
    traced = runner.run("threads_churn_traced", 2, args=(THREADS, AT_ONCE), timeout=600)
    assert plain.result.returncode == 0, plain.result.stderr
    assert traced.result.returncode == 0, traced.result.stderr
    assert traced.result.stderr == "", traced.result.stderr
    plain_values, traced_values = _numbers(plain), _numbers(traced)
    for rank in range(2):
        assert traced_values[(rank, "threads")] == THREADS
        growth = traced_values[(rank, "fds-max")] - traced_values[(rank, "fds-before")]
        plain_growth = plain_values[(rank, "fds-max")] - plain_values[(rank, "fds-before")]
        assert growth <= plain_growth + 2 * AT_ONCE, (
            f"rank {rank}: {growth} more descriptors open during the run, untraced "
            f"{plain_growth}")

        traces = sorted(traced.trace_dir.glob(f"threads-churn-traced_*_{rank}_*.trc"))
        assert 2 <= len(traces) <= AT_ONCE + 1, [path.name for path in traces]
        tags = collections.Counter()
        sendrecv_tags, waited = [], 0
        for path in traces:
            trace = tracecheck.parse_trc(path)  # raises unless well-formed
            for element in trace.elements:
                tags[element.tag] += 1
                if element.tag == "Sendrecv":
                    sendrecv_tags.append(int(element.attrib["toTag"]))
                    assert int(element.attrib["fromTag"]) == int(element.attrib["toTag"])
                if element.tag == "Waitall":
                    fors = [child for child in element if child.tag == "For"]
                    assert len(fors) == 2, f"{path}: a Waitall with {len(fors)} <For>"
                    waited += 1
        assert sorted(sendrecv_tags) == list(range(THREADS)), f"rank {rank}: Sendrecv tags"
        assert tags["Irecv"] == tags["Isend"] == waited == THREADS, tags
