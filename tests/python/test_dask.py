"""Project.to_dask() and stats / match_messages on its frame, on the local
schedulers and on a dask.distributed LocalCluster of 2 worker processes.

The run: tests/python/programs/message-mix.c on 4 ranks, traced by
`hdtrace run` (the wrapper, then the merger). Every result on Dask is
compared with the in-process one on the same project: the table row for row,
stats exactly for counts, bytes, spans and names (sums of float seconds to
1e-12 relative: Dask adds per partition first), match_messages pair for pair.
"""
import inspect
import os
import pathlib
import re
import shutil
import subprocess
import sys
import types

import numpy as np
import pytest

import buildtree
import hdtrace
from hdtrace import frames

pandas = pytest.importorskip("pandas", reason="python3-pandas is needed (scripts/install-deps)")
dask = pytest.importorskip("dask", reason="python3-dask is needed (scripts/install-deps)")
distributed = pytest.importorskip("distributed",
                                  reason="python3-distributed is needed (scripts/install-deps)")

# The traces as written: once projects can correct clocks when opened
# (open(align=...)), to_dask() refuses such a project (its README section).
AS_WRITTEN = {"align": False} if "align" in inspect.signature(hdtrace.open).parameters else {}

PROGRAM = pathlib.Path(__file__).resolve().parent / "programs" / "message-mix.c"
RANKS = 4
ITERATIONS = 20
TIMEOUT = 300


def mpi_env(**extra):
    """No inherited HDTRACE_* or preload; Open MPI as root, oversubscribed, unbound, ROMIO."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HDTRACE_")}
    env.pop("LD_PRELOAD", None)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_hwloc_base_binding_policy="none",
               OMPI_MCA_io="romio321", PYTHONPATH=str(buildtree.build_dir() / "python"))
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def traced_run(build_dir, tmp_path_factory):
    """The .proj of message-mix on 4 ranks, traced and merged by `hdtrace run`."""
    cache = (build_dir / "CMakeCache.txt").read_text()
    match = re.search(r"^MPI_C_COMPILER:[A-Z]+=(.*)$", cache, re.MULTILINE)
    assert match, f"MPI_C_COMPILER is not in {build_dir}/CMakeCache.txt"
    work = tmp_path_factory.mktemp("message-mix")
    program = work / "message-mix"
    built = subprocess.run([match.group(1), "-o", str(program), str(PROGRAM)],
                           capture_output=True, text=True, timeout=TIMEOUT)
    assert built.returncode == 0, built.stderr
    result = subprocess.run(
        ["/usr/bin/python3", "-m", "hdtrace", "run", "-n", str(RANKS), "-o", "run", "--",
         str(program), str(work / "mix.dat"), str(ITERATIONS)],
        cwd=work, capture_output=True, text=True, timeout=TIMEOUT, env=mpi_env())
    assert result.returncode == 0, result.stderr
    return work / "run" / "message-mix.proj"


@pytest.fixture(scope="module")
def cluster():
    """One LocalCluster of 2 worker processes for the module (it takes seconds to start)."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None, silence_logs=40) as local:
        yield local


def in_trace_order(project, computed):
    """frame.compute() (partitions one after another) in to_numpy()'s order:
    by start, ties in trace order, as to_numpy sorts its concatenation."""
    order = np.argsort(computed["start_ns"].to_numpy(), kind="stable")
    return computed.iloc[order].reset_index(drop=True), order


@pytest.fixture(params=[1, 3, None], ids=["a-trace-a-partition", "three-a-partition",
                                         "traces-grouped"])
def traces_per_partition(request, monkeypatch):
    """Whole traces one per partition, three, or as many as the default
    grouping puts together (all of a small run's)."""
    if request.param:
        monkeypatch.setattr(frames, "PARTITION_TRACES", request.param)
    return request.param or frames.PARTITION_TRACES


def assert_partitions_hold_their_traces(frame):
    """Each partition holds the rows of its pieces (whole traces or a slice),
    in order, and nothing else."""
    run = frame._hdtrace_run
    assert frame.npartitions == len(run.partitions)
    assert [spec for part in run.partitions for spec in part.specs] == run.specs
    assert [spec.part for spec in run.specs] == list(range(len(run.specs)))
    for number, specs in enumerate(part.specs for part in run.partitions):
        assert len(specs) == 1 or all(spec.slices == 1 for spec in specs)
        assert len(specs) <= frames.PARTITION_TRACES
        part = frame.get_partition(number).compute()
        held = list(zip(part["rank"], part["thread"]))
        # In the order of the pieces: each piece's rows come after the last one's.
        pieces = [(spec.rank, spec.thread) for spec in specs]
        at = 0
        for rank_thread in held:
            while pieces[at] != rank_thread:
                at += 1
                assert at < len(pieces), (number, rank_thread, pieces)
    return run


