"""Project.to_dask(): a project's table as a dask.dataframe, and stats and
match_messages computed on it partition by partition.

Each partition is one trace (one rank and thread), read by the C++ reader
inside the task that makes it. A task carries a _TraceSpec only: the trace's
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
import os
import socket
import warnings
from collections import defaultdict, deque, namedtuple
from dataclasses import dataclass

import numpy as np

from . import _core
from .errors import MissingTraceError, TraceDamageWarning
from .table import NO_PEER, TABLE_COLUMNS

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


def project_to_dask(project, names=None, window=None):
    dask, dd, pandas = import_dask()
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
        specs.append(_TraceSpec(
            os.path.abspath(project.path), os.path.abspath(leaf.path), len(specs), leaf.rank,
            leaf.thread, tuple(names or ()), from_ns, to_ns, bool(project.partial), local_to_world,
            {cid: index for (world, cid), index in comm_index.items() if world == leaf.rank}))
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


def _posts_of_part(part, spec, groups):
    """The messages the partition's trace posts, as {group: (sends, receives)} by
    receiving rank; and the partition's length."""
    from . import messages as m
    frame, side = part.frame, part.side
    names = side["names"]
    name_of = [names[code] for code in np.asarray(side["name_code"]).tolist()]
    peers, tags = frame["peer"].tolist(), frame["tag"].tolist()
    cids, sizes, rids = frame["cid"].tolist(), frame["size"].tolist(), frame["rid"].tolist()
    start_ns = frame["start_ns"].tolist()
    start, end = frame["start"].tolist(), frame["end"].tolist()
    recv_peer, recv_tag = np.asarray(side["recv_peer"]), np.asarray(side["recv_tag"])

    completions = defaultdict(list)  # rid -> [(start_ns, end)] of the Wait/Test calls
    started = []                     # (row, rid, order group, sequence)
    for index, (row, rid) in enumerate(zip(np.asarray(side["completion_row"]).tolist(),
                                           np.asarray(side["completion_rid"]).tolist())):
        if name_of[row] == "Startall":
            started.append((row, rid, 1, index))
        else:
            completions[rid].append((start_ns[row], end[row]))
    for values in completions.values():
        values.sort()
    started.extend((row, rids[row], 2, row) for row, name in enumerate(name_of) if name == "Start")

    matched_at = {}
    if any(name in m.MATCHED_RECEIVES for name in name_of):
        matched_at = _probe_starts_of_trace(spec, name_of, start_ns)

    def post(row, peer, tag, cid, size, rid, group, sequence):
        complete, incomplete = end[row], False
        if rid is not None:
            complete = np.nan
            for at_ns, done in completions.get(rid, ()):
                if at_ns >= start_ns[row]:
                    complete = done
                    break
            incomplete = complete != complete  # NaN: never completed
        comm = spec.comm_of_cid.get(cid)
        at = matched_at.get(row, start_ns[row])
        return _Post((at, group, start_ns[row], spec.part, sequence), spec.part, row, spec.rank,
                     spec.thread, peer, tag, comm if comm is not None else ("cid", cid), size,
                     start[row], complete, incomplete)

    sends, receives = [], []
    persistent = {}
    for row, name in enumerate(name_of):
        if name in m.SENDS or name in m.SEND_RECEIVES:
            rid = rids[row] if name in m.NONBLOCKING else None
            sends.append(post(row, peers[row], tags[row], cids[row], sizes[row], rid, 0, row))
        if name in m.RECEIVES:
            rid = rids[row] if name in m.NONBLOCKING else None
            receives.append(post(row, peers[row], tags[row], cids[row], sizes[row], rid, 0, row))
        elif name in m.SEND_RECEIVES:
            receives.append(post(row, int(recv_peer[row]), int(recv_tag[row]), cids[row],
                                 sizes[row], None, 0, row))
        elif name in m.PERSISTENT_SENDS or name in m.PERSISTENT_RECEIVES:
            persistent[rids[row]] = row
    for row, rid, group, sequence in started:
        template = persistent.get(rid)
        if template is None:
            continue
        made = post(row, peers[template], tags[template], cids[template], sizes[template], rid,
                    group, sequence)
        (sends if name_of[template] in m.PERSISTENT_SENDS else receives).append(made)

    by_group = {group: ([], []) for group in range(groups)}
    for one in sends:
        if one.peer < 0 or one.peer == NO_PEER:
            continue  # MPI_PROC_NULL: no message
        by_group[one.peer % groups][0].append(one)
    for one in receives:
        if one.peer in (m.PROC_NULL, NO_PEER):
            continue
        by_group[one.rank % groups][1].append(one)
    return {"length": len(frame), "groups": by_group}


def _probe_starts_of_trace(spec, name_of, start_ns):
    """{row of an Mrecv/Imrecv: start_ns of the probe that matched its message}
    (see messages._probe_starts), from this trace read again for the mids."""
    from . import messages as m
    receives = {(start_ns[row], name): row for row, name in enumerate(name_of)
                if name in m.MATCHED_RECEIVES}
    reader = _core.TraceReader(spec.path, sorted(m.MATCHED_PROBES | m.MATCHED_RECEIVES), None,
                               None, spec.partial)
    probed, starts = {}, {}
    for name, begin_ns, _, attrs, _, _ in reader:
        mid = attrs.get("mid", -1)
        if mid is None or mid < 0:
            continue
        if name in m.MATCHED_PROBES:
            probed[mid] = begin_ns
        elif mid in probed:
            row = receives.get((begin_ns, name))
            if row is not None:
                starts[row] = probed[mid]
    return starts


def _group_of(posts, group):
    return posts["groups"][group]


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
    matched = [dask.delayed(_match_group, pure=True)(
        [dask.delayed(_group_of, pure=True)(piece, group) for piece in posts])
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


def to_dask(project, names=None, window=None, **open_options):
    """hdtrace.open(project, **open_options).to_dask(names, window), for a
    path; a Project's own to_dask() otherwise. See Project.to_dask."""
    from .project import Project, open as open_project
    if not isinstance(project, Project):
        project = open_project(project, **open_options)
    elif open_options:
        raise TypeError("open options are for a path: this Project is open already")
    return project.to_dask(names=names, window=window)
