"""Project.to_dask(): a project's table as a dask.dataframe.

Each partition is one slice of a large trace (a byte range,
TraceSlices.hpp), or whole traces (ranks and threads) one after another, up
to a slice's bytes in all (PARTITION_TRACES at most), read by the C++ reader
inside the task that makes it. An XML trace is cut into byte ranges of about
slice_bytes; a compact trace, whose calls take 30-50 times fewer bytes, is
cut between its frames by the calls its frame index counts, about as many
per slice as an XML slice of slice_bytes holds (slice_bytes /
XML_BYTES_PER_CALL), so that both forms of one run give about as many
partitions of about as many rows. A task carries TraceSpecs only: each
trace's absolute path, the filters, and the two small tables the reading
needs (the original dialect's local-to-world ranks, the rank's communicator
per cid); never an open reader or the Project. So every Dask scheduler can run it, the
distributed one included, and the worker opens the file itself: the traces
must be visible to the workers under the same path (a shared file system).

The frame remembers where it came from (frame._hdtrace_run: the specs and
the read tasks), so that stats and match_messages (hdtrace.distributed_frames)
can reduce each partition where it was read.

Dask and pandas are optional: this module imports without them, and
to_dask() says what to install when they are absent.
"""
import bisect
import operator
import os
import pickle
import socket
from dataclasses import dataclass

import numpy as np

from . import native
from .errors import TraceNotFoundError
from .table import read_trace_columns, table_dtype

#: Traces larger than this are read in slices of about this many bytes, one
#: partition each (Project.to_dask's slice_bytes).
DEFAULT_SLICE_BYTES = 256 << 20

#: The bytes of one top-level call (with its children and <Nested> block) in
#: an XML trace, about: 76-107 in the cases of the shared per-call harness,
#: 61-98 per call in the test programs and a parallel HDF5 program, 110 in
#: the reader benchmark's generated trace, 127 in the test run with nested
#: calls. A compact trace's slices hold slice_bytes // XML_BYTES_PER_CALL
#: calls, about as many as an XML slice of slice_bytes holds.
XML_BYTES_PER_CALL = 100

#: Whole traces share a partition up to slice_bytes in all and at most this
#: many: a run of thousands of small traces is then tens of partitions, not
#: thousands (each costs the scheduler and pandas about half a millisecond,
#: as much as reading a trace of a few thousand calls), and still enough to
#: keep every worker reading.
PARTITION_TRACES = 1024

#: A compact trace's bytes count this many times when traces are grouped:
#: its calls take 30 to 50 times fewer bytes than in XML.
COMPACT_BYTES_FACTOR = 40

#: The reader's columns a partition keeps beside its frame, for stats and
#: match_messages (row numbers are the partition's).
SIDE_COLUMNS = ("name_code", "recv_peer", "recv_tag", "completion_row", "completion_rid",
                "open_row", "open_fid", "open_name")


def import_dask():
    """(dask, dask.dataframe, pandas), or an ImportError saying what to install."""
    # Dask and pandas are optional and heavy: loaded only by what needs them.
    try:
        import dask
        import dask.dataframe
        import pandas
    except ImportError as error:
        missing = getattr(error, "name", None) or "dask"
        raise ImportError(
            f"hdtrace's to_dask() needs Dask and pandas, and {missing!r} cannot be imported: "
            "install them (Debian: apt-get install python3-dask python3-pandas, and "
            "python3-distributed for a cluster), or read the run in this process with "
            "Project.to_numpy()") from None
    return dask, dask.dataframe, pandas


@dataclass(frozen=True)
class TraceSpec:
    """Everything a task needs to read one trace, or a slice of it: plain
    values only."""
    project: str        # the .proj, for messages
    path: str           # the trace, absolute
    part: int           # the piece's number: traces and slices in the frame's order
    rank: int
    thread: int
    names: tuple
    from_ns: object     # int or None
    to_ns: object
    partial: bool
    local_to_world: object  # {cid: [world rank of local 0, 1, ...]} (original dialect) or None
    comm_of_cid: dict       # {cid: index in project.communicators} of this rank
    begin: object = None    # the slice's byte range [begin, end); None, None: the whole trace
    end: object = None
    slice_index: int = 0    # which of the trace's slices, of how many
    slices: int = 1


class Pieces:
    """A partition's specs, as its tasks take them: one argument that Dask
    hands over as it is. Dask walks the lists and dataclasses a task is
    given, looking for collections in them, at some 0.1 ms a spec: seconds
    for a run of thousands of traces."""
    __slots__ = ("specs", "token")

    def __init__(self, specs, token):
        self.specs = specs
        self.token = token  # the run's token and the partition's number

    def __iter__(self):
        return iter(self.specs)

    def __len__(self):
        return len(self.specs)

    def __dask_tokenize__(self):
        return self.token


