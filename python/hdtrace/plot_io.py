"""hdtrace plot-io: pictures of a run's file accesses (offset against time, and an access map).

For every file, two panels:
- offset against time: each access is a box from its start to its end in
  time and from its offset to offset + size in bytes;
- the access map: the file's bytes laid out row-major in rows of `width`
  bytes (like a 2-D array), each access painting the bytes it touched, so that
  locality and size show at a glance.
One colour per rank; writes are filled, reads are outlined and hatched.

Offsets are as the trace logs them: bytes for the calls that use the file
pointer, the program's explicit offset (etype units of the view) for the
*_at calls. Calls with no offset in the trace (shared and ordered file
pointers, nonblocking calls of the original implementation) are counted in
IoAccesses.without_offset and left out.
"""
import math
import os
from dataclasses import dataclass, field

from .calls import FILE_OPENS, READ, WRITE, file_access
from .export.atomic import write_atomically


@dataclass(frozen=True)
class Access:
    rank: int
    thread: int
    op: str          # READ or WRITE
    file: str
    offset: int      # bytes (etype units for explicit offsets; see the module's text)
    size: int        # bytes
    start: float     # seconds since the run's first call
    end: float
    call: str        # the call's name, e.g. File_write_at


@dataclass
class IoAccesses:
    accesses: list = field(default_factory=list)
    without_offset: int = 0   # read/write calls that the trace gives no offset for
    origin_ns: int = 0        # absolute time of the run's first call

    def files(self):
        return sorted({access.file for access in self.accesses})

    def ranks(self):
        return sorted({access.rank for access in self.accesses})


def _offset_and_size(event):
    """(offset, size) of a read or write call, or None when the trace has no offset."""
    attrs = event.attrs
    if "offset" in attrs and "size" in attrs:
        return int(attrs["offset"]), int(attrs["size"])
    for child in event.elements:  # split collectives: <Data offset= size=>
        if child.name == "Data" and "offset" in child.attrs and "size" in child.attrs:
            return int(child.attrs["offset"]), int(child.attrs["size"])
    return None


def collect_accesses(project):
    """The file accesses of every trace of an hdtrace.Project (top-level calls)."""
    result = IoAccesses()
    first = []
    raw = []
    for leaf in project.topology.leaves:
        if leaf.path in project.missing_traces:
            continue
        file_of_fid = {}
        leaf_first = None
        for event in project.trace(leaf.rank, leaf.thread):
            if event.start_ns is None:
                continue
            if leaf_first is None:
                leaf_first = event.start_ns
            name = event.name
            if name in FILE_OPENS and "fid" in event.attrs:
                file_of_fid[event.attrs["fid"]] = str(event.attrs.get("name", ""))
                continue
            op = file_access(name)
            if op is None:
                continue
            where = _offset_and_size(event)
            if where is None:
                result.without_offset += 1
                continue
            fid = event.attrs.get("fid")
            file_name = file_of_fid.get(fid) or f"fid {fid} of rank {leaf.rank}"
            end_ns = event.end_ns if event.end_ns is not None else event.start_ns
            raw.append((leaf.rank, leaf.thread, op, file_name, where[0], where[1],
                        event.start_ns, end_ns, name))
        if leaf_first is not None:
            first.append(leaf_first)
    result.origin_ns = min(first) if first else 0
    origin = result.origin_ns
    result.accesses = [Access(rank, thread, op, file_name, offset, size,
                              (start - origin) / 1e9, (end - origin) / 1e9, name)
                       for rank, thread, op, file_name, offset, size, start, end, name in raw]
    return result


def map_width(extent):
    """Bytes per row of the access map: a power of two near sqrt(extent), at least 64."""
    if extent <= 64:
        return 64
    return 1 << max(6, round(math.log2(math.sqrt(extent))))


def map_pieces(offset, size, width):
    """The access [offset, offset + size) as pieces (column, row, length, rows) of the map:
    a partial first row, the whole rows after it as one piece `rows` high, a partial last
    row. At most three pieces, however large the size: a size in a trace never sets how
    much is drawn."""
    pieces = []
    end = offset + size
    row, column = divmod(offset, width)
    if column and offset < end:
        length = min(width - column, end - offset)
        pieces.append((column, row, length, 1))
        offset += length
        row += 1
    whole = (end - offset) // width if offset < end else 0
    if whole:
        pieces.append((0, row, width, whole))
        offset += whole * width
        row += whole
    if offset < end:
        pieces.append((0, row, end - offset, 1))
    return pieces


