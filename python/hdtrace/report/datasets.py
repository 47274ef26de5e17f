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

NO_VALUE = -1


def _integer(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return NO_VALUE


def _per_name(io, test):
    """Per row of io: test(call name), as a boolean column."""
    return np.array([bool(test(name)) for name in io.names] + [False], dtype=bool)[io["call"]]


class _Found:
    """What the layer traces said: datasets as (file code, name) keys in the
    order first met, the layout a creation gave each, the transfer modes."""

    def __init__(self):
        self.keys, self.codes, self.layouts = [], {}, {}
        self.modes, self.mode_codes = [], {}

    def dataset(self, key):
        code = self.codes.get(key)
        if code is None:
            code = self.codes[key] = len(self.keys)
            self.keys.append(key)
        return code

    def mode(self, text):
        code = self.mode_codes.get(text)
        if code is None:
            code = self.mode_codes[text] = len(self.modes)
            self.modes.append(text)
        return code


def dataset_columns(project, io):
    """Per row of io, for the calls that name a dataset: "dataset" (its
    index in "keys", -1 elsewhere), "mode" (the transfer mode's index in
    "modes", -1 where none is given), "memory_type_size" and
    "file_type_size" (-1 where not given). "keys": the datasets as (file
    name, dataset name); "layouts": per dataset the layout its creation gave
    ("" where it was only opened)."""
    rows = len(io)
    columns = {"dataset": np.full(rows, NO_VALUE, np.int64),
               "mode": np.full(rows, NO_VALUE, np.int64),
               "memory_type_size": np.full(rows, NO_VALUE, np.int64),
               "file_type_size": np.full(rows, NO_VALUE, np.int64)}
    found = _Found()
    chosen = np.flatnonzero(_per_name(io, DATASET_CALLS.__contains__)) if rows else \
        np.zeros(0, np.int64)
    if len(chosen):
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
        for leaf in project.topology.leaves:
            if leaf.path in project.missing_traces:
                continue
            for layer, path in layer_trace_paths(leaf.path):
                code = io.layers.index(LAYERS[layer][0]) if LAYERS[layer][0] in io.layers \
                    else None
                group = None if code is None else groups.get(
                    (leaf.rank * threads + leaf.thread) * layer_count + code)
                if group is not None:
                    _match(leaf.rank, path, names, group, io, columns, found, project.partial)
    return dict(columns, keys=[(io.files[code] if code >= 0 else "", name)
                               for code, name in found.keys],
                layouts=[found.layouts.get(key, "") for key in found.keys], modes=found.modes)


#: What the report takes of a call that names a dataset, by meaning.
_TAKEN = ("dataset", "opened_name", "layout", "transfer", "memory_type_size", "file_type_size")


def _taken_attributes(name):
    """Per meaning of _TAKEN, the attribute of the call carrying it (these
    meanings name one attribute each), or None where the call has none."""
    return tuple(attribute_names(name, meaning)[0] if carries(name, meaning) else None
                 for meaning in _TAKEN)


def _match(rank, path, names, rows, io, columns, found, partial):
    """Reads one thread's calls that name a dataset from a layer trace; the
    k-th is the k-th of rows. Where the two part (a damaged trace read in
    part), the rest stay without a dataset."""
    named = {}  # this rank's dataset ids -> the names they were given
    expected = [io.names[code] for code in io["call"][rows].tolist()]
    files = io["file"][rows].tolist()
    taken = {name: _taken_attributes(name) for name in set(expected)}
    values = {key: [] for key in ("dataset", "mode", "memory_type_size", "file_type_size")}
    place = 0
    for name, start_ns, _, attrs, _, _ in native.TraceReader(path, names, None, None, partial):
        if start_ns is None:
            continue
        if place >= len(rows) or expected[place] != name:
            break
        file_code = files[place]
        place += 1
        dataset_of, name_of, layout_of, mode_of, memory_of, stored_of = taken[name]
        dataset = _integer(attrs.get(dataset_of)) if dataset_of else NO_VALUE
        if dataset < 0:  # a failed call names none
            for column in values.values():
                column.append(NO_VALUE)
            continue
        given = attrs.get(name_of) if name_of else None
        if given is not None:
            named[dataset] = str(given)
        key = (file_code, named.get(dataset, f"dataset {dataset} of rank {rank}"))
        values["dataset"].append(found.dataset(key))
        layout = attrs.get(layout_of) if layout_of else None
        if layout is not None:
            found.layouts.setdefault(key, str(layout))
        mode = attrs.get(mode_of) if mode_of else None
        values["mode"].append(NO_VALUE if mode is None else found.mode(str(mode)))
        values["memory_type_size"].append(_integer(attrs.get(memory_of)) if memory_of
                                          else NO_VALUE)
        values["file_type_size"].append(_integer(attrs.get(stored_of)) if stored_of
                                        else NO_VALUE)
    matched = rows[:place]
    for key, column in values.items():
        columns[key][matched] = column


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
    entries = []
    for code, (file_name, name) in enumerate(columns["keys"]):
        entry = {"file": file_name, "name": name, "layout": columns["layouts"][code],
                 "ranks": int(ranks[code])}
        for key, values in sums.items():
            entry[key] = float(values[code]) if key.endswith("_s") else int(values[code])
        entry["library_s"] = max(entry["time_s"] - entry["file_calls_s"], 0.0)
        entry["_broken_ranks"] = sorted(broken_ranks.get(code, []))
        entries.append(entry)
    entries.sort(key=lambda e: (-(e["bytes_read"] + e["bytes_written"]), e["file"], e["name"]))
    return entries


def transfers_by_file(io, columns):
    """Per file, the transfers that say how they moved their data, failed
    ones left out: {file: {mode: [calls, bytes, set of ranks]}}."""
    found = {}
    mode = columns["mode"]
    for row in np.flatnonzero((mode >= 0) & ~io["failed"]).tolist():
        code = int(io["file"][row])
        name = io.files[code] if code >= 0 else \
            f"fid {int(io['fid'][row])} of rank {int(io['rank'][row])}"
        sums = found.setdefault(name, {}).setdefault(columns["modes"][mode[row]], [0, 0, set()])
        sums[0] += 1
        sums[1] += max(int(io["requested"][row]), 0)
        sums[2].add(int(io["rank"][row]))
    return found
