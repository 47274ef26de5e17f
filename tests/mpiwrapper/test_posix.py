"""The POSIX layer: the C library's file calls as states, linked and
preloaded, nested in the MPI call that made them.

- posix_collective: the POSIX writes the MPI-IO layer makes under each
  collective write, summed over the ranks, are the bytes the program wrote,
  cover the file without a gap, and the file has that size (Open MPI's OMPIO
  and ROMIO, MPICH's ROMIO);
- posix_mixed: every C library call of the program is in the trace, in
  order, with its file (the MPI file's id for the file MPI-IO opened too),
  offset, bytes asked and done;
- posix_threads: each thread's calls in its own trace, nested only under
  that thread's MPI calls;
- posix_behaviour: the same results, errno included, traced and untraced;
  failed calls carry errno; fork and exec children are not traced; a thread
  whose cancellation is pending ends in its pwrite or pread, as untraced;
  the vector forms; a second tool's transfers, preloaded after the
  wrapper, are called.
Every run: no state names a trace or .info file, every nested state lies
within its MPI call (tracecheck.parse_trc), and POSIX states are well-formed.
"""
import pathlib

import pytest

import tracecheck
from buildtree import build_dir, cache_value

POSIX = tracecheck.POSIX_CALLS
WRITES = {"write", "pwrite", "writev", "pwritev", "fwrite"}
COLLECTIVE_WRITES = {"File_write_at_all", "File_write_all"}


def on_mpich():
    return cache_value(build_dir(), "HDTRACE_MPI_IMPL") == "mpich"


def io_components():
    """The MPI-IO components to run: both of Open MPI's, MPICH's one."""
    return [None] if on_mpich() else ["ompio", "romio321"]


def run_program(runner, name, nranks, linked, component=None, args=()):
    env = {"OMPI_MCA_io": component} if component else {}
    program = f"{name}_traced" if linked else f"{name}_plain"
    run = runner.run(program, nranks, env=env, preload=not linked, args=args)
    run.assert_ok()
    return run


def load(run, rank, thread=0):
    base = tracecheck.trace_base(run.trace_dir, run.program, rank, thread)
    return tracecheck.parse_trc(base.with_suffix(".trc")), \
        tracecheck.parse_info(base.with_suffix(".info"))


def file_name(info, element):
    fid = int(element.attrib["fid"])
    assert fid == -1 or fid in info.files, (
        f"{info.path}: <{element.tag}> fid {fid} has no File line")
    return None if fid == -1 else pathlib.Path(info.files[fid]["name"]).name


def calls_with_parents(elements, parent=None):
    """(element, MPI call it is nested in or None) of every call, in order."""
    pending = []
    for element in elements:
        if element.tag == "Nested":
            pending.append(element)
            continue
        for block in pending:
            yield from calls_with_parents(list(block), element)
        pending = []
        yield element, parent


def posix_states(trace):
    return [(element, parent) for element, parent in calls_with_parents(trace.all_elements)
            if element.tag in POSIX]


def check_posix_attributes(trace, info):
    """Every POSIX state has the attributes the dialect gives it, in order
    (errno only when it failed), and names no file of the tracer's own."""
    import dialect
    calls = dialect.load().calls
    for element, _ in posix_states(trace):
        names = [name for name in calls[element.tag].attribute_names if name != "errno"]
        written = list(element.attrib)
        if "errno" in written:
            assert written[-3] == "errno", written
            written.remove("errno")
        assert written == names + ["time", "end"], (element.tag, element.attrib)
        name = file_name(info, element)
        assert not (name or "").endswith((".trc", ".info")), (
            f"{trace.path}: the tracer's own file {name} is traced: {element.attrib}")


@pytest.mark.parametrize("linked", [True, False], ids=["linked", "preloaded"])
@pytest.mark.parametrize("component", io_components())
def test_collective_writes_show_the_posix_writes_beneath_them(runner, linked, component):
    nranks = 4
    run = run_program(runner, "posix_collective", nranks, linked, component)
    lines = dict(line.split(" ", 1)[1].split("=") for line in run.result.stdout.splitlines()
                 if line.startswith("r0 "))
    written, size = int(lines["bytes"]), int(lines["size"])
    assert written == size == nranks * (4096 + 8 * 512)
    per_call = {tag: 0 for tag in COLLECTIVE_WRITES}
    extents = []
    for rank in range(nranks):
        trace, info = load(run, rank)
        check_posix_attributes(trace, info)
        for element, parent in posix_states(trace):
            if element.tag not in WRITES or file_name(info, element) != "collective.dat":
                continue
            assert parent is not None and parent.tag in COLLECTIVE_WRITES, (
                f"rank {rank}: a write of the data outside the collective calls: "
                f"{element.attrib} under {parent.tag if parent is not None else 'nothing'}")
            per_call[parent.tag] += int(element.attrib["size"])
            offset = int(element.attrib["offset"])
            extents.append((offset, offset + int(element.attrib["size"])))
    assert per_call == {tag: nranks * 4096 for tag in COLLECTIVE_WRITES}, per_call
    covered = 0
    for start, end in sorted(extents):
        assert start <= covered, f"a gap in the file at {covered}..{start}: {sorted(extents)}"
        covered = max(covered, end)
    assert covered == size


