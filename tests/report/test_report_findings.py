"""Each finding of `hdtrace report` fires on a run made to trigger it, with
the numbers the run was made with in its message, and stays silent on a run
that differs from it only in what the finding looks at."""
import pytest

import hdtrace
from hdtrace import report as reporting
from runs import MIB, RunBuilder, posix


def report_of(builder, tmp_path, **settings):
    thresholds = reporting.Thresholds()
    for key, value in settings.items():
        thresholds.set(f"{key}={value}")
    return reporting.build(hdtrace.open(builder.write(tmp_path / "run")), thresholds)


def fired(report, finding_id):
    found = [finding for finding in report.findings if finding.id == finding_id]
    checked = [entry for entry in report.checked if entry["id"] == finding_id]
    assert len(checked) == 1 and checked[0]["checked"], checked
    assert checked[0]["fired"] == bool(found)
    return found[0] if found else None


def writes(ranks, count, size, step=None, offset_of=None, name="File_write_at"):
    builder = RunBuilder(ranks)
    for rank in range(ranks):
        builder.open(rank)
        for index in range(count):
            offset = offset_of(rank, index) if offset_of else (index * ranks + rank) * \
                (step or size)
            builder.write_at(rank, offset, size, name=name)
    return builder


# --- small-requests

def test_small_requests_fire_above_a_tenth_and_a_thousand(tmp_path):
    finding = fired(report_of(writes(1, 1001, 100), tmp_path), "small-requests")
    assert finding.message == ("1,001 of the 1,001 MPI-IO writes (100.0 %) asked for fewer than "
                               "1.00 MiB.")
    assert finding.values == {"layer": "MPI-IO", "op": "write", "small": 1001, "total": 1001,
                              "share": 1.0}
    assert finding.severity == "high" and finding.files == ["data.bin"] and finding.ranks == [0]


def test_small_requests_silent_at_a_thousand_or_large(tmp_path):
    assert fired(report_of(writes(1, 1000, 100), tmp_path / "a"), "small-requests") is None
    assert fired(report_of(writes(1, 1001, MIB), tmp_path / "b"), "small-requests") is None


# --- misaligned-requests

def test_misaligned_requests(tmp_path):
    builder = writes(1, 1200, 4096, offset_of=lambda rank, index: index * 4096 + 512)
    finding = fired(report_of(builder, tmp_path, **{"small-requests.count": 10 ** 9}),
                    "misaligned-requests")
    assert finding.message == ("1,200 of the 1,200 MPI-IO reads and writes (100.0 %) start at "
                               "an offset that is not a multiple of 4,096 bytes.")
    assert finding.values["misaligned"] == 1200


def test_aligned_requests_are_silent(tmp_path):
    builder = writes(1, 1200, 4096, offset_of=lambda rank, index: index * 4096)
    assert fired(report_of(builder, tmp_path), "misaligned-requests") is None


# --- random-access

def test_random_access(tmp_path):
    # Every access below the previous one but the first: 1,500 random of 1,501.
    builder = writes(1, 1501, 4096, offset_of=lambda rank, index: (1501 - index) * 4096)
    finding = fired(report_of(builder, tmp_path), "random-access")
    assert finding.message == ("1,500 of the 1,501 MPI-IO writes (99.9 %) went to an offset "
                               "below the rank's previous one on the file.")
    assert finding.values["random"] == 1500 and finding.values["accesses"] == 1501
    assert finding.files == ["data.bin"]


def test_sequential_access_is_silent(tmp_path):
    builder = writes(2, 1501, 4096)
    report = report_of(builder, tmp_path)
    assert fired(report, "random-access") is None
    entry = report.model.files[0]
    # Each rank's writes are sequential, none consecutive (the other rank's block between).
    assert (entry["accesses"], entry["sequential"], entry["consecutive"], entry["random"]) == \
        (3002, 3002, 0, 0)
    assert entry["pattern"] == "sequential"


# --- shared-file-imbalance

