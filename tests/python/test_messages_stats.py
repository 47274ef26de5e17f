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
