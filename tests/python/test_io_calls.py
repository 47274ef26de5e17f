"""hdtrace.io_calls: every call on a file at every depth, from the C++
reader's call trees, is what a walk over every Event in Python finds (the
reference, io_calls.walked_io_calls), column by column, for XML and compact
traces, nested blocks several levels deep, aligned clocks and damaged
traces; and _core.read_call_tree gives the same tree by its three readers."""
import pathlib
import shutil
import sys
import warnings

import numpy as np
import pytest

import hdtrace
from hdtrace import native
from hdtrace.errors import TraceDamageWarning
from hdtrace.io_calls import _NameTable, finish_order, project_io_calls, walked_io_calls

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "views"))

import tracegen  # noqa: E402

S = 1_000_000_000


def decoded(io):
    """The columns with codes replaced by the names they stand for."""
    out = {}
    for column, values in io.columns.items():
        if column == "call":
            out[column] = [io.names[code] for code in values]
        elif column == "parent_call":
            out[column] = [io.names[code] if code >= 0 else None for code in values]
        elif column == "file":
            out[column] = [io.files[code] if code >= 0 else None for code in values]
        else:
            out[column] = values.tolist()
    return out


def assert_same(project):
    fast, walked = decoded(project_io_calls(project)), decoded(walked_io_calls(project))
    assert list(fast) == list(walked)
    for column in fast:
        assert fast[column] == walked[column], column
    return fast


def to_compact(directory, target):
    shutil.copytree(directory, target)
    for trace in pathlib.Path(target).glob("*.trc"):
        native.convert_trace(str(trace), str(trace.with_suffix(".ctrc")), "compact")
        trace.unlink()


@pytest.mark.parametrize("posix", [True, False])
def test_generated_runs_in_both_forms(tmp_path, posix):
    run = tracegen.generate(tmp_path / "xml", ranks=4, iterations=3, posix=posix)
    columns = assert_same(hdtrace.open(run.project))
    # What the generator wrote, as the columns have it.
    pwrites = [row for row, name in enumerate(columns["call"]) if name == "pwrite"]
    expected = [access for access in run.posix if access.name == "pwrite"]
    assert len(pwrites) == len(expected) > 0 if posix else pwrites == []
    for row, access in zip(pwrites, sorted(expected, key=lambda a: (a.rank, a.start_ns))):
        assert (columns["rank"][row], columns["offset"][row], columns["requested"][row],
                columns["done"][row], columns["depth"][row], columns["parent_call"][row]) == \
            (access.rank, access.offset, access.asked, access.done, 1, access.parent)
        parent = columns["parent"][row]
        assert columns["call"][parent] == access.parent
    to_compact(tmp_path / "xml", tmp_path / "compact")
    compact = hdtrace.open(tmp_path / "compact" / "demo.proj")
    assert assert_same(compact) == columns


def nested_trace(directory):
    """A trace whose nested calls have nested calls of their own, and a
    File_open whose nested open comes before the name it gives."""
    directory.mkdir()
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>', "<Program timeAdjustment='1700000000'>",
        "<Nested>",
        "  <open fid='3' flags='66' time='0.000000100' end='0.000000200'/>",
        "</Nested>",
        "<File_open cid='0' name='deep.dat' flags='9' fid='3' time='0.000000050' "
        "end='0.000000300'/>",
        "<Nested>",
        "  <Nested>",
        "    <pwrite fid='3' offset='10' asked='5' size='5' time='0.000001100' "
        "end='0.000001200'/>",
        "  </Nested>",
        "  <File_write_at fid='3' offset='10' size='5' count='5' tid='1' time='0.000001050' "
        "end='0.000001300'/>",
        "  <fsync fid='3' time='0.000001400' end='0.000001500'/>",
        "</Nested>",
        "<Bcast size='8' rootRank='0' cid='0' count='1' tid='1' time='0.000001000' "
        "end='0.000002000'/>",
        "<Nested>",
        "  <pread fid='9' offset='0' asked='64' size='0' errno='5' time='0.000003100' "
        "end='0.000003200'/>",
        "</Nested>",
        "<File_read_all_begin fid='3' rid='0' time='0.000003000' end='0.000003300'>",
        "  <Data offset='40' size='64' count='64' tid='1'/>",
        "</File_read_all_begin>",
        "</Program>", ""]
    (directory / "deep_node-a_0_0.trc").write_text("\n".join(lines))
    tracegen._write_project(str(directory / "deep.proj"), "deep", 1, {0: 1})
    return directory / "deep.proj"