def read_log(stdout, rank):
    calls = []
    for line in stdout.splitlines():
        fields = line.split()
        if fields and fields[0] == f"r{rank}":
            tag, name, offset, asked, size = fields[1:]
            calls.append((tag, name, int(offset), int(asked), int(size)))
    return calls


@pytest.mark.parametrize("linked", [True, False], ids=["linked", "preloaded"])
def test_every_call_beside_mpi_io_has_its_file_and_offset(runner, linked):
    nranks = 2
    run = run_program(runner, "posix_mixed", nranks, linked, "romio321")
    for rank in range(nranks):
        trace, info = load(run, rank)
        check_posix_attributes(trace, info)
        mpi_fids = {int(e.attrib["fid"]) for e in trace.elements if e.tag == "File_open"}
        assert len(mpi_fids) == 1
        own = [(element, parent) for element, parent in posix_states(trace) if parent is None]
        log = read_log(run.result.stdout, rank)
        assert [e.tag for e, _ in own] == [entry[0] for entry in log], (
            [e.tag for e, _ in own], log)
        for (element, _), (tag, name, offset, asked, size) in zip(own, log):
            where = f"rank {rank} <{tag} {element.attrib}>"
            assert file_name(info, element) == name, where
            attributes = element.attrib
            if tag in ("pwrite", "write", "read", "pread", "fwrite", "fread"):
                assert (int(attributes["offset"]), int(attributes["asked"]),
                        int(attributes["size"])) == (offset, asked, size), where
            elif tag in ("lseek", "fseek"):
                assert int(attributes["offset"]) == offset, where
            elif tag == "ftruncate":
                assert int(attributes["size"]) == size, where
            assert "errno" not in attributes, where
        # the file MPI-IO opened, opened again with open(): the same id
        reopened = [e for e, _ in own if file_name(info, e) == "mixed_mpi.dat"]
        assert reopened and {int(e.attrib["fid"]) for e in reopened} == mpi_fids


@pytest.mark.parametrize("linked", [True, False], ids=["linked", "preloaded"])
def test_threads_write_their_calls_into_their_own_traces(runner, linked):
    run = run_program(runner, "posix_threads", 1, linked, "romio321")
    assert "r0 rounds=40 failures=0" in run.result.stdout
    by_file = {}
    for thread in range(3):
        trace, info = load(run, 0, thread)
        check_posix_attributes(trace, info)
        for element, parent in posix_states(trace):
            name = file_name(info, element)
            by_file.setdefault(name, set()).add(thread)
            if name and name.startswith("thread_"):
                assert parent is None, f"thread {thread}: {element.tag} nested in {parent.tag}"
                if element.tag == "pwrite":
                    by_file.setdefault((name, "offsets"), []).append(
                        int(element.attrib["offset"]))
            elif element.tag == "pwrite":
                assert name == "threads_mpi.dat" and parent is not None \
                    and parent.tag == "File_write_at", (thread, element.attrib)
    assert by_file["threads_mpi.dat"] == {0}
    assert len(by_file["thread_1.dat"]) == 1 and len(by_file["thread_2.dat"]) == 1
    assert by_file["thread_1.dat"] != by_file["thread_2.dat"] and 0 not in by_file["thread_1.dat"]
    for name in ("thread_1.dat", "thread_2.dat"):
        assert by_file[(name, "offsets")] == [16 * i for i in range(40)]


