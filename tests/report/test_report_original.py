"""The report of a run traced by the original implementation (the optional
fixtures): the writes two ranks made to the same bytes of one file, counted
from the trace files by a walk of their own."""
import collections
import itertools
import xml.etree.ElementTree as ElementTree

import pytest

import hdtrace
from hdtrace import report as reporting

PARTDIFF = ("original-traces", "partdiff", "partdiff-par.proj")


@pytest.fixture
def partdiff(fixtures_dir):
    path = fixtures_dir.joinpath(*PARTDIFF)
    if not path.is_file():
        pytest.skip(f"{path} is absent from the optional fixtures (traces of the original "
                    "implementation, not part of the repository)")
    return path


def written_ranges(project):
    """{file: [(rank, start, end)]} of every write with an offset, from the XML."""
    ranges = collections.defaultdict(list)
    for trace in project.parent.glob("partdiff-par_*.trc"):
        rank = int(trace.stem.split("_")[2])
        names = {}
        for element in ElementTree.parse(trace).getroot():
            if element.tag == "File_open":
                names[element.get("fid")] = element.get("name")
            elif element.tag.startswith("File_write") and element.get("offset") is not None:
                start = int(element.get("offset"))
                ranges[names[element.get("fid")]].append(
                    (rank, start, start + int(element.get("size"))))
    return ranges


def test_overlapping_writes_of_partdiff(partdiff):
    overlap = collections.Counter()
    for name, writes in written_ranges(partdiff).items():
        for (rank_a, start_a, end_a), (rank_b, start_b, end_b) in itertools.combinations(
                writes, 2):
            shared = min(end_a, end_b) - max(start_a, start_b)
            if rank_a != rank_b and shared > 0:
                overlap[(name, min(rank_a, rank_b), max(rank_a, rank_b))] += shared
    assert overlap, "the fixture's writes no longer overlap"
    report = reporting.build(hdtrace.open(partdiff))
    finding = next(f for f in report.findings if f.id == "overlapping-writes")
    (name, first, second), most = overlap.most_common(1)[0]
    assert finding.values["file"] == name and finding.values["ranks"] == [first, second]
    assert finding.values["overlap_bytes"] == most
    assert finding.values["pairs"] == len(overlap)
    assert finding.values["total_bytes"] == sum(overlap.values())