def rank_colour(rank, ranks):
    import matplotlib  # optional and heavy: loaded only to draw
    palette = matplotlib.colormaps["tab10" if len(ranks) <= 10 else "turbo"]
    index = ranks.index(rank)
    return palette(index % 10) if len(ranks) <= 10 else palette(index / max(len(ranks) - 1, 1))


def _style(op, colour):
    if op == WRITE:
        return {"facecolors": [colour], "edgecolors": [colour], "linewidths": 0.8, "alpha": 0.85}
    return {"facecolors": ["none"], "edgecolors": [colour], "linewidths": 0.8, "hatch": "///"}


def _box(x0, x1, y0, y1):
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def plot_accesses(io, files=None):
    """A matplotlib Figure with the two panels per file.

    Every PolyCollection carries gid 'time-offset|<file>|<rank>|<op>' or
    'access-map|<file>|<rank>|<op>'; an access map axes carries gid
    'access-map|<file>|width=<bytes per row>'."""
    # matplotlib is optional and heavy: loaded only to draw.
    from matplotlib.collections import PolyCollection
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    files = [name for name in io.files() if not files or name in files]
    ranks = io.ranks()
    figure = Figure(figsize=(13, 3.6 * max(len(files), 1)), layout="constrained")
    if not files:
        axes = figure.add_subplot(1, 1, 1)
        axes.text(0.5, 0.5, f"no file accesses with offsets ({io.without_offset} without)",
                  ha="center", va="center")
        axes.set_axis_off()
        return figure
    grid = figure.subplots(len(files), 2, squeeze=False)
    for (time_axes, map_axes), file_name in zip(grid, files):
        accesses = [access for access in io.accesses if access.file == file_name]
        extent = max(access.offset + access.size for access in accesses)
        width = map_width(extent)
        for rank in ranks:
            colour = rank_colour(rank, ranks)
            for op in (WRITE, READ):
                mine = [a for a in accesses if a.rank == rank and a.op == op]
                if not mine:
                    continue
                boxes = [_box(a.start, a.end, a.offset, a.offset + a.size) for a in mine]
                collection = PolyCollection(boxes, **_style(op, colour))
                collection.set_gid(f"time-offset|{file_name}|{rank}|{op}")
                time_axes.add_collection(collection)
                pieces = [_box(column, column + length, row, row + rows)
                          for a in mine
                          for column, row, length, rows in map_pieces(a.offset, a.size, width)]
                collection = PolyCollection(pieces, **_style(op, colour))
                collection.set_gid(f"access-map|{file_name}|{rank}|{op}")
                map_axes.add_collection(collection)
        time_axes.autoscale_view()
        time_axes.set_title(f"{file_name}: offset over time")
        time_axes.set_xlabel("time since the first call (s)")
        time_axes.set_ylabel("offset (bytes)")
        rows = (extent + width - 1) // width
        map_axes.set_xlim(0, width)
        map_axes.set_ylim(rows, 0)
        map_axes.set_gid(f"access-map|{file_name}|width={width}")
        map_axes.set_title(f"{file_name}: access map, {width} bytes per row")
        map_axes.set_xlabel("byte within the row")
        map_axes.set_ylabel(f"row (offset / {width})")
    handles = [Patch(facecolor=rank_colour(rank, ranks), label=f"rank {rank}") for rank in ranks]
    handles += [Patch(facecolor="grey", label="write (filled)"),
                Patch(facecolor="none", edgecolor="grey", hatch="///", label="read (outlined)")]
    grid[0][1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                      fontsize="small")
    return figure


def write_plot(project, output, files=None):
    """Plots the project's file accesses into output (.svg or .png); returns the IoAccesses."""
    extension = os.path.splitext(output)[1].lower()
    if extension not in (".svg", ".png"):
        raise ValueError(f"{output}: the output must end in .svg or .png")
    io = collect_accesses(project)
    figure = plot_accesses(io, files)
    write_atomically(output, lambda out: figure.savefig(out, format=extension[1:]), mode="wb")
    return io
