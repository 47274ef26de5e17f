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

Layers: the MPI-IO calls the program made (the default), the POSIX and
stdio reads and writes that reached the file system (nested under MPI calls
or not: the access pattern after the MPI library's collective buffering and
data sieving), or both in the same panels. A POSIX access is the bytes its
call did at the offset it used (a byte offset), drawn with a dashed black
edge over its rank's colour.
"""
import math
import os
import re
from dataclasses import dataclass, field

from .calls import MPI_LAYER, POSIX_LAYER, READ, WRITE
from .export.atomic import write_atomically
from .io_layers import project_accesses

#: The choices of `hdtrace plot-io --layer`: the layers each draws.
LAYER_CHOICES = {"mpi": (MPI_LAYER,), "posix": (POSIX_LAYER,), "both": (MPI_LAYER, POSIX_LAYER)}


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
    layer: str = MPI_LAYER  # calls.MPI_LAYER or calls.POSIX_LAYER


@dataclass
class IoAccesses:
    accesses: list = field(default_factory=list)
    without_offset: int = 0   # read/write calls that the trace gives no offset for
    origin_ns: int = 0        # absolute time of the run's first call

    def files(self):
        return sorted({access.file for access in self.accesses})

    def ranks(self):
        return sorted({access.rank for access in self.accesses})


def collect_accesses(project, layers=(MPI_LAYER,)):
    """The file accesses of every trace of an hdtrace.Project in the given
    layers (MPI: the top-level MPI-IO calls; POSIX: the POSIX and stdio
    calls, nested or not)."""
    result = IoAccesses()
    raw = []
    for access in project_accesses(project, layers):
        if access.layer == MPI_LAYER and access.depth:
            continue  # an MPI call inside an MPI call: the outer call is the access
        if access.offset is None:
            result.without_offset += 1
            continue
        raw.append(access)
    starts = project.to_numpy()["start_ns"]
    result.origin_ns = int(starts.min()) if len(starts) else 0
    origin = result.origin_ns
    result.accesses = [Access(access.rank, access.thread, access.op, access.file, access.offset,
                              access.done, (access.start_ns - origin) / 1e9,
                              (access.end_ns - origin) / 1e9, access.call, access.layer)
                       for access in raw]
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


#: Up to this many ranks, each rank's boxes are collections of their own
#: and the legend names the rank's colour. Beyond, one collection per layer
#: and operation holds every rank's boxes, each coloured by its rank, and a
#: colour bar names the ranks: thousands of collections and legend entries
#: took matplotlib minutes to draw.
MAX_RANK_COLLECTIONS = 32


#: The colour map of more than ten ranks, over their positions; the colour
#: bar of many ranks shows it.
MANY_RANKS_COLOURS = "turbo"


def rank_colours(ranks):
    """{rank: its colour}, ranks sorted: tab10 up to ten ranks, else
    MANY_RANKS_COLOURS over the ranks' positions."""
    import matplotlib  # optional and heavy: loaded only to draw
    palette = matplotlib.colormaps["tab10" if len(ranks) <= 10 else MANY_RANKS_COLOURS]
    if len(ranks) <= 10:
        return {rank: palette(index % 10) for index, rank in enumerate(ranks)}
    last = max(len(ranks) - 1, 1)
    return {rank: palette(index / last) for index, rank in enumerate(ranks)}


def _style(op, colours, layer=MPI_LAYER):
    """The style of a collection of boxes, colours: one, or one per box."""
    if op == WRITE:
        style = {"facecolors": colours, "edgecolors": colours, "linewidths": 0.8,
                 "alpha": 0.85}
    else:
        style = {"facecolors": ["none"], "edgecolors": colours, "linewidths": 0.8,
                 "hatch": "///"}
    if layer == POSIX_LAYER:
        style.update(edgecolors=["black"], linestyles="dashed", alpha=0.6)
    return style


def _box(x0, x1, y0, y1):
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


#: Characters of a panel title's line: a panel is half of a 13-inch figure.
TITLE_LINE_CHARACTERS = 60


def _wrapped(text):
    """text in lines of at most TITLE_LINE_CHARACTERS, broken at '/' or
    spaces where it can be, anywhere where it cannot."""
    lines, line = [], ""
    for piece in re.split(r"(?<=[/ ])", text):
        while len(piece) > TITLE_LINE_CHARACTERS:
            room = TITLE_LINE_CHARACTERS - len(line)
            lines.append(line + piece[:room])
            line, piece = "", piece[room:]
        if len(line) + len(piece) > TITLE_LINE_CHARACTERS:
            lines.append(line.rstrip())
            line = ""
        line += piece
    lines.append(line)
    return "\n".join(part for part in lines if part)