def assert_frame_matches(project, frame, **filters):
    expected = project.to_dataframe(**filters)
    assert list(frame.columns) == list(expected.columns)
    assert list(frame.dtypes) == list(expected.dtypes)
    computed = frame.compute()
    assert list(computed.dtypes) == list(expected.dtypes)
    # Whole traces, in topology order, consecutive ones sharing partitions.
    run = assert_partitions_hold_their_traces(frame)
    assert [(spec.rank, spec.thread, spec.slices) for spec in run.specs] == [
        (leaf.rank, leaf.thread, 1) for leaf in project.topology]
    ordered, _ = in_trace_order(project, computed)
    pandas.testing.assert_frame_equal(ordered, expected, check_exact=True)
    return computed


def assert_stats_equal(on_dask, in_process):
    for table in ("functions", "ranks", "files"):
        got, want = getattr(on_dask, table), getattr(in_process, table)
        assert got.dtype == want.dtype and len(got) == len(want) > 0, table
        for field in want.dtype.names:
            if want.dtype[field].kind == "f":
                np.testing.assert_allclose(got[field], want[field], rtol=1e-12, atol=0,
                                           err_msg=f"{table}.{field}")
            else:
                assert got[field].tolist() == want[field].tolist(), f"{table}.{field}"


def assert_matches_equal(project, frame, on_dask, in_process):
    """Dask's rows are positions in frame.compute(); mapped to to_numpy() rows,
    every pair, unmatched and incomplete row is the in-process one."""
    _, order = in_trace_order(project, frame.compute())
    to_table_row = np.empty(len(order), dtype=np.int64)
    to_table_row[order] = np.arange(len(order))
    mapped = on_dask.pairs.copy()
    mapped["send_row"] = to_table_row[mapped["send_row"]]
    mapped["recv_row"] = to_table_row[mapped["recv_row"]]
    key = lambda pairs: sorted(pairs.tolist(), key=lambda p: (p[0], p[1]))  # noqa: E731
    assert len(mapped) == len(in_process.pairs) > 0
    got, want = key(mapped), key(in_process.pairs)
    for got_pair, want_pair in zip(got, want):
        assert got_pair[:7] == want_pair[:7]  # rows, ranks, tag, communicator, size
        np.testing.assert_array_equal(np.array(got_pair[7:]), np.array(want_pair[7:]))
    assert np.all(np.diff(on_dask.pairs["send_start"]) >= 0)
    for field in ("unmatched_sends", "unmatched_recvs", "incomplete"):
        assert len(getattr(in_process, field)) > 0, field
        assert sorted(to_table_row[getattr(on_dask, field)].tolist()) == \
            getattr(in_process, field).tolist(), field


def test_the_run_has_every_kind_of_message(traced_run):
    """The comparisons below mean something only if the run has these."""
    project = hdtrace.open(traced_run, **AS_WRITTEN)
    table = project.to_numpy()
    names = set(table["name"].tolist())
    assert {"Sendrecv", "Isend", "Irecv", "Waitall", "Send", "Recv", "Send_init", "Recv_init",
            "Startall", "Start", "Mprobe", "Mrecv", "File_open", "File_write_at",
            "File_write_at_all", "File_read_at", "Allreduce"} <= names
    matches = hdtrace.match_messages(project)
    # Per iteration and rank: Sendrecv, 2 Isends, half the ranks' Send; 4 persistent
    # starts per rank; 2 matched-probe messages, 3 to wildcard receives, 1 freed Isend.
    assert len(matches.pairs) == \
        RANKS * ITERATIONS * 3 + RANKS // 2 * ITERATIONS + RANKS * 4 + 2 + 3 + 1

    def described(rows):
        return [(int(table["rank"][r]), str(table["name"][r]), int(table["tag"][r])) for r in rows]
    assert described(matches.unmatched_sends) == [(1, "Send", 13)]
    assert described(matches.unmatched_recvs) == [(0, "Irecv", 12)]
    assert described(matches.incomplete) == [(3, "Isend", 11)]
    world = next(c.index for c in project.communicators if c.name == "WORLD")
    wildcard = matches.pairs[(matches.pairs["tag"] == 7) & (matches.pairs["receiver"] == 0)
                             & (matches.pairs["communicator"] == world)]
    assert wildcard["sender"].tolist() == [1, 2, 1]
    assert wildcard["size"].tolist() == [8, 16, 24]


