"""Beyond fuzzing: memory follows the input present, never a number
in it; commands print all or nothing; what the merger writes reads back;
messages say what happened."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

import hdtrace
from hdtrace import _core


def run(build_dir, *args):
    env = dict(os.environ, PYTHONPATH=str(build_dir / "python"))
    return subprocess.run(["/usr/bin/python3", "-m", "hdtrace", *map(os.fsencode, args)],
                          env=env, capture_output=True, timeout=120)


def run_bounded(build_dir, script, headroom_mib, timeout=60):
    """Runs script in a child Python whose address space may grow by at most
    headroom_mib beyond what it has once hdtrace is imported; its stdout as JSON."""
    prelude = textwrap.dedent(f"""\
        import json, resource, sys
        import hdtrace
        with open("/proc/self/statm") as statm:
            used = int(statm.read().split()[0]) * resource.getpagesize()
        limit = used + {headroom_mib} * 2 ** 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        """)
    env = dict(os.environ, PYTHONPATH=str(build_dir / "python"))
    result = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(script)], env=env,
                            capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


# --- memory set by a number

def test_a_local_rank_beyond_the_run_is_an_error_not_a_table(copy_project):
    proj = copy_project("ours")
    text = proj.read_text().replace("<Rank global='1' local='1' cid='0'/>",
                                    "<Rank global='1' local='300000000' cid='0'/>", 1)
    proj.write_text(text)
    with pytest.raises(hdtrace.ReadError) as caught:
        hdtrace.open(proj)
    assert caught.value.file == str(proj)
    assert caught.value.line == text.splitlines().index(
        next(line for line in text.splitlines() if "local='300000000'" in line)) + 1
    assert caught.value.problem == ("communicator 0 ('WORLD'): world rank 1 has local rank "
                                    "300000000, but the run has 2 ranks")
    proj.write_text(text.replace("local='300000000'", "local='-1'"))
    with pytest.raises(hdtrace.ReadError, match="world rank 1 has local rank -1"):
        hdtrace.open(proj)


@pytest.mark.parametrize("old,new,problem", [
    ("<Node name='1'", "<Node name='one'", "topology rank label 'one' is not an integer"),
    ("<Rank name='0'>", "<Rank name='zero'>", "<Rank name='zero'> in <Datatypes> is not an integer"),
])
def test_project_errors_found_after_reading_name_their_line(copy_project, old, new, problem):
    proj = copy_project("ours")
    text = proj.read_text()
    assert old in text, old
    text = text.replace(old, new, 1)
    proj.write_text(text)
    with pytest.raises(hdtrace.ReadError) as caught:
        project = hdtrace.open(proj)
        project.datatypes  # noqa: B018 - decoded on first use
    assert caught.value.file == str(proj)
    assert problem in caught.value.problem
    line = caught.value.line
    assert line > 0 and new in text.splitlines()[line - 1], (line, caught.value)


def test_the_local_rank_table_of_the_original_dialect_is_sized_by_the_run(copy_project):
    project = hdtrace.open(copy_project("original"))
    for leaf in project.topology:
        for worlds in project.communicators.local_to_world_table(leaf.rank).values():
            assert len(worlds) <= len(project.topology.ranks)


HUGE_TYPES = """\
  <DARRAY id='2' name='' size='2' order='MPI_ORDER_C' rank='1' dims='1' oldType='1275069445'>
    <Dimension gsize='100000000000' distrib='MPI_DISTRIBUTE_CYCLIC' darg='MPI_DISTRIBUTE_DFLT_DARG' psize='2'/>
  </DARRAY>
  <DARRAY id='3' name='' size='2' order='MPI_ORDER_FORTRAN' rank='0' dims='2' oldType='1275069445'>
    <Dimension gsize='100000000000' distrib='MPI_DISTRIBUTE_BLOCK' darg='MPI_DISTRIBUTE_DFLT_DARG' psize='2'/>
    <Dimension gsize='300' distrib='MPI_DISTRIBUTE_CYCLIC' darg='7' psize='1'/>
  </DARRAY>
  <SUBARRAY id='4' name='' ndims='2' order='MPI_ORDER_C' oldType='1275069445'>
    <Dimension size='100000000000' subsize='99999999990' start='5'/>
    <Dimension size='100000000000' subsize='3' start='1'/>
  </SUBARRAY>
  <DARRAY id='5' name='' size='4' order='MPI_ORDER_C' rank='3' dims='1' oldType='1275069445'>
    <Dimension gsize='10' distrib='MPI_DISTRIBUTE_CYCLIC' darg='2' psize='4'/>
  </DARRAY>