@pytest.mark.parametrize("linked", [True, False], ids=["linked", "preloaded"])
def test_the_program_gets_what_the_c_library_returns(runner, linked):
    plain = runner.run("posix_behaviour_plain", 1)
    plain.assert_ok()
    run = run_program(runner, "posix_behaviour", 1, linked)
    assert run.result.stdout == plain.result.stdout
    results = {line.split()[1]: line.split()[2:] for line in run.result.stdout.splitlines()}
    assert results["open-missing"] == ["-1", "2"]
    assert results["read-writeonly"] == ["100", "-1", "9"]
    assert results["short-read"] == ["100", "0"]
    assert results["pwrite-readonly"] == ["-1", "9"]
    assert results["fifo-read"] == ["-1", "4"]
    assert results["open-mode"] == ["640"]
    assert results["fork-child"] == ["0", "5"] and results["exec-child"] == ["0", "5"]
    # pwrite and pread are cancellation points: the thread ended in each,
    # before anything was written
    assert results["pwrite-cancelled"] == ["1", "0"]
    assert results["pread-cancelled"] == ["1"]
    assert results["vectors"] == ["100", "100", "100", "50"]
    assert results["preadv-writeonly"] == ["-1", "9"]
    # a failing call in a thread of its own sets that thread's errno only
    assert results["thread-errno"] == ["9", "0"]
    # the children wrote no trace: one trace (and .info) for the rank's main
    # thread, one for the other threads (each takes the one's before it)
    assert sorted(p.name for p in run.trace_dir.iterdir()) == sorted(
        tracecheck.trace_base(run.trace_dir, run.program, 0, thread).with_suffix(s).name
        for s in (".info", ".trc") for thread in (0, 1))
    # the cancelled calls ended before their end was taken: not written; the
    # failing thread's call is, with its own errno
    threads, threads_info = load(run, 0, thread=1)
    assert [(e.tag, file_name(threads_info, e), e.attrib.get("errno"))
            for e, _ in posix_states(threads)] == [("pwrite", "short.dat", "9")]
    trace, info = load(run, 0)
    check_posix_attributes(trace, info)
    states = [(e.tag, file_name(info, e), e.attrib) for e, _ in posix_states(trace)]
    names = {name for _, name, _ in states}
    assert "child.dat" not in names and "exec.dat" not in names
    failed = [(tag, name, attributes.get("errno")) for tag, name, attributes in states
              if "errno" in attributes]
    assert failed == [("open", None, "2"), ("read", "short.dat", "9"),
                      ("pwrite", "short.dat", "9"), ("preadv", "vector.dat", "9"),
                      ("read", "interrupted.fifo", "4"),
                      ("fopen", None, "2")], failed
    short = [a for tag, name, a in states if tag == "read" and name == "short.dat"
             and "errno" not in a]
    assert [(a["offset"], a["asked"], a["size"]) for a in short] == [("0", "1000", "100")]
    vectors = [(tag, a["offset"], a["asked"], a["size"]) for tag, name, a in states
               if name == "vector.dat" and "errno" not in a and "asked" in a]
    assert vectors == [("writev", "0", "100", "100"), ("pwritev", "200", "100", "100"),
                       ("readv", "50", "100", "100"), ("preadv", "250", "100", "50")], vectors


def test_a_second_tools_transfers_after_the_wrapper_are_called(runner):
    """The wrapper makes the data transfers itself only where the C
    library's own functions come next: a library preloaded after it that
    defines them too sees every call the program made, and the trace still
    has them."""
    log = runner.factory.mktemp("next-transfers") / "calls.log"
    library = runner.path("libhdtrace_test_next_transfers.so")
    run = runner.run("posix_behaviour_plain", 1, cached=False, env={
        "LD_PRELOAD": f"{runner.shared_library} {library}", "NEXT_TRANSFERS_LOG": str(log)})
    run.assert_ok()
    calls = [line.split() for line in log.read_text().splitlines()]
    seen = [(function.rstrip("64"), pathlib.Path(file).name, size, offset)
            for function, file, size, offset in calls]
    made = [("write", "short.dat", "100", "-1"), ("read", "short.dat", "10", "-1"),
            ("read", "short.dat", "1000", "-1"), ("pwrite", "short.dat", "10", "0"),
            ("pwrite", "cancelled.dat", "9", "0"), ("pread", "cancelled.dat", "9", "0"),
            ("writev", "vector.dat", "100", "-1"), ("pwritev", "vector.dat", "100", "200"),
            ("readv", "vector.dat", "100", "-1"), ("preadv", "vector.dat", "100", "250"),
            ("preadv", "vector.dat", "100", "0"), ("read", "interrupted.fifo", "10", "-1")]
    assert [call for call in seen if call in made] == made, seen
    trace, info = load(run, 0)
    written = [(e.tag, file_name(info, e), e.attrib["asked"]) for e, _ in posix_states(trace)
               if e.tag in ("read", "write", "pwrite", "pread", "readv", "writev", "preadv",
                            "pwritev")]
    assert [(tag, name, asked) for tag, name, asked, _ in made
            if name != "cancelled.dat"] == written, written


@pytest.mark.parametrize("setting", [{"HDTRACE_POSIX": "0"},
                                     {"HDTRACE_POSIX_EXCLUDE": "/nowhere:."}],
                         ids=["posix-0", "exclude"])
def test_the_layer_switched_off_or_left_out_directories_write_nothing(runner, setting):
    run = runner.run("posix_mixed_traced", 2, env={**setting, "OMPI_MCA_io": "romio321"})
    run.assert_ok()
    for rank in range(2):
        trace, info = load(run, rank)
        states = [e.attrib for e, _ in posix_states(trace)]
        if "HDTRACE_POSIX" in setting:
            assert states == []
        else:  # left: failed opens of paths never opened (ROMIO's hints file)
            assert [a for a in states if a["fid"] != "-1"] == []
        assert [f["name"] for f in info.files.values()] == ["mixed_mpi.dat"]
