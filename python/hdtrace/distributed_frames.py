"""Project.to_dask(): a project's table as a dask.dataframe, and stats and
match_messages computed on it partition by partition.

Each partition is one trace (one rank and thread), or one slice of a large
trace (a byte range, TraceSlices.hpp), read by the C++ reader inside the task
that makes it. A task carries a _TraceSpec only: the trace's
absolute path, the filters, and the two small tables the reading needs (the
original dialect's local-to-world ranks, the rank's communicator per cid);
never an open reader or the Project. So every Dask scheduler can run it, the
distributed one included, and the worker opens the file itself: the traces
must be visible to the workers under the same path (a shared file system).

stats and match_messages reduce each partition where it was read and combine
the small results: per call name, rank and file for stats; for
match_messages, each trace's posted messages are routed by receiving rank to
one of a few groups, and each group is matched on its own. No process ever
holds the whole run.

Dask and pandas are optional: this module imports without them, and
to_dask() says what to install when they are absent.
"""
import operator
import os
import socket
import warnings
from collections import defaultdict, deque, namedtuple
from dataclasses import dataclass

import numpy as np

from . import _core
from .calls import STARTS, STARTS_THROUGH_CHILDREN
from .errors import MissingTraceError, TraceDamageWarning
from .table import NO_PEER, TABLE_COLUMNS

#: Traces larger than this are read in slices of about this many bytes, one
#: partition each (Project.to_dask's slice_bytes).
DEFAULT_SLICE_BYTES = 256 << 20

#: At most this many groups of receiving ranks for match_messages: each
#: partition's messages are split into this many pieces, so the graph has
#: partitions x groups small tasks.
MESSAGE_GROUPS = 32


def import_dask():
    """(dask, dask.dataframe, pandas), or an ImportError saying what to install."""
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


class TraceNotFoundError(MissingTraceError):
    """A trace of a to_dask() frame that the task reading it cannot find
    where it runs (deleted since, or not on that machine's file system)."""

    def __init__(self, project_path, path, host):
        self.project_path, self.missing, self.host = str(project_path), [str(path)], host
        FileNotFoundError.__init__(
            self, f"{path}: trace file does not exist on host {host}, where a Dask task reads "
                  f"it for {project_path} (the workers must see the traces under the same "
                  "path, e.g. on a shared file system)")

    def __reduce__(self):  # rebuilt from its own arguments when it travels back from a worker
        return type(self), (self.project_path, self.missing[0], self.host)


@dataclass(frozen=True)
class _TraceSpec:
    """Everything a task needs to read one trace: plain values only."""
    project: str        # the .proj, for messages
    path: str           # the trace, absolute
    part: int           # the partition's number
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


class _Part:
    """What a read task returns: the partition's DataFrame and the side
    columns stats and match_messages need, in the partition's row numbers."""

    def __init__(self, frame, side):
        self.frame = frame
        self.side = side


def _table_dtype(name_width):
    return np.dtype([(column, kind if kind is not None else f"U{max(name_width, 1)}")
                     for column, kind in TABLE_COLUMNS])


def _read_part(spec):
    import pandas
    if not os.path.exists(spec.path):
        raise TraceNotFoundError(spec.project, spec.path, socket.gethostname())
    if spec.slices > 1:
        columns = _core.read_columns(spec.path, list(spec.names), spec.from_ns, spec.to_ns,
                                     spec.partial, spec.local_to_world, begin=spec.begin,
                                     end=spec.end)
    else:
        columns = _core.read_columns(spec.path, list(spec.names), spec.from_ns, spec.to_ns,
                                     spec.partial, spec.local_to_world)
    if columns["damage"]:
        warnings.warn(f"trace is damaged, kept every complete call before the damage: "
                      f"{columns['damage']}", TraceDamageWarning, stacklevel=2)
    names = list(columns["names"])
    array = np.empty(len(columns["name_code"]),
                     dtype=_table_dtype(max((len(name) for name in names), default=1)))
    _core.fill_table(array, 0, columns, spec.rank, spec.thread, names)
    side = {key: columns[key] for key in ("name_code", "recv_peer", "recv_tag", "completion_row",
                                          "completion_rid", "open_row", "open_fid", "open_name")}
    side["names"] = names
    return _Part(pandas.DataFrame(array), side)


def _frame_of(part):
    return part.frame