def test_nested_blocks_at_every_depth(tmp_path):
    columns = assert_same(hdtrace.open(nested_trace(tmp_path / "deep")))
    rows = {name: row for row, name in enumerate(columns["call"])}
    assert columns["call"] == ["File_open", "open", "File_write_at", "pwrite", "fsync",
                               "File_read_all_begin", "pread"]
    assert columns["depth"] == [0, 1, 1, 2, 1, 0, 1]
    # The nested open was made before File_open named the file: no name yet.
    assert columns["file"][rows["open"]] == "fid 3 of rank 0"
    assert columns["file"][rows["pwrite"]] == "deep.dat"
    assert columns["parent"][rows["pwrite"]] == rows["File_write_at"]
    assert columns["parent"][rows["File_write_at"]] == -1  # beneath Bcast, no I/O call
    assert columns["parent_call"][rows["File_write_at"]] == "Bcast"
    assert columns["parent"][rows["pread"]] == rows["File_read_all_begin"]
    assert columns["failed"][rows["pread"]] is True and columns["done"][rows["pread"]] == 0
    begin = rows["File_read_all_begin"]
    assert (columns["offset"][begin], columns["done"][begin]) == (40, 64)
    to_compact(tmp_path / "deep", tmp_path / "compact")
    assert assert_same(hdtrace.open(tmp_path / "compact" / "deep.proj")) == columns


def test_aligned_clocks(tmp_path):
    """Each rank's clock is said to be ahead of rank 0's: the nested calls'
    times are corrected as their callers' are."""
    run = tracegen.generate(tmp_path / "run", ranks=3, iterations=2, posix=True,
                            second_thread_rank=None)
    base = tracegen.TIME_ADJUSTMENT * S
    for rank in range(3):
        offset = rank * 5000
        (tmp_path / "run" / f"demo_node-a_{rank}_0.info").write_text(
            "Mpi library='x' order_c=0 order_fortran=1 distribute_block=0 distribute_cyclic=1 "
            "distribute_none=2 distribute_dflt_darg=-1\n"
            f"Clock at='init' time={base} offset={offset} rtt=10 leader={rank} exchanges=20\n"
            f"Clock at='finalize' time={base + S} offset={offset + 2000} rtt=10 leader={rank} "
            "exchanges=20\n")
    project = hdtrace.open(run.project)
    assert project.clock_correction is not None
    columns = assert_same(project)
    raw = decoded(project_io_calls(hdtrace.open(run.project, align=False)))
    moved = [row for row, rank in enumerate(columns["rank"]) if rank == 2]
    assert all(columns["start_ns"][row] != raw["start_ns"][row] for row in moved)