"""


def test_darray_and_subarray_of_ten_to_the_eleven_elements_in_bounded_memory(copy_project,
                                                                            build_dir):
    proj = copy_project("ours")
    text = proj.read_text().replace("<Rank name='1'>", "<Rank name='1'>\n" + HUGE_TYPES.replace(
        "1275069445'", "6'"), 1).replace("<Rank name='1'>", "<Rank name='1'>\n  <NAMED id='6' "
                                         "name='MPI_INT'/>", 1)
    proj.write_text(text)
    decoded = run_bounded(build_dir, f"""
        types = hdtrace.open({str(proj)!r}).datatypes[1]
        print(json.dumps({{str(i): [t.size, t.lb, t.extent, t.blocks, t.note]
                          for i, t in types.items()}}))
        """, headroom_mib=64)
    int_size = 4
    assert decoded["2"][:3] == [5 * 10**10 * int_size, 0, 10**11 * int_size]
    assert decoded["2"][3] is None and "5" + "0" * 10 + " blocks" in decoded["2"][4]
    assert decoded["3"][:3] == [5 * 10**10 * 300 * int_size, 0, 10**11 * 300 * int_size]
    assert decoded["4"][:3] == [(10**11 - 10) * 3 * int_size, 0, 10**22 * int_size]
    # A small cyclic one is still flattened: rank 3 of 4 holds indices 6 and 7.
    assert decoded["5"] == [8, 0, 40, [[24, 8]], None]


# --- all or nothing on stdout

def damaged_project(copy_project, calls=5000):
    """The 'ours' project with rank 1's trace holding `calls` calls, cut
    inside the last one (a trace of a killed process)."""
    proj = copy_project("ours")
    trace = proj.parent / "app_node01_1_0.trc"
    lines = ["<?xml version='1.0' encoding='UTF-8'?>", "<Program timeAdjustment='1700000001'>"]
    lines += [f"<Barrier cid='0' time='0.{i:09d}' end='0.{i + 1:09d}'/>" for i in range(calls)]
    trace.write_text("\n".join(lines) + "\n<Barrier cid='0' ti")
    return proj, trace


@pytest.mark.parametrize("args", [["--format", "csv"], ["--format", "jsonl"], ["--rank", "1"]])
def test_events_on_a_trace_damaged_at_its_end_writes_nothing(build_dir, copy_project, args):
    proj, trace = damaged_project(copy_project)
    result = run(build_dir, "events", proj, *args)
    assert result.returncode == 1
    assert result.stdout == b""
    assert f"{trace}:5003:".encode() in result.stderr, result.stderr
    assert b"truncated after line 5003" in result.stderr
    # With --partial the same trace is read up to the cut, and printed.
    partial = run(build_dir, "events", proj, "--partial", *args)
    assert partial.returncode == 0, partial.stderr
    rows = partial.stdout.decode().splitlines()
    barriers = [row for row in rows if "Barrier" in row]
    assert len(barriers) == 5000


def test_other_commands_write_nothing_on_a_damaged_trace(build_dir, copy_project, tmp_path):
    proj, trace = damaged_project(copy_project, calls=200)
    out = tmp_path / "out"
    out.mkdir()
    for args in (["stats"], ["view", "-o", out / "v.html"], ["export", "--chrome", out / "c.json"],
                 ["plot-io", "-o", out / "p.svg"]):
        result = run(build_dir, *args, proj)
        assert result.returncode == 1, (args, result.stderr)
        assert result.stdout == b"", args
        assert str(trace).encode() in result.stderr, (args, result.stderr)
    assert os.listdir(out) == []


# --- the merger writes only what the readers read back

INFO_HEADER = ("Mpi library='Open MPI v4.1.4' order_c=0 order_fortran=1 distribute_block=0 "
               "distribute_cyclic=1 distribute_none=2 distribute_dflt_darg=-1\n")


def write_rank(directory, host, rank, ranks, data_dir, extra=""):
    base = os.path.join(os.fsencode(directory), b"app_" + host + b"_%d_0" % rank)
    trace = (data_dir / "ours" / f"app_node01_{rank % 2}_0.trc").read_bytes()
    with open(base + b".trc", "wb") as out:
        out.write(trace)
    with open(base + b".info", "wb") as out:
        out.write((INFO_HEADER + f"Comm map='0..{ranks - 1}->0..{ranks - 1};' id=0 name='WORLD'\n"
                   f"Comm map='{rank}->0;' id=1 name='SELF'\n" + extra).encode())
    return base


@pytest.mark.parametrize("host", [b"h\"<&'", b"h+x", b"h\nx", b"h\xff"])
def test_hostile_host_names_are_refused_and_force_merges_what_reads_back(data_dir, tmp_path,
                                                                         host):
    directory = tmp_path / "run"
    directory.mkdir()
    write_rank(directory, b"node01", 0, 2, data_dir)
    bad = write_rank(directory, host, 1, 2, data_dir)
    with pytest.raises(hdtrace.MergeError) as caught:
        hdtrace.merge(directory)
    assert caught.value.file == os.fsdecode(bad + b".info")
    assert caught.value.detail.startswith("host name '")
    assert "has characters outside [A-Za-z0-9.-]" in caught.value.detail
    assert not (directory / "app.proj").exists()

    forced = hdtrace.merge(directory, force=True)
    assert any(warning.endswith("dropped this input") for warning in forced["warnings"])
    project = hdtrace.open(directory / "app.proj")
    assert [(leaf.host, leaf.rank) for leaf in project.topology] == [("node01", 0)]
    assert len(project.to_numpy()) == 13


def test_hostile_host_names_through_the_command(build_dir, data_dir, tmp_path):
    directory = tmp_path / "run"
    directory.mkdir()
    write_rank(directory, b"node01", 0, 2, data_dir)
    bad = write_rank(directory, b"h\xff\n", 1, 2, data_dir)
    result = run(build_dir, "merge", directory)
    assert result.returncode == 1
    # Python's stderr shows a byte that is not UTF-8 as \udcXX.
    shown = os.fsdecode(bad + b".info").encode("utf-8", "backslashreplace")
    assert shown + b": host name 'h\\xff\\x0a' in the file name" in result.stderr, result.stderr
    assert not (directory / "app.proj").exists()
    forced = run(build_dir, "merge", "--force", directory)
    assert forced.returncode == 0, forced.stderr
    stats = run(build_dir, "stats", directory / "app.proj")
    assert stats.returncode == 0, stats.stderr


def test_long_names_round_trip_up_to_the_limit_and_are_refused_beyond(build_dir, data_dir,
                                                                      tmp_path):
    # Escaping makes the longest name six times longer in the .proj.
    longest = "\"" * (64 * 1024)
    escaped = longest.replace('"', "&quot;")
    directory = tmp_path / "run"
    directory.mkdir()
    write_rank(directory, b"node01", 0, 2, data_dir,
               f'File name="{escaped}" Size=3 id=0\nComm map=\'0->0;\' id=2 name=\'{"&apos;" * 65536}\'\n')
    write_rank(directory, b"node01", 1, 2, data_dir)
    merged = run(build_dir, "merge", directory)
    assert merged.returncode == 0, merged.stderr
    project = hdtrace.open(directory / "app.proj")
    assert [file.name for file in project.files] == [longest]
    assert "'" * 65536 in [communicator.name for communicator in project.communicators]
    assert run(build_dir, "stats", directory / "app.proj").returncode == 0

    write_rank(directory, b"node01", 1, 2, data_dir, f'File name="{escaped}x" Size=3 id=0\n')
    refused = run(build_dir, "merge", directory)
    assert refused.returncode == 1
    assert (f"{directory}/app_node01_1_0.info:4: a name of 65537 bytes, longer than the 65536 "
            "the readers of the .proj accept").encode() in refused.stderr, refused.stderr


def test_an_overlong_name_is_a_merge_error_in_the_python_api(build_dir, data_dir, tmp_path):
    directory = tmp_path / "run"
    directory.mkdir()
    write_rank(directory, b"node01", 0, 1, data_dir, 'File name="' + "n" * 70000 + '" Size=1 id=0\n')
    with pytest.raises(hdtrace.MergeError) as caught:
        hdtrace.merge(directory)
    assert caught.value.line == 4
    assert caught.value.detail.startswith("a name of 70000 bytes")


# --- messages

@pytest.mark.parametrize("content", [
    "<?xml version='1.0'?>\n<Program timeAdjustment='1'>\n<Init time='1' end='2'/>\n",
    "<?xml version='1.0'?>\n<Program timeAdjustment='1'>\n<Init time='1' end='2'/>\n<Send si",
    "<?xml version='1.0'?>\n<Program timeAdjustment='1'>\n<Init time='1' end='2'>\n<Data a='",
    "<?xml version='1.0'?>\n<Program timeAdj",
    "<?xml version='1.0'?>\n",
    "<?xml versi",
])
def test_a_trace_cut_anywhere_says_truncated(tmp_path, content):
    trace = tmp_path / "app_h_0_0.trc"
    trace.write_text(content)
    lines = content.count("\n") + (0 if content.endswith("\n") else 1)
    for read in (lambda: list(_core.TraceReader(str(trace))),
                 lambda: _core.read_columns(str(trace))):
        with pytest.raises(hdtrace.ReadError) as caught:
            read()
        assert caught.value.problem.startswith(f"truncated after line {lines}"), caught.value
        assert "Extra content" not in caught.value.problem


def test_an_error_inside_a_small_file_is_not_called_truncated(tmp_path):
    trace = tmp_path / "app_h_0_0.trc"
    trace.write_text("<?xml version='1.0'?>\n<Program>\n<Init time='1' end='2'></Send>\n"
                     "</Program>\n")
    with pytest.raises(hdtrace.ReadError) as caught:
        list(_core.TraceReader(str(trace)))
    assert caught.value.line == 3
    assert "truncated" not in caught.value.problem
    assert "mismatch" in caught.value.problem


def test_a_project_that_is_a_directory_is_not_called_missing(build_dir, tmp_path):
    proj = tmp_path / "app.proj"
    proj.mkdir()
    for command in ("check", "stats", "events"):
        result = run(build_dir, command, proj)
        assert result.returncode == 1
        assert b"not a regular file" in result.stderr, (command, result.stderr)
        assert b"no such" not in result.stderr.lower() and b"does not exist" not in result.stderr


def test_the_access_map_of_a_huge_access_is_three_pieces(build_dir):
    pieces = run_bounded(build_dir, """
        from hdtrace.plot_io import map_pieces
        print(json.dumps(map_pieces(3, 10**18, 2**30)))
        """, headroom_mib=64)
    width, end = 2**30, 3 + 10**18
    assert pieces == [[3, 0, width - 3, 1], [0, 1, width, end // width - 1],
                      [0, end // width, end % width, 1]]


@pytest.mark.parametrize("offset,size", [(0, 0), (0, 64), (5, 10), (60, 10), (64, 200), (3, 125)])
def test_access_map_pieces_cover_exactly_the_access(offset, size):
    from hdtrace.plot_io import map_pieces
    covered = []
    for column, row, length, rows in map_pieces(offset, size, 64):
        assert rows == 1 or (column, length) == (0, 64)
        for line in range(row, row + rows):
            covered.extend(range(line * 64 + column, line * 64 + column + length))
    assert covered == list(range(offset, offset + size))


def test_export_writes_both_outputs_or_neither(build_dir, copy_project, tmp_path):
    proj = copy_project("ours")
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "keep.txt").write_text("mine")
    chrome = tmp_path / "c.json"
    result = run(build_dir, "export", "--chrome", chrome, "--otf2", occupied, proj)
    assert result.returncode != 0 and b"not an empty directory" in result.stderr
    assert not chrome.exists()
    assert result.stdout == b""
    # The Chrome trace fails (no such directory): the archive goes again.
    archive = tmp_path / "archive"
    result = run(build_dir, "export", "--chrome", tmp_path / "none" / "c.json", "--otf2", archive,
                 proj)
    assert result.returncode == 1 and b"No such file or directory" in result.stderr
    assert not archive.exists()
    assert sorted(os.listdir(tmp_path)) == ["occupied", "ours"]