@dataclass
class _DaskRun:
    """What a to_dask() frame knows of where it came from (kept on the client)."""
    project: str
    specs: list
    reads: list         # dask.delayed _Part per partition, in partition order


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
    comm_index = {}
    for communicator in project.communicators:
        for member in communicator.members:
            comm_index.setdefault((member.world, member.cid), communicator.index)
    specs = []
    for leaf in project.topology.leaves:
        if leaf.path in project.missing_traces:
            continue  # partial=True: warned about when opened, reads as empty
        local_to_world = (project.communicators.local_to_world_table(leaf.rank)
                          if project.ranks_in_traces == "local" else None)
        ranges = plan_slices(os.stat(leaf.path).st_size, slice_bytes) if slicing \
            else [(None, None)]
        comm_of_cid = {cid: index for (world, cid), index in comm_index.items()
                       if world == leaf.rank}
        for index, (begin, end) in enumerate(ranges):
            specs.append(_TraceSpec(
                os.path.abspath(project.path), os.path.abspath(leaf.path), len(specs), leaf.rank,
                leaf.thread, tuple(names or ()), from_ns, to_ns, bool(project.partial),
                local_to_world, comm_of_cid, begin, end, index, len(ranges)))
    meta = pandas.DataFrame(np.empty(0, dtype=_table_dtype(1)))
    if not specs:
        frame = dd.from_pandas(meta, npartitions=1)
        frame._hdtrace_run = _DaskRun(os.path.abspath(project.path), [], [])
        return frame

    def version(path):  # a rewritten trace is another task, never a cached result
        status = os.stat(path)
        return status.st_size, status.st_mtime_ns
    token = dask.base.tokenize([(spec, version(spec.path)) for spec in specs])
    reads = [dask.delayed(_read_part, pure=True)(spec, dask_key_name=(f"hdtrace-read-{token}", i))
             for i, spec in enumerate(specs)]
    frames = [dask.delayed(_frame_of, pure=True)(read, dask_key_name=(f"hdtrace-table-{token}", i))
              for i, read in enumerate(reads)]
    frame = dd.from_delayed(frames, meta=meta, prefix="hdtrace-table", verify_meta=False)
    frame._hdtrace_run = _DaskRun(os.path.abspath(project.path), specs, reads)
    return frame


def run_of(value):
    """The _DaskRun of a to_dask() frame; None for anything that is no Dask collection."""
    run = getattr(value, "_hdtrace_run", None) if type(value).__module__.startswith("dask") \
        else None
    if run is None and type(value).__module__.startswith("dask"):
        raise TypeError(
            "hdtrace.stats() and match_messages() take a Project or the frame returned by "
            "to_dask() itself: a frame derived from it (filtered, persisted, repartitioned) no "
            "longer knows the File_open names and <For> completions they need")
    return run


# --- stats


def _stats_of_part(part):
    """The partition's share of stats(): per name, its rank, per (fid, read?), its opens."""
    from .statistics import _is_read, _is_write, moves_data
    frame, side = part.frame, part.side
    names, codes = side["names"], np.asarray(side["name_code"])
    duration = frame["duration"].to_numpy()
    size = frame["size"].to_numpy()
    count = np.bincount(codes, minlength=len(names))
    total = np.bincount(codes, weights=duration, minlength=len(names))
    longest = np.full(len(names), -np.inf)
    np.maximum.at(longest, codes, duration)
    moving = np.array([moves_data(name) for name in names], dtype=bool)
    moved = np.zeros(len(names), dtype=np.int64)
    if len(codes):
        np.add.at(moved, codes, np.where(moving[codes] & (size > 0), size, 0))
    functions = {name: (int(count[code]), float(total[code]), float(longest[code]),
                        int(moved[code]))
                 for code, name in enumerate(names) if count[code]}

    rank = None
    if len(frame):
        rank = (int(frame["rank"].iat[0]), float(duration.sum()),
                int(frame["start_ns"].min()), int(frame["end_ns"].max()), len(frame))

    reading = np.array([_is_read(name) for name in names], dtype=bool)
    writing = np.array([_is_write(name) for name in names], dtype=bool)
    fid = frame["fid"].to_numpy()
    access = {}
    for kind, mask in (("read", reading[codes]), ("write", writing[codes])):
        mask = mask & (fid >= 0)
        for one_fid in np.unique(fid[mask]).tolist():
            rows = mask & (fid == one_fid)
            access[(one_fid, kind)] = (int(np.maximum(size[rows], 0).sum()), int(rows.sum()))
    opens = list(zip(np.asarray(side["open_fid"]).tolist(), side["open_name"]))
    return {"functions": functions, "rank": rank, "access": access, "opens": opens}


