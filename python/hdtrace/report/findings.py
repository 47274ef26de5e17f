"""The findings: what is wrong with a run, each checked against its thresholds.

A check returns a Finding when it fires and None when it does not; every
check is listed in the report's `checked` with what it found, so that a
silent one is known to have looked. A check that cannot look (wait states
without aligned clocks) says why.
"""
import numpy as np

from ..calls import (COLLECTIVE_FILE_ACCESSES, COLLECTIVE_TRANSFER, MPI_IO_LAYER,
                     NONBLOCKING_FILE_ACCESSES, POSIX_LAYER, STDIO_LAYER)
from ..io_calls import KIND_META, KIND_READ, KIND_WRITE
from .byte_ranges import byte_accesses
from .finding import (HIGH, INFO, WARNING, Finding, NotChecked, byte_size, calls_named, percent,
                      ranks_of, share_of, top_files)
from .model import OPS, outermost
from .overlaps import check_conflicting_reads, check_overlapping_writes


def _layer_op_rows(io, layer, kind):
    return outermost(io) & (io["layer"] == io.layer_code(layer)) & (io["kind"] == kind)


def check_small_requests(model, limit):
    io = model.io
    worst = None
    for layer in io.layers:
        for op, kind in OPS:
            rows = (io["layer"] == io.layer_code(layer)) & (io["kind"] == kind)
            total = int(rows.sum())
            small_rows = rows & (io["requested"] < limit("small-requests", "size"))
            small = int(small_rows.sum())
            share = share_of(small, total)
            if share > limit("small-requests", "share") and small > \
                    limit("small-requests", "count"):
                if worst is None or small > worst[0]:
                    worst = (small, total, share, layer, op, small_rows)
    if worst is None:
        return None
    small, total, share, layer, op, rows = worst
    return Finding(
        "small-requests", HIGH,
        f"{small:,} of the {total:,} {layer} {op}s ({percent(share)}) asked for fewer than "
        f"{byte_size(limit('small-requests', 'size'))}.",
        "Gather small requests into larger ones: buffer in the application, use collective "
        "MPI-IO (File_write_all) so that aggregators combine them, or a library (HDF5 chunking, "
        "ADIOS2) that does.",
        top_files(io, rows), ranks_of(io, rows),
        {"layer": layer, "op": op, "small": small, "total": total, "share": share})


def check_misaligned(model, limit):
    io = model.io
    alignment = limit("misaligned-requests", "alignment")
    if alignment <= 0:
        raise NotChecked("misaligned-requests.alignment is 0")
    worst = None
    for layer in io.layers:
        rows = (io["layer"] == io.layer_code(layer)) & (io["kind"] != KIND_META) & \
            (io["offset"] >= 0)
        total = int(rows.sum())
        bad = rows & (io["offset"] % alignment != 0)
        count = int(bad.sum())
        share = share_of(count, total)
        if share > limit("misaligned-requests", "share") and \
                count > limit("misaligned-requests", "count"):
            if worst is None or count > worst[0]:
                worst = (count, total, share, layer, bad)
    if worst is None:
        return None
    count, total, share, layer, rows = worst
    return Finding(
        "misaligned-requests", WARNING,
        f"{count:,} of the {total:,} {layer} reads and writes ({percent(share)}) start at an "
        f"offset that is not a multiple of {alignment:,} bytes.",
        "Align requests to the file system's block or stripe size (set the stripe size, pad "
        "records, or use MPI-IO hints such as striping_unit and cb_buffer_size).",
        top_files(io, rows), ranks_of(io, rows),
        {"layer": layer, "misaligned": count, "total": total, "share": share,
         "alignment": alignment})


def check_random(model, limit):
    worst = None
    for (layer, op), counts in sorted(model.patterns.items()):
        share = share_of(counts["random"], counts["accesses"])
        if share > limit("random-access", "share") and \
                counts["random"] > limit("random-access", "count"):
            if worst is None or counts["random"] > worst[2]["random"]:
                worst = (layer, op, counts, share)
    if worst is None:
        return None
    layer, op, counts, share = worst
    files = [entry["name"] for entry in model.files if entry.get("pattern") == "random"][:5]
    return Finding(
        "random-access", WARNING,
        f"{counts['random']:,} of the {counts['accesses']:,} {layer} {op}s "
        f"({percent(share)}) went to an offset below the rank's previous one on the file.",
        "Access files in increasing offsets per rank, or let collective MPI-IO or a library "
        "reorder the accesses; random small reads suffer most on parallel file systems.",
        files, [], {"layer": layer, "op": op, "random": counts["random"],
                    "accesses": counts["accesses"], "share": share})


