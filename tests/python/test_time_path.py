"""Every reader of a project takes its times through one path (Project.times):
on a run whose clocks are corrected when read, a selection read by names
and window (to_numpy, trace) holds exactly the rows of the whole corrected
table that the selection keeps, with the same corrected times, in the same
order; on a run read as written, it is what the reader gives."""
import numpy as np

import hdtrace
from test_clock_alignment import rank1_constant, write_clock_lines

NAME_SELECTIONS = (None, ["Send", "Recv", "Wait"], ["File_open"])


def windows_of(table):
    """Windows (float seconds, either end open) cutting through the table."""
    starts = np.sort(table["start_ns"]) / 1e9
    return [None, (starts[3], starts[-4]), (starts[len(starts) // 2], None), (None, starts[5])]


def kept(table, project, names, window):
    keep = np.ones(len(table), dtype=bool)
    if names is not None:
        keep &= np.isin(table["name"], names)
    if window is not None:
        start, end = project._window_ns(window)
        if start is not None:
            keep &= table["end_ns"] >= start
        if end is not None:
            keep &= table["start_ns"] <= end
    return table[keep]


def assert_selections_agree(project_path, corrected):
    project = hdtrace.open(project_path)
    assert (project.clock_correction is not None) == corrected
    whole = project.to_numpy()
    rows = 0
    for names in NAME_SELECTIONS:
        for window in windows_of(whole):
            if names is None and window is None:
                continue
            want = kept(whole, project, names, window)
            got = hdtrace.open(project_path).to_numpy(names=names, window=window)
            for column in ("rank", "thread", "name", "start_ns", "end_ns", "size", "peer", "tag"):
                assert got[column].tolist() == want[column].tolist(), (names, window, column)
            fresh = hdtrace.open(project_path)
            events = [(event.rank, event.thread, event.name, event.start_ns, event.end_ns)
                      for leaf in fresh.topology.leaves
                      for event in fresh.trace(leaf.rank, leaf.thread, names, window)]
            assert sorted(events) == sorted(zip(*(want[column].tolist() for column in (
                "rank", "thread", "name", "start_ns", "end_ns")))), (names, window)
            rows += len(want)
    assert rows > 0


def test_selections_of_a_corrected_run_are_rows_of_its_corrected_table(copy_project):
    project_path = copy_project("ours")
    write_clock_lines(project_path, rank1_constant())
    assert_selections_agree(project_path, corrected=True)


def test_selections_of_a_run_read_as_written_are_rows_of_its_table(copy_project):
    assert_selections_agree(copy_project("ours"), corrected=False)