def frame_stats(run):
    from .statistics import FILE_DTYPE, FUNCTION_DTYPE, RANK_DTYPE, Stats
    dask = import_dask()[0]
    parts = dask.compute(*[dask.delayed(_stats_of_part, pure=True)(read) for read in run.reads])

    functions = {}
    for part in parts:
        for name, (calls, total, longest, moved) in part["functions"].items():
            entry = functions.setdefault(name, [0, 0.0, -np.inf, 0])
            entry[0] += calls
            entry[1] += total
            entry[2] = max(entry[2], longest)
            entry[3] += moved
    functions = np.array([(name, calls, total, total / calls, longest, moved)
                          for name, (calls, total, longest, moved) in sorted(functions.items())],
                         dtype=FUNCTION_DTYPE)
    functions = functions[np.argsort(-functions["total"], kind="stable")]

    ranks = {}
    for part in parts:
        if part["rank"] is None:
            continue
        rank, mpi, first, last, calls = part["rank"]
        entry = ranks.setdefault(rank, [0.0, first, last, 0])
        entry[0] += mpi
        entry[1], entry[2] = min(entry[1], first), max(entry[2], last)
        entry[3] += calls
    rank_rows = []
    for rank, (mpi, first, last, calls) in sorted(ranks.items()):
        span = (last - first) / 1e9
        rank_rows.append((rank, mpi, max(span - mpi, 0.0), span, calls))
    ranks = np.array(rank_rows, dtype=RANK_DTYPE)

    # As in-process: the last File_open of a (rank, fid), in trace order, names it.
    file_names = {}
    for spec, part in zip(run.specs, parts):
        for fid, name in part["opens"]:
            file_names[(spec.rank, fid)] = name
    per_file = {}
    for spec, part in zip(run.specs, parts):
        for (fid, kind), (size, calls) in part["access"].items():
            name = file_names.get((spec.rank, fid), f"fid {fid} of rank {spec.rank}")
            entry = per_file.setdefault(name, [0, 0, 0, 0])
            at = 0 if kind == "read" else 2
            entry[at] += size
            entry[at + 1] += calls
    files = np.array([(name, *values) for name, values in sorted(per_file.items())],
                     dtype=FILE_DTYPE)
    return Stats(functions, ranks, files)


# --- match_messages

# One posted message. key orders sends (and receives) exactly as the
# in-process match_messages does: by time, then calls before the starts of
# persistent requests by Startall, then by Start, then by trace and row.
_Post = namedtuple("_Post", "key part row rank thread peer tag comm size start complete incomplete")


class _SliceMessages:
    """What _posts_of_part knows of a partition's trace data: its rows as
    lists, and its completions by rid (Wait/Test <For>, sorted)."""

    def __init__(self, part, spec):
        frame, side = part.frame, part.side
        names = side["names"]
        self.spec = spec
        self.name_of = [names[code] for code in np.asarray(side["name_code"]).tolist()]
        self.peers, self.tags = frame["peer"].tolist(), frame["tag"].tolist()
        self.cids, self.sizes = frame["cid"].tolist(), frame["size"].tolist()
        self.rids = frame["rid"].tolist()
        self.start_ns = frame["start_ns"].tolist()
        self.start, self.end = frame["start"].tolist(), frame["end"].tolist()
        self.recv_peer, self.recv_tag = np.asarray(side["recv_peer"]), np.asarray(side["recv_tag"])
        self.length = len(frame)
        self.completions = defaultdict(list)  # rid -> [(start_ns, end)] of the Wait/Test calls
        self.started = []                     # (row, rid, order group, sequence)
        for index, (row, rid) in enumerate(zip(np.asarray(side["completion_row"]).tolist(),
                                               np.asarray(side["completion_rid"]).tolist())):
            if self.name_of[row] in STARTS_THROUGH_CHILDREN:
                self.started.append((row, rid, 1, index))
            else:
                self.completions[rid].append((self.start_ns[row], self.end[row]))
        for values in self.completions.values():
            values.sort()
        self.started.extend((row, self.rids[row], 2, row)
                            for row, name in enumerate(self.name_of)
                            if name in STARTS and name not in STARTS_THROUGH_CHILDREN)
        self.matched_at = {}

    def completion(self, rid, at_ns):
        """The end of the first completion of rid that starts at or after at_ns, or None."""
        for start_ns, done in self.completions.get(rid, ()):
            if start_ns >= at_ns:
                return done
        return None

    def post(self, row, peer, tag, cid, size, group, sequence):
        return _make_post(self.spec, row, self.matched_at.get(row, self.start_ns[row]),
                          (self.start_ns[row], self.start[row], self.end[row]), peer, tag, cid,
                          size, group, sequence)

    def completion_index(self):
        """The completions as arrays (rid, start_ns, end) sorted in that order,
        for _first_completion: what a later step of the chain needs of this
        slice, without its rows."""
        rids, at_ns, ends = [], [], []
        for rid, values in self.completions.items():
            for start_ns, done in values:
                rids.append(rid)
                at_ns.append(start_ns)
                ends.append(done)
        rids, at_ns = np.array(rids, dtype=np.int64), np.array(at_ns, dtype=np.int64)
        ends = np.array(ends, dtype=np.float64)
        order = np.lexsort((ends, at_ns, rids))
        return rids[order], at_ns[order], ends[order]