class Part:
    """What a read task returns: the partition's DataFrame and, per piece
    (trace or slice) it holds, its rows [begin, end) in the frame and its
    side columns (SIDE_COLUMNS, and names: name code -> call name)."""

    def __init__(self, frame, pieces):
        self.frame = frame
        self.pieces = pieces  # [(begin, end, side)], in the frame's order

    def piece_columns(self, names):
        """(the piece's rows, its side) per piece: the rows as slices of the
        columns named (a DataFrame cut per piece costs pandas' work per
        piece)."""
        columns = {name: self.frame[name].to_numpy() for name in names}
        for begin, end, side in self.pieces:
            yield {name: values[begin:end] for name, values in columns.items()}, side


def require_trace_here(spec):
    """Every task that opens a partition's trace fails alike when the file is
    not where it runs, whichever of them the scheduler starts first."""
    if not os.path.exists(spec.path):
        raise TraceNotFoundError(spec.project, spec.path, socket.gethostname())


def read_part(specs):
    """The task that reads one partition (Pieces): its pieces, one after another."""
    pandas = import_dask()[2]
    read = []
    for spec in specs:
        require_trace_here(spec)
        bounds = (spec.begin, spec.end) if spec.slices > 1 else (None, None)
        read.append((spec, read_trace_columns(spec.path, spec.names, spec.from_ns, spec.to_ns,
                                              spec.partial, spec.local_to_world, *bounds,
                                              stacklevel=3)))
    # One table for all the pieces, its name column as wide as their longest
    # name, filled piece by piece: not a table per piece, each of its own
    # dtype, that numpy then unifies and copies.
    width = max((len(name) for _, columns in read for name in columns["names"]), default=1)
    array = native.empty_array(sum(len(columns["name_code"]) for _, columns in read),
                               table_dtype(width))
    pieces, rows = [], 0
    for spec, columns in read:
        names = list(columns["names"])
        count = len(columns["name_code"])
        native.fill_table(array, rows, columns, spec.rank, spec.thread, names)
        side = {key: columns[key] for key in SIDE_COLUMNS}
        side["names"] = names
        pieces.append((rows, rows + count, side))
        rows += count
    return Part(pandas.DataFrame(array), pieces)


def _frame_of(part):
    return part.frame


@dataclass
class DaskRun:
    """What a to_dask() frame knows of where it came from (kept on the client)."""
    project: str
    specs: list         # TraceSpec per piece, in the frame's order
    partitions: list    # the Pieces of each partition, in partition order
    reads: list         # dask.delayed Part per partition, in partition order


def group_pieces(specs, weights, slice_bytes, most=None):
    """The partitions, as lists of specs in order: a slice of a trace alone;
    whole traces one after another while their weights (bytes) stay within
    slice_bytes and they are at most `most` (PARTITION_TRACES)."""
    most = most or PARTITION_TRACES
    partitions, load = [], 0
    for spec, weight in zip(specs, weights):
        last = partitions[-1] if partitions else None
        if (last is not None and spec.slices == 1 and last[-1].slices == 1 and
                len(last) < most and load + weight <= slice_bytes):
            last.append(spec)
            load += weight
        else:
            partitions.append([spec])
            load = weight
    return partitions


