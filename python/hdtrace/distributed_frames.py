"""stats and match_messages on a Project or on the frame of Project.to_dask().

On a frame they run partition by partition, with the same per-part code as
in this process (statistics.part_stats, messages.posts_of_part), on the
partitions where they were read, and combine the small results: per call
name, rank and file for stats; for match_messages, each partition's posted
messages are routed by receiving rank to one of a few groups, and each group
is paired on its own (messages.match_posts). No process ever holds the whole
run.
"""
import numpy as np

from . import native
from .calls import MATCHED_PROBES, MATCHED_RECEIVES, matched_message
from .frames import DEFAULT_SLICE_BYTES, Pieces, import_dask, require_trace_here, run_of
from .io_layers import posix_sums_of_traces
from .messages import (PartRows, combine_matches, match_messages as match_in_process,
                       match_posts, posts_of_part, route, settle_slice)
from .project import Project, open as open_project
from .statistics import combine_stats, layer_part_stats, part_stats, stats as stats_in_process

__all__ = ["DEFAULT_SLICE_BYTES", "match_messages", "stats", "to_dask"]

#: At most this many groups of receiving ranks for match_messages: each
#: partition's messages are split into this many pieces, so the graph has
#: partitions x groups small tasks.
MESSAGE_GROUPS = 32


def to_dask(project, names=None, window=None, slice_bytes=DEFAULT_SLICE_BYTES, **open_options):
    """hdtrace.open(project, **open_options).to_dask(names, window, slice_bytes),
    for a path; a Project's own to_dask() otherwise. See Project.to_dask."""
    if not isinstance(project, Project):
        project = open_project(project, **open_options)
    elif open_options:
        raise TypeError("open options are for a path: this Project is open already")
    return project.to_dask(names=names, window=window, slice_bytes=slice_bytes)


def stats(source):
    """The stats of a Project, or of the frame of Project.to_dask() (computed
    per partition, then combined)."""
    run = run_of(source)
    return stats_in_process(source) if run is None else frame_stats(run)


def match_messages(source):
    """Pairs sends with receives in a Project, or in the frame of
    Project.to_dask() (rows are then positions in frame.compute())."""
    run = run_of(source)
    return match_in_process(source) if run is None else frame_match_messages(run)


# --- stats

def _stats_of_part(part):
    """part_stats of a partition, its pieces' name codes made one list's and
    their File_open rows the partition's (a part may hold many ranks)."""
    code_of = {}
    codes, open_rows, open_fids, open_names = [], [], [], []
    for begin, _, side in part.pieces:
        ours = np.array([code_of.setdefault(name, len(code_of)) for name in side["names"]],
                        dtype=np.int64)
        codes.append(ours[np.asarray(side["name_code"], dtype=np.int64)])
        open_rows.append(np.asarray(side["open_row"], dtype=np.int64) + begin)
        open_fids.append(np.asarray(side["open_fid"], dtype=np.int64))
        open_names += list(side["open_name"])
    return [part_stats(list(code_of), np.concatenate(codes), part.frame,
                       np.concatenate(open_rows), np.concatenate(open_fids), open_names)]


def _posix_of_traces(specs):
    """The POSIX sums of each trace, read together (on every core of the
    worker), each found where the task runs. The specs are of one run, and
    share its partial."""
    specs = list(specs)
    for spec in specs:
        require_trace_here(spec)
    return posix_sums_of_traces([(spec.path, spec.rank, spec.thread, True) for spec in specs],
                                specs[0].partial)


def _layers_of(spec):
    return layer_part_stats(spec.path, spec.rank, spec.partial)


def _each_trace(sums_of, specs):
    """sums_of(spec) of each trace, each found where the task runs."""
    sums = []
    for spec in specs:
        require_trace_here(spec)
        sums.append(sums_of(spec))
    return sums


def _flattened(lists):
    return [item for items in lists for item in items]


def frame_stats(run):
    dask = import_dask()[0]
    parts = [dask.delayed(_stats_of_part, pure=True)(read) for read in run.reads]
    # The POSIX calls nested in <Nested> blocks are not rows of the frame:
    # per partition, one task walks those of its traces (each trace's
    # first slice's spec).
    firsts = [Pieces([spec for spec in part if spec.slice_index == 0], f"{part.token}-firsts")
              for part in run.partitions]
    firsts = [part for part in firsts if len(part)]
    posix = [dask.delayed(_posix_of_traces, pure=True)(specs) for specs in firsts]
    # The layers traced apart (HDF5) are read beside each trace, as POSIX.
    layers = [dask.delayed(_each_trace, pure=True)(_layers_of, specs) for specs in firsts]
    computed = dask.compute(*parts, *posix, *layers)
    first_layer = len(parts) + len(posix)
    return combine_stats(_flattened(computed[:len(parts)]),
                         _flattened(computed[len(parts):first_layer]),
                         _flattened(computed[first_layer:]))


# --- match_messages

def _comm_of(spec):
    return lambda rank, cid: spec.comm_of_cid.get(cid)