def _make_post(spec, row, at, times, peer, tag, cid, size, group, sequence):
    """A _Post of the partition's row; times: its (start_ns, start, end)."""
    start_ns, start, end = times
    comm = spec.comm_of_cid.get(cid)
    return _Post((at, group, start_ns, spec.part, sequence), spec.part, row, spec.rank,
                 spec.thread, peer, tag, comm if comm is not None else ("cid", cid), size,
                 start, end, False)


def _first_completion(index, rid, at_ns):
    """completion() over a completion_index: the end, or None."""
    rids, starts, ends = index
    low, high = np.searchsorted(rids, rid, "left"), np.searchsorted(rids, rid, "right")
    at = low + int(np.searchsorted(starts[low:high], at_ns, "left"))
    return float(ends[at]) if at < high else None


def _routed(sends, receives, groups):
    """{group: (sends, receives)} by receiving rank; messages to or from
    MPI_PROC_NULL are none."""
    from . import messages as m
    by_group = {group: ([], []) for group in range(groups)}
    for one in sends:
        if one.peer < 0 or one.peer == NO_PEER:
            continue  # MPI_PROC_NULL: no message
        by_group[one.peer % groups][0].append(one)
    for one in receives:
        if one.peer in (m.PROC_NULL, NO_PEER):
            continue
        by_group[one.rank % groups][1].append(one)
    return by_group


def _never_completed(post):
    return post._replace(complete=np.nan, incomplete=True)


def _posts_of_part(part, spec, groups):
    """The messages the partition posts, as {group: (sends, receives)} by
    receiving rank, and its length. A slice of a trace also returns what only
    the trace's other slices can settle (see _settle_slice): its
    nonblocking posts not completed within it ("waiting": (post, rid)), its
    Starts of requests made before it ("unstarted") and its persistent
    requests ("templates")."""
    from . import messages as m
    data = _SliceMessages(part, spec)
    name_of, rids = data.name_of, data.rids
    whole = spec.slices == 1
    if any(name in m.MATCHED_RECEIVES for name in name_of):
        data.matched_at = _probe_starts_of_trace(spec, name_of, data.start_ns)

    sends, receives, waiting = [], [], []

    def add(to, made, rid):
        if rid is not None:
            done = data.completion(rid, data.start_ns[made.row])
            if done is not None:
                made = made._replace(complete=done)
            elif whole:
                made = _never_completed(made)
            else:
                waiting.append((made, rid, to is sends))
                return
        to.append(made)

    templates = {}
    for row, name in enumerate(name_of):
        peer, tag, cid, size = data.peers[row], data.tags[row], data.cids[row], data.sizes[row]
        if name in m.SENDS or name in m.SEND_RECEIVES:
            add(sends, data.post(row, peer, tag, cid, size, 0, row),
                rids[row] if name in m.NONBLOCKING else None)
        if name in m.RECEIVES:
            add(receives, data.post(row, peer, tag, cid, size, 0, row),
                rids[row] if name in m.NONBLOCKING else None)
        elif name in m.SEND_RECEIVES:
            add(receives, data.post(row, int(data.recv_peer[row]), int(data.recv_tag[row]), cid,
                                    size, 0, row), None)
        elif name in m.PERSISTENT_SENDS or name in m.PERSISTENT_RECEIVES:
            templates[rids[row]] = (peer, tag, cid, size, name in m.PERSISTENT_SENDS)
    unstarted = []
    for row, rid, group, sequence in data.started:
        template = templates.get(rid)
        if template is None:
            if not whole:
                times = (data.start_ns[row], data.start[row], data.end[row])
                unstarted.append((row, rid, group, sequence, times))
            continue
        peer, tag, cid, size, is_send = template
        add(sends if is_send else receives, data.post(row, peer, tag, cid, size, group, sequence),
            rid)
    return {"length": data.length, "groups": _routed(sends, receives, groups),
            "waiting": waiting, "unstarted": unstarted, "templates": templates,
            "completions": None if whole else data.completion_index()}