def check_shared_file_imbalance(model, limit):
    worst = None
    for entry in model.files:
        if not entry["shared"]:
            continue
        total = entry["bytes_read"] + entry["bytes_written"]
        if total < limit("shared-file-imbalance", "min-bytes") or entry["rank_bytes_max"] == 0:
            continue
        share = (entry["rank_bytes_max"] - entry["rank_bytes_min"]) / entry["rank_bytes_max"]
        if share > limit("shared-file-imbalance", "share"):
            if worst is None or share > worst[1]:
                worst = (entry, share)
    if worst is None:
        return None
    entry, share = worst
    ranks = entry["_rank_bytes"]
    most = max(ranks, key=lambda pair: pair[1]) if ranks else (None, 0)
    least = min(ranks, key=lambda pair: pair[1]) if ranks else (None, 0)
    return Finding(
        "shared-file-imbalance", WARNING,
        f"On the shared file {entry['name']}, the ranks moved from "
        f"{byte_size(entry['rank_bytes_min'])} to {byte_size(entry['rank_bytes_max'])} each "
        f"({percent(share)} imbalance; most: rank {most[0]}, least: rank {least[0]}).",
        "Give each rank an equal part of the shared file, or use collective MPI-IO so that "
        "aggregators even out the load.",
        [entry["name"]], [rank for rank in (most[0], least[0]) if rank is not None],
        {"file": entry["name"], "share": share, "min_bytes": entry["rank_bytes_min"],
         "max_bytes": entry["rank_bytes_max"]})


def check_rank_imbalance(model, limit):
    ranks = model.ranks
    io_time = ranks["read_s"] + ranks["write_s"] + ranks["meta_s"]
    if len(io_time) < 2:
        return None
    slowest = float(io_time.max())
    if slowest < limit("rank-imbalance", "min-seconds"):
        return None
    median = float(np.median(io_time))
    share = (slowest - median) / slowest
    if share <= limit("rank-imbalance", "share"):
        return None
    rank = int(np.argmax(io_time))
    return Finding(
        "rank-imbalance", WARNING,
        f"Rank {rank} spent {slowest:.6f} s in I/O, the median rank {median:.6f} s "
        f"({percent(share)} imbalance).",
        "Balance the I/O across ranks (equal shares of data, or more aggregators); a straggler "
        "holds every rank back at the next collective.",
        [], [rank], {"slowest_rank": rank, "slowest_s": slowest, "median_s": median,
                     "share": share})


def _mpi_io_accesses(io):
    return (io["layer"] == io.layer_code(MPI_IO_LAYER)) & (io["kind"] != KIND_META)


def check_no_collective(model, limit):
    io = model.io
    rows = _mpi_io_accesses(io)
    total = int(rows.sum())
    if total <= limit("no-collective-io", "count"):
        return None
    collective = int(calls_named(io, rows, COLLECTIVE_FILE_ACCESSES).sum())
    if collective:
        return None
    return Finding(
        "no-collective-io", WARNING,
        f"The run made {total:,} MPI-IO reads and writes and none of them collective.",
        "Use collective MPI-IO (File_write_all, File_read_at_all, ...) so that the MPI library "
        "can merge the ranks' requests (two-phase I/O).",
        top_files(io, rows), ranks_of(io, rows), {"mpi_io_accesses": total, "collective": 0})