def test_damaged_trace_partial(tmp_path):
    run = tracegen.generate(tmp_path / "run", ranks=2, iterations=2, posix=True)
    trace = tmp_path / "run" / "demo_node-a_1_0.trc"
    data = trace.read_bytes()
    trace.write_bytes(data[:len(data) * 3 // 5])
    with pytest.raises(hdtrace.ReadError):
        project_io_calls(hdtrace.open(run.project))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        columns = assert_same(hdtrace.open(run.project, partial=True))
    assert any(issubclass(w.category, TraceDamageWarning) and str(trace) in str(w.message)
               for w in caught)
    assert 1 in columns["rank"]


@pytest.mark.parametrize("form", ["xml", "compact"])
def test_the_three_readers_give_one_tree(tmp_path, form):
    """The scanner (or the compact records) and the event reader, which a
    trace outside the writer's layout goes to, give the same columns."""
    project = nested_trace(tmp_path / "deep")
    trace = tmp_path / "deep" / "deep_node-a_0_0.trc"
    if form == "compact":
        native.convert_trace(str(trace), str(tmp_path / "deep.ctrc"), "compact")
        trace = tmp_path / "deep.ctrc"
    fast = native.read_call_tree(str(trace))
    # A comment is outside what the scanner and the compact form know: the
    # same calls, read by the event reader.
    text = (tmp_path / "deep" / "deep_node-a_0_0.trc").read_text()
    other = tmp_path / "other.trc"
    other.write_text(text.replace("<Program timeAdjustment='1700000000'>",
                                  "<Program timeAdjustment='1700000000'><!-- x -->"))
    slow = native.read_call_tree(str(other))
    assert [fast["names"][code] for code in fast["name_code"]] == \
        [slow["names"][code] for code in slow["name_code"]]
    for key in fast:
        if key in ("damage", "names", "name_code"):  # codes are given in reading order
            continue
        left, right = fast[key], slow[key]
        assert (list(left) == list(right)) if isinstance(left, list) else \
            np.array_equal(left, right), key
    assert project.is_file()


@pytest.mark.parametrize("form", ["xml", "compact"])
def test_a_sizes_only_tree_has_the_full_trees_names_depths_and_sizes(tmp_path, form):
    """read_call_tree(sizes_only=True), which the POSIX sums of hdtrace stats
    read, fills name_code, depth and size as the full tree has them, and no
    other column; with layers it is refused."""
    nested_trace(tmp_path / "deep")
    trace = tmp_path / "deep" / "deep_node-a_0_0.trc"
    if form == "compact":
        native.convert_trace(str(trace), str(tmp_path / "deep.ctrc"), "compact")
        trace = tmp_path / "deep.ctrc"
    full = native.read_call_tree(str(trace))
    narrow = native.read_call_tree(str(trace), sizes_only=True)
    assert len(full["name_code"]) > 0
    assert [narrow["names"][code] for code in narrow["name_code"]] == \
        [full["names"][code] for code in full["name_code"]]
    assert np.array_equal(narrow["depth"], full["depth"])
    assert np.array_equal(narrow["size"], full["size"])
    for key in ("parent", "top_row", "start_ns", "end_ns", "fid", "offset", "asked", "failed",
                "data_size", "data_offset", "open_row", "open_fid", "open_name"):
        assert len(narrow[key]) == 0, key
    with pytest.raises(ValueError, match="sizes_only reads one trace, not its layers"):
        native.read_call_tree(str(trace), layers=True, sizes_only=True)


@pytest.mark.parametrize("posix", [True, False])
def test_accesses_from_the_columns_are_those_of_the_walk(tmp_path, posix):
    """io_layers.project_accesses (from the call trees) gives the FileAccess
    list, in order, that the walk over each trace's Events gives."""
    from hdtrace import io_layers

    run = tracegen.generate(tmp_path / "run", ranks=4, iterations=3, posix=posix)
    project = hdtrace.open(run.project)
    walked = [access for leaf in project.topology.leaves
              for access in io_layers.accesses_of_events(project.trace(leaf.rank, leaf.thread),
                                                         leaf.rank, leaf.thread)]
    assert list(io_layers.project_accesses(project)) == walked
    deep = hdtrace.open(nested_trace(tmp_path / "deep"))
    walked = list(io_layers.accesses_of_events(deep.trace(0), 0, 0))
    # Reads and writes only, each call's nested calls before it.
    assert [access.call for access in walked] == ["pwrite", "File_write_at", "pread",
                                                  "File_read_all_begin"]
    assert list(io_layers.project_accesses(deep)) == walked


def random_preorder_tree(random, rows):
    """(depth, parent) of a random tree of rows calls in pre-order: each row
    a child of the row before it, or of one of that row's ancestors."""
    depth = np.zeros(rows, dtype=np.int8)
    parent = np.full(rows, -1, dtype=np.int64)
    path = []  # the rows from the top level down to the row before
    for row in range(rows):
        keep = random.randrange(len(path) + 1) if path else 0
        del path[keep:]
        depth[row] = len(path)
        parent[row] = path[-1] if path else -1
        path.append(row)
    return depth, parent


def test_finish_order_ends_each_call_after_the_calls_it_made():
    # Against the definition: a call ends after every call in its subtree,
    # which end in pre-order, deepest first where they end together.
    import random as random_module
    random = random_module.Random(7)
    for rows in (0, 1, 2, 5, 40, 300):
        for _ in range(20):
            depth, parent = random_preorder_tree(random, rows)
            last = list(range(rows))
            for row in reversed(range(rows)):
                if parent[row] >= 0:
                    last[parent[row]] = max(last[parent[row]], last[row])
            deepest = int(depth.max(initial=0))
            expected = [last[row] * (deepest + 1) + deepest - int(depth[row])
                        for row in range(rows)]
            assert finish_order(depth, parent).tolist() == expected


def random_file_trace(random, directory, calls):
    """A one-rank run whose calls open, reopen, write and sync a few file ids
    at random depths: opens nested under calls on the same id, ids only the
    .info names, ids nobody names, and calls that are not on files."""
    directory.mkdir()
    now = [1000]

    def stamp():
        now[0] += random.randrange(1, 50)
        return f"0.{now[0]:09d}"

    def call(depth):
        nested = []
        if depth < 3 and random.random() < 0.4:
            nested = [call(depth + 1) for _ in range(random.randrange(1, 3))]
        fid = random.randrange(5)
        start = stamp()
        kind = random.randrange(6)
        if kind == 0:
            tag = (f"<File_open cid='0' name='f{fid}-{random.randrange(3)}.dat' flags='9' "
                   f"fid='{fid}'")
        elif kind == 1:
            tag = (f"<File_write_at fid='{fid}' offset='{random.randrange(100)}' size='8' "
                   f"count='8' tid='1'")
        elif kind == 2:
            tag = (f"<pwrite fid='{fid}' offset='{random.randrange(100)}' asked='8' "
                   f"size='{random.choice((8, 3, -1))}'")
        elif kind == 3:
            tag = f"<open fid='{fid}' flags='66'"
        elif kind == 4:
            tag = f"<fsync fid='{fid}'"
        else:
            tag = "<Barrier cid='0'"
        # The writer's layout: a block and its calls indented by their depth.
        indent = "  " * depth
        block = [indent + "<Nested>"] + [line for child in nested for line in child] + \
            [indent + "</Nested>"] if nested else []
        return block + [f"{indent}{tag} time='{start}' end='{stamp()}'/>"]

    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<Program timeAdjustment='1700000000'>"]
    for _ in range(calls):
        lines += call(0)
    lines += ["</Program>", ""]
    (directory / "rand_node-a_0_0.trc").write_text("\n".join(lines))
    (directory / "rand_node-a_0_0.info").write_text(
        'File name="from-info.dat" Size=0 id=4\n')
    tracegen._write_project(str(directory / "rand.proj"), "rand", 1, {0: 1})
    return directory / "rand.proj"


@pytest.mark.parametrize("seed", range(6))
def test_random_nesting_and_reopens_are_named_as_the_walk_names_them(tmp_path, seed):
    import random as random_module
    random = random_module.Random(seed)
    project = random_file_trace(random, tmp_path / "xml", 60)
    columns = assert_same(hdtrace.open(project))
    assert len(columns["call"]) > 30
    # Some calls are named by an open, some by the .info, some by neither.
    files = set(columns["file"])
    assert "from-info.dat" in files or 4 not in columns["fid"]
    assert any(name and name.startswith("fid ") for name in files)
    assert any(name and name.endswith(".dat") and name != "from-info.dat" for name in files)
    to_compact(tmp_path / "xml", tmp_path / "compact")
    shutil.copy(tmp_path / "xml" / "rand_node-a_0_0.info", tmp_path / "compact")
    assert assert_same(hdtrace.open(tmp_path / "compact" / "rand.proj")) == columns


def kinds_of_nothing(names):
    count = len(names)
    return (np.zeros(count, np.int8), np.full(count, 2, np.int8),
            np.zeros(count, bool), np.arange(count, dtype=np.int32))


def test_describe_failing_on_a_later_trace_stops_the_read(tmp_path):
    """The traces are read on every core and their rows written in order:
    a describe that raises on the third trace's names ends the read with
    its own error, and every trace before it was described in order."""
    # Traces of two runs in turn: each names other calls than the last.
    with_posix = tracegen.generate(tmp_path / "posix", ranks=3, iterations=2, posix=True)
    without = tracegen.generate(tmp_path / "mpi", ranks=3, iterations=2, posix=False)
    leaves = zip(hdtrace.open(with_posix.project).topology.leaves,
                 hdtrace.open(without.project).topology.leaves)
    traces = [(leaf.path, leaf.rank, leaf.thread) for pair in leaves for leaf in pair]
    described = []

    class Refused(Exception):
        pass

    def describe(names):
        described.append(list(names))
        if len(described) == 3:
            raise Refused("the third trace's names")
        return kinds_of_nothing(names)

    with pytest.raises(Refused, match="the third trace's names"):
        native.read_io_calls(traces, describe, lambda index, opens, unnamed: [])
    assert described == [list(native.read_call_tree(path)["names"]) for path, _, _ in traces[:3]]

    def misshapen(names):
        return (np.zeros(len(names) + 1, np.int8),) * 4

    with pytest.raises(ValueError, match="describe must give layer as one value per name"):
        native.read_io_calls(traces, misshapen, lambda index, opens, unnamed: [])


def test_describe_asked_once_per_run_of_like_names(tmp_path):
    """describe is asked for a trace's names only where they differ from the
    last trace's, and every trace still gets its rows."""
    run = tracegen.generate(tmp_path / "run", ranks=6, iterations=2, posix=True)
    traces = [(leaf.path, leaf.rank, leaf.thread)
              for leaf in hdtrace.open(run.project).topology.leaves]
    names = [list(native.read_call_tree(path)["names"]) for path, _, _ in traces]
    changes = [names[0]] + [later for earlier, later in zip(names, names[1:])
                            if later != earlier]
    assert len(changes) < len(traces), "the generated ranks should share their names"
    described = []

    def describe(asked):
        described.append(list(asked))
        return kinds_of_nothing(asked)

    io = native.read_io_calls(traces, describe,
                              lambda index, opens, unnamed: [0] * (len(opens) + len(unnamed)))
    assert described == changes
    assert list(io["rows"]) == [len(native.read_call_tree(path)["name_code"])
                                for path, _, _ in traces]


def test_columns_grow_where_later_traces_hold_more_io_calls(tmp_path):
    """The columns are sized from the first traces' I/O calls per byte: a
    later trace denser in them makes the columns grow (and move) between the
    traces' writes. Every trace's rows still come out as they do alone."""
    sparse = tracegen.generate(tmp_path / "mpi", ranks=2, iterations=5, posix=False)
    dense = tracegen.generate(tmp_path / "posix", ranks=6, iterations=5, posix=True)
    leaves = hdtrace.open(sparse.project).topology.leaves[:1] + \
        hdtrace.open(dense.project).topology.leaves
    traces = [(leaf.path, leaf.rank, leaf.thread) for leaf in leaves]

    def files(index, opens, unnamed):
        return list(range(len(opens) + len(unnamed)))

    def read(traces):
        table = _NameTable()
        io = native.read_io_calls(traces, table.of, files)
        io["call"] = [table.names[code] for code in io["call"]]
        return io

    alone = [read([trace]) for trace in traces]
    per_byte = [len(io["rank"]) / pathlib.Path(path).stat().st_size
                for io, (path, _, _) in zip(alone, traces)]
    assert per_byte[1] > 1.125 * per_byte[0], "the second trace must outgrow the first's estimate"
    together = read(traces)
    assert list(together["rows"]) == [len(io["rank"]) for io in alone]
    first = 0
    for io in alone:
        rows = len(io["rank"])
        for column in ("rank", "call", "kind", "fid", "file", "offset", "requested", "done",
                       "start_ns", "end_ns", "depth", "failed"):
            assert list(together[column][first:first + rows]) == list(io[column]), column
        parents = io["parent"]
        assert list(together["parent"][first:first + rows]) == \
            [parent + first if parent >= 0 else -1 for parent in parents]
        first += rows
    assert first == len(together["rank"])