def _settle_slice(spec, posts, carried, groups):
    """The step of a trace's chain of slices for what one slice cannot settle
    alone, in trace order: the persistent requests of the slices before it
    start this slice's Starts, and this slice's Wait/Test calls complete the
    posts still waiting from before (the first completion of the rid at or
    after the post, as in-process: calls are in start order, so an earlier
    slice holds none). Returns ({group: (sends, receives)} settled here,
    what is carried to the next slice); the last slice marks the posts
    still waiting as never completed."""
    completions = posts["completions"]
    sends, receives = [], []
    still_waiting = []
    for made, rid, is_send in carried["waiting"]:
        done = _first_completion(completions, rid, made.key[2])
        if done is not None:
            (sends if is_send else receives).append(made._replace(complete=done))
        else:
            still_waiting.append((made, rid, is_send))
    for row, rid, group, sequence, times in posts["unstarted"]:
        template = carried["templates"].get(rid)
        if template is None:
            continue  # as in-process: a Start of a request made nowhere
        peer, tag, cid, size, is_send = template
        made = _make_post(spec, row, times[0], times, peer, tag, cid, size, group, sequence)
        done = _first_completion(completions, rid, times[0])
        if done is not None:
            (sends if is_send else receives).append(made._replace(complete=done))
        else:
            still_waiting.append((made, rid, is_send))
    still_waiting.extend(posts["waiting"])
    templates = dict(carried["templates"])
    templates.update(posts["templates"])
    if spec.slice_index == spec.slices - 1:
        for made, _, is_send in still_waiting:
            (sends if is_send else receives).append(_never_completed(made))
        still_waiting = []
    return _routed(sends, receives, groups), {"waiting": still_waiting, "templates": templates}


def _probe_starts_of_trace(spec, name_of, start_ns):
    """{row of an Mrecv/Imrecv: start_ns of the probe that matched its message}
    (see messages._probe_starts), from the partition's calls read again for
    the mids. A slice reads itself; only when a receive's probe is not in it
    does it read the trace before it (the probe came in an earlier slice)."""
    from . import messages as m
    receives = {(start_ns[row], name): row for row, name in enumerate(name_of)
                if name in m.MATCHED_RECEIVES}
    names = sorted(m.MATCHED_PROBES | m.MATCHED_RECEIVES)
    sliced = spec.slices > 1
    bounds = {"begin": spec.begin, "end": spec.end} if sliced else {}
    last_ns = max(start_ns) if start_ns else None
    probed, starts, unprobed = {}, {}, {}  # unprobed: mid -> rows still without a probe
    for name, begin_ns, _, attrs, _, _ in _core.TraceReader(spec.path, names, None, None,
                                                             spec.partial, **bounds):
        if last_ns is not None and begin_ns > last_ns:
            break
        mid = attrs.get("mid", -1)
        if mid is None or mid < 0:
            continue
        if name in m.MATCHED_PROBES:
            probed[mid] = begin_ns
            continue
        row = receives.get((begin_ns, name))
        if row is None:
            continue
        if mid in probed:
            starts[row] = probed[mid]
        elif sliced:
            unprobed.setdefault(mid, []).append(row)
    if unprobed and spec.begin > 0:
        earlier = {}
        for name, begin_ns, _, attrs, _, _ in _core.TraceReader(
                spec.path, sorted(m.MATCHED_PROBES), None, None, spec.partial, begin=0,
                end=spec.begin):
            mid = attrs.get("mid", -1)
            if mid is not None and mid in unprobed:
                earlier[mid] = begin_ns
        for mid, rows in unprobed.items():
            if mid in earlier:
                for row in rows:
                    starts[row] = earlier[mid]
    return starts


def _group_of(posts, group):
    return posts["groups"][group]


def _settled_group(settled, group):
    return settled[0][group]


def _carried_of(settled):
    return settled[1]


def _length_of(posts):
    return posts["length"]