def _posts_of_part(part, specs, groups):
    """posts_of_part on each piece of a partition: their sends and receives
    routed into groups together (routed piece by piece, a partition of
    thousands of traces made thousands of lists per group), and each
    piece's length and what a slice carries on to the next."""
    sends, receives, pieces = [], [], []
    for (columns, side), spec in zip(part.piece_columns(PartRows.COLUMNS), specs):
        names = [side["names"][code] for code in np.asarray(side["name_code"]).tolist()]
        rows = PartRows.of(names, columns, side["recv_peer"], side["recv_tag"],
                           side["completion_row"], side["completion_rid"])
        matched_at = _probe_starts_of_trace(spec, names, rows.start_ns) \
            if any(name in MATCHED_RECEIVES for name in names) else {}
        posts = posts_of_part(spec.part, rows, matched_at, _comm_of(spec),
                              whole=spec.slices == 1)
        sends += posts.pop("sends")
        receives += posts.pop("receives")
        pieces.append(posts)
    return {"groups": route(sends, receives, groups), "pieces": pieces}


def _settle_slice(spec, posts, carried, groups):
    settled, carried = settle_slice(spec.part, _comm_of(spec), posts, carried,
                                    spec.slice_index == spec.slices - 1)
    return route(*settled, groups), carried


def _probe_starts_of_trace(spec, name_of, start_ns):
    """{row of an Mrecv/Imrecv: start_ns of the probe that matched its message},
    from the partition's calls read again for the mids. A slice reads itself;
    only when a receive's probe is not in it does it read the trace before it
    (the probe came in an earlier slice)."""
    receives = {(start_ns[row], name): row for row, name in enumerate(name_of)
                if name in MATCHED_RECEIVES}
    names = sorted(MATCHED_PROBES | MATCHED_RECEIVES)
    sliced = spec.slices > 1
    bounds = {"begin": spec.begin, "end": spec.end} if sliced else {}
    last_ns = max(start_ns) if start_ns else None
    probed, starts, unprobed = {}, {}, {}  # unprobed: mid -> rows still without a probe
    for name, begin_ns, _, attrs, _, _ in native.TraceReader(spec.path, names, None, None,
                                                              spec.partial, **bounds):
        if last_ns is not None and begin_ns > last_ns:
            break
        mid = matched_message(name, attrs)
        if mid is None or mid < 0:
            continue
        if name in MATCHED_PROBES:
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
        for name, begin_ns, _, attrs, _, _ in native.TraceReader(
                spec.path, sorted(MATCHED_PROBES), None, None, spec.partial, begin=0,
                end=spec.begin):
            mid = matched_message(name, attrs)
            if mid is not None and mid in unprobed:
                earlier[mid] = begin_ns
        for mid, rows in unprobed.items():
            if mid in earlier:
                for row in rows:
                    starts[row] = earlier[mid]
    return starts


def _group_of(posts, group):
    return posts["groups"][group]


def _only_piece(posts):
    return posts["pieces"][0]  # a slice of a trace is a partition of its own


def _settled_group(settled, group):
    return settled[0][group]


def _carried_of(settled):
    return settled[1]


def _lengths_of(posts):
    return [piece["length"] for piece in posts["pieces"]]


def _match_group(parts, settled):
    return match_posts(list(parts) + list(settled))


def frame_match_messages(run):
    """match_messages on a to_dask() frame. Rows are positions in
    frame.compute(): partitions (traces and slices) one after another."""
    dask = import_dask()[0]
    groups = max(1, min(MESSAGE_GROUPS, len({spec.rank for spec in run.specs})))
    posts = [dask.delayed(_posts_of_part, pure=True)(read, specs, groups)
             for read, specs in zip(run.reads, run.partitions)]
    # The slices of a trace settle what each cannot alone in a chain of small
    # steps, in trace order (the slices themselves are read in parallel).
    settled = []
    carried = {"waiting": [], "templates": {}}
    for part, part_posts in zip(run.partitions, posts):
        spec = part.specs[0]
        if spec.slices == 1:
            continue
        if spec.slice_index == 0:
            carried = {"waiting": [], "templates": {}}
        piece = dask.delayed(_only_piece, pure=True)(part_posts)
        step = dask.delayed(_settle_slice, pure=True)(spec, piece, carried, groups)
        settled.append(step)
        carried = dask.delayed(_carried_of, pure=True)(step)
    matched = [dask.delayed(_match_group, pure=True)(
        [dask.delayed(_group_of, pure=True)(part_posts, group) for part_posts in posts],
        [dask.delayed(_settled_group, pure=True)(step, group) for step in settled])
        for group in range(groups)]
    lengths = [dask.delayed(_lengths_of, pure=True)(part_posts) for part_posts in posts]
    matched, lengths = dask.compute(matched, lengths)
    offsets = np.concatenate([[0], np.cumsum(_flattened(lengths), dtype=np.int64)])
    return combine_matches(matched, lambda part, row: int(offsets[part]) + row)