def test_shared_file_imbalance(tmp_path):
    builder = RunBuilder(2)
    for rank in range(2):
        builder.open(rank)
    builder.write_at(0, 0, 2 * MIB)
    builder.write_at(1, 2 * MIB, MIB)
    finding = fired(report_of(builder, tmp_path), "shared-file-imbalance")
    assert finding.message == ("On the shared file data.bin, the ranks moved from 1.00 MiB to "
                               "2.00 MiB each (50.0 % imbalance; most: rank 0, least: rank 1).")
    assert finding.ranks == [0, 1] and finding.values["share"] == 0.5


def test_balanced_shared_file_is_silent(tmp_path):
    builder = RunBuilder(2)
    for rank in range(2):
        builder.open(rank)
        builder.write_at(rank, rank * 2 * MIB, 2 * MIB)
    assert fired(report_of(builder, tmp_path), "shared-file-imbalance") is None


# --- rank-imbalance

def test_rank_imbalance(tmp_path):
    builder = RunBuilder(3)
    for rank, duration in ((0, 10_000_000), (1, 1_000_000), (2, 1_000_000)):
        builder.open(rank)
        builder.write_at(rank, rank * 4096, 4096, duration_ns=duration)
    finding = fired(report_of(builder, tmp_path), "rank-imbalance")
    # I/O time: the write and the open (1 us) of each rank.
    assert finding.message == ("Rank 0 spent 0.010001 s in I/O, the median rank 0.001001 s "
                               "(90.0 % imbalance).")
    assert finding.ranks == [0]


def test_balanced_ranks_are_silent(tmp_path):
    builder = RunBuilder(3)
    for rank in range(3):
        builder.open(rank)
        builder.write_at(rank, rank * 4096, 4096, duration_ns=1_000_000)
    assert fired(report_of(builder, tmp_path), "rank-imbalance") is None


# --- no-collective-io and blocking-io-only

def test_no_collective_and_blocking_only(tmp_path):
    report = report_of(writes(1, 1001, MIB), tmp_path)
    collective = fired(report, "no-collective-io")
    assert collective.message == ("The run made 1,001 MPI-IO reads and writes and none of them "
                                  "collective.")
    blocking = fired(report, "blocking-io-only")
    assert blocking.message == "All 1,001 MPI-IO reads and writes were blocking."
    assert blocking.severity == "info"


def test_collective_and_nonblocking_are_silent(tmp_path):
    report = report_of(writes(1, 1001, MIB, name="File_write_at_all"), tmp_path / "a")
    assert fired(report, "no-collective-io") is None
    report = report_of(writes(1, 1001, MIB, name="File_iwrite_at"), tmp_path / "b")
    assert fired(report, "blocking-io-only") is None
    assert fired(report_of(writes(1, 1000, MIB), tmp_path / "c"), "no-collective-io") is None


# --- stdio-heavy

def stdio_run(stdio_bytes):
    builder = RunBuilder(1)
    builder.open(0)
    builder.write_at(0, 0, MIB)
    builder.call(0, "fopen", fid=1, mode="w")
    builder.call(0, "fwrite", fid=1, offset=0, asked=stdio_bytes, size=stdio_bytes)
    builder.call(0, "fclose", fid=1)
    return builder


def test_stdio_heavy(tmp_path):
    finding = fired(report_of(stdio_run(3 * MIB), tmp_path), "stdio-heavy")
    assert finding.message == ("3.00 MiB (75.0 % of the bytes the program read and wrote) went "
                               "through stdio (fread, fwrite).")
    assert finding.values == {"stdio_bytes": 3 * MIB, "total_bytes": 4 * MIB, "share": 0.75}


def test_little_stdio_is_silent(tmp_path):
    assert fired(report_of(stdio_run(4096), tmp_path), "stdio-heavy") is None


# --- metadata-heavy

def metadata_run(open_ns):
    builder = RunBuilder(2)
    builder.call(0, "File_open", open_ns, cid=0, name="data.bin", flags=37, fid=0)
    builder.open(1)
    return builder


def test_metadata_heavy(tmp_path):
    finding = fired(report_of(metadata_run(31_000_000_000), tmp_path), "metadata-heavy")
    assert finding.message == ("1 rank(s) spent more than 30 s in metadata calls (open, close, "
                               "seek, sync, set_size, ...); rank 0 31.000 s.")
    assert finding.ranks == [0]


