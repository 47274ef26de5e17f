"""The report of many ranks: beyond 256 ranks the heatmaps, the
communication matrix and the per-rank figures show groups of consecutive
ranks, with the group's range as the label, and every byte is still there."""
import numpy as np

import hdtrace
from hdtrace import report as reporting
from runs import RunBuilder

RANKS = 600
BLOCK = 4096


def many_ranks(directory):
    builder = RunBuilder(RANKS)
    for rank in range(RANKS):
        builder.open(rank)
        builder.write_at(rank, rank * BLOCK, BLOCK * (1 + rank % 3))
        builder.call(rank, "Send", 1000, size=100 + rank, count=1, tid=1,
                     toRank=(rank + 1) % RANKS, toTag=1, cid=0)
        builder.call(rank, "Recv", 1000, fromRank=(rank - 1) % RANKS, fromTag=1, cid=0)
    return builder.write(directory)


def test_rank_groups(tmp_path):
    report = reporting.build(hdtrace.open(many_ranks(tmp_path / "run")))
    model = report.model
    axis = model.heatmap_axis
    # 600 ranks in groups of 3: 200 rows, each labelled with its range.
    assert (axis["group"], axis["groups"]) == (3, 200)
    assert axis["labels"][:2] == ["0-2", "3-5"] and axis["labels"][-1] == "597-599"
    heatmap = model.heatmaps["MPI-IO"]
    assert heatmap.shape == (200, 100)
    written = [BLOCK * (1 + rank % 3) for rank in range(RANKS)]
    assert heatmap.sum() == sum(written)
    assert heatmap[1].sum() == sum(written[3:6])
    matrix = model.mpi["matrix"]
    assert matrix.shape == (200, 200) and model.mpi["matrix_group"] == 3
    sent = {(rank // 3, ((rank + 1) % RANKS) // 3): 0 for rank in range(RANKS)}
    for rank in range(RANKS):
        sent[(rank // 3, ((rank + 1) % RANKS) // 3)] += 100 + rank
    for (row, column), total in sent.items():
        assert matrix[row, column] == total
    assert matrix.sum() == sum(100 + rank for rank in range(RANKS))
    document = report.document()
    assert len(document["ranks"]) == RANKS
    assert [row["bytes_written"] for row in document["ranks"]] == written
    figures = report.figures()
    labels = [tick.get_text() for tick in figures["heatmap-MPI-IO"].axes[0].get_yticklabels()]
    assert labels[0] == "0-2" and all("-" in label for label in labels)
    parts = figures["io-cost"].axes[0].patches
    assert [part.get_label() for part in parts] == ["read", "write", "metadata", "other MPI",
                                                    "compute"]
    # Each part is one path of a rectangle per group, in group order (five
    # corners each, the last closing it).
    corners = [part.get_path().vertices.reshape(200, 5, 2) for part in parts]
    for group in (0, 1, 199):
        for part in corners:
            assert np.allclose(part[group, :, 1], group + np.array([-1, -1, 1, 1, -1]) * 0.425)
    # The write bars (the second part) are each group's mean share of the run,
    # stacked after the read bars.
    run = model.job.run_time_s
    for group in range(200):
        mean = model.ranks["write_s"][3 * group:3 * group + 3].mean() / run
        left, right = corners[1][group, 0, 0], corners[1][group, 1, 0]
        assert np.isclose(left, corners[0][group, 1, 0]) and np.isclose(right - left, mean)