def check_independent_transfers(model, limit):
    key = "independent-hdf5-transfers"
    calls = moved = 0
    independent = [0, 0]  # calls, bytes
    files, ranks = {}, set()
    for name, modes in (model.transfers or {}).items():
        if len(set().union(*(used for _, _, used in modes.values()))) < 2:
            continue  # one rank's file: there is nothing to merge
        for mode, (count, size, used) in modes.items():
            calls, moved = calls + count, moved + size
            if mode != COLLECTIVE_TRANSFER:
                independent = [independent[0] + count, independent[1] + size]
                files[name] = files.get(name, 0) + size
                ranks |= used
    share = share_of(independent[0], calls)
    if independent[0] <= limit(key, "count") or share <= limit(key, "share"):
        return None
    return Finding(
        key, WARNING,
        f"{independent[0]:,} of the {calls:,} HDF5 dataset reads and writes on files shared by "
        f"ranks ({percent(share)}; {byte_size(independent[1])} of {byte_size(moved)}) used "
        "independent transfers.",
        "Make the transfers collective (H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE)) so that "
        "MPI-IO can merge the ranks' requests into large ones (two-phase I/O).",
        sorted(files, key=lambda name: -files[name])[:5], sorted(ranks),
        {"calls": calls, "independent_calls": independent[0], "bytes": moved,
         "independent_bytes": independent[1]})


def check_broken_collectives(model, limit):
    key = "broken-hdf5-collectives"
    entries = model.datasets or []
    asked = sum(entry["collective"] for entry in entries)
    broken = [entry for entry in entries if entry["collective_done_independently"]]
    count = sum(entry["collective_done_independently"] for entry in broken)
    if count <= limit(key, "count"):
        return None
    converted = sum(entry["_broken_converted"] for entry in broken)
    named = sorted(broken, key=lambda entry: -entry["collective_done_independently"])
    return Finding(
        key, WARNING,
        f"{count:,} of the {asked:,} HDF5 dataset transfers asked to be collective "
        f"({percent(share_of(count, asked))}, on {len(broken):,} dataset(s): "
        f"{', '.join(entry['name'] for entry in named[:5])}) made MPI-IO calls, none of them "
        f"collective: HDF5 did them independently. {converted:,} of them converted every "
        "element (a memory type of another size than the file's).",
        "HDF5 gives a collective transfer up when it must convert the elements (read and "
        "write in the dataset's own type, H5Dget_type), apply a data transform, or filter "
        "the data (compression before HDF5 1.10.2); H5Pget_mpio_no_collective_cause on the "
        "transfer list after the call says why.",
        sorted({entry["file"] for entry in named})[:5],
        sorted(set().union(*(entry["_broken_ranks"] for entry in broken))),
        {"asked_collective": asked, "done_independently": count, "converted": converted,
         "datasets": [{"file": entry["file"], "name": entry["name"],
                       "done_independently": entry["collective_done_independently"]}
                      for entry in named]})


def _most_within(io, rows):
    """The call that made most of rows (their parent's name), and how many."""
    names = io["call"][io["parent"][rows]]
    counts = np.bincount(names, minlength=len(io.names))
    most = int(np.argmax(counts))
    return io.names[most], int(counts[most])


