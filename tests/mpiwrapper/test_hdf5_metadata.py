"""HDF5's own file I/O and the report's hdf5-metadata-io finding, on a
parallel HDF5 program that opens many datasets and attributes and moves no
data of its own (programs/hdf5_metadata.c), run three ways:
- independent: every rank reads the metadata itself, and HDF5 writes it
  at the close in many small independent writes: the finding says both;
- collective-writes (H5Pset_coll_metadata_write): the writes become a few
  collective ones, and the finding says only the reads;
- collective (H5Pset_all_coll_metadata_ops on the file's and every
  object's access list as well): one rank reads, the others read nothing,
  and the finding stays silent;
- file-per-rank (each rank its own file on MPI_COMM_SELF): every rank
  reads and writes its own file's metadata, which no other rank could do
  for it, and the finding stays silent.
What the finding advises rests on these: the test fails when HDF5 stops
doing so. The figures are compared with the MPI-IO calls of the main
traces that lie within each HDF5 call."""
import collections
import json

import tracecheck
from hdf5_programs import RANKS, run_program, spans, traces, within
from tool_trees import hdtrace, tools_tree_or_fail

PROGRAM = "hdf5_metadata"
# Low enough for the program's 64 datasets of 4 attributes on two ranks.
SETTINGS = ("--set", "hdf5-metadata-io.reads=50", "--set", "hdf5-metadata-io.writes=20")


def _metadata_io(run):
    """Per rank, the MPI-IO reads and writes within the HDF5 calls (none
    of the program's calls moves data): [(call, File_* tag, bytes)]."""
    found = {}
    for rank in range(RANKS):
        main, layer, _ = traces(run, rank)
        calls = spans(layer)
        accesses = found.setdefault(rank, [])
        for element in main.root:
            if "time" not in element.attrib or not element.tag.startswith("File_"):
                continue
            made_by = within(element, calls)
            assert made_by is not None, (main.path, element.tag, element.attrib)
            assert made_by.tag not in ("H5Dwrite", "H5Dread"), made_by.tag
            accesses.append((made_by.tag, element.tag, int(element.attrib.get("size", 0))))
    return found


def _report(runner, build_dir, tmp_path, mode):
    tools = tools_tree_or_fail(build_dir)
    run = run_program(runner, PROGRAM, "linked", args=[mode])
    done = hdtrace(tools, "merge", run.trace_dir / tracecheck.sanitize(run.program), "-q")
    assert done.returncode == 0, done.stderr
    project = run.trace_dir / f"{tracecheck.sanitize(run.program)}.proj"
    page, document = tmp_path / f"{mode}.html", tmp_path / f"{mode}.json"
    done = hdtrace(tools, "report", project, "-o", page, "--json", document, *SETTINGS)
    assert done.returncode == 0, done.stderr
    report = json.loads(document.read_text())
    fired = {finding["id"]: finding for finding in report["findings"]}
    return run, fired.get("hdf5-metadata-io"), report


def _reads(accesses):
    return [access for access in accesses if access[1].startswith("File_read")]


def _independent_writes(accesses):
    return [access for access in accesses if access[1].startswith("File_write")
            and "_all" not in access[1]]


def test_independent_metadata_reads_and_writes_are_found(runner, build_dir, tmp_path):
    run, finding, _ = _report(runner, build_dir, tmp_path, "independent")
    accesses = _metadata_io(run)
    reads = [access for rank in accesses for access in _reads(accesses[rank])]
    writes = [access for rank in accesses for access in _independent_writes(accesses[rank])]
    # Every rank read metadata when it opened the datasets.
    assert all(any(call == "H5Dopen2" for call, _, _ in _reads(accesses[rank]))
               for rank in range(RANKS)), accesses
    assert finding is not None and finding["severity"] == "warning"
    read_within = collections.Counter(call for call, _, _ in reads).most_common(1)[0]
    write_within = collections.Counter(call for call, _, _ in writes).most_common(1)[0]
    assert finding["values"] == {
        "reads": len(reads), "bytes_read": sum(size for _, _, size in reads),
        "reading_ranks": RANKS, "independent_writes": len(writes),
        "bytes_written": sum(size for _, _, size in writes),
        "read_within": read_within[0], "write_within": write_within[0]}
    assert finding["message"].startswith(
        f"{RANKS} ranks each read HDF5's metadata for themselves: {len(reads):,} reads of ")
    assert f"{read_within[1]:,} of them within {read_within[0]}; it wrote its metadata in " \
        f"{len(writes):,} independent writes of " in finding["message"]
    assert "H5Pset_all_coll_metadata_ops" in finding["advice"]
    assert "H5Pset_coll_metadata_write" in finding["advice"]
    assert finding["files"] == ["data.h5"] and finding["ranks"] == list(range(RANKS))


def test_collective_metadata_writes_leave_the_reads_to_be_found(runner, build_dir, tmp_path):
    run, finding, _ = _report(runner, build_dir, tmp_path, "collective-writes")
    accesses = _metadata_io(run)
    reads = [access for rank in accesses for access in _reads(accesses[rank])]
    # HDF5 wrote the metadata with collective writes only.
    assert not any(_independent_writes(accesses[rank]) for rank in range(RANKS)), accesses
    assert any(tag.startswith("File_write_at_all") for rank in range(RANKS)
               for _, tag, _ in accesses[rank]), accesses
    assert finding is not None
    assert finding["values"]["reads"] == len(reads)
    assert finding["values"]["independent_writes"] == 0
    assert finding["values"]["write_within"] is None
    assert "wrote its metadata" not in finding["message"]
    assert "H5Pset_coll_metadata_write" not in finding["advice"]


def test_collective_metadata_reads_and_writes_are_silent(runner, build_dir, tmp_path):
    run, finding, report = _report(runner, build_dir, tmp_path, "collective")
    accesses = _metadata_io(run)
    # One rank read the metadata (and broadcast it); the others none.
    assert _reads(accesses[0]) and not any(_reads(accesses[rank])
                                           for rank in range(1, RANKS)), accesses
    assert finding is None
    assert {"id": "hdf5-metadata-io", "fired": False, "checked": True} in report["checked"]


def test_the_library_io_table_holds_the_same_accesses(runner, build_dir, tmp_path):
    run, _, report = _report(runner, build_dir, tmp_path, "independent")
    accesses = _metadata_io(run)
    expected = collections.Counter()
    for rank in range(RANKS):
        for call, tag, size in accesses[rank]:
            if tag.startswith("File_read"):
                expected[(call, "reads")] += 1
                expected[(call, "bytes_read")] += size
            elif tag.startswith("File_write"):
                expected[(call, "writes")] += 1
                expected[(call, "bytes_written")] += size
    for entry in report["library_io"]:
        for key in ("reads", "bytes_read", "writes", "bytes_written"):
            assert entry[key] == expected[(entry["call"], key)], (entry, key)
    assert sum(entry["reads"] for entry in report["library_io"]) == sum(
        value for (call, key), value in expected.items() if key == "reads")


def test_a_file_per_rank_has_no_metadata_another_rank_could_read(runner, build_dir, tmp_path):
    # Every rank reads its own file's metadata: nothing to share, no finding.
    run, finding, report = _report(runner, build_dir, tmp_path, "file-per-rank")
    accesses = _metadata_io(run)
    assert all(len(_reads(accesses[rank])) > 50 for rank in range(RANKS)), accesses
    assert finding is None
    assert {"id": "hdf5-metadata-io", "fired": False, "checked": True} in report["checked"]
    assert sum(entry["reads"] for entry in report["library_io"]) == sum(
        len(_reads(accesses[rank])) for rank in range(RANKS))
