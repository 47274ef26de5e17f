"""match_messages and stats on the hand-written traces and the fixtures."""
import numpy as np
import pytest

import hdtrace


def test_match_messages_of_our_traces(data_dir):
    project = hdtrace.open(data_dir / "ours" / "app.proj")
    table = project.to_numpy()
    matches = hdtrace.match_messages(project)
    described = [(table["name"][p["send_row"]], table["name"][p["recv_row"]], p["sender"],
                  p["receiver"], p["tag"], p["size"], p["communicator"]) for p in matches.pairs]
    assert described == [
        ("Send", "Recv", 0, 1, 5, 8, 0),
        ("Isend", "Irecv", 0, 1, 6, 4, 1)]
    # The nested Send/Recv (tag 7) happen inside other calls: they are not replayed.
    isend = matches.pairs[1]
    # The Isend completes in rank 0's first Wait, the Irecv in rank 1's Waitall.
    assert isend["send_complete"] == 1_700_000_000.400001
    assert isend["recv_complete"] == pytest.approx(1_700_000_001 - 0.5, abs=1e-9)
    assert isend["send_start"] == table["start"][isend["send_row"]]
    # The Send with tag 99 has no receive.
    assert [(table["name"][r], table["tag"][r]) for r in matches.unmatched_sends] == [("Send", 99)]
    assert len(matches.unmatched_recvs) == 0 and len(matches.incomplete) == 0


def test_match_messages_original_dialect_uses_world_ranks(data_dir):
    project = hdtrace.open(data_dir / "original" / "orig.proj")
    matches = hdtrace.match_messages(project)
    pairs = sorted((int(p["sender"]), int(p["receiver"]), int(p["tag"]), int(p["size"]))
                   for p in matches.pairs)
    assert pairs == [(0, 1, 1, 8), (1, 0, 1, 8)]
    assert len(matches.unmatched_sends) == 0 and len(matches.unmatched_recvs) == 0


def test_seed_isend_completes_through_wait(data_dir):
    project = hdtrace.open(data_dir / "seed" / "seed.proj")
    matches = hdtrace.match_messages(project)
    assert len(matches.pairs) == 1
    pair = matches.pairs[0]
    assert (pair["sender"], pair["receiver"]) == (0, 1)
    assert pair["send_complete"] == pytest.approx(1240497420.079028, abs=1e-6)
    assert pair["recv_complete"] == pytest.approx(1240497420.079100, abs=1e-6)


def test_stats_of_our_traces(data_dir):
    result = hdtrace.stats(hdtrace.open(data_dir / "ours" / "app.proj"))
    functions = {row["name"]: row for row in result.functions}
    send = functions["Send"]
    assert send["calls"] == 2  # top-level calls only: the nested Send is part of another call
    assert send["bytes"] == 8 + 4
    assert send["total"] == pytest.approx((499 + 1_000_000) / 1e9, abs=1e-12)
    assert send["max"] == pytest.approx(1e-3, abs=1e-12)
    assert send["mean"] == pytest.approx(send["total"] / 2)
    ranks = {row["rank"]: row for row in result.ranks}
    assert ranks[0]["span"] == pytest.approx(1.000000001 - 0.000001, abs=1e-9)
    assert ranks[0]["mpi"] + ranks[0]["outside"] == pytest.approx(ranks[0]["span"], abs=1e-9)
    assert [tuple(row) for row in result.files.tolist()] == [("out & data.bin", 16, 1, 440, 2)]
    text = result.format()
    assert "Functions" in text and "out & data.bin" in text


def test_stats_of_the_fixture(fixtures_dir):
    project = hdtrace.open(fixtures_dir / "original-traces" / "partdiff" / "partdiff-par.proj")
    result = hdtrace.stats(project)
    functions = {row["name"]: row for row in result.functions}
    assert functions["File_write_at"]["calls"] == 551
    assert functions["Sendrecv"]["calls"] == 4000
    files = {row["file"]: row for row in result.files}
    assert files["pvfs2://pvfs2/checkpoint.1"]["writes"] == 125
    assert sum(row["writes"] for row in result.files) == 551 + 3
    matches = hdtrace.match_messages(project)
    assert len(matches.pairs) == 4004
    assert len(matches.unmatched_sends) == 0 and len(matches.unmatched_recvs) == 0
    assert np.all(matches.pairs["recv_complete"] >= matches.pairs["recv_start"])


PERSISTENT_RANK0 = """<?xml version="1.0" encoding="UTF-8"?>
<Program timeAdjustment='100'>
<Send_init size='8' count='2' tid='6' toRank='1' toTag='3' cid='0' rid='5' time='0.100000000' end='0.100000001'/>
<Start rid='5' time='0.200000000' end='0.200000001'/>
<Wait time='0.300000000' end='0.300000100'>
  <For rid='5'/>
</Wait>
<Start rid='5' time='0.400000000' end='0.400000001'/>
<Wait time='0.500000000' end='0.500000200'>
  <For rid='5'/>
</Wait>
</Program>
"""
PERSISTENT_RANK1 = """<?xml version="1.0" encoding="UTF-8"?>
<Program timeAdjustment='100'>
<Recv_init fromRank='0' fromTag='3' cid='0' rid='2' time='0.100000000' end='0.100000001'/>
<Startall time='0.150000000' end='0.150000001'>
  <For rid='2'/>
</Startall>
<Waitall time='0.250000000' end='0.350000000'>
  <For rid='2'/>
</Waitall>
<Recv fromRank='0' fromTag='3' cid='0' time='0.450000000' end='0.550000000'/>
</Program>
"""


def test_persistent_requests_post_a_message_per_start(copy_project):
    proj = copy_project("ours")
    (proj.parent / "app_node01_0_0.trc").write_text(PERSISTENT_RANK0)
    (proj.parent / "app_node01_1_0.trc").write_text(PERSISTENT_RANK1)
    project = hdtrace.open(proj)
    table = project.to_numpy()
    matches = hdtrace.match_messages(project)
    described = [(table["name"][p["send_row"]], table["name"][p["recv_row"]], p["size"],
                  p["send_complete"], p["recv_complete"]) for p in matches.pairs]
    assert described == [("Start", "Startall", 8, 100.3000001, 100.35),
                         ("Start", "Recv", 8, 100.5000002, 100.55)]
    assert len(matches.unmatched_sends) == len(matches.unmatched_recvs) == 0
    assert len(matches.incomplete) == 0
