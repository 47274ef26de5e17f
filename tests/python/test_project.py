"""Project metadata, topology and communicators in every dialect."""
import pytest

import hdtrace


def test_our_project(data_dir):
    project = hdtrace.open(data_dir / "ours" / "app.proj")
    assert project.name == "app"
    assert project.description == "two ranks & a file"
    assert project.dialect == "hdtrace" and project.ranks_in_traces == "world"
    assert [(f.name, f.initial_size, f.chunk_size) for f in project.files] == [
        ("out & data.bin", 1024, "64K")]
    assert project.files[0].distribution.endswith(".SimpleStripe")
    assert project.topology.levels == ["Hostname", "Rank", "Thread"]
    leaves = [(leaf.host, leaf.rank, leaf.thread, leaf.path) for leaf in project.topology]
    assert leaves == [("node01", 0, 0, str(data_dir / "ours" / "app_node01_0_0.trc")),
                      ("node01", 1, 0, str(data_dir / "ours" / "app_node01_1_0.trc"))]


def test_original_project_is_read_as_local_ranks(data_dir):
    project = hdtrace.open(data_dir / "original" / "orig.proj")
    assert project.dialect == "original"
    assert project.files[0].initial_size == 0
    # Leaves are ordered by rank whatever the order of <Node> elements.
    assert [(leaf.host, leaf.rank) for leaf in project.topology] == [("nodeA", 0), ("nodeB", 1)]


def test_seed_layout(data_dir):
    project = hdtrace.open(data_dir / "seed" / "seed.proj")
    assert project.name == "seed"
    assert project.dialect == "original"
    assert project.topology.levels == ["Hostname", "Rank", "Thread"]
    assert [(leaf.host, leaf.rank, leaf.thread) for leaf in project.topology] == [
        ("node01", 0, 0), ("node01", 1, 0)]
    assert [(f.name, f.initial_size, f.chunk_size) for f in project.files] == [
        ("test.out", 16777216, "64K")]
    assert project.datatypes[1][1275069445].size == 4
    assert project.datatypes[0] == {}


def test_communicators(data_dir):
    project = hdtrace.open(data_dir / "ours" / "app.proj")
    world, reversed_ = project.communicators
    assert (world.name, world.size, world.world_ranks) == ("WORLD", 2, [0, 1])
    assert reversed_.name == "reversed"
    assert reversed_.world_ranks == [1, 0]
    assert reversed_.to_world(0) == 1 and reversed_.to_world(1) == 0
    assert reversed_.to_local(1) == 0 and reversed_.to_local(0) == 1
    assert project.communicators.lookup(0, 2) is reversed_
    assert project.communicators.lookup(1, 3) is reversed_
    assert project.communicators.lookup(1, 0) is world
    with pytest.raises(KeyError, match="rank 0 has no communicator with cid 3"):
        project.communicators.lookup(0, 3)
    assert project.communicators.local_to_world_table(0) == {0: [0, 1], 2: [1, 0]}


def test_rank_kind_can_be_forced(data_dir):
    project = hdtrace.open(data_dir / "ours" / "app.proj", ranks="local")
    assert project.dialect == "original"
    with pytest.raises(ValueError, match="ranks must be"):
        hdtrace.open(data_dir / "ours" / "app.proj", ranks="global")


def test_project_without_distribution_is_detected_from_time_digits(copy_project):
    proj = copy_project("ours")
    text = proj.read_text().replace("<Distribution implementation=", "<Distribution kind=")
    proj.write_text(text)
    project = hdtrace.open(proj)
    assert project.distribution_style == "unknown"
    assert project.dialect == "hdtrace"  # 9 fraction digits


def test_fixture_partdiff_project(fixtures_dir):
    project = hdtrace.open(fixtures_dir / "original-traces" / "partdiff" / "partdiff-par.proj")
    assert project.name == "partdiff-par"
    assert project.dialect == "original"
    assert [leaf.rank for leaf in project.topology] == [0, 1, 2, 3, 4]
    assert project.topology.leaf(3).host == "node07"
    assert len(project.communicators) == 53
    assert project.communicators[0].name == "WORLD"
    assert [f.name for f in project.files] == ["pvfs2://pvfs2/visualization.dat",
                                              "pvfs2://pvfs2/checkpoint.1",
                                              "pvfs2://pvfs2/checkpoint.2"]
    vector = project.datatypes[4][5]
    assert (vector.combiner, vector.size, vector.extent) == ("VECTOR", 161 * 8, (160 * 810 + 1) * 8)
    assert vector.blocks[:2] == [(0, 8), (6480, 8)] and len(vector.blocks) == 161


def test_trace_bytes_are_each_traces_size_when_opened(copy_project):
    proj = copy_project("ours")
    missing = proj.parent / "app_node01_1_0.trc"
    kept = proj.parent / "app_node01_0_0.trc"
    missing.unlink()
    with pytest.warns(hdtrace.TraceDamageWarning):
        project = hdtrace.open(proj, partial=True)
    assert project.missing_traces == [str(missing)]
    assert project.trace_bytes == {str(kept): kept.stat().st_size}


def test_communicator_lookups_follow_its_members():
    """to_local, to_world and cid_of look members up by index, made again
    when members are added; the first member of a world rank counts."""
    from hdtrace.project import Communicator, Member
    communicator = Communicator(3, "reversed", [Member(1, 0, 7), Member(0, 1, 7)])
    assert (communicator.to_local(1), communicator.to_world(1), communicator.cid_of(0)) == (0, 0, 7)
    assert communicator.worlds_by_local() == [1, 0]
    with pytest.raises(KeyError, match="world rank 2 is not in communicator 3"):
        communicator.to_local(2)
    communicator.members += [Member(2, 2, 9), Member(2, 3, 11)]
    assert (communicator.to_local(2), communicator.cid_of(2), communicator.to_world(3)) == (2, 9, 2)
    assert communicator.worlds_by_local() == [1, 0, 2, 2]
    with pytest.raises(KeyError, match="has no local rank 4"):
        communicator.to_world(4)