def _match_group(pieces):
    """match_messages' matching for the receivers of one group; rows as (part, row)."""
    from . import messages as m
    sends = sorted((one for piece_sends, _ in pieces for one in piece_sends), key=lambda p: p.key)
    receives = sorted((one for _, piece_receives in pieces for one in piece_receives),
                      key=lambda p: p.key)
    pending = defaultdict(lambda: defaultdict(deque))  # (receiver, comm) -> (sender, tag) -> posts
    for one in sends:
        pending[(one.peer, one.comm)][(one.rank, one.tag)].append(one)
    pairs, unmatched_receives, incomplete = [], [], set()
    for one in receives:
        best = None
        for (sender, send_tag), queue in pending.get((one.rank, one.comm), {}).items():
            if not queue or (one.peer != m.ANY_SOURCE and sender != one.peer):
                continue
            if one.tag != m.ANY_TAG and send_tag != one.tag:
                continue
            if best is None or queue[0].key[2] < best[0].key[2]:
                best = queue
        if best is None:
            unmatched_receives.append((one.part, one.row))
            continue
        send = best.popleft()
        for side in (send, one):
            if side.incomplete:
                incomplete.add((side.part, side.row))
        pairs.append((send.part, send.row, one.part, one.row, send.rank, one.rank, send.tag,
                      one.comm if isinstance(one.comm, int) else -1, send.size,
                      send.start, send.complete, one.start, one.complete))
    unmatched_sends = [(one.part, one.row) for per_peer in pending.values()
                       for queue in per_peer.values() for one in queue]
    return pairs, unmatched_sends, unmatched_receives, sorted(incomplete)


def frame_match_messages(run):
    """match_messages on a to_dask() frame. Rows are positions in
    frame.compute(): partitions (traces) one after another."""
    from .messages import PAIR_DTYPE, MessageMatches
    dask = import_dask()[0]
    groups = max(1, min(MESSAGE_GROUPS, len({spec.rank for spec in run.specs})))
    posts = [dask.delayed(_posts_of_part, pure=True)(read, spec, groups)
             for read, spec in zip(run.reads, run.specs)]
    # The slices of a trace settle what each cannot alone in a chain of small
    # steps, in trace order (the slices themselves are read in parallel).
    settled = []
    carried = {"waiting": [], "templates": {}}
    for spec, piece in zip(run.specs, posts):
        if spec.slices == 1:
            continue
        if spec.slice_index == 0:
            carried = {"waiting": [], "templates": {}}
        step = dask.delayed(_settle_slice, pure=True)(spec, piece, carried, groups)
        settled.append(step)
        carried = dask.delayed(_carried_of, pure=True)(step)
    matched = [dask.delayed(_match_group, pure=True)(
        [dask.delayed(_group_of, pure=True)(piece, group) for piece in posts] +
        [dask.delayed(_settled_group, pure=True)(step, group) for step in settled])
        for group in range(groups)]
    lengths = [dask.delayed(_length_of, pure=True)(piece) for piece in posts]
    matched, lengths = dask.compute(matched, lengths)
    offsets = np.concatenate([[0], np.cumsum(lengths, dtype=np.int64)])

    def position(part, row):
        return int(offsets[part]) + row

    pairs, unmatched_sends, unmatched_receives, incomplete = [], [], [], []
    for group_pairs, group_sends, group_receives, group_incomplete in matched:
        pairs.extend((position(a, b), position(c, d), *rest) for a, b, c, d, *rest in group_pairs)
        unmatched_sends.extend(position(*at) for at in group_sends)
        unmatched_receives.extend(position(*at) for at in group_receives)
        incomplete.extend(position(*at) for at in group_incomplete)
    result = np.array(pairs, dtype=PAIR_DTYPE) if pairs else np.empty(0, PAIR_DTYPE)
    result = result[np.argsort(result["send_start"], kind="stable")]
    as_rows = lambda rows: np.array(sorted(rows), dtype=np.int64)  # noqa: E731
    return MessageMatches(result, as_rows(unmatched_sends), as_rows(unmatched_receives),
                          as_rows(incomplete))


def to_dask(project, names=None, window=None, slice_bytes=DEFAULT_SLICE_BYTES, **open_options):
    """hdtrace.open(project, **open_options).to_dask(names, window, slice_bytes),
    for a path; a Project's own to_dask() otherwise. See Project.to_dask."""
    from .project import Project, open as open_project
    if not isinstance(project, Project):
        project = open_project(project, **open_options)
    elif open_options:
        raise TypeError("open options are for a path: this Project is open already")
    return project.to_dask(names=names, window=window, slice_bytes=slice_bytes)
