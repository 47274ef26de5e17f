"""The report's datasets: per dataset of a layer traced apart (HDF5), what
the program asked of it and what the file calls its transfers made did.

A dataset is named by its file and the name the program gave when it
created or opened it (relative to the group it named); the same name in
the same file is one dataset on every rank and at every opening. The calls
that name a dataset (the dataset meaning: H5Dcreate2, H5Dwrite, ...) are
read from the layer traces beside the main ones, and each is matched to its
row of the I/O calls (io_calls.IoCalls) by its place among its thread's
calls of that kind in start order, so that the rows beneath it (the MPI-IO
calls a transfer made, and their POSIX calls) count for its dataset.

Per dataset: its transfers (reads and writes; bytes as the selection's
elements times the memory type's size), how many asked to be collective
and how many of those made MPI-IO calls but no collective one (the library
did them independently), how many converted each element (memory and file
types of different sizes), the time in the transfers and in the file calls
they made, and the bytes the MPI-IO and C library calls beneath moved.
"""
import numpy as np

from .. import native
from ..calls import (COLLECTIVE_FILE_ACCESSES, COLLECTIVE_TRANSFER, DATASET_CALLS, LAYERS,
                     MPI_IO_LAYER, attribute_names, carries, file_access)
from ..io_calls import KIND_READ, KIND_WRITE
from ..layer_traces import OWN_TRACE_LAYER_NAMES, layer_trace_paths
from .sizes import common_sizes_by_group

NO_VALUE = -1