def plot_accesses(io, files=None):
    """A matplotlib Figure with the two panels per file.

    Every PolyCollection carries gid 'time-offset|<file>|<rank>|<op>' or
    'access-map|<file>|<rank>|<op>', followed by '|POSIX' for the POSIX
    layer's accesses; beyond MAX_RANK_COLLECTIONS ranks the rank is 'all'
    (one collection holds every rank's boxes, in rank order, each box of
    its rank's colour). An access map axes carries gid
    'access-map|<file>|width=<bytes per row>'."""
    # matplotlib is optional and heavy: loaded only to draw.
    from matplotlib.collections import PolyCollection
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch

    files = [name for name in io.files() if not files or name in files]
    ranks = io.ranks()
    colour_of = rank_colours(ranks)
    many = len(ranks) > MAX_RANK_COLLECTIONS
    figure = Figure(figsize=(13, 3.6 * max(len(files), 1)), layout="constrained")
    if not files:
        axes = figure.add_subplot(1, 1, 1)
        axes.text(0.5, 0.5, f"no file accesses with offsets ({io.without_offset} without)",
                  ha="center", va="center")
        axes.set_axis_off()
        return figure
    grid = figure.subplots(len(files), 2, squeeze=False)
    # The accesses by file, then by rank, layer and operation, in one pass:
    # picked out per rank from every file's accesses, a run of thousands of
    # ranks took minutes.
    by_file = {}
    for access in io.accesses:
        by_file.setdefault(access.file, {}).setdefault(
            (access.rank, access.layer, access.op), []).append(access)
    for (time_axes, map_axes), file_name in zip(grid, files):
        groups = by_file[file_name]
        extent = max(access.offset + access.size
                     for group in groups.values() for access in group)
        width = map_width(extent)
        kinds = ((MPI_LAYER, WRITE), (MPI_LAYER, READ), (POSIX_LAYER, WRITE),
                 (POSIX_LAYER, READ))
        # (rank or "all", layer, op, accesses), in the order they are drawn.
        if many:
            series = [("all", layer, op,
                       [a for rank in ranks for a in groups.get((rank, layer, op), ())])
                      for layer, op in kinds]
        else:
            series = [(rank, layer, op, groups.get((rank, layer, op)))
                      for rank in ranks for layer, op in kinds]
        for rank, layer, op, mine in series:
            if not mine:
                continue
            suffix = "|POSIX" if layer == POSIX_LAYER else ""
            boxes = [_box(a.start, a.end, a.offset, a.offset + a.size) for a in mine]
            colours = [colour_of[a.rank] for a in mine] if many else [colour_of[rank]]
            collection = PolyCollection(boxes, **_style(op, colours, layer))
            collection.set_gid(f"time-offset|{file_name}|{rank}|{op}{suffix}")
            time_axes.add_collection(collection)
            pieces, piece_colours = [], []
            for a in mine:
                for column, row, length, rows in map_pieces(a.offset, a.size, width):
                    pieces.append(_box(column, column + length, row, row + rows))
                    piece_colours.append(colour_of[a.rank])
            collection = PolyCollection(pieces, **_style(op, piece_colours if many else colours,
                                                         layer))
            collection.set_gid(f"access-map|{file_name}|{rank}|{op}{suffix}")
            map_axes.add_collection(collection)
        time_axes.autoscale_view()
        # Titles name the file by its base name, wrapped to the panel's
        # width; the time panel's adds the whole path, wrapped as well, so
        # that a long path never runs into the neighbouring panel.
        base = os.path.basename(file_name.rstrip("/")) or file_name
        title = _wrapped(f"{base}: offset over time")
        if base != file_name:
            title += "\n" + _wrapped(file_name)
        time_axes.set_title(title, fontsize="medium")
        time_axes.set_xlabel("time since the first call (s)")
        time_axes.set_ylabel("offset (bytes)")
        rows = (extent + width - 1) // width
        map_axes.set_xlim(0, width)
        map_axes.set_ylim(rows, 0)
        map_axes.set_gid(f"access-map|{file_name}|width={width}")
        map_axes.set_title(_wrapped(f"{base}: access map, {width} bytes per row"),
                           fontsize="medium")
        map_axes.set_xlabel("byte within the row")
        map_axes.set_ylabel(f"row (offset / {width})")
    handles = [] if many else [Patch(facecolor=colour_of[rank], label=f"rank {rank}")
                               for rank in ranks]
    if many:
        from matplotlib.cm import ScalarMappable
        from matplotlib.colors import Normalize
        import matplotlib
        # The ranks' colours by their positions among the ranks (rank_colours).
        shown = ScalarMappable(Normalize(0, len(ranks) - 1),
                               matplotlib.colormaps[MANY_RANKS_COLOURS])
        bar = figure.colorbar(shown, ax=[axes for pair in grid for axes in pair],
                              location="bottom", shrink=0.6, aspect=40)
        positions = sorted({0, len(ranks) // 2, len(ranks) - 1})
        bar.set_ticks(positions, labels=[str(ranks[index]) for index in positions])
        bar.set_label(f"rank ({len(ranks)} ranks)")
    handles += [Patch(facecolor="grey", label="write (filled)"),
                Patch(facecolor="none", edgecolor="grey", hatch="///", label="read (outlined)")]
    if any(access.layer == POSIX_LAYER for access in io.accesses):
        handles.append(Patch(facecolor="none", edgecolor="black", linestyle="dashed",
                             label="POSIX (dashed edge)"))
    grid[0][1].legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                      fontsize="small")
    return figure


def write_plot(project, output, files=None, layers=(MPI_LAYER,)):
    """Plots the project's file accesses in the given layers into output
    (.svg or .png); returns the IoAccesses."""
    extension = os.path.splitext(output)[1].lower()
    if extension not in (".svg", ".png"):
        raise ValueError(f"{output}: the output must end in .svg or .png")
    io = collect_accesses(project, layers)
    figure = plot_accesses(io, files)
    write_atomically(output, lambda out: figure.savefig(out, format=extension[1:]), mode="wb")
    return io