def test_short_metadata_is_silent(tmp_path):
    assert fired(report_of(metadata_run(29_000_000_000), tmp_path), "metadata-heavy") is None


# --- many-files

def files_run(count):
    builder = RunBuilder(1)
    for fid in range(count):
        builder.open(0, fid=fid, name=f"part-{fid:05d}")
        builder.write_at(0, 0, 64, fid=fid)
    return builder


def test_many_files(tmp_path):
    report = report_of(files_run(1001), tmp_path)
    finding = fired(report, "many-files")
    assert finding.message == "The run touched 1,001 files."
    assert len(report.model.files) == 100 and report.model.files_left_out["files"] == 901


def test_few_files_are_silent(tmp_path):
    assert fired(report_of(files_run(1000), tmp_path), "many-files") is None


# --- redundant-reads

def test_redundant_reads(tmp_path):
    builder = RunBuilder(2)
    for rank in range(2):
        builder.open(rank)
        builder.read_at(rank, 0, 2 * MIB)  # both ranks read the same 2 MiB
    finding = fired(report_of(builder, tmp_path), "redundant-reads")
    assert finding.message == ("2.00 MiB of the 4.00 MiB read (50.0 %) had been read before "
                               "from the same file, by the same rank or another; most on "
                               "data.bin (2.00 MiB).")
    assert finding.values["redundant_bytes"] == 2 * MIB


def test_disjoint_reads_are_silent(tmp_path):
    builder = RunBuilder(2)
    for rank in range(2):
        builder.open(rank)
        builder.read_at(rank, rank * 2 * MIB, 2 * MIB)
    assert fired(report_of(builder, tmp_path), "redundant-reads") is None


# --- overlapping-writes

def test_overlapping_writes_name_both_ranks_and_the_range(tmp_path):
    builder = RunBuilder(3)
    for rank in range(3):
        builder.open(rank)
    builder.write_at(0, 0, 2 * MIB)
    builder.write_at(1, MIB, 2 * MIB)          # overlaps rank 0 on [1 MiB, 2 MiB)
    builder.write_at(2, 3 * MIB, MIB)          # touches rank 1's end, no overlap
    finding = fired(report_of(builder, tmp_path), "overlapping-writes")
    assert finding.message == ("Ranks 0 and 1 both wrote bytes 1,048,576 to 2,097,152 of "
                               "data.bin (1.00 MiB written twice); 1 pair(s) of ranks overlap, "
                               "1.00 MiB in all, with nothing between the writes that orders "
                               "them (no collective or file open of both ranks, no message from "
                               "the one to the other).")
    assert finding.severity == "high" and not finding.values["ordered"]
    assert finding.values["ordered_by"] is None
    assert finding.ranks == [0, 1] and finding.values["range"] == [MIB, 2 * MIB]
    assert finding.values["calls"] == ["File_write_at", "File_write_at"]


def barrier(builder, rank):
    return builder.call(rank, "Barrier", cid=0)