def _integer(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return NO_VALUE


def _per_name(io, test):
    """Per row of io: test(call name), as a boolean column."""
    return np.array([bool(test(name)) for name in io.names] + [False], dtype=bool)[io["call"]]


#: What the report takes of a call that names a dataset, by meaning.
_TAKEN = ("dataset", "opened_name", "layout", "transfer", "memory_type_size", "file_type_size",
          "extent")


def _taken_attributes(names):
    """Per meaning of _TAKEN, the attributes that carry it in any of the
    calls named, the first present of them to be taken."""
    taken = {}
    for meaning in _TAKEN:
        attributes = []
        for name in names:
            if carries(name, meaning):
                attributes += [attribute for attribute in attribute_names(name, meaning)
                               if attribute not in attributes]
        taken[meaning] = attributes
    return taken


def _texts(read, attributes):
    """Per call read: the code of the first present of attributes into one
    list of texts (-1: none), and that list."""
    texts, code = [], np.full(len(read["name_code"]), NO_VALUE, np.int64)
    for attribute in attributes:
        column = read["codes"][attribute].astype(np.int64)
        fill = (code < 0) & (column >= 0)
        code[fill] = column[fill] + len(texts)
        texts += read["texts"][attribute]
    return code, texts


def _numbers(code, texts):
    """The texts a code column points at, as integers (-1 where there is
    none, or it is no number)."""
    return np.array([_integer(text) for text in texts] + [NO_VALUE], np.int64)[code]


def _read_thread(path, names, taken, attributes, rows, io, partial):
    """One thread's calls that name a dataset, from a layer trace: the k-th
    is the k-th of rows (both in start order). Where the two part (a damaged
    trace read in part), the rest stay without a dataset. Returns the rows
    matched and, per meaning of _TAKEN, each one's codes and the texts;
    attributes: every attribute taken names."""
    read = native.read_attribute_codes(path, names, attributes, partial)
    got = np.array(read["names"] + [""], dtype=object)[read["name_code"]]
    expected = np.array(io.names, dtype=object)[io["call"][rows]]
    count = min(len(got), len(rows))
    parted = np.flatnonzero(got[:count] != expected[:count])
    matched = int(parted[0]) if len(parted) else count
    values = {}
    for meaning in _TAKEN:
        code, texts = _texts(read, taken[meaning])
        values[meaning] = (code[:matched], texts)
    return rows[:matched], values


def _threads_read(project, io, chosen):
    """[(rank, rows matched, values)] of every thread's layer traces (see
    _read_thread); chosen: the rows of the calls that name a dataset."""
    # Each thread's rows of each layer, in row order (start order).
    threads = int(io["thread"].max(initial=0)) + 1
    layer_count = len(io.layers)
    key = (io["rank"][chosen].astype(np.int64) * threads + io["thread"][chosen]) * \
        layer_count + io["layer"][chosen]
    order = np.argsort(key, kind="stable")
    chosen, key = chosen[order], key[order]
    groups = {}
    starts = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    for first, last in zip(starts.tolist(), np.r_[starts[1:], len(key)].tolist()):
        groups[int(key[first])] = chosen[first:last]
    names = sorted(DATASET_CALLS)
    taken = _taken_attributes(names)
    attributes = sorted({attribute for listed in taken.values() for attribute in listed})
    read = []
    for leaf in project.topology.leaves:
        if leaf.path in project.missing_traces:
            continue
        for layer, path in layer_trace_paths(leaf.path):
            layer_name = LAYERS[layer][0]
            if layer_name not in io.layers:
                continue
            group = groups.get((leaf.rank * threads + leaf.thread) * layer_count +
                               io.layers.index(layer_name))
            if group is not None:
                read.append((leaf.rank,) + _read_thread(path, names, taken, attributes, group,
                                                        io, project.partial))
    return read


def _names_by_rank(threads):
    """{rank: {dataset id: the name it was created or opened with}}: an id is
    the process's, so a name given on one thread holds on all."""
    found = {}
    for rank, _, values in threads:
        ids = _numbers(*values["dataset"])
        given, texts = values["opened_name"]
        named = found.setdefault(rank, {})
        chosen = (given >= 0) & (ids >= 0)
        for dataset, text in set(zip(ids[chosen].tolist(), given[chosen].tolist())):
            named[dataset] = texts[text]
    return found


def dataset_columns(project, io):
    """Per row of io, for the calls that name a dataset: "dataset" (its
    index in "keys", -1 elsewhere), "mode" (the transfer mode's index in
    "modes", -1 where none is given), "memory_type_size",
    "file_type_size" and "extent" (-1 where not given). "keys": the datasets as (file
    name, dataset name); "layouts": per dataset the layout its creation gave
    ("" where it was only opened)."""
    rows = len(io)
    columns = {"dataset": np.full(rows, NO_VALUE, np.int64),
               "mode": np.full(rows, NO_VALUE, np.int64),
               "memory_type_size": np.full(rows, NO_VALUE, np.int64),
               "file_type_size": np.full(rows, NO_VALUE, np.int64),
               "extent": np.full(rows, NO_VALUE, np.int64)}
    keys, codes, layouts, modes = [], {}, {}, []
    chosen = np.flatnonzero(_per_name(io, DATASET_CALLS.__contains__)) if rows else \
        np.zeros(0, np.int64)
    threads = _threads_read(project, io, chosen) if len(chosen) else []
    names_by_rank = _names_by_rank(threads)
    for rank, matched, values in threads:
        ids = _numbers(*values["dataset"])
        has = ids >= 0  # a failed call names none
        files = io["file"][matched].astype(np.int64)
        named = names_by_rank[rank]
        # One key per (file, id) of the thread, then every row its key's code.
        span = int(ids.max(initial=0)) + 1
        pairs, inverse = np.unique((files[has] + 1) * span + ids[has], return_inverse=True)
        pair_codes = []
        for pair in pairs.tolist():
            file_code, dataset_id = pair // span - 1, pair % span
            key = (file_code, named.get(dataset_id, f"dataset {dataset_id} of rank {rank}"))
            if key not in codes:
                codes[key] = len(keys)
                keys.append(key)
            pair_codes.append(codes[key])
        dataset = np.full(len(matched), NO_VALUE, np.int64)
        dataset[has] = np.array(pair_codes, np.int64)[inverse.reshape(-1)]
        columns["dataset"][matched] = dataset
        layout, layout_texts = values["layout"]
        for code, text in sorted(set(zip(dataset[layout >= 0].tolist(),
                                         layout[layout >= 0].tolist()))):
            if code >= 0:
                layouts.setdefault(keys[code], layout_texts[text])
        mode, mode_texts = values["transfer"]
        for text in mode_texts:
            if text not in modes:
                modes.append(text)
        given = has & (mode >= 0)
        mode_codes = np.array([modes.index(text) for text in mode_texts] + [NO_VALUE], np.int64)
        columns["mode"][matched[given]] = mode_codes[mode[given]]
        for meaning in ("memory_type_size", "file_type_size", "extent"):
            columns[meaning][matched[has]] = _numbers(*values[meaning])[has]
    return dict(columns, keys=[(io.files[code] if code >= 0 else "", name)
                               for code, name in keys],
                layouts=[layouts.get(key, "") for key in keys], modes=modes)


def _transfer_above(io, transfer):
    """Per row: the row of the transfer (where transfer is set) it lies
    beneath at any depth, -1 for none."""
    parent = io["parent"]
    above = parent.copy()
    found = np.full(len(io), NO_VALUE, np.int64)
    while True:
        rising = np.flatnonzero(above >= 0)
        if not len(rising):
            return found
        hit = transfer[above[rising]]
        found[rising[hit]] = above[rising[hit]]
        rest = rising[~hit]
        above[rising[hit]] = NO_VALUE
        above[rest] = parent[above[rest]]


def _sums(codes, count, weights=None):
    sums = np.bincount(codes, weights=weights, minlength=count)[:count]
    return sums if weights is not None else sums.astype(np.int64)


def _slowest_ranks(dataset, rank, seconds, count):
    """Per dataset code below count: (the rank with the most time in its
    transfers, that time), (-1, 0.0) for a dataset without any."""
    slowest = [(-1, 0.0)] * count
    if not len(dataset):
        return slowest
    world = int(rank.max()) + 1
    keys, inverse = np.unique(dataset.astype(np.int64) * world + rank, return_inverse=True)
    sums = np.bincount(inverse.reshape(-1), weights=seconds, minlength=len(keys))
    # Per dataset the largest sum; ties go to the lower rank (keys ascend).
    order = np.lexsort((keys % world, -sums, keys // world))
    for key, total in zip(keys[order].tolist(), sums[order].tolist()):
        code = key // world
        if slowest[code][0] < 0:
            slowest[code] = (key % world, float(total))
    return slowest


def _extents(io, columns, count):
    """Per dataset code below count: the elements the last successful call
    that gave them (by its start) gave it, and the size of an element in
    the file as any call gave it; -1 where none did."""
    extent = np.full(count, NO_VALUE, np.int64)
    stored = np.full(count, NO_VALUE, np.int64)
    dataset = columns["dataset"]
    given = np.flatnonzero((dataset >= 0) & (columns["extent"] >= 0) & ~io["failed"])
    # In start order, so that each dataset's last one is written last.
    for row in given[np.argsort(io["start_ns"][given], kind="stable")].tolist():
        extent[dataset[row]] = columns["extent"][row]
    sized = np.flatnonzero((dataset >= 0) & (columns["file_type_size"] > 0))
    stored[dataset[sized]] = columns["file_type_size"][sized]
    return extent, stored


def datasets(io, columns):
    """One dict per dataset, most bytes first (see the module's text)."""
    count = len(columns["keys"])
    if not count:
        return []
    dataset = columns["dataset"]
    named = dataset >= 0
    kind = io["kind"]
    transfer = named & _per_name(io, lambda name: file_access(name) is not None) & ~io["failed"]
    duration = (io["end_ns"] - io["start_ns"]).astype(np.float64) / 1e9
    reads = transfer & (kind == KIND_READ)
    writes = transfer & (kind == KIND_WRITE)
    opening = named & ~io["failed"] & _per_name(io, lambda name: carries(name, "opened_name"))
    modes = columns["modes"]
    collective_mode = modes.index(COLLECTIVE_TRANSFER) if COLLECTIVE_TRANSFER in modes else -2
    asked_collective = transfer & (columns["mode"] == collective_mode)
    other_mode = transfer & (columns["mode"] >= 0) & ~asked_collective
    memory, stored = columns["memory_type_size"], columns["file_type_size"]
    converted = transfer & (memory > 0) & (stored > 0) & (memory != stored)
    sums = {
        "opens": _sums(dataset[opening], count),
        "reads": _sums(dataset[reads], count),
        "writes": _sums(dataset[writes], count),
        "bytes_read": _sums(dataset[reads], count, io["requested"][reads]),
        "bytes_written": _sums(dataset[writes], count, io["requested"][writes]),
        "collective": _sums(dataset[asked_collective], count),
        "independent": _sums(dataset[other_mode], count),
        "converted": _sums(dataset[converted], count),
        "time_s": _sums(dataset[transfer], count, duration[transfer]),
    }
    # What the transfers made beneath them.
    above = _transfer_above(io, transfer)
    beneath = above >= 0
    mpi_io = io["layer"] == (io.layer_code(MPI_IO_LAYER) if MPI_IO_LAYER in io.layers else -2)
    c_library = np.isin(io["layer"], [code for code, name in enumerate(io.layers)
                                      if name != MPI_IO_LAYER and
                                      name not in OWN_TRACE_LAYER_NAMES])
    for layer, layer_rows in (("mpi_io", mpi_io), ("posix", c_library)):
        for op, op_kind in (("read", KIND_READ), ("written", KIND_WRITE)):
            rows = beneath & layer_rows & (kind == op_kind)
            sums[f"{layer}_bytes_{op}"] = _sums(dataset[above[rows]], count, io["done"][rows])
    direct = beneath & (io["parent"] == above)
    sums["file_calls_s"] = _sums(dataset[above[direct]], count, duration[direct])
    # A transfer asked to be collective that made MPI-IO calls, none of them
    # collective: the library did it independently.
    made_mpi_io = np.zeros(len(io), bool)
    made_mpi_io[above[beneath & mpi_io]] = True
    made_collective = np.zeros(len(io), bool)
    made_collective[above[beneath & mpi_io & _per_name(
        io, COLLECTIVE_FILE_ACCESSES.__contains__)]] = True
    broken = asked_collective & made_mpi_io & ~made_collective
    sums["collective_done_independently"] = _sums(dataset[broken], count)
    sums["_broken_converted"] = _sums(dataset[broken & converted], count)
    broken_ranks = {}
    for code, rank in set(zip(dataset[broken].tolist(), io["rank"][broken].tolist())):
        broken_ranks.setdefault(code, []).append(rank)
    world = int(io["rank"].max(initial=0)) + 1
    pairs = np.unique(dataset[named] * world + io["rank"][named])
    ranks = _sums(pairs // world, count)
    common = common_sizes_by_group(dataset[transfer], io["requested"][transfer], count)
    extent, stored_size = _extents(io, columns, count)
    slowest = _slowest_ranks(dataset[transfer], io["rank"][transfer], duration[transfer], count)
    entries = []
    for code, (file_name, name) in enumerate(columns["keys"]):
        entry = {"file": file_name, "name": name, "layout": columns["layouts"][code],
                 "ranks": int(ranks[code])}
        for key, values in sums.items():
            entry[key] = float(values[code]) if key.endswith("_s") else int(values[code])
        entry["library_s"] = max(entry["time_s"] - entry["file_calls_s"], 0.0)
        entry["common_sizes"] = [{"size": size, "count": times} for size, times in common[code]]
        entry["elements"] = int(extent[code])
        entry["dataset_bytes"] = int(extent[code] * stored_size[code]) \
            if extent[code] >= 0 and stored_size[code] > 0 else NO_VALUE
        entry["slowest_rank"], entry["slowest_rank_s"] = slowest[code]
        entry["_broken_ranks"] = sorted(broken_ranks.get(code, []))
        entries.append(entry)
    entries.sort(key=lambda e: (-(e["bytes_read"] + e["bytes_written"]), e["file"], e["name"]))
    return entries


def transfers_by_file(io, columns):
    """Per file, the transfers that say how they moved their data, failed
    ones left out: {file: {mode: [calls, bytes, set of ranks]}}."""
    found = {}
    mode = columns["mode"]
    rows = np.flatnonzero((mode >= 0) & ~io["failed"])

    def add(name, mode_code, calls, size, ranks):
        sums = found.setdefault(name, {}).setdefault(columns["modes"][mode_code],
                                                     [0, 0, set()])
        sums[0] += calls
        sums[1] += size
        sums[2].update(ranks)

    files = io["file"][rows].astype(np.int64)
    # A transfer whose fid no open or .info line named is "fid N of rank R".
    for row in rows[files < 0].tolist():
        add(f"fid {int(io['fid'][row])} of rank {int(io['rank'][row])}", int(mode[row]), 1,
            max(int(io["requested"][row]), 0), [int(io["rank"][row])])
    rows, files = rows[files >= 0], files[files >= 0]
    # The rest summed per (file, mode) at once.
    modes = max(len(columns["modes"]), 1)
    pairs, inverse = np.unique(files * modes + mode[rows], return_inverse=True)
    inverse = inverse.reshape(-1)
    calls = np.bincount(inverse, minlength=len(pairs))
    sizes = np.bincount(inverse, weights=np.maximum(io["requested"][rows], 0),
                        minlength=len(pairs))
    world = int(io["rank"].max(initial=0)) + 1
    ranks = np.unique(inverse.astype(np.int64) * world + io["rank"][rows])
    ranks_of = {}
    for pair, rank in zip((ranks // world).tolist(), (ranks % world).tolist()):
        ranks_of.setdefault(pair, []).append(rank)
    for index, pair in enumerate(pairs.tolist()):
        add(io.files[pair // modes], pair % modes, int(calls[index]), int(sizes[index]),
            ranks_of[index])
    return found


#: What a dataset's entry holds that summing over datasets would not mean.
NOT_SUMMED = ("ranks", "common_sizes", "slowest_rank", "slowest_rank_s", "elements",
              "dataset_bytes")


def shown_datasets(entries, limit):
    """(the first limit entries, the rest summed or None): the page and the
    JSON list datasets one by one up to a limit, as they do files."""
    if limit is None or len(entries) <= limit:
        return entries, None
    rest = {"datasets": len(entries) - limit}
    for entry in entries[limit:]:
        for key, value in entry.items():
            if key.startswith("_") or key in NOT_SUMMED or isinstance(value, str):
                continue
            rest[key] = rest.get(key, 0) + value
    return entries[:limit], rest
