"""The report's model: what a run did, computed once from the project's
tables, for the findings, the JSON, the page and Python users alike.

Two tables feed it: the top-level calls (Project.to_numpy) and every call
on a file at every depth (io_calls.project_io_calls). Times are the
project's: on rank 0's clock where the clocks were measured.

Units: bytes, seconds, counts. Which I/O calls count where:
- a layer counts every call of its own, at any depth (a pwrite beneath a
  File_write_all counts in POSIX, the File_write_all in MPI-IO);
- a file, a rank's I/O time and the access patterns count the calls on
  files the program made itself: the outermost calls on files (depth 0,
  beneath a call that is no I/O call, or beneath a call of a layer traced
  apart, as HDF5's H5Dwrite: it works on datasets, and the MPI-IO and POSIX
  calls it made are the file's), so that no byte or second is counted twice.
"""
from dataclasses import dataclass, field

import numpy as np

from .. import native
from ..calls import (BLOCKING_COLLECTIVES, MPI_IO_LAYER, NONBLOCKING_COLLECTIVES, PROC_NULL,
                     SENDS, SEND_RECEIVES, io_layer_of)
from ..io_calls import KIND_META, KIND_READ, KIND_WRITE, KINDS, project_io_calls
from ..layer_traces import OWN_TRACE_LAYER_NAMES
from ..messages import persistent_sends_started
from ..table import NO_PEER
from .datasets import dataset_columns, datasets, transfers_by_file
from .library_io import library_io, library_rows
from .sizes import common_sizes
from .collectives import ORDERING_CALLS, collective_instances
from .waits import wait_states

#: Darshan's access size bins (bytes): [low, high) each, the last open.
SIZE_BIN_EDGES = (0, 100, 1 << 10, 10 << 10, 100 << 10, 1 << 20, 4 << 20, 10 << 20,
                  100 << 20, 1 << 30)
SIZE_BIN_LABELS = ("0-100", "100-1K", "1K-10K", "10K-100K", "100K-1M", "1M-4M", "4M-10M",
                   "10M-100M", "100M-1G", "1G+")
#: Rows of a heatmap or sides of the communication matrix beyond which ranks
#: are shown in groups of consecutive ranks.
MAX_RANK_ROWS = 256
HEATMAP_BINS = 100
#: A file is called random when more than this share of its accesses are.
RANDOM_FILE_SHARE = 0.2
OPS = (("read", KIND_READ), ("write", KIND_WRITE))


def size_bins(sizes):
    """Counts of sizes in each of Darshan's ten bins."""
    index = np.searchsorted(np.asarray(SIZE_BIN_EDGES[1:]), sizes, side="right")
    return np.bincount(index, minlength=len(SIZE_BIN_LABELS)).astype(np.int64)