def test_overlapping_writes_a_barrier_orders_without_sync_are_information(tmp_path):
    builder = RunBuilder(2)
    for rank in range(2):
        builder.open(rank)
    builder.write_at(0, 0, MIB)
    barrier(builder, 0)
    barrier(builder, 1)
    builder.write_at(1, MIB // 2, MIB)       # after the barrier: [512 KiB, 1 MiB) again
    finding = fired(report_of(builder, tmp_path), "overlapping-writes")
    assert finding.severity == "info"
    assert finding.message == ("Ranks 0 and 1 both wrote bytes 524,288 to 1,048,576 of data.bin "
                               "(512.00 KiB written twice), one after the other: a Barrier of "
                               "both ranks came between the writes, but not a sync on both "
                               "sides of it; 1 pair(s) of ranks, 512.00 KiB in all.")
    assert finding.values["ordered"] and finding.values["unordered_bytes"] == 0
    assert finding.values["ordered_by"] == "a Barrier of both ranks"
    assert finding.values["unsynced_bytes"] == MIB // 2


def test_overlapping_writes_a_collective_of_one_rank_alone_does_not_order_them(tmp_path):
    # cid 1 is each rank's MPI_COMM_SELF: the same number, not the same
    # communicator, so neither barrier is one both ranks took part in.
    builder = RunBuilder(2)
    for rank in range(2):
        builder.open(rank)
    builder.write_at(0, 0, MIB)
    builder.call(0, "Barrier", cid=1)
    builder.call(1, "Barrier", cid=1)
    builder.write_at(1, 0, MIB)
    finding = fired(report_of(builder, tmp_path), "overlapping-writes")
    assert finding.severity == "high" and finding.values["unordered_bytes"] == MIB


def test_overlapping_writes_synced_on_one_side_only_are_information(tmp_path):
    # Rank 0 syncs before the barrier, rank 1 after it, or both after it
    # (then the first sync does not come before the barrier).
    for synced in ("0", "1", "both after"):
        builder = RunBuilder(2)
        for rank in range(2):
            builder.open(rank)
        builder.write_at(0, 0, MIB)
        if synced == "0":
            builder.call(0, "File_sync", fid=0)
        barrier(builder, 0)
        barrier(builder, 1)
        if synced == "both after":
            builder.call(0, "File_sync", fid=0)
        if synced != "0":
            builder.call(1, "File_sync", fid=0)
        builder.write_at(1, 0, MIB)
        finding = fired(report_of(builder, tmp_path / synced.replace(" ", "-")),
                        "overlapping-writes")
        assert finding.severity == "info" and finding.values["unsynced_bytes"] == MIB


def test_overlapping_writes_after_sync_barrier_sync_are_silent(tmp_path):
    builder = RunBuilder(2)
    for rank in range(2):
        builder.open(rank)
    builder.write_at(0, 0, MIB)
    builder.call(0, "File_sync", fid=0)
    barrier(builder, 0)
    barrier(builder, 1)
    builder.call(1, "File_sync", fid=0)
    builder.write_at(1, 0, MIB)
    assert fired(report_of(builder, tmp_path), "overlapping-writes") is None


def test_overlapping_writes_a_barrier_before_both_does_not_order_them(tmp_path):
    builder = RunBuilder(2)
    for rank in range(2):
        builder.open(rank)
        barrier(builder, rank)
    # Both after the first barrier, with none between: unordered.
    builder.write_at(0, 0, MIB)
    builder.write_at(1, MIB // 2, MIB)          # [512 KiB, 1 MiB) twice
    builder.write_at(0, 4 * MIB, MIB)
    builder.write_at(1, 3 * MIB, 2 * MIB)       # [4 MiB, 5 MiB) twice
    builder.write_at(1, 8 * MIB, MIB)
    barrier(builder, 0)
    barrier(builder, 1)
    builder.write_at(0, 8 * MIB, 256 * 1024)    # after the second: ordered, not synced
    finding = fired(report_of(builder, tmp_path), "overlapping-writes")
    assert finding.severity == "high"
    assert finding.values["unordered_bytes"] == MIB // 2 + MIB
    assert finding.values["unsynced_bytes"] == 256 * 1024
    assert finding.values["overlap_bytes"] == MIB // 2 + MIB
    assert finding.message.endswith(" A further 256.00 KiB were written again after a "
                                    "collective that ordered the writes, without a sync on "
                                    "both sides.")


def test_overlapping_writes_after_close_barrier_open_are_silent(tmp_path):
    builder = RunBuilder(2)
    builder.open(0)
    builder.write_at(0, 0, MIB)
    builder.call(0, "File_close", fid=0)
    barrier(builder, 0)
    barrier(builder, 1)
    builder.open(1)
    builder.write_at(1, 0, MIB)
    assert fired(report_of(builder, tmp_path), "overlapping-writes") is None


# --- conflicting-reads

def test_conflicting_reads_unordered_are_high(tmp_path):
    builder = RunBuilder(3)
    for rank in range(3):
        builder.open(rank)
    builder.write_at(0, 0, MIB)
    builder.read_at(1, MIB // 4, MIB)         # [256 KiB, 1 MiB) of rank 0's bytes
    builder.read_at(2, MIB, MIB)              # beyond them
    builder.read_at(0, 0, MIB)                # its own bytes
    finding = fired(report_of(builder, tmp_path), "conflicting-reads")
    assert finding.severity == "high"
    assert finding.message == (
        "Rank 1 read bytes 262,144 to 1,048,576 of data.bin that rank 0 wrote, rank 0 within "
        "File_write_at and rank 1 within File_read_at (768.00 KiB), with nothing between the write "
        "and the read that orders them (no collective or file open of both ranks, no message "
        "from the writer to the reader): the read may see the old bytes or the new; 1 pair(s) "
        "of ranks, 768.00 KiB in all.")
    assert finding.ranks == [0, 1]
    assert finding.values == {
        "file": "data.bin", "writer": 0, "reader": 1, "range": [MIB // 4, MIB], "ranges": 1,
        "overlap_bytes": 3 * MIB // 4, "pairs": 1, "total_bytes": 3 * MIB // 4,
        "ordered": False, "unordered_bytes": 3 * MIB // 4, "unsynced_bytes": 0,
        "calls": ["File_write_at", "File_read_at"], "ordered_by": None}


def test_conflicting_reads_ordered_without_sync_are_information(tmp_path):
    builder = RunBuilder(2)
    for rank in range(2):
        builder.open(rank)
    builder.write_at(0, 0, MIB)
    barrier(builder, 0)
    barrier(builder, 1)
    builder.read_at(1, 0, MIB)
    finding = fired(report_of(builder, tmp_path), "conflicting-reads")
    assert finding.severity == "info" and finding.values["unsynced_bytes"] == MIB
    assert finding.message == (
        "Rank 1 read bytes 0 to 1,048,576 of data.bin that rank 0 wrote, rank 0 within "
        "File_write_at and rank 1 within File_read_at (1.00 MiB), after a Barrier of both ranks but "
        "without a sync on both sides of it; 1 pair(s) of ranks, 1.00 MiB in all.")
    assert finding.values["ordered_by"] == "a Barrier of both ranks"


def test_conflicting_reads_silent_when_synced_or_read_before_the_write(tmp_path):
    # Sync, barrier, sync; close, barrier, open; and a read the barrier
    # orders before the write (it read the old bytes, as it should).
    for case in ("sync", "reopen", "read first"):
        builder = RunBuilder(2)
        for rank in range(1 if case == "reopen" else 2):  # rank 1 opens after the barrier
            builder.open(rank)
        if case == "read first":
            builder.read_at(1, 0, MIB)
        else:
            builder.write_at(0, 0, MIB)
            builder.call(0, "File_close" if case == "reopen" else "File_sync", fid=0)
        barrier(builder, 0)
        barrier(builder, 1)
        if case == "read first":
            builder.write_at(0, 0, MIB)
        elif case == "reopen":
            builder.open(1)
        else:
            builder.call(1, "File_sync", fid=0)
        if case != "read first":
            builder.read_at(1, 0, MIB)
        report = report_of(builder, tmp_path / case.replace(" ", "-"))
        assert fired(report, "conflicting-reads") is None, case


def test_conflicting_reads_a_collective_open_orders_them(tmp_path):
    # Closed and opened again with no barrier: the open is collective, and
    # the close and the open are the syncs (silent). Opened again while the
    # writer kept its first handle open: ordered by the open, but the
    # writer never synced (information).
    for closed in (True, False):
        builder = RunBuilder(2)
        for rank in range(2):
            builder.open(rank)
        builder.write_at(0, 0, MIB)
        for rank in range(2):
            if closed:
                builder.call(rank, "File_close", fid=0)
            builder.open(rank, fid=0 if closed else 1)
        builder.read_at(1, 0, MIB, fid=0 if closed else 1)
        finding = fired(report_of(builder, tmp_path / str(closed)), "conflicting-reads")
        if closed:
            assert finding is None
        else:
            assert finding.severity == "info" and finding.values["unsynced_bytes"] == MIB
            assert finding.values["ordered_by"] == "a File_open of both ranks"


def test_conflicting_reads_a_message_orders_them(tmp_path):
    # Rank 0 writes and sends to rank 1, which reads what it wrote after the
    # receive: ordered (information); with a sync before the send and one
    # after the receive: silent; a message the other way orders nothing.
    for case in ("message", "synced", "other way"):
        builder = RunBuilder(2)
        for rank in range(2):
            builder.open(rank)
        builder.write_at(0, 0, MIB)
        if case == "synced":
            builder.call(0, "File_sync", fid=0)
        sender, receiver = (1, 0) if case == "other way" else (0, 1)
        send = builder.call(sender, "Send", size=8, count=1, tid=1, toRank=receiver, toTag=7,
                            cid=0)
        # Received once sent, on the one clock of the run's one host.
        builder.call(receiver, "Recv", at=max(send.end_ns, builder.now[receiver]) + 1000,
                     fromRank=sender, fromTag=7, cid=0)
        if case == "synced":
            builder.call(1, "File_sync", fid=0)
        builder.read_at(1, 0, MIB)
        finding = fired(report_of(builder, tmp_path / case.replace(" ", "-")),
                        "conflicting-reads")
        if case == "synced":
            assert finding is None
        elif case == "message":
            assert finding.severity == "info"
            assert finding.values["ordered_by"] == "a message from rank 0 to rank 1"
            assert "after a message from rank 0 to rank 1 but without a sync" in finding.message
        else:
            assert finding.severity == "high" and finding.values["ordered_by"] is None


def test_overlapping_writes_name_the_calls_that_made_them_where_they_differ(tmp_path):
    builder = RunBuilder(2)
    for rank in range(2):
        builder.open(rank)
    builder.write_at(1, 0, 4096, nested=[posix("pwrite", 0, 0, 4096)])
    builder.write_at(0, 2048, 4096, name="File_write_at_all",
                     nested=[posix("pwrite", 0, 2048, 4096)])
    finding = fired(report_of(builder, tmp_path), "overlapping-writes")
    assert finding.message.startswith(
        "Ranks 0 and 1 both wrote bytes 2,048 to 4,096 of data.bin, rank 0 within "
        "File_write_at_all and rank 1 within File_write_at (2.00 KiB written twice); ")
    assert finding.values["calls"] == ["File_write_at_all", "File_write_at"]


def test_one_rank_rewriting_its_own_bytes_is_not_an_overlap(tmp_path):
    builder = RunBuilder(2)
    for rank in range(2):
        builder.open(rank)
        builder.write_at(rank, rank * MIB, MIB)
        builder.write_at(rank, rank * MIB, MIB)
    assert fired(report_of(builder, tmp_path), "overlapping-writes") is None


# --- io-amplification

def test_io_amplification(tmp_path):
    builder = RunBuilder(1)
    builder.open(0)
    # Data sieving: a 1 MiB write read and written back as 4 MiB.
    builder.write_at(0, 0, MIB, nested=[posix("pread", 0, 0, 4 * MIB),
                                        posix("pwrite", 0, 0, 4 * MIB)])
    report = report_of(builder, tmp_path)
    finding = fired(report, "io-amplification")
    assert finding.message == ("MPI-IO was asked to move 1.00 MiB and its POSIX calls moved "
                               "8.00 MiB, 8.00 times as much (for example read-modify-write in "
                               "data sieving).")
    posix_layer = next(layer for layer in report.model.layers if layer["name"] == "POSIX")
    assert posix_layer["beneath_mpi_io"] == {"bytes_read": 4 * MIB, "bytes_written": 4 * MIB,
                                             "calls": 2}


def test_posix_bytes_equal_to_mpi_io_are_silent(tmp_path):
    builder = RunBuilder(1)
    builder.open(0)
    builder.write_at(0, 0, MIB, nested=[posix("pwrite", 0, 0, MIB)])
    assert fired(report_of(builder, tmp_path), "io-amplification") is None


# --- wait states (one host: the clocks are one)

MS = 1_000_000


def test_late_sender(tmp_path):
    builder = RunBuilder(2)
    builder.call(1, "Recv", 10 * MS, at=2 * MS, fromRank=0, fromTag=1, cid=0)
    builder.call(0, "Send", MS, at=8 * MS, size=8, count=1, tid=1, toRank=1, toTag=1, cid=0)
    report = report_of(builder, tmp_path)
    finding = fired(report, "late-sender")
    # Rank 1 waited 6 ms of the run's 2 x 10 ms.
    assert finding.message == ("The ranks waited 0.006000 s for messages not yet sent (30.0 % of "
                               "their run time); most rank 1 (0.006000 s); 1 of 1 messages were "
                               "late.")
    assert finding.ranks == [1]


def test_late_sender_through_a_persistent_send(tmp_path):
    # A run whose only sends are persistent ones, started late.
    builder = RunBuilder(2)
    builder.call(1, "Recv", 10 * MS, at=2 * MS, fromRank=0, fromTag=1, cid=0)
    builder.call(0, "Send_init", 1000, at=MS, size=8, count=1, tid=1, toRank=1, toTag=1, cid=0,
                 rid=5)
    builder.call(0, "Start", 1000, at=8 * MS, rid=5)
    wait = builder.call(0, "Wait", 1000, at=8 * MS + 2000)
    wait.elements.append(("For", {"rid": 5}))
    finding = fired(report_of(builder, tmp_path), "late-sender")
    assert finding.message.startswith("The ranks waited 0.006000 s for messages not yet sent")
    assert finding.ranks == [1]


def test_early_sender_is_silent(tmp_path):
    builder = RunBuilder(2)
    builder.call(0, "Send", MS, at=2 * MS, size=8, count=1, tid=1, toRank=1, toTag=1, cid=0)
    builder.call(1, "Recv", MS, at=4 * MS, fromRank=0, fromTag=1, cid=0)
    report = report_of(builder, tmp_path)
    assert fired(report, "late-sender") is None and fired(report, "late-receiver") is None


def test_late_receiver(tmp_path):
    builder = RunBuilder(2)
    builder.call(0, "Send", 10 * MS, at=2 * MS, size=8 * MIB, count=MIB, tid=1, toRank=1,
                 toTag=1, cid=0)
    builder.call(1, "Recv", 4 * MS, at=8 * MS, fromRank=0, fromTag=1, cid=0)
    finding = fired(report_of(builder, tmp_path), "late-receiver")
    assert finding.message == ("The ranks waited 0.006000 s for receivers to post their receive "
                               "(30.0 % of their run time); most rank 0 (0.006000 s); 1 sends "
                               "were held.")


def test_wait_at_collective(tmp_path):
    builder = RunBuilder(3)
    for rank, start in ((0, 2 * MS), (1, 5 * MS), (2, 10 * MS)):
        builder.call(rank, "Allreduce", 12 * MS - start, at=start, size=8, cid=0, count=1,
                     tid=3)
    finding = fired(report_of(builder, tmp_path), "wait-at-collective")
    # Rank 0 waits 8 ms, rank 1 5 ms, rank 2 none; the run is 10 ms on 3 ranks.
    assert finding.message == ("The ranks waited 0.013000 s for the last rank in N-to-N "
                               "collectives (43.3 % of their run time); most rank 0 (0.008000 s); "
                               "1 collectives.")
    assert finding.ranks == [0, 1]


def test_simultaneous_collective_is_silent(tmp_path):
    builder = RunBuilder(3)
    for rank in range(3):
        builder.call(rank, "Allreduce", MS, at=2 * MS, size=8, cid=0, count=1, tid=3)
    assert fired(report_of(builder, tmp_path), "wait-at-collective") is None


def test_waits_not_checked_without_aligned_clocks(tmp_path):
    builder = RunBuilder(2)
    builder.call(1, "Recv", 10 * MS, at=2 * MS, fromRank=0, fromTag=1, cid=0)
    builder.call(0, "Send", MS, at=8 * MS, size=8, count=1, tid=1, toRank=1, toTag=1, cid=0)
    project = builder.write(tmp_path / "run")
    text = open(project).read().replace("<Node name='node-a'>", "<Node name='node-a'>", 1)
    # Two hosts and no clock measurements: the ranks' clocks cannot be compared.
    text = text.replace("<Node name='1'><Node name='0'/></Node></Node>",
                        "</Node><Node name='node-b'><Node name='1'><Node name='0'/></Node></Node>")
    open(project, "w").write(text)
    import os
    os.rename(tmp_path / "run" / "run_node-a_1_0.trc", tmp_path / "run" / "run_node-b_1_0.trc")
    report = reporting.build(hdtrace.open(project))
    checked = {entry["id"]: entry for entry in report.checked}
    for finding_id in ("late-sender", "late-receiver", "wait-at-collective"):
        assert checked[finding_id]["checked"] is False
        assert "clocks are not aligned" in checked[finding_id]["reason"]
    assert report.model.waits is None and report.model.job.clocks == "not aligned"


@pytest.mark.parametrize("setting,fires", [("small-requests.share=0.99", True),
                                           ("small-requests.share=1", False)])
def test_thresholds_can_be_overridden(tmp_path, setting, fires):
    thresholds = reporting.Thresholds()
    thresholds.set(setting)
    report = reporting.build(hdtrace.open(writes(1, 1001, 100).write(tmp_path / "run")),
                             thresholds)
    assert (fired(report, "small-requests") is not None) == fires
    finding, key = setting.split("=")[0].split(".")
    assert report.document()["thresholds"][finding][key] == float(setting.split("=")[1])


def test_overlapping_writes_over_several_ranges(tmp_path):
    builder = RunBuilder(2)
    for rank in range(2):
        builder.open(rank)
    for block in range(3):  # each rank's block runs 100 bytes into the next one's
        builder.write_at(0, block * 2000, 1100)
        builder.write_at(1, block * 2000 + 1000, 1100)
    finding = fired(report_of(builder, tmp_path), "overlapping-writes")
    # Ranges: [1000, 1100), [2000, 2100), [3000, 3100), [4000, 4100), [5000, 5100).
    assert finding.message == ("Ranks 0 and 1 both wrote bytes 1,000 to 1,100 of data.bin "
                               "(100 B written twice, and 4 more range(s): 500 B between "
                               "them); 1 pair(s) of ranks overlap, 500 B in all, with nothing "
                               "between the writes that orders them (no collective or file open "
                               "of both ranks, no message from the one to the other).")
    assert finding.values["ranges"] == 5 and finding.values["overlap_bytes"] == 500


# --- messages

def test_persistent_sends_count_as_messages(tmp_path):
    # Rank 0 sends through two persistent requests: Start of the first three
    # times, then Startall of both; each start is one message of its
    # request's size to its request's peer.
    builder = RunBuilder(2)
    builder.call(0, "Send_init", size=64, count=8, tid=1, toRank=1, toTag=1, cid=0, rid=3)
    builder.call(0, "Send_init", size=16, count=2, tid=1, toRank=1, toTag=2, cid=0, rid=4)
    builder.call(1, "Recv_init", fromRank=0, fromTag=1, cid=0, rid=3)
    for _ in range(3):
        builder.call(0, "Start", rid=3)
        builder.call(0, "Wait").elements.append(("For", {"rid": 3}))
        builder.call(1, "Start", rid=3)
        builder.call(1, "Wait").elements.append(("For", {"rid": 3}))
    startall = builder.call(0, "Startall")
    startall.elements += [("For", {"rid": 3}), ("For", {"rid": 4})]
    builder.call(0, "Waitall").elements += [("For", {"rid": 3}), ("For", {"rid": 4})]
    builder.call(1, "Recv", fromRank=0, fromTag=1, cid=0, size=64)
    builder.call(1, "Recv", fromRank=0, fromTag=2, cid=0, size=16)
    mpi = reporting.build(hdtrace.open(builder.write(tmp_path / "run"))).model.mpi
    assert mpi["messages"] == 5 and mpi["message_bytes"] == 4 * 64 + 16
    assert mpi["matrix"].tolist() == [[0.0, 4 * 64 + 16.0], [0.0, 0.0]]
    assert sum(mpi["message_sizes"].values()) == 5
