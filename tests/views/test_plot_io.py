"""hdtrace plot-io: the boxes handed to matplotlib are the trace's file accesses."""
import collections
import xml.etree.ElementTree as ElementTree

import hdtrace
import pytest
import tracegen
from hdtrace import plot_io


def collections_by_gid(figure, panel):
    found = {}
    for axes in figure.axes:
        for collection in axes.collections:
            gid = collection.get_gid() or ""
            if gid.startswith(panel + "|"):
                _, file_name, rank, op = gid.split("|")
                found[(file_name, int(rank), op)] = collection
    return found


def boxes(collection):
    """(x0, x1, y0, y1) of every rectangle in a PolyCollection."""
    result = []
    for path in collection.get_paths():
        xs = [vertex[0] for vertex in path.vertices]
        ys = [vertex[1] for vertex in path.vertices]
        result.append((min(xs), max(xs), min(ys), max(ys)))
    return result


def covered_bytes(intervals):
    """The union of [start, end) intervals as a sorted list of disjoint intervals."""
    merged = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return [tuple(interval) for interval in merged]


def test_time_offset_boxes_are_the_accesses(generated_run):
    project = hdtrace.open(generated_run.project)
    figure = plot_io.plot_accesses(plot_io.collect_accesses(project))
    found = collections_by_gid(figure, "time-offset")
    origin = min(call.start_ns for call in generated_run.calls)
    expected = collections.defaultdict(list)
    for access in generated_run.accesses:
        op = "write" if access.op == "w" else "read"
        expected[(access.name, access.rank, op)].append(
            ((access.start_ns - origin) / 1e9, (access.end_ns - origin) / 1e9,
             access.offset, access.offset + access.size))
    assert set(found) == set(expected)
    assert len(expected) == 2 * generated_run.ranks   # a read and a write series per rank
    for key, series in expected.items():
        drawn = sorted(boxes(found[key]))
        assert len(drawn) == len(series)
        for box, want in zip(drawn, sorted(series)):
            assert box == pytest.approx(want, abs=1e-9)


def test_access_map_paints_the_accessed_bytes(generated_run):
    project = hdtrace.open(generated_run.project)
    figure = plot_io.plot_accesses(plot_io.collect_accesses(project))
    widths = [axes.get_gid() for axes in figure.axes if (axes.get_gid() or "").startswith("access-map|")]
    assert len(widths) == 1
    width = int(widths[0].rsplit("width=", 1)[1])
    extent = max(a.offset + a.size for a in generated_run.accesses)
    assert width * width >= extent // 4 and width < tracegen.BLOCK   # blocks span several rows
    found = collections_by_gid(figure, "access-map")
    for (file_name, rank, op), collection in found.items():
        pieces = []
        for x0, x1, y0, y1 in boxes(collection):
            assert y1 - y0 >= 1 and 0 <= x0 < x1 <= width
            if y1 - y0 > 1:  # whole rows, drawn as one box
                assert (x0, x1) == (0, width)
            pieces.append((int(y0) * width + int(x0), (int(y1) - 1) * width + int(x1)))
        mine = [a for a in generated_run.accesses
                if a.rank == rank and ("write" if a.op == "w" else "read") == op]
        assert sum(end - start for start, end in pieces) == sum(a.size for a in mine)
        assert covered_bytes(pieces) == covered_bytes((a.offset, a.offset + a.size) for a in mine)
    write = found[(tracegen.FILE_NAME, 0, "write")]
    read = found[(tracegen.FILE_NAME, 0, "read")]
    assert write.get_facecolor()[0][3] > 0     # writes filled
    assert read.get_facecolor()[0][3] == 0     # reads outlined and hatched
    assert read.get_hatch() == "///"


def test_command_writes_svg_and_png(generated_run, hdtrace_command, tmp_path):
    svg = tmp_path / "io.svg"
    result = hdtrace_command("plot-io", generated_run.project, "-o", svg)
    assert result.returncode == 0, result.stderr
    assert f"{len(generated_run.accesses)} accesses to 1 file(s) by 4 rank(s)" in result.stdout
    root = ElementTree.parse(svg).getroot()
    assert root.tag.endswith("svg")
    png = tmp_path / "io.png"
    result = hdtrace_command("plot-io", generated_run.project, "-o", png)
    assert result.returncode == 0, result.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    bad = tmp_path / "io.pdf"
    result = hdtrace_command("plot-io", generated_run.project, "-o", bad)
    assert result.returncode != 0 and ".svg or .png" in result.stderr
    assert not bad.exists()