def test_to_dask_equals_to_dataframe(traced_run, traces_per_partition):
    project = hdtrace.open(traced_run, **AS_WRITTEN)
    frame = project.to_dask()
    assert frame.npartitions == -(-len(project.topology) // traces_per_partition)
    computed = assert_frame_matches(project, frame)
    assert len(computed) == len(project.to_numpy())
    # The module function opens the project itself.
    pandas.testing.assert_frame_equal(
        hdtrace.to_dask(str(traced_run), **AS_WRITTEN).compute(), computed)


def test_tasks_carry_paths_and_options_only(traced_run):
    """What a scheduler ships to a worker: the read tasks' _TraceSpecs, no
    Project, no reader, no trace contents."""
    import cloudpickle  # as the distributed scheduler pickles tasks
    project = hdtrace.open(traced_run, **AS_WRITTEN)
    frame = project.to_dask()
    shipped = cloudpickle.dumps(dict(frame.__dask_graph__()))
    assert b"hdtrace.project" not in shipped and b"TraceReader" not in shipped
    specs = frame._hdtrace_run.specs
    assert [spec.path for spec in specs] == [os.path.abspath(leaf.path)
                                            for leaf in project.topology]
    for spec in specs:
        assert all(isinstance(value, (str, int, bool, tuple, dict, type(None)))
                   for value in vars(spec).values()), spec
    assert len(shipped) < 4000 * len(specs)


def test_to_dask_filters_like_to_numpy(traced_run):
    project = hdtrace.open(traced_run, **AS_WRITTEN)
    table = project.to_numpy()
    middle = float(np.median(table["start"]))
    window = (middle - 0.0005, middle + 0.0005)
    for filters in ({"names": ["Isend", "Irecv", "File_write_at"]}, {"window": window},
                    {"names": ["Sendrecv"], "window": window}):
        frame = hdtrace.to_dask(traced_run, **filters, **AS_WRITTEN)
        assert len(assert_frame_matches(project, frame, **filters)) > 0, filters


def test_to_dask_on_the_single_process_schedulers(traced_run):
    project = hdtrace.open(traced_run, **AS_WRITTEN)
    expected = project.to_dask().compute(scheduler="threads")
    for scheduler in ("synchronous", "processes"):
        pandas.testing.assert_frame_equal(project.to_dask().compute(scheduler=scheduler),
                                          expected)


def test_original_dialect_on_dask(data_dir):
    """Communicator-local ranks are translated to world ranks inside the task too."""
    project = hdtrace.open(data_dir / "original" / "orig.proj")
    assert_frame_matches(project, project.to_dask())
    assert_stats_equal(hdtrace.stats(project.to_dask()), hdtrace.stats(project))


def test_stats_on_dask_equal_in_process(traced_run, traces_per_partition):
    project = hdtrace.open(traced_run, **AS_WRITTEN)
    on_dask = hdtrace.stats(project.to_dask())
    assert_stats_equal(on_dask, hdtrace.stats(project))
    files = {row["file"]: row for row in on_dask.files}
    data = str(traced_run.parent.parent / "mix.dat")
    assert files[data]["writes"] == 2 * RANKS
    assert files[data]["bytes_written"] == RANKS * (64 + 32) * 8


def test_match_messages_on_dask_equal_in_process(traced_run, traces_per_partition):
    project = hdtrace.open(traced_run, **AS_WRITTEN)
    frame = project.to_dask()
    assert_matches_equal(project, frame, hdtrace.match_messages(frame),
                         hdtrace.match_messages(project))


def test_a_run_grouped_otherwise_has_keys_of_its_own(traced_run, monkeypatch):
    # A cluster keeps the results of tasks that were just computed for a
    # while: the same key in another grouping would be given the old rows.
    project = hdtrace.open(traced_run, **AS_WRITTEN)
    keys = []
    for per_partition in (frames.PARTITION_TRACES, 1, 1):
        monkeypatch.setattr(frames, "PARTITION_TRACES", per_partition)
        frame = project.to_dask()
        keys.append(set(frame.__dask_keys__()) | set(frame.__dask_graph__().keys()))
    assert not keys[0] & keys[1]
    assert keys[1] == keys[2]  # the same grouping: the same tasks


def test_everything_on_a_local_cluster_of_two_processes(traced_run, cluster, monkeypatch):
    project = hdtrace.open(traced_run, **AS_WRITTEN)
    with distributed.Client(cluster) as client:
        for per_partition in (frames.PARTITION_TRACES, 1):
            monkeypatch.setattr(frames, "PARTITION_TRACES", per_partition)
            frame = project.to_dask()
            assert_frame_matches(project, frame)
            assert_stats_equal(hdtrace.stats(frame), hdtrace.stats(project))
            assert_matches_equal(project, frame, hdtrace.match_messages(frame),
                                 hdtrace.match_messages(project))
        # The reading happened in the two worker processes, not in this one.
        pids = set(client.run(os.getpid).values())
        assert len(pids) == 2 and os.getpid() not in pids
        read_in = client.run(lambda: "hdtrace._core" in sys.modules)
        assert all(read_in.values()), read_in


def test_a_missing_trace_is_named(traced_run, tmp_path, cluster):
    copy = tmp_path / "run"
    shutil.copytree(traced_run.parent, copy)
    proj = copy / traced_run.name
    project = hdtrace.open(proj, **AS_WRITTEN)
    trace = pathlib.Path(project.topology.leaf(2).path)
    frame = project.to_dask()
    trace.rename(trace.with_suffix(".moved"))
    # Gone after the frame was made: the task that reads it says which file, where.
    with pytest.raises(hdtrace.MissingTraceError, match=re.escape(str(trace))) as raised:
        frame.compute()
    assert raised.value.missing == [str(trace)]
    with distributed.Client(cluster):
        with pytest.raises(hdtrace.MissingTraceError,
                           match=re.escape(str(trace)) + ".* does not exist on host"):
            hdtrace.stats(frame)
    # Gone before: opening the project names it.
    with pytest.raises(hdtrace.MissingTraceError, match=re.escape(str(trace))):
        hdtrace.to_dask(proj, **AS_WRITTEN)


def test_a_derived_frame_is_refused_by_stats(traced_run):
    frame = hdtrace.to_dask(traced_run, **AS_WRITTEN)
    with pytest.raises(TypeError, match="the frame returned by to_dask"):
        hdtrace.stats(frame[frame["rank"] == 0])
    with pytest.raises(TypeError, match="the frame returned by to_dask"):
        hdtrace.match_messages(frame.persist())


def test_a_project_that_corrects_clocks_when_read_is_refused(traced_run, monkeypatch):
    """Its corrected times come from the whole table: tasks reading one trace
    each cannot give them, so to_dask() says how to get corrected traces."""
    project = hdtrace.open(traced_run, **AS_WRITTEN)
    monkeypatch.setattr(type(project), "clock_correction", property(lambda self: object()),
                        raising=False)
    with pytest.raises(ValueError, match=re.escape(f"`hdtrace align {project.path}`")):
        project.to_dask()


HIDE_DASK = """
import sys
sys.modules["dask"] = None  # import dask fails as if it were not installed
sys.path.insert(0, sys.argv[1])
import hdtrace
project = hdtrace.open(sys.argv[2])
assert len(project.to_numpy()) > 0 and len(hdtrace.stats(project).functions) > 0
assert len(hdtrace.match_messages(project).pairs) > 0
try:
    project.to_dask()
except ImportError as error:
    print(error)
else:
    raise SystemExit("to_dask() worked without Dask")
"""


def test_without_dask_the_package_works_and_to_dask_says_what_to_install(data_dir):
    result = subprocess.run(
        [sys.executable, "-c", HIDE_DASK, str(buildtree.build_dir() / "python"),
         str(data_dir / "ours" / "app.proj")], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert "to_dask() needs Dask and pandas, and 'dask' cannot be imported" in result.stdout
    assert "python3-dask python3-pandas" in result.stdout


# --- Slices of large traces: partitions that are byte ranges of a
# trace, each read from its range by the C++ reader (reader/TraceSlices.hpp).

SLICED_RANKS = 3


@pytest.fixture(scope="module")
def sliced_run(build_dir, tmp_path_factory):
    """The run of tests/reader/SlicedRun.hpp, written by libhdtrace: nested
    calls in <Nested> blocks, <For>/<Data>/<Info> children, escaped values,
    messages whose completions and persistent requests lie many slices away."""
    writer = build_dir / "tests" / "reader" / "reader_sliced_run"
    assert writer.is_file(), f"{writer} is missing: build the project with its tests"
    work = tmp_path_factory.mktemp("sliced")
    result = subprocess.run([str(writer), str(work), "40", str(SLICED_RANKS)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return work / "sliced.proj"


def assert_sliced_frame_matches(project, frame, **filters):
    """Partitions in trace order, each holding its trace's rank and thread;
    the whole frame equals to_dataframe() row for row."""
    expected = project.to_dataframe(**filters)
    assert list(frame.dtypes) == list(expected.dtypes)
    computed = frame.compute()
    assert list(computed.dtypes) == list(expected.dtypes)
    assert_partitions_hold_their_traces(frame)
    at = 0
    for part in frame.to_delayed():
        rows = part.compute()
        assert rows.reset_index(drop=True).equals(computed.iloc[at:at + len(rows)]
                                                  .reset_index(drop=True))
        at += len(rows)
    ordered, _ = in_trace_order(project, computed)
    pandas.testing.assert_frame_equal(ordered, expected, check_exact=True)
    return computed


def slices_per_trace(frame):
    """{trace path: its number of partitions}; each trace's slices numbered in order."""
    seen = {}
    for spec in frame._hdtrace_run.specs:
        seen.setdefault(spec.path, []).append((spec.slice_index, spec.slices))
    for path, slices in seen.items():
        assert slices == [(index, len(slices)) for index in range(len(slices))], path
    return {path: len(slices) for path, slices in seen.items()}


def test_sliced_traces_read_as_many_partitions_equal_to_dataframe(sliced_run):
    project = hdtrace.open(sliced_run, **AS_WRITTEN)
    sizes = [os.path.getsize(leaf.path) for leaf in project.topology]
    slice_bytes = min(sizes) // 12
    frame = project.to_dask(slice_bytes=slice_bytes)
    counts = slices_per_trace(frame)
    assert len(counts) == SLICED_RANKS and all(count >= 12 for count in counts.values()), counts
    # Planned from the sizes: [begin, end) of about slice_bytes, tiling each file.
    for spec in frame._hdtrace_run.specs:
        assert spec.begin is not None and (spec.end is None) == (spec.slice_index ==
                                                                 spec.slices - 1)
    computed = assert_sliced_frame_matches(project, frame)
    assert len(computed) == SLICED_RANKS * (2 + 40 * 11 + 4)
    # Every partition holds calls: no slice lies between two calls' starts.
    assert all(len(part) > 0 for part in dask.compute(*frame.to_delayed()))
    # The filters of to_numpy() apply to the slices as to the whole traces.
    table = project.to_numpy()
    middle = float(np.median(table["start"]))
    for filters in ({"names": ["Isend", "Waitall", "File_open"]},
                    {"window": (middle - 2e-5, middle + 2e-5)}):
        frame = project.to_dask(slice_bytes=slice_bytes, **filters)
        assert len(assert_sliced_frame_matches(project, frame, **filters)) > 0, filters
    # A trace no larger than a slice stays whole, and whole traces share a
    # partition up to a slice's bytes: the default slices (256 MiB) leave
    # these small traces whole, all in one partition.
    for options, partitions in (({"slice_bytes": max(sizes)}, SLICED_RANKS),
                                ({"slice_bytes": 3 * max(sizes)}, 1), ({}, 1),
                                ({"slice_bytes": None}, 1), ({"slice_bytes": 0}, 1)):
        frame = project.to_dask(**options)
        assert [spec.slices for spec in frame._hdtrace_run.specs] == [1] * SLICED_RANKS
        assert frame.npartitions == partitions, options
    from hdtrace import distributed_frames
    for function in (hdtrace.Project.to_dask, hdtrace.to_dask):
        default = inspect.signature(function).parameters["slice_bytes"].default
        assert default == distributed_frames.DEFAULT_SLICE_BYTES == 256 << 20
    for wrong in (-1, 1.5, "1M"):
        with pytest.raises(ValueError, match="slice_bytes must be a number of bytes"):
            project.to_dask(slice_bytes=wrong)


def test_slices_at_every_byte_offset_concatenate_to_the_whole_trace(data_dir):
    from hdtrace import _core
    trace = str(data_dir / "ours" / "app_node01_0_0.trc")
    whole = _core.read_columns(trace)
    keys = ("start_ns", "end_ns", "size", "offset", "rid", "peer", "tag", "cid", "fid",
            "recv_peer", "recv_tag")
    size = os.path.getsize(trace)
    for split in range(size + 1):
        first = _core.read_columns(trace, begin=0, end=split)
        second = _core.read_columns(trace, begin=split, end=size)
        assert not first["slice_whole"] and first["slice_to"] == second["slice_from"]
        for key in keys:
            assert np.array_equal(np.concatenate([first[key], second[key]]), whole[key]), \
                (split, key)
        names = [part["names"][code] for part in (first, second) for code in part["name_code"]]
        assert names == [whole["names"][code] for code in whole["name_code"]], split
        rows = len(first["name_code"])
        assert np.array_equal(np.concatenate([first["completion_row"],
                                              second["completion_row"] + rows]),
                              whole["completion_row"]), split


def test_table_stats_and_match_messages_on_slices_equal_in_process(sliced_run, traced_run):
    """The generated run and the traced 4-rank run, every trace in 9 or more slices."""
    for proj in (sliced_run, traced_run):
        project = hdtrace.open(proj, **AS_WRITTEN)
        slice_bytes = min(os.path.getsize(leaf.path) for leaf in project.topology) // 9
        frame = project.to_dask(slice_bytes=slice_bytes)
        assert min(slices_per_trace(frame).values()) >= 9
        assert_sliced_frame_matches(project, frame)
        assert_stats_equal(hdtrace.stats(frame), hdtrace.stats(project))
        assert_matches_equal(project, frame, hdtrace.match_messages(frame),
                             hdtrace.match_messages(project))
    # The generated run's messages cross slices: every Waitall completes requests
    # of an earlier slice for some split, persistent requests are made once.
    matches = hdtrace.match_messages(hdtrace.open(sliced_run, **AS_WRITTEN))
    assert len(matches.pairs) == SLICED_RANKS * (40 * 3 + 1)
    assert len(matches.incomplete) == 2 * SLICED_RANKS
    assert len(matches.unmatched_sends) == len(matches.unmatched_recvs) == SLICED_RANKS


def test_a_slice_finds_the_probes_of_its_matched_receives_before_it(traced_run):
    """Rank 1's two Mprobes and two Mrecvs, split at every byte between the
    first probe and the last receive: the probe starts the two slices give
    (an Mrecv's place in the matching order) are the whole trace's, also
    where a receive's probe lies in the slice before it."""
    from hdtrace import _core
    from hdtrace import distributed_frames
    project = hdtrace.open(traced_run, **AS_WRITTEN)
    trace = os.path.abspath(project.topology.leaf(1).path)
    text = pathlib.Path(trace).read_bytes()

    def starts_of(begin=None, end=None):
        sliced = begin is not None
        columns = _core.read_columns(trace, begin=begin, end=end) if sliced else \
            _core.read_columns(trace)
        names = [columns["names"][code] for code in columns["name_code"]]
        spec = types.SimpleNamespace(path=trace, partial=False, begin=begin, end=end,
                                     slices=2 if sliced else 1)
        return (distributed_frames._probe_starts_of_trace(spec, names,
                                                          columns["start_ns"].tolist()),
                names)

    whole, names = starts_of()
    probes = [row for row, name in enumerate(names) if name == "Mprobe"]
    receives = [row for row, name in enumerate(names) if name == "Mrecv"]
    assert len(probes) == len(receives) == 2
    # The second message is received first: each receive starts at its own probe.
    columns = _core.read_columns(trace)
    assert whole == {receives[0]: columns["start_ns"][probes[1]],
                     receives[1]: columns["start_ns"][probes[0]]}
    crossing = 0
    for split in range(text.index(b"\n<Mprobe") + 1, text.rindex(b"\n<Mrecv") + 2):
        first, first_names = starts_of(0, split)
        second, second_names = starts_of(split, len(text))
        combined = {**first, **{len(first_names) + row: at for row, at in second.items()}}
        assert combined == whole, split
        crossing += "Mprobe" in first_names and "Mrecv" in second_names
    assert crossing > 0


def test_a_damaged_slice_names_the_place_of_the_whole_read(sliced_run, tmp_path):
    from hdtrace import _core
    copy = tmp_path / "run"
    shutil.copytree(sliced_run.parent, copy)
    project = hdtrace.open(copy / sliced_run.name, **AS_WRITTEN)
    trace = pathlib.Path(project.topology.leaf(1).path)
    text = trace.read_bytes()
    at = text.index(b"time='", len(text) // 2) + len(b"time='")
    trace.write_bytes(text[:at] + b"x" + text[at + 1:])
    with pytest.raises(hdtrace.ReadError) as whole:
        _core.read_columns(str(trace))
    frame = project.to_dask(slice_bytes=len(text) // 10)
    assert slices_per_trace(frame)[str(trace)] >= 10
    with pytest.raises(hdtrace.ReadError) as sliced:
        frame.compute(scheduler="synchronous")
    got, want = sliced.value, whole.value
    assert (got.file, got.line, got.column, got.problem) == \
        (want.file, want.line, want.column, want.problem)
    assert want.line > 100 and "is not a time in seconds" in want.problem


def test_original_implementation_traces_stay_one_partition(fixtures_dir):
    from hdtrace import _core
    proj = next((fixtures_dir / "original-traces" / "partdiff").glob("*.proj"))
    project = hdtrace.open(proj)
    assert project.dialect == "original"
    frame = project.to_dask(slice_bytes=4096)
    assert frame.npartitions == len(project.topology) == 5
    assert_frame_matches(project, frame)
    # The C++ reader itself reads such a trace whole in the slice at 0.
    trace = project.topology.leaf(0).path
    first = _core.read_columns(trace, begin=0, end=4096)
    rest = _core.read_columns(trace, begin=4096, end=None)
    assert first["slice_whole"] and rest["slice_whole"] and len(rest["name_code"]) == 0
    assert np.array_equal(first["start_ns"], _core.read_columns(trace)["start_ns"])


def test_slices_on_a_local_cluster_of_two_processes(sliced_run, cluster):
    project = hdtrace.open(sliced_run, **AS_WRITTEN)
    slice_bytes = min(os.path.getsize(leaf.path) for leaf in project.topology) // 5
    with distributed.Client(cluster):
        frame = project.to_dask(slice_bytes=slice_bytes)
        assert frame.npartitions >= 5 * SLICED_RANKS
        assert_sliced_frame_matches(project, frame)
        assert_stats_equal(hdtrace.stats(frame), hdtrace.stats(project))
        assert_matches_equal(project, frame, hdtrace.match_messages(frame),
                             hdtrace.match_messages(project))


def compact_twin(build_dir, proj, directory):
    """A copy of the run at proj whose traces are compact only, converted by
    `hdtrace convert` into frames of 256 bytes (about 20 calls each), so
    that small traces still split into many partitions."""
    source = pathlib.Path(proj).parent
    directory.mkdir()
    for path in source.iterdir():
        if path.suffix in (".proj", ".info"):
            shutil.copy2(path, directory / path.name)
        elif path.suffix == ".trc":
            done = subprocess.run(
                ["/usr/bin/python3", "-m", "hdtrace", "convert", "-q", "--to", "compact",
                 "--frame-bytes", "256", "-o", str(directory / path.with_suffix(".ctrc").name),
                 str(path)], capture_output=True, text=True, timeout=TIMEOUT, env=mpi_env())
            assert done.returncode == 0, done.stderr
    assert not list(directory.glob("*.trc"))
    return directory / pathlib.Path(proj).name


def test_compact_traces_split_by_calls_as_their_xml_form_by_bytes(build_dir, sliced_run,
                                                                  traced_run, tmp_path):
    """One run in both forms: for each slice size, the compact traces split
    into about as many partitions as the XML ones (the same target of calls
    per partition: slice_bytes / XML_BYTES_PER_CALL), each holding whole
    frames of its trace, and both frames equal to_dataframe() row for row."""
    from hdtrace import frames as frames_module
    per_call = frames_module.XML_BYTES_PER_CALL
    for name, proj in (("sliced", sliced_run), ("traced", traced_run)):
        xml = hdtrace.open(proj, **AS_WRITTEN)
        compact = hdtrace.open(compact_twin(build_dir, proj, tmp_path / name), **AS_WRITTEN)
        assert all(leaf.path.endswith(".ctrc") for leaf in compact.topology)
        expected = xml.to_dataframe()
        pandas.testing.assert_frame_equal(compact.to_dataframe(), expected, check_exact=True)
        size = min(os.path.getsize(leaf.path) for leaf in xml.topology)
        for parts in (2, 5, 9):
            slice_bytes = size // parts
            xml_frame = xml.to_dask(slice_bytes=slice_bytes)
            compact_frame = compact.to_dask(slice_bytes=slice_bytes)
            xml_counts = slices_per_trace(xml_frame)
            compact_counts = slices_per_trace(compact_frame)
            for leaf, compact_leaf in zip(xml.topology, compact.topology):
                calls = len(hdtrace.native.read_columns(leaf.path)["name_code"])
                frame_list = hdtrace.native.compact_frames(compact_leaf.path)
                # The planned count, but where frames are too few to cut there.
                planned = min(-(-calls // max(1, slice_bytes // per_call)), len(frame_list))
                got = compact_counts[os.path.abspath(compact_leaf.path)]
                assert planned - 1 <= got <= planned, (name, parts, got, planned)
                # Comparable with the XML form's: within the spread of
                # bytes per call around XML_BYTES_PER_CALL (here 0.75-1.3).
                want = xml_counts[os.path.abspath(leaf.path)]
                assert 0.5 * want <= got <= 1.5 * want + 1, (name, parts, got, want)
                print(f"{name} rank {leaf.rank}: slice_bytes {slice_bytes}: XML {want} "
                      f"partitions, compact {got} ({len(frame_list)} frames)")
            # Every compact slice starts at a frame (or at 0) and ends where
            # the next begins.
            frame_starts = {os.path.abspath(leaf.path): {0} | {frame[0] for frame in
                            hdtrace.native.compact_frames(leaf.path)}
                            for leaf in compact.topology}
            for spec in compact_frame._hdtrace_run.specs:
                if spec.slices > 1:
                    assert spec.begin in frame_starts[spec.path]
                    assert spec.end is None or spec.end in frame_starts[spec.path]
            assert all(len(part) > 0 for part in dask.compute(*compact_frame.to_delayed()))
            assert_sliced_frame_matches(xml, xml_frame)
            computed = assert_sliced_frame_matches(compact, compact_frame)
            pandas.testing.assert_frame_equal(computed.reset_index(drop=True),
                                              xml_frame.compute().reset_index(drop=True),
                                              check_exact=True)
        assert_stats_equal(hdtrace.stats(compact_frame), hdtrace.stats(xml))
        assert_matches_equal(compact, compact_frame, hdtrace.match_messages(compact_frame),
                             hdtrace.match_messages(xml))


def test_compact_slices_are_planned_from_the_frame_index():
    """plan_compact_slices: whole frames, cut at the frame start nearest to
    each even share of the records; one range when one slice holds them all."""
    from hdtrace.frames import XML_BYTES_PER_CALL, plan_compact_slices
    frames = [(24 + 100 * index, 10) for index in range(10)]  # 100 records
    assert plan_compact_slices(frames, 0) == [(None, None)]
    assert plan_compact_slices(frames, None) == [(None, None)]
    assert plan_compact_slices(frames, 100 * XML_BYTES_PER_CALL) == [(None, None)]
    assert plan_compact_slices(frames[:1], XML_BYTES_PER_CALL) == [(None, None)]
    assert plan_compact_slices(frames, 50 * XML_BYTES_PER_CALL) == [(0, 524), (524, None)]
    # Three shares: records 33 and 66 are nearest to the starts of frames 3 and 7.
    assert plan_compact_slices(frames, 40 * XML_BYTES_PER_CALL) == \
        [(0, 324), (324, 724), (724, None)]
    # More slices than frames: one frame each.
    assert plan_compact_slices(frames, XML_BYTES_PER_CALL) == \
        [(0, 124)] + [(24 + 100 * index, 124 + 100 * index) for index in range(1, 9)] + \
        [(924, None)]
    # Uneven frames: the cut goes to the frame start nearest to half the records.
    uneven = [(24, 90), (500, 5), (600, 5)]
    assert plan_compact_slices(uneven, 50 * XML_BYTES_PER_CALL) == [(0, 500), (500, None)]


def test_whole_traces_share_partitions_up_to_a_slice_and_a_count(monkeypatch):
    """group_pieces: a slice alone; whole traces one after another while
    their bytes stay within the slice's and they are at most PARTITION_TRACES."""
    def spec(number, slice_index=0, slices=1):
        return types.SimpleNamespace(part=number, slice_index=slice_index, slices=slices)
    pieces = [spec(0), spec(1), spec(2, 0, 2), spec(3, 1, 2), spec(4), spec(5), spec(6),
              spec(7), spec(8)]
    weights = [40, 50, 5, 5, 30, 30, 30, 101, 0]  # the small slices stay alone
    grouped = frames.group_pieces(pieces, weights, 100, most=3)
    assert [[piece.part for piece in part] for part in grouped] == [
        [0, 1], [2], [3], [4, 5, 6], [7], [8]]
    # The default count; a trace larger than the slice on its own.
    monkeypatch.setattr(frames, "PARTITION_TRACES", 2)
    grouped = frames.group_pieces(pieces[4:], weights[4:], 100)
    assert [[piece.part for piece in part] for part in grouped] == [[4, 5], [6], [7], [8]]