def rank_groups(ranks, max_rows=MAX_RANK_ROWS):
    """(group size, number of groups): ranks in groups of consecutive ranks
    so that there are at most max_rows groups."""
    group = max(1, -(-ranks // max_rows))
    return group, max(1, -(-ranks // group))


def group_label(index, group, ranks):
    first = index * group
    last = min(ranks, first + group) - 1
    return str(first) if first == last else f"{first}-{last}"


@dataclass
class Job:
    program: str
    project: str
    ranks: int
    threads: int             # traced threads of all ranks
    hosts: list
    start_s: float           # absolute, seconds since the epoch
    run_time_s: float
    trace_form: str          # "XML", "compact" or "mixed"
    trace_bytes: int
    calls: int               # top-level calls
    nested_calls: int        # I/O calls inside other calls
    clocks: str              # "aligned", "already aligned", "one clock", "not aligned"
    clocks_aligned: bool
    missing_traces: list = field(default_factory=list)


@dataclass
class Model:
    job: Job
    layers: list             # dict per layer the traces hold
    ranks: dict              # columns per rank (numpy arrays)
    heatmaps: dict           # layer -> {"bytes": array groups x bins, ...}
    heatmap_axis: dict       # rank groups and time bins
    files: list              # dict per file, by bytes
    files_left_out: dict     # the files beyond the limit, summed (or None)
    mpi: dict
    waits: dict              # None where the clocks are not aligned
    io: object = None        # the IoCalls, for the findings
    table: object = None     # the top-level table
    ordering: object = None  # CollectiveInstances of the calls that order accesses
    patterns: dict = None    # per (layer, op): consecutive, sequential, random counts
    transfers: dict = None   # per file: the dataset transfers that name their mode
    datasets: list = None    # dict per dataset of a layer traced apart (HDF5), by bytes
    library_io: list = None  # dict per call of such a layer that did file I/O of its own
    library_rows: object = None  # the rows of io of that file I/O (library_rows)
    dataset_limit: int = None  # how many of them the page and the JSON list one by one


def _trace_form_and_bytes(project):
    forms, total = set(), 0
    for leaf in project.topology.leaves:
        if leaf.path in project.missing_traces:
            continue
        forms.add(native.trace_form(leaf.path))
        total += project.trace_bytes.get(leaf.path, 0)
    form = forms.pop() if len(forms) == 1 else ("mixed" if forms else "none")
    return form, total


def _clock_state(project):
    if project.clock_correction is not None:
        return "aligned", True
    if len({leaf.host for leaf in project.topology.leaves}) == 1:
        return "one host", True  # every trace read the same clock
    state = native.run_clocks(project.path)["state"] if project.align else "raw"
    return {"already_aligned": ("already aligned", True),
            "one_clock": ("one clock", True),
            "raw": ("not aligned (--raw-times)", False)}.get(state, ("not aligned", False))


def traced_apart(io):
    """Rows of the calls of a layer traced apart (HDF5): calls on a library's
    objects, which made the file calls beneath them."""
    codes = [code for code, name in enumerate(io.layers) if name in OWN_TRACE_LAYER_NAMES]
    return np.isin(io["layer"], codes)


def outermost(io):
    """Rows of the calls on files the program made itself: no file call
    above them (a call beneath an H5Dwrite still counts: HDF5 made it for
    the program)."""
    apart = traced_apart(io)
    parent = io["parent"]
    has_parent = parent >= 0
    above_apart = np.zeros(len(io), dtype=bool)
    above_apart[has_parent] = apart[parent[has_parent]]
    return ~apart & (~has_parent | above_apart)


def _durations(start_ns, end_ns):
    return (end_ns - start_ns).astype(np.float64) / 1e9


def _layers(io):
    layers = []
    duration = _durations(io["start_ns"], io["end_ns"])
    parent = io["parent"]
    has_parent = parent >= 0
    layer_above = np.full(len(io), -1, dtype=np.int64)  # the layer of the call above
    layer_above[has_parent] = io["layer"][parent[has_parent]]
    mpi_io = io.layer_code(MPI_IO_LAYER)
    beneath_mpi_io = layer_above == mpi_io
    files_of = io["file"]
    for code, name in enumerate(io.layers):
        rows = io["layer"] == code
        if not rows.any():
            continue
        kind = io["kind"][rows]
        done = io["done"][rows]
        entry = {
            "name": name,
            "calls": int(rows.sum()),
            "reads": int((kind == KIND_READ).sum()),
            "writes": int((kind == KIND_WRITE).sum()),
            "bytes_read": int(done[kind == KIND_READ].sum()),
            "bytes_written": int(done[kind == KIND_WRITE].sum()),
            "time_read_s": float(duration[rows][kind == KIND_READ].sum()),
            "time_write_s": float(duration[rows][kind == KIND_WRITE].sum()),
            "time_meta_s": float(duration[rows][kind == KIND_META].sum()),
            "files": int(len(np.unique(files_of[rows][files_of[rows] >= 0]))),
            "access_sizes": {},
            "common_sizes": {},
        }
        for op, op_kind in OPS:
            sizes = io["requested"][rows][kind == op_kind]
            entry["access_sizes"][op] = dict(zip(SIZE_BIN_LABELS, size_bins(sizes).tolist()))
            entry["common_sizes"][op] = [{"size": size, "count": count}
                                         for size, count in common_sizes(sizes)]
        entry["own_trace"] = name in OWN_TRACE_LAYER_NAMES
        if name != MPI_IO_LAYER and not entry["own_trace"]:
            entry["beneath_mpi_io"] = _moved(io, rows & beneath_mpi_io)
        entry["beneath"] = {io.layers[above]: _moved(io, rows & (layer_above == above))
                            for above in np.unique(layer_above[rows & has_parent]).tolist()}
        layers.append(entry)
    return layers


def _moved(io, rows):
    return {"bytes_read": int(io["done"][rows & (io["kind"] == KIND_READ)].sum()),
            "bytes_written": int(io["done"][rows & (io["kind"] == KIND_WRITE)].sum()),
            "calls": int(rows.sum())}


def _ranks(table, names, io, world):
    """Per rank: span and time in read, write, metadata, other MPI, compute."""
    ranks = world
    columns = {key: np.zeros(ranks) for key in
               ("read_s", "write_s", "meta_s", "mpi_s", "compute_s", "span_s")}
    columns["rank"] = np.arange(ranks, dtype=np.int32)
    columns["calls"] = np.zeros(ranks, dtype=np.int64)
    columns["bytes_read"] = np.zeros(ranks, dtype=np.int64)
    columns["bytes_written"] = np.zeros(ranks, dtype=np.int64)
    top = outermost(io)
    duration = _durations(io["start_ns"], io["end_ns"])
    rank = io["rank"]
    for key, kind in (("read_s", KIND_READ), ("write_s", KIND_WRITE), ("meta_s", KIND_META)):
        rows = top & (io["kind"] == kind)
        columns[key] += np.bincount(rank[rows], weights=duration[rows], minlength=ranks)[:ranks]
    for key, kind in (("bytes_read", KIND_READ), ("bytes_written", KIND_WRITE)):
        rows = top & (io["kind"] == kind)
        columns[key] += np.bincount(rank[rows], weights=io["done"][rows],
                                    minlength=ranks)[:ranks].astype(np.int64)
    if len(table):
        distinct, code = names
        is_io = np.array([io_layer_of(name) is not None for name in distinct], dtype=bool)
        other = ~is_io[code]
        call_time = _durations(table["start_ns"], table["end_ns"])
        ranks_of_rows = table["rank"]
        columns["mpi_s"] += np.bincount(ranks_of_rows[other], weights=call_time[other],
                                        minlength=ranks)[:ranks]
        columns["calls"] += np.bincount(ranks_of_rows, minlength=ranks)[:ranks]
        # First start and last end per rank: rows sorted by rank, then reduced.
        order = np.argsort(ranks_of_rows, kind="stable")
        sorted_ranks = ranks_of_rows[order]
        starts_at = np.flatnonzero(np.r_[True, sorted_ranks[1:] != sorted_ranks[:-1]])
        seen = sorted_ranks[starts_at]
        first = np.minimum.reduceat(table["start_ns"][order], starts_at)
        last = np.maximum.reduceat(table["end_ns"][order], starts_at)
        columns["span_s"][seen] = (last - first) / 1e9
    busy = columns["read_s"] + columns["write_s"] + columns["meta_s"] + columns["mpi_s"]
    columns["compute_s"] = np.maximum(columns["span_s"] - busy, 0.0)
    return columns


def _heatmaps(io, world, run_start_ns, run_time_ns):
    group, groups = rank_groups(world)
    bins = HEATMAP_BINS
    width = max(run_time_ns, 1) / bins
    maps = {}
    for code, name in enumerate(io.layers):
        rows = (io["layer"] == code) & (io["kind"] != KIND_META)
        if not rows.any():
            continue
        matrix = np.zeros((groups, bins))
        start = (io["start_ns"][rows] - run_start_ns).astype(np.float64)
        end = (io["end_ns"][rows] - run_start_ns).astype(np.float64)
        done = io["done"][rows].astype(np.float64)
        row = io["rank"][rows] // group
        first = np.clip((start // width).astype(np.int64), 0, bins - 1)
        last = np.clip((np.maximum(end - 1, start) // width).astype(np.int64), 0, bins - 1)
        single = first == last
        matrix += np.bincount(row[single] * bins + first[single], weights=done[single],
                              minlength=groups * bins).reshape(groups, bins)
        # A call over several bins gives each its share of the call's time.
        for index in np.flatnonzero(~single):
            span = max(end[index] - start[index], 1.0)
            for column in range(first[index], last[index] + 1):
                low = max(start[index], column * width)
                high = min(end[index], (column + 1) * width)
                matrix[row[index], column] += done[index] * max(high - low, 0.0) / span
        maps[name] = matrix
    axis = {"group": group, "groups": groups, "bins": bins, "bin_s": width / 1e9,
            "labels": [group_label(index, group, world) for index in range(groups)]}
    return maps, axis


def access_patterns(io, rows):
    """(rows, consecutive, sequential, random, first): the rows with an
    offset among those given (outermost reads or writes), in the order each
    rank made them on each file, and per row whether its access was:
    consecutive starts where the rank's last access to the file (of the same
    kind) ended; sequential starts beyond where the last one started (the
    consecutive ones included, as Darshan counts them); random is every
    other, the first access of each rank to a file counting as sequential."""
    rows = np.flatnonzero(rows & (io["offset"] >= 0))
    if len(rows) == 0:
        empty = np.zeros(0, dtype=bool)
        return rows, empty, empty, empty, empty
    # Stable by rank, thread, file, kind: each stream keeps its call order
    # (rows are in call order within a trace). One integer key sorts faster
    # than five.
    threads = int(io["thread"].max(initial=0)) + 1
    files = len(io.files) + 1
    key = ((io["rank"][rows].astype(np.int64) * threads + io["thread"][rows]) * files +
           io["file"][rows] + 1) * len(KINDS) + io["kind"][rows]
    order = np.argsort(key, kind="stable")
    rows, key = rows[order], key[order]
    offset = io["offset"][rows]
    end = offset + io["requested"][rows]
    new_stream = np.ones(len(rows), dtype=bool)
    new_stream[1:] = key[1:] != key[:-1]
    consecutive = np.zeros(len(rows), dtype=bool)
    sequential = np.ones(len(rows), dtype=bool)
    consecutive[1:] = offset[1:] == end[:-1]
    sequential[1:] = offset[1:] > offset[:-1]
    consecutive &= ~new_stream
    sequential = (sequential | consecutive | new_stream)
    return rows, consecutive, sequential, ~sequential, new_stream


def file_rows(io):
    """Rows the files table counts: the outermost calls, and for a file
    only the MPI library touched (its lock-test files, say) the calls it
    made, so that every file the run touched has its row."""
    files_of = io["file"]
    named = files_of >= 0
    top = outermost(io) & named
    seen = np.zeros(len(io.files) + 1, dtype=bool)
    seen[files_of[top]] = True
    return top | (named & ~seen[files_of] & ~traced_apart(io))


def _files(io, limit):
    files_of = io["file"]
    top = file_rows(io)
    if not top.any():
        return [], None
    code = files_of[top]
    kind = io["kind"][top]
    done = io["done"][top]
    rank = io["rank"][top]
    duration = _durations(io["start_ns"][top], io["end_ns"][top])
    count = len(io.files)
    read_bytes = np.bincount(code[kind == KIND_READ], weights=done[kind == KIND_READ],
                             minlength=count)
    write_bytes = np.bincount(code[kind == KIND_WRITE], weights=done[kind == KIND_WRITE],
                              minlength=count)
    reads = np.bincount(code[kind == KIND_READ], minlength=count)
    writes = np.bincount(code[kind == KIND_WRITE], minlength=count)
    calls = np.bincount(code, minlength=count)
    time = np.bincount(code, weights=duration, minlength=count)
    # (file, rank) and (file, layer) pairs as one integer each: unique on
    # integers, not on rows of a 2-D array.
    world = int(rank.max(initial=0)) + 1
    pairs = np.unique(code.astype(np.int64) * world + rank)
    rank_count = np.bincount(pairs // world, minlength=count)
    # Bytes per rank and file, for the imbalance of shared files.
    moved = kind != KIND_META
    per_rank = {}
    keys, inverse = np.unique(code[moved].astype(np.int64) * world + rank[moved],
                              return_inverse=True)
    if keys.size:
        sums = np.bincount(inverse.reshape(-1), weights=done[moved])
        for key, total in zip(keys.tolist(), sums.tolist()):
            per_rank.setdefault(key // world, []).append((key % world, total))
    layers_of = {}
    layer_count = len(io.layers)
    # A layer traced apart (HDF5) is named for the files its calls named, first.
    apart = traced_apart(io) & (files_of >= 0)
    for rows in (apart, top):
        for key in np.unique(files_of[rows].astype(np.int64) * layer_count +
                             io["layer"][rows]).tolist():
            layers_of.setdefault(key // layer_count, []).append(io.layers[key % layer_count])
    rows, consecutive, sequential, random, first = access_patterns(
        io, top & (io["kind"] != KIND_META))
    pattern_counts = {}
    if len(rows):
        file_codes = files_of[rows]
        for name, flags in (("consecutive", consecutive), ("sequential", sequential),
                            ("random", random), ("first", first)):
            pattern_counts[name] = np.bincount(file_codes[flags], minlength=count)
        pattern_counts["accesses"] = np.bincount(file_codes, minlength=count)
    entries = []
    for file_code in range(count):
        if calls[file_code] == 0:
            continue
        ranks = per_rank.get(file_code, [])
        moved_bytes = [total for _, total in ranks]
        entry = {
            "name": io.files[file_code],
            "ranks": int(rank_count[file_code]),
            "shared": bool(rank_count[file_code] > 1),
            "layers": layers_of.get(file_code, []),
            "bytes_read": int(read_bytes[file_code]),
            "bytes_written": int(write_bytes[file_code]),
            "reads": int(reads[file_code]),
            "writes": int(writes[file_code]),
            "calls": int(calls[file_code]),
            "time_s": float(time[file_code]),
            "rank_bytes_min": int(min(moved_bytes)) if moved_bytes else 0,
            "rank_bytes_max": int(max(moved_bytes)) if moved_bytes else 0,
        }
        if moved_bytes and len(moved_bytes) < rank_count[file_code]:
            entry["rank_bytes_min"] = 0  # a rank that only opened or closed it moved none
        if pattern_counts:
            accesses = int(pattern_counts["accesses"][file_code])
            random_count = int(pattern_counts["random"][file_code])
            consecutive_count = int(pattern_counts["consecutive"][file_code])
            entry.update(accesses=accesses, consecutive=consecutive_count,
                         sequential=int(pattern_counts["sequential"][file_code]),
                         random=random_count)
            streams = int(pattern_counts["first"][file_code])
            if accesses == 0:
                entry["pattern"] = "none"
            elif random_count > RANDOM_FILE_SHARE * accesses:
                entry["pattern"] = "random"
            elif consecutive_count + streams == accesses:
                entry["pattern"] = "consecutive"
            else:
                entry["pattern"] = "sequential"
        else:
            entry.update(accesses=0, consecutive=0, sequential=0, random=0, pattern="none")
        entry["_rank_bytes"] = ranks
        entries.append(entry)
    entries.sort(key=lambda e: (-(e["bytes_read"] + e["bytes_written"]), e["name"]))
    rest = None
    if limit is not None and len(entries) > limit:
        left = entries[limit:]
        entries = entries[:limit]
        rest = {"files": len(left)}
        for key in ("bytes_read", "bytes_written", "reads", "writes", "calls", "time_s"):
            rest[key] = sum(e[key] for e in left)
        rest["time_s"] = float(rest["time_s"])
    return entries, rest


def _patterns_by_layer(io):
    """Per (layer, op): consecutive, sequential and random counts of the
    outermost accesses (the report's random-access check)."""
    top = outermost(io)
    result = {}
    for code, layer in enumerate(io.layers):
        for op, kind in OPS:
            rows = top & (io["layer"] == code) & (io["kind"] == kind)
            if not rows.any():
                continue
            ordered, consecutive, sequential, random, _ = access_patterns(io, rows)
            result[(layer, op)] = {"accesses": int(len(ordered)),
                                   "consecutive": int(consecutive.sum()),
                                   "sequential": int(sequential.sum()),
                                   "random": int(random.sum())}
    return result


def _mpi(table, names, world, run_time, persistent_sends, top_n=20):
    if len(table) == 0:
        return {"calls": [], "message_sizes": {},
                "matrix": np.zeros((1, 1)), "matrix_labels": ["0"], "matrix_group": 1,
                "collectives": [], "messages": 0, "message_bytes": 0}
    distinct, code = names
    distinct = np.array(distinct, dtype=object)
    is_io = np.array([io_layer_of(name) is not None for name in distinct], dtype=bool)
    duration = _durations(table["start_ns"], table["end_ns"])
    counts = np.bincount(code, minlength=len(distinct))
    times = np.bincount(code, weights=duration, minlength=len(distinct))
    calls = []
    for index in np.argsort(-times, kind="stable"):
        if is_io[index]:
            continue
        calls.append({"name": str(distinct[index]), "calls": int(counts[index]),
                      "time_s": float(times[index]),
                      "mean_s": float(times[index] / counts[index]),
                      "share": float(times[index] / (run_time * world)) if run_time else 0.0})
    all_calls = len(calls)
    calls = calls[:top_n]
    # Messages: every send's bytes to its peer (world ranks), PROC_NULL left out.
    send_names = np.array([str(name) in SENDS or str(name) in SEND_RECEIVES
                           for name in distinct], dtype=bool)
    sends = send_names[code] & (table["peer"] >= 0) & (table["peer"] != NO_PEER) & \
        (table["peer"] != PROC_NULL) & (table["size"] >= 0)
    # And each start of a persistent send request (its peer and size are
    # the request's).
    started_by, started_to, started_sizes = persistent_sends
    started = (started_to >= 0) & (started_to != NO_PEER) & (started_to != PROC_NULL) & \
        (started_sizes >= 0)
    group, groups = rank_groups(world)
    matrix = np.zeros((groups, groups))
    sender = np.concatenate([table["rank"][sends], started_by[started]]) // group
    receiver = np.clip(np.concatenate([table["peer"][sends], started_to[started]]), 0,
                       world - 1) // group
    sizes = np.concatenate([table["size"][sends], started_sizes[started]])
    matrix += np.bincount(sender * groups + receiver, weights=sizes,
                          minlength=groups * groups).reshape(groups, groups)
    collectives = []
    collective_names = BLOCKING_COLLECTIVES | frozenset(NONBLOCKING_COLLECTIVES)
    for index in np.argsort(-times, kind="stable"):
        name = str(distinct[index])
        if name in collective_names:
            collectives.append({"name": name, "calls": int(counts[index]),
                                "time_s": float(times[index]),
                                "mean_s": float(times[index] / counts[index])})
    return {"calls": calls, "calls_left_out": all_calls - len(calls),
            "message_sizes": dict(zip(SIZE_BIN_LABELS, size_bins(sizes).tolist())),
            "common_message_sizes": [{"size": s, "count": c} for s, c in common_sizes(sizes)],
            "messages": int(len(sizes)), "message_bytes": int(sizes.sum()),
            "matrix": matrix, "matrix_group": group,
            "matrix_labels": [group_label(i, group, world) for i in range(groups)],
            "collectives": collectives}


def build_model(project, file_limit=100, io=None, progress=None, layers=True,
                dataset_limit=100):
    """The Model of an hdtrace.Project; progress(text), if given, is told
    each step as it starts; layers: with the layers traced apart (HDF5)."""
    say = progress or (lambda text: None)
    say(f"reading the calls of {len(project.topology.leaves):,} traces")
    table = project.to_numpy()
    say(f"reading the calls on files, nested ones included ({len(table):,} top-level calls)")
    if io is None:
        io = project_io_calls(project, layers)
    say(f"computing the model ({len(io):,} calls on files)")
    leaves = [leaf for leaf in project.topology.leaves]
    world = max([leaf.rank for leaf in leaves], default=-1) + 1
    starts = [int(table["start_ns"].min())] if len(table) else []
    ends = [int(table["end_ns"].max())] if len(table) else []
    if len(io):
        starts.append(int(io["start_ns"].min()))
        ends.append(int(io["end_ns"].max()))
    run_start_ns = min(starts) if starts else 0
    run_end_ns = max(ends) if ends else 0
    run_time_ns = max(run_end_ns - run_start_ns, 0)
    run_time = run_time_ns / 1e9
    form, trace_bytes = _trace_form_and_bytes(project)
    clocks, aligned = _clock_state(project)
    job = Job(program=project.name, project=project.path, ranks=world, threads=len(leaves),
              hosts=sorted({leaf.host for leaf in leaves}), start_s=run_start_ns / 1e9,
              run_time_s=run_time, trace_form=form, trace_bytes=trace_bytes,
              calls=int(len(table)), nested_calls=int((io["depth"] > 0).sum()),
              clocks=clocks, clocks_aligned=aligned,
              missing_traces=list(project.missing_traces))
    layer_figures = _layers(io)
    names = project.name_codes()
    ranks = _ranks(table, names, io, world)
    heatmaps, axis = _heatmaps(io, world, run_start_ns, run_time_ns)
    files, rest = _files(io, file_limit)
    mpi = _mpi(table, names, world, run_time, persistent_sends_started(project))
    waits = wait_states(project, names, collective_instances(project, table, names),
                        world) if aligned else None
    ordering = collective_instances(project, table, names, ORDERING_CALLS)
    found = dataset_columns(project, io) if layers else None
    own_rows = library_rows(io, traced_apart(io))
    return Model(job=job, layers=layer_figures, ranks=ranks, heatmaps=heatmaps, heatmap_axis=axis,
                 files=files, files_left_out=rest, mpi=mpi, waits=waits, io=io, table=table,
                 ordering=ordering,
                 patterns=_patterns_by_layer(io),
                 transfers=transfers_by_file(io, found) if found is not None else {},
                 datasets=datasets(io, found) if found is not None else [],
                 library_io=library_io(io, own_rows), library_rows=own_rows,
                 dataset_limit=dataset_limit)