def test_partdiff_accesses(partdiff_project):
    """The original implementation's traces: every File_*_at call with its file, offset and size."""
    expected = collections.Counter()
    expected_bytes = collections.Counter()
    for trace_file in partdiff_project.parent.glob("partdiff-par_*.trc"):
        rank = int(trace_file.stem.split("_")[2])
        files = {}
        for element in ElementTree.parse(trace_file).getroot():
            if element.tag == "File_open":
                files[element.get("fid")] = element.get("name")
            elif element.tag.startswith(("File_write", "File_read")) and element.get("offset"):
                op = "write" if element.tag.startswith("File_write") else "read"
                key = (files[element.get("fid")], rank, op)
                expected[key] += 1
                expected_bytes[key] += int(element.get("size"))
    assert sum(expected.values()) > 100
    io = plot_io.collect_accesses(hdtrace.open(partdiff_project))
    figure = plot_io.plot_accesses(io)
    found = collections_by_gid(figure, "time-offset")
    assert {key: len(collection.get_paths()) for key, collection in found.items()} == dict(expected)
    drawn_bytes = {key: round(sum(y1 - y0 for _, _, y0, y1 in boxes(collection)))
                   for key, collection in found.items()}
    assert drawn_bytes == dict(expected_bytes)


def test_titles_of_a_long_path_fit_their_panels(tmp_path):
    """A file of a long path (as IOR's are) is named by its base name in
    the panels' titles, the whole path wrapped under the first: no title
    runs into the other panel or off the figure."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    run = tracegen.generate(tmp_path / "run", ranks=2, iterations=1)
    long_path = ("/scratch/project-with-a-long-name/users/someone/experiments/ior-easy-write/"
                 "run-2026-11-24T22-13-20/output/testfile.00000000.with.a.long.suffix")
    for trace in (tmp_path / "run").glob("*.trc"):
        trace.write_text(trace.read_text().replace(f"name='{tracegen.FILE_NAME}'",
                                                   f"name='{long_path}'"))
    figure = plot_io.plot_accesses(plot_io.collect_accesses(hdtrace.open(run.project)))
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    time_axes, map_axes = figure.axes[0], figure.axes[1]
    time_title = time_axes.title.get_window_extent(renderer)
    map_title = map_axes.title.get_window_extent(renderer)
    assert not time_title.overlaps(map_title)
    assert time_title.x1 < map_axes.get_tightbbox(renderer).x0
    assert 0 <= time_title.x0 and map_title.x1 <= figure.bbox.width
    base = "testfile.00000000.with.a.long.suffix"
    assert time_axes.get_title().startswith(f"{base}: offset over time\n")
    assert time_axes.get_title().split("\n", 1)[1].replace("\n", "") == long_path
    assert map_axes.get_title().startswith(f"{base}: access map")
    # The gids keep the whole path, for scripts.
    assert {key[0] for key in collections_by_gid(figure, "time-offset")} == {long_path}


def test_beyond_some_ranks_a_collection_per_operation_holds_every_rank(generated_run,
                                                                        monkeypatch):
    """Thousands of ranks: one collection per operation, each box coloured by
    its rank, and a colour bar instead of a legend entry per rank."""
    monkeypatch.setattr(plot_io, "MAX_RANK_COLLECTIONS", 2)
    project = hdtrace.open(generated_run.project)
    io = plot_io.collect_accesses(project)
    figure = plot_io.plot_accesses(io)
    colours = plot_io.rank_colours(io.ranks())
    origin = min(call.start_ns for call in generated_run.calls)
    seen = []
    for axes in figure.axes:
        for collection in axes.collections:
            if not collection.get_gid():
                continue  # the colour bar's
            panel, file_name, rank, op = collection.get_gid().split("|")
            assert rank == "all" and file_name == tracegen.FILE_NAME
            seen.append((panel, op))
            mine = sorted((a for a in generated_run.accesses
                           if ("write" if a.op == "w" else "read") == op),
                          key=lambda a: a.rank)
            if panel != "time-offset":
                continue
            # Every rank's boxes, in rank order, each in its rank's colour.
            drawn = boxes(collection)
            assert len(drawn) == len(mine)
            by_rank = collections.defaultdict(list)
            for box, access in zip(drawn, mine):
                by_rank[access.rank].append(box)
            for rank_number, drawn_boxes in by_rank.items():
                want = [((a.start_ns - origin) / 1e9, (a.end_ns - origin) / 1e9, a.offset,
                         a.offset + a.size) for a in mine if a.rank == rank_number]
                assert sorted(drawn_boxes) == pytest.approx(sorted(want), abs=1e-9)
            edges = collection.get_edgecolor()
            assert [tuple(edge[:3]) for edge in edges] == [
                tuple(colours[a.rank][:3]) for a in mine]
    assert sorted(seen) == [("access-map", "read"), ("access-map", "write"),
                            ("time-offset", "read"), ("time-offset", "write")]
    labels = [text.get_text() for text in figure.legends[0].get_texts()] if figure.legends \
        else [text.get_text() for axes in figure.axes if axes.get_legend()
              for text in axes.get_legend().get_texts()]
    assert not any(label.startswith("rank ") for label in labels)
    assert any(axes.get_xlabel() == f"rank ({len(io.ranks())} ranks)" for axes in figure.axes)
