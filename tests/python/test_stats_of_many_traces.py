"""stats of a run of many small traces: its table read as one run (as
to_numpy reads it) gives the Stats that a part per trace gives."""
import os
import sys

import numpy as np

import hdtrace
from hdtrace import statistics, table

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "report"))

from runs import RunBuilder, posix  # noqa: E402

RANKS = table.TRACES_READ_ONE_BY_ONE + 6


def many_small_traces(directory):
    """Each rank opens the file, writes with a nested pwrite, reads with a
    top-level pread on every third rank, and sends to the next rank."""
    builder = RunBuilder(RANKS)
    for rank in range(RANKS):
        builder.open(rank)
        builder.write_at(rank, rank * 8192, 4096 + rank,
                         nested=[posix("pwrite", 0, rank * 8192, 4096 + rank)])
        if rank % 3 == 0:
            builder.call(rank, "pread", 700, fid=0, offset=rank, asked=100, size=rank % 50)
        builder.call(rank, "Send", 1000 + rank, size=8 * rank, count=rank, tid=1,
                     toRank=(rank + 1) % RANKS, toTag=1, cid=0)
    return builder.write(directory)


def assert_same_stats(got, want):
    for name in ("functions", "ranks", "files", "layers"):
        got_table, want_table = getattr(got, name), getattr(want, name)
        assert got_table.dtype == want_table.dtype and len(got_table) == len(want_table) > 0
        for field in want_table.dtype.names:
            if want_table.dtype[field].kind == "f":
                np.testing.assert_allclose(got_table[field], want_table[field], rtol=1e-12,
                                           atol=0, err_msg=f"{name}.{field}")
            else:
                assert got_table[field].tolist() == want_table[field].tolist(), \
                    f"{name}.{field}"


def test_many_small_traces_give_the_stats_of_a_part_per_trace(tmp_path, monkeypatch):
    path = many_small_traces(tmp_path / "run")
    project = hdtrace.open(path, align=False)
    assert table.reads_as_one_run(project)
    from_run = hdtrace.stats(project)
    assert project._raw is not None or project._table is not None  # the run table was read
    monkeypatch.setattr(statistics, "reads_as_one_run", lambda project: False)
    by_trace = hdtrace.stats(hdtrace.open(path, align=False))
    assert_same_stats(from_run, by_trace)
    # And the figures the run was written with.
    functions = {row["name"]: row for row in from_run.functions}
    assert functions["Send"]["calls"] == RANKS
    assert functions["Send"]["bytes"] == sum(8 * rank for rank in range(RANKS))
    posix_rows = [row for row in from_run.layers if row["layer"] == "POSIX"]
    every_rank = [row for row in posix_rows if row["rank"] == -1]
    assert len(every_rank) == 1
    assert every_rank[0]["bytes_written"] == sum(4096 + rank for rank in range(RANKS))
    assert every_rank[0]["writes"] == RANKS
    assert every_rank[0]["bytes_read"] == sum(rank % 50 for rank in range(0, RANKS, 3))
    assert every_rank[0]["reads"] == len(range(0, RANKS, 3))