def _files_of_ranks(files, ranks):
    """The file codes among files that rows of more than one rank name (each
    (file, rank) pair as one integer, so that numpy sorts one column)."""
    named = files >= 0
    files, ranks = files[named].astype(np.int64), ranks[named].astype(np.int64)
    if not len(files):
        return files
    width = int(ranks.max()) + 1
    pairs = np.unique(files * width + ranks)
    return np.flatnonzero(np.bincount(pairs // width) > 1)


def check_library_metadata(model, limit):
    key = "hdf5-metadata-io"
    io = model.io
    rows = model.library_rows
    if not len(rows):
        return None
    # Only files more than one rank opened through the library: a file per
    # rank has its own metadata, which no other rank could read for it.
    files = io["file"][rows]
    rows = rows[np.isin(files, _files_of_ranks(files, io["rank"][rows]))]
    mask = np.zeros(len(io), dtype=bool)
    mask[rows] = True
    reads = mask & (io["kind"] == KIND_READ)
    writes = mask & (io["kind"] == KIND_WRITE)
    writes[writes] = ~calls_named(io, writes, COLLECTIVE_FILE_ACCESSES)
    read_ranks = ranks_of(io, reads)
    read_count, write_count = int(reads.sum()), int(writes.sum())
    reads_fire = len(read_ranks) > 1 and read_count > limit(key, "reads")
    writes_fire = write_count > limit(key, "writes")
    if not (reads_fire or writes_fire):
        return None
    layer = io.layers[int(io["layer"][io["parent"][rows[0]]])]
    read_bytes = int(io["done"][reads].clip(min=0).sum())
    write_bytes = int(io["done"][writes].clip(min=0).sum())
    said, advice = [], []
    values = {"reads": read_count, "bytes_read": read_bytes, "reading_ranks": len(read_ranks),
              "independent_writes": write_count, "bytes_written": write_bytes,
              "read_within": None, "write_within": None}
    if reads_fire:
        call, count = _most_within(io, np.flatnonzero(reads))
        said.append(f"{len(read_ranks):,} ranks each read {layer}'s metadata for "
                    f"themselves: {read_count:,} reads of {byte_size(read_bytes)}, {count:,} of "
                    f"them within {call}")
        advice.append(
            "Let one rank read the metadata and broadcast it: H5Pset_all_coll_metadata_ops(list, "
            "1) on the file access list and on the access lists the datasets, groups and "
            "attributes are opened with (with HDF5 1.10.8, the file access list's setting "
            "alone left every rank reading the metadata of the datasets and attributes it "
            "opened). Open each file and dataset once rather than for every transfer.")
        values["read_within"] = call
    if writes_fire:
        call, count = _most_within(io, np.flatnonzero(writes))
        said.append(f"{'it' if said else layer} wrote its metadata in {write_count:,} "
                    f"independent writes of {byte_size(write_bytes)}, {count:,} of them within "
                    f"{call}")
        advice.append("Write the metadata collectively, in a few large writes: "
                      "H5Pset_coll_metadata_write(fapl, 1).")
        values["write_within"] = call
    text = "; ".join(said)
    return Finding(key, WARNING, text[0].upper() + text[1:] + ".", " ".join(advice),
                   top_files(io, mask), ranks_of(io, mask), values)


def check_blocking_only(model, limit):
    io = model.io
    rows = _mpi_io_accesses(io)
    total = int(rows.sum())
    if total <= limit("blocking-io-only", "count"):
        return None
    if calls_named(io, rows, NONBLOCKING_FILE_ACCESSES).any():
        return None
    return Finding(
        "blocking-io-only", INFO,
        f"All {total:,} MPI-IO reads and writes were blocking.",
        "Nonblocking MPI-IO (File_iwrite, File_iwrite_all, ...) lets computation or "
        "communication overlap the I/O.",
        top_files(io, rows), [], {"mpi_io_accesses": total, "nonblocking": 0})


def check_stdio(model, limit):
    moved = {layer["name"]: layer["bytes_read"] + layer["bytes_written"]
             for layer in model.layers}
    stdio = moved.get(STDIO_LAYER, 0)
    # The bytes the program moved: MPI-IO's and those of the C library calls
    # made outside MPI-IO (those beneath it are MPI-IO's own); a layer traced
    # apart (HDF5) moved its bytes through these.
    total = moved.get(MPI_IO_LAYER, 0)
    for layer in model.layers:
        if layer["name"] != MPI_IO_LAYER and not layer["own_trace"]:
            beneath = layer.get("beneath_mpi_io", {})
            total += layer["bytes_read"] + layer["bytes_written"] - \
                beneath.get("bytes_read", 0) - beneath.get("bytes_written", 0)
    share = share_of(stdio, total)
    if share <= limit("stdio-heavy", "share") or stdio < limit("stdio-heavy", "min-bytes"):
        return None
    io = model.io
    rows = io["layer"] == io.layer_code(STDIO_LAYER)
    return Finding(
        "stdio-heavy", WARNING,
        f"{byte_size(stdio)} ({percent(share)} of the bytes the program read and wrote) went "
        "through stdio (fread, fwrite).",
        "stdio buffers in small pieces and cannot be parallel: use MPI-IO or a parallel "
        "library for large data.",
        top_files(io, rows), ranks_of(io, rows),
        {"stdio_bytes": int(stdio), "total_bytes": int(total), "share": share})


def check_metadata(model, limit):
    meta = model.ranks["meta_s"]
    if len(meta) == 0:
        return None
    rank = int(np.argmax(meta))
    slowest = float(meta[rank])
    if slowest <= limit("metadata-heavy", "seconds"):
        return None
    over = np.flatnonzero(meta > limit("metadata-heavy", "seconds"))
    return Finding(
        "metadata-heavy", HIGH,
        f"{len(over):,} rank(s) spent more than {limit('metadata-heavy', 'seconds'):g} s in "
        f"metadata calls (open, close, seek, sync, set_size, ...); rank {rank} {slowest:.3f} s.",
        "Open files once and keep them open, let one rank create and the others open, and "
        "avoid a file per rank per step.",
        [], over.tolist(), {"slowest_rank": rank, "slowest_s": slowest, "ranks": len(over)})


def check_many_files(model, limit):
    count = len(model.files) + (model.files_left_out or {}).get("files", 0)
    if count <= limit("many-files", "count"):
        return None
    return Finding(
        "many-files", WARNING,
        f"The run touched {count:,} files.",
        "Many files load the file system's metadata servers: write fewer, shared files "
        "(collective MPI-IO, HDF5) or aggregate per node.",
        [entry["name"] for entry in model.files[:5]], [], {"files": count})


def _interval_union(starts, ends):
    """Bytes covered by the union of the half-open intervals."""
    if len(starts) == 0:
        return 0
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], ends[order]
    reach = np.maximum.accumulate(ends)
    previous = np.concatenate(([starts[0]], reach[:-1]))
    begins = np.maximum(starts, previous)
    return int(np.maximum(ends - begins, 0).sum())


def check_redundant_reads(model, limit):
    io = model.io
    rows = byte_accesses(io) & (io["kind"] == KIND_READ)
    if not rows.any():
        return None
    files = io["file"][rows]
    starts = io["offset"][rows]
    ends = starts + io["done"][rows]
    total = int(io["done"][rows].sum())
    again = 0
    worst = []
    order = np.argsort(files, kind="stable")
    files, starts, ends = files[order], starts[order], ends[order]
    bounds = np.flatnonzero(np.diff(files)) + 1
    for part in np.split(np.arange(len(files)), bounds):
        read = int((ends[part] - starts[part]).sum())
        redundant = read - _interval_union(starts[part], ends[part])
        if redundant > 0:
            again += redundant
            worst.append((redundant, io.files[int(files[part[0]])]))
    share = share_of(again, total)
    if share <= limit("redundant-reads", "share") or again < limit("redundant-reads",
                                                                     "min-bytes"):
        return None
    worst.sort(reverse=True)
    return Finding(
        "redundant-reads", WARNING,
        f"{byte_size(again)} of the {byte_size(total)} read ({percent(share)}) had been read "
        f"before from the same file, by the same rank or another; most on {worst[0][1]} "
        f"({byte_size(worst[0][0])}).",
        "Read each byte once: keep what was read in memory, or read once and broadcast "
        "(MPI_Bcast) instead of every rank reading the same data.",
        [name for _, name in worst[:5]], ranks_of(io, rows),
        {"redundant_bytes": again, "bytes_read": total, "share": share})


def check_amplification(model, limit):
    asked = 0
    beneath = 0
    for layer in model.layers:
        if layer["name"] == MPI_IO_LAYER:
            asked = layer["bytes_read"] + layer["bytes_written"]
        else:
            under = layer.get("beneath_mpi_io", {})
            beneath += under.get("bytes_read", 0) + under.get("bytes_written", 0)
    if asked == 0 or beneath == 0:
        return None
    ratio = beneath / asked
    if ratio <= limit("io-amplification", "ratio") or \
            beneath - asked < limit("io-amplification", "min-bytes"):
        return None
    io = model.io
    parent = io["parent"]
    under_rows = parent >= 0
    return Finding(
        "io-amplification", WARNING,
        f"MPI-IO was asked to move {byte_size(asked)} and its POSIX calls moved "
        f"{byte_size(beneath)}, {ratio:.2f} times as much (for example read-modify-write in "
        f"data sieving).",
        "Switch data sieving off for writes where accesses do not overlap "
        "(romio_ds_write=disable), or make accesses contiguous so no hole is read and "
        "written back.",
        top_files(io, under_rows), ranks_of(io, under_rows),
        {"mpi_io_bytes": int(asked), "posix_bytes": int(beneath), "ratio": ratio})


def _needs_waits(model):
    if model.waits is None:
        raise NotChecked("the clocks are not aligned (hdtrace align, or the merger's "
                         "alignment), so waits between ranks cannot be told")
    return model.waits


def _wait_finding(model, limit, key, finding_id, what, advice, count_text):
    waits = _needs_waits(model)
    per_rank = waits[key]
    run = model.job.run_time_s * max(model.job.ranks, 1)
    total = float(per_rank.sum())
    share = share_of(total, run)
    if share <= limit(finding_id, "share"):
        return None
    worst = np.argsort(-per_rank, kind="stable")[:5]
    return Finding(
        finding_id, WARNING,
        f"The ranks waited {total:.6f} s for {what} ({percent(share)} of their run time); "
        f"most rank {int(worst[0])} ({float(per_rank[worst[0]]):.6f} s){count_text(waits)}.",
        advice, [], [int(rank) for rank in worst if per_rank[rank] > 0],
        {"wait_s": total, "share": share, "worst_rank": int(worst[0]),
         "worst_rank_s": float(per_rank[worst[0]])})


def check_late_sender(model, limit):
    return _wait_finding(
        model, limit, "late_sender_s", "late-sender", "messages not yet sent",
        "Post receives later or send earlier; overlap the wait with work (Irecv, compute, "
        "Wait), or balance the work before the send.",
        lambda w: f"; {w['late_messages']:,} of {w['messages']:,} messages were late")


def check_late_receiver(model, limit):
    return _wait_finding(
        model, limit, "late_receiver_s", "late-receiver", "receivers to post their receive",
        "Post receives earlier (Irecv before the work), or send with Isend so the sender can "
        "go on.",
        lambda w: f"; {w['blocked_sends']:,} sends were held")


def check_wait_at_collective(model, limit):
    return _wait_finding(
        model, limit, "collective_wait_s", "wait-at-collective",
        "the last rank in N-to-N collectives",
        "Balance the work before the collective, or use a nonblocking collective "
        "(Iallreduce) and do work before its Wait.",
        lambda w: f"; {w['collectives']:,} collectives")


#: Every check, in the order the report lists them.
CHECKS = (
    ("small-requests", check_small_requests),
    ("misaligned-requests", check_misaligned),
    ("random-access", check_random),
    ("shared-file-imbalance", check_shared_file_imbalance),
    ("rank-imbalance", check_rank_imbalance),
    ("no-collective-io", check_no_collective),
    ("independent-hdf5-transfers", check_independent_transfers),
    ("broken-hdf5-collectives", check_broken_collectives),
    ("hdf5-metadata-io", check_library_metadata),
    ("blocking-io-only", check_blocking_only),
    ("stdio-heavy", check_stdio),
    ("metadata-heavy", check_metadata),
    ("many-files", check_many_files),
    ("redundant-reads", check_redundant_reads),
    ("overlapping-writes", check_overlapping_writes),
    ("conflicting-reads", check_conflicting_reads),
    ("io-amplification", check_amplification),
    ("late-sender", check_late_sender),
    ("late-receiver", check_late_receiver),
    ("wait-at-collective", check_wait_at_collective),
)

_SEVERITY_ORDER = {HIGH: 0, WARNING: 1, INFO: 2}


def run_checks(model, thresholds):
    """(findings, checked): the findings that fired, most severe first, and
    [{"id", "fired", "reason"}] for every check."""
    findings, checked = [], []
    for finding_id, check in CHECKS:
        try:
            finding = check(model, thresholds)
        except NotChecked as reason:
            checked.append({"id": finding_id, "fired": False, "checked": False,
                            "reason": str(reason)})
            continue
        checked.append({"id": finding_id, "fired": finding is not None, "checked": True})
        if finding is not None:
            findings.append(finding)
    findings.sort(key=lambda finding: _SEVERITY_ORDER[finding.severity])
    return findings, checked


__all__ = ["Finding", "CHECKS", "run_checks", "INFO", "WARNING", "HIGH", "POSIX_LAYER"]