def plan_slices(size, slice_bytes):
    """[(begin, end)] byte ranges of about slice_bytes covering a trace of
    size bytes; [(None, None)] (whole) when it is no larger than one slice.
    The last range's end is None: to the end of the file, whatever its size
    when read."""
    if not slice_bytes or size <= slice_bytes:
        return [(None, None)]
    count = -(-size // slice_bytes)
    bounds = [index * size // count for index in range(count)] + [None]
    return list(zip(bounds[:-1], bounds[1:]))


def plan_compact_slices(frames, slice_bytes):
    """[(begin, end)] byte ranges of whole frames of a compact trace, given its
    frames as [(byte offset, records, ...)]: about slice_bytes // XML_BYTES_PER_CALL
    records each, cut at the frame starts nearest to even shares of the
    records (a frame is never split, so a slice holds at least one frame).
    [(None, None)] (whole) when the trace holds no more than one slice's
    records or one frame. The first range begins at 0 and the last ends at
    None, as plan_slices's do."""
    if not slice_bytes or len(frames) < 2:
        return [(None, None)]
    per_slice = max(1, slice_bytes // XML_BYTES_PER_CALL)
    firsts = []  # the number of records before each frame
    total = 0
    for frame in frames:
        firsts.append(total)
        total += frame[1]
    if total <= per_slice:
        return [(None, None)]
    count = -(-total // per_slice)
    cuts = []  # frame positions that start a slice, after the first
    for share in range(1, count):
        wanted = share * total // count
        at = bisect.bisect_left(firsts, wanted)
        # The nearer of the frame starts on either side of the wanted record.
        if at == len(firsts) or (at > 0 and wanted - firsts[at - 1] <= firsts[at] - wanted):
            at -= 1
        if at > 0 and (not cuts or at > cuts[-1]):
            cuts.append(at)
    if not cuts:
        return [(None, None)]
    bounds = [0] + [frames[at][0] for at in cuts] + [None]
    return list(zip(bounds[:-1], bounds[1:]))


def trace_slices(path, slice_bytes):
    """The byte ranges a trace is read in: by its size for XML
    (plan_slices), by its frames' records for a compact trace
    (plan_compact_slices)."""
    if native.trace_form(path) != "compact":
        return plan_slices(os.stat(path).st_size, slice_bytes)
    try:
        frames = native.compact_frames(path)
    except native.ReadError:
        return [(None, None)]  # damaged: read whole, and the read task reports it
    return plan_compact_slices(frames, slice_bytes)


def project_to_dask(project, names=None, window=None, slice_bytes=DEFAULT_SLICE_BYTES):
    dask, dd, pandas = import_dask()
    if slice_bytes is not None:
        try:
            valid = operator.index(slice_bytes) >= 0
        except TypeError:
            valid = False
        if not valid:
            raise ValueError(f"slice_bytes must be a number of bytes (or None), not "
                             f"{slice_bytes!r}")
        slice_bytes = operator.index(slice_bytes)
    # Slices need the writer's layout (our dialect), and a partial read keeps
    # the calls before a trace's first damage, which a later slice cannot know.
    slicing = bool(slice_bytes) and project.dialect == "hdtrace" and not project.partial
    # A project opened with clock alignment corrects its times in-process,
    # from the whole table at once (the order repair needs every message);
    # a task reads one trace as written, so the two would disagree.
    if getattr(project, "clock_correction", None) is not None:
        raise ValueError(
            f"{project.path}: to_dask() reads the times as written, and this project corrects "
            "its clocks when read (align): rewrite the traces once with `hdtrace align "
            f"{project.path}` (then every reader gets the corrected times), or open it with "
            "align=False for the times as written")
    from_ns, to_ns = project._window_ns(window)
    # Each rank's communicators by cid, gathered once for all ranks (a rank's
    # own looked up in the whole run's pairs was quadratic in the ranks).
    comms_of_rank = {}
    for communicator in project.communicators:
        for member in communicator.members:
            comms_of_rank.setdefault(member.world, {}).setdefault(member.cid,
                                                                  communicator.index)
    specs, weights = [], []
    for leaf in project.topology.leaves:
        if leaf.path in project.missing_traces:
            continue  # partial=True: warned about when opened, reads as empty
        local_to_world = (project.communicators.local_to_world_table(leaf.rank)
                          if project.ranks_in_traces == "local" else None)
        ranges = trace_slices(leaf.path, slice_bytes) if slicing else [(None, None)]
        comm_of_cid = dict(comms_of_rank.get(leaf.rank, {}))
        # What the trace weighs when whole traces are grouped: its bytes as
        # open found them, a compact trace's as many as its XML would take.
        weight = project.trace_bytes.get(leaf.path, 0) * (
            COMPACT_BYTES_FACTOR if leaf.path.endswith(".ctrc") else 1)
        for index, (begin, end) in enumerate(ranges):
            weights.append(weight)
            specs.append(TraceSpec(
                os.path.abspath(project.path), os.path.abspath(leaf.path), len(specs), leaf.rank,
                leaf.thread, tuple(names or ()), from_ns, to_ns, bool(project.partial),
                local_to_world, comm_of_cid, begin, end, index, len(ranges)))
    meta = pandas.DataFrame(np.empty(0, dtype=table_dtype(1)))
    if not specs:
        frame = dd.from_pandas(meta, npartitions=1)
        frame._hdtrace_run = DaskRun(os.path.abspath(project.path), [], [], [])
        return frame

    def version(path):  # a rewritten trace is another task, never a cached result
        status = os.stat(path)
        return status.st_size, status.st_mtime_ns
    groups = group_pieces(specs, weights, slice_bytes or DEFAULT_SLICE_BYTES)
    # The specs' pickle hashed (dask's tokenize walks each dataclass field
    # by field: seconds for thousands of traces), and how they are grouped:
    # the same run grouped otherwise is other tasks, whose keys must not
    # find the results of the first grouping on a cluster that still holds
    # them.
    token = dask.base.tokenize(pickle.dumps(
        ([(spec, version(spec.path)) for spec in specs], [len(group) for group in groups]),
        protocol=4))
    partitions = [Pieces(part, f"{token}-{index}") for index, part in enumerate(groups)]
    reads = [dask.delayed(read_part, pure=True)(part, dask_key_name=(f"hdtrace-read-{token}", i))
             for i, part in enumerate(partitions)]
    frames = [dask.delayed(_frame_of, pure=True)(read, dask_key_name=(f"hdtrace-table-{token}", i))
              for i, read in enumerate(reads)]
    frame = dd.from_delayed(frames, meta=meta, prefix="hdtrace-table", verify_meta=False)
    frame._hdtrace_run = DaskRun(os.path.abspath(project.path), specs, partitions, reads)
    return frame


def run_of(value):
    """The DaskRun of a to_dask() frame; None for anything that is no Dask collection."""
    run = getattr(value, "_hdtrace_run", None) if type(value).__module__.startswith("dask") \
        else None
    if run is None and type(value).__module__.startswith("dask"):
        raise TypeError(
            "hdtrace.stats() and match_messages() take a Project or the frame returned by "
            "to_dask() itself: a frame derived from it (filtered, persisted, repartitioned) no "
            "longer knows the File_open names and <For> completions they need")
    return run
