"""Writes small HDTrace runs in our dialect (docs/format/trace.md) for the view and export tests.

The generator keeps a record of every call it writes (GeneratedRun), so that
tests compare what the exporters and plots produce with what the "program"
did, never with the output of the code under test.
"""
import os
from dataclasses import dataclass, field

TIME_ADJUSTMENT = 1700000000  # S of <Program timeAdjustment='S'>
HOST = "node-a"
FILE_NAME = "out.dat"
MESSAGE_TAG = 7
MESSAGE_SIZE = 1024
NONBLOCKING_TAG = 9
NONBLOCKING_SIZE = 512
BLOCK = 4096          # bytes each rank writes with File_write_at per iteration
TAIL_SIZE = 100       # bytes each rank writes with File_write per iteration
SHORT_WRITE = 60      # with posix=True: the first POSIX write under File_write does this much
CHECKPOINT_FID = 1    # with posix=True: rank 0's file written with fwrite outside MPI calls
CHECKPOINT_SIZE = 300


@dataclass
class Call:
    rank: int
    thread: int
    name: str
    start_ns: int           # relative to TIME_ADJUSTMENT, in nanoseconds
    end_ns: int
    attrs: dict
    nested: list = field(default_factory=list)     # Calls inside this one
    elements: list = field(default_factory=list)   # (tag, attrs) children such as For, Data
    depth: int = 0


@dataclass
class Message:
    send: Call
    recv: Call
    size: int
    tag: int


@dataclass
class Access:
    rank: int
    op: str        # "r" or "w"
    offset: int
    size: int
    start_ns: int
    end_ns: int
    name: str


@dataclass
class PosixAccess:
    """A POSIX read or write as the generator wrote it."""
    rank: int
    op: str        # "r" or "w"
    name: str      # pwrite, write, fwrite, pread
    fid: int
    offset: int
    asked: int
    done: int
    start_ns: int
    end_ns: int
    parent: str    # the MPI call it is nested in, "" at the top level


@dataclass
class GeneratedRun:
    project: str               # path of the .proj
    ranks: int
    threads: dict              # rank -> number of threads
    calls: list                # every Call, top-level and nested
    messages: list
    accesses: list
    posix: list = field(default_factory=list)   # PosixAccess, with posix=True

    def top_level(self):
        return [call for call in self.calls if call.depth == 0]


def _time(ns):
    return f"{ns // 1_000_000_000}.{ns % 1_000_000_000:09d}"


def _element(call, indent=""):
    attrs = "".join(f" {key}='{value}'" for key, value in call.attrs.items())
    times = f" time='{_time(call.start_ns)}' end='{_time(call.end_ns)}'"
    lines = []
    if call.nested:
        lines.append(f"{indent}<Nested>")
        for inner in call.nested:
            lines.extend(_element(inner, indent + "  "))
        lines.append(f"{indent}</Nested>")
    if call.elements:
        lines.append(f"{indent}<{call.name}{attrs}{times}>")
        for tag, child in call.elements:
            child_attrs = "".join(f" {key}='{value}'" for key, value in child.items())
            lines.append(f"{indent}  <{tag}{child_attrs}/>")
        lines.append(f"{indent}</{call.name}>")
    else:
        lines.append(f"{indent}<{call.name}{attrs}{times}/>")
    return lines


class _Clock:
    """Per-trace time: every call starts 1 us after the previous one ended."""

    def __init__(self, start_ns):
        self.now = start_ns

    def call(self, rank, thread, name, duration_ns, attrs=None, at=None):
        start = max(self.now, at or 0) + 1000
        call = Call(rank, thread, name, start, start + duration_ns, dict(attrs or {}))
        self.now = call.end_ns
        return call


def _posix_inside(parent, pieces):
    """Nests POSIX calls in parent, one after the other within its time.
    pieces: (name, attrs) each; returns the Calls."""
    step = (parent.end_ns - parent.start_ns) // (len(pieces) + 1)
    inner = []
    for index, (name, attrs) in enumerate(pieces):
        start = parent.start_ns + step * index + step // 2
        inner.append(Call(parent.rank, parent.thread, name, start, start + step // 2,
                          dict(attrs), depth=parent.depth + 1))
    parent.nested = parent.nested + inner
    return inner


def _posix_attrs(fid, offset, asked, done, errno=None):
    attrs = {"fid": fid, "offset": offset, "asked": asked, "size": done}
    if errno is not None:
        attrs["errno"] = errno
    return attrs


def generate(directory, ranks=4, iterations=2, program="demo", second_thread_rank=0,
             nested=True, posix=False):
    """Writes <program>.proj and one trace per rank (and a second thread on one rank).

    Per iteration every rank: sends MESSAGE_SIZE bytes to its right neighbour and
    receives from its left (Send/Recv), exchanges NONBLOCKING_SIZE bytes the other
    way with Isend/Irecv + Waitall, calls Allreduce and Barrier (a Bcast with a
    nested Barrier when nested=True), writes BLOCK bytes at offset
    (iteration * ranks + rank) * BLOCK with File_write_at, reads its right
    neighbour's block with File_read_at and appends TAIL_SIZE bytes with File_write.

    posix=True adds the POSIX calls (GeneratedRun.posix): under each
    File_write_at two pwrites of half the block, under each File_read_at one
    pread of the block, under each File_write a write that did SHORT_WRITE of
    the TAIL_SIZE bytes it asked for, then one for the rest, and a pwrite that
    failed (ENOSPC, nothing done); and rank 0 writes CHECKPOINT_SIZE bytes
    with fopen, fwrite, fclose to file CHECKPOINT_FID outside any MPI call,
    after Init and before Finalize.
    """
    os.makedirs(directory, exist_ok=True)
    calls, messages, accesses, posix_accesses = [], [], [], []
    per_rank = {rank: [] for rank in range(ranks)}
    clocks = {rank: _Clock(10_000_000 + rank * 3000) for rank in range(ranks)}

    def add(call, rank):
        per_rank[rank].append(call)
        calls.append(call)
        for inner in call.nested:
            inner.depth = call.depth + 1
            calls.append(inner)
        return call

    def nest_posix(parent, op, pieces):
        for inner in _posix_inside(parent, pieces):
            attrs = inner.attrs
            posix_accesses.append(PosixAccess(
                parent.rank, op, inner.name, attrs["fid"], attrs["offset"], attrs["asked"],
                attrs["size"], inner.start_ns, inner.end_ns, parent.name))

    def checkpoint(rank, offset, size):
        opened = add(clocks[rank].call(rank, 0, "fopen", 3_000,
                                       {"fid": CHECKPOINT_FID, "mode": "w"}), rank)
        write = add(clocks[rank].call(rank, 0, "fwrite", 9_000, _posix_attrs(
            CHECKPOINT_FID, offset, size, size)), rank)
        posix_accesses.append(PosixAccess(rank, "w", "fwrite", CHECKPOINT_FID, offset, size,
                                          size, write.start_ns, write.end_ns, ""))
        add(clocks[rank].call(rank, 0, "fclose", 2_000, {"fid": CHECKPOINT_FID}), rank)
        return opened

    rids = {rank: 0 for rank in range(ranks)}
    for rank in range(ranks):
        add(clocks[rank].call(rank, 0, "Init", 50_000), rank)
        add(clocks[rank].call(rank, 0, "File_open", 20_000,
                              {"cid": 0, "name": FILE_NAME, "flags": 37, "fid": 0}), rank)
        if posix and rank == 0:
            checkpoint(rank, 0, CHECKPOINT_SIZE)

    tail_offset = {rank: ranks * iterations * BLOCK + rank * iterations * TAIL_SIZE
                   for rank in range(ranks)}
    for iteration in range(iterations):
        # Blocking ring: a send starts before the matching receive ends.
        sends = {}
        for rank in range(ranks):
            right = (rank + 1) % ranks
            sends[rank] = add(clocks[rank].call(rank, 0, "Send", 30_000, {
                "size": MESSAGE_SIZE, "count": MESSAGE_SIZE // 4, "tid": 1, "toRank": right,
                "toTag": MESSAGE_TAG, "cid": 0}), rank)
        for rank in range(ranks):
            left = (rank - 1) % ranks
            receive = add(clocks[rank].call(rank, 0, "Recv", 40_000, {
                "fromRank": left, "fromTag": MESSAGE_TAG, "cid": 0},
                at=sends[left].start_ns), rank)
            messages.append(Message(sends[left], receive, MESSAGE_SIZE, MESSAGE_TAG))
        # Non-blocking exchange to the left, completed by one Waitall.
        isends, irecvs = {}, {}
        for rank in range(ranks):
            left, right = (rank - 1) % ranks, (rank + 1) % ranks
            irecv_rid, isend_rid = rids[rank], rids[rank] + 1
            rids[rank] += 2
            irecvs[rank] = add(clocks[rank].call(rank, 0, "Irecv", 5_000, {
                "fromRank": right, "fromTag": NONBLOCKING_TAG, "cid": 0, "rid": irecv_rid}), rank)
            isends[rank] = add(clocks[rank].call(rank, 0, "Isend", 6_000, {
                "size": NONBLOCKING_SIZE, "count": NONBLOCKING_SIZE, "tid": 2, "toRank": left,
                "toTag": NONBLOCKING_TAG, "cid": 0, "rid": isend_rid}), rank)
            wait = clocks[rank].call(rank, 0, "Waitall", 25_000)
            wait.elements = [("For", {"rid": irecv_rid}), ("For", {"rid": isend_rid})]
            add(wait, rank)
        for rank in range(ranks):
            right = (rank + 1) % ranks
            messages.append(Message(isends[right], irecvs[rank], NONBLOCKING_SIZE,
                                    NONBLOCKING_TAG))
        for rank in range(ranks):
            add(clocks[rank].call(rank, 0, "Allreduce", 60_000,
                                  {"size": 8, "cid": 0, "count": 1, "tid": 3}), rank)
            if nested:
                start = clocks[rank].now + 1000
                inner = Call(rank, 0, "Barrier", start + 2000, start + 12_000, {"cid": 0})
                bcast = clocks[rank].call(rank, 0, "Bcast", 15_000, {
                    "size": 64, "rootRank": 0, "cid": 0, "count": 16, "tid": 1})
                bcast.nested = [inner]
                add(bcast, rank)
            else:
                add(clocks[rank].call(rank, 0, "Barrier", 12_000, {"cid": 0}), rank)
        for rank in range(ranks):
            offset = (iteration * ranks + rank) * BLOCK
            write = clocks[rank].call(rank, 0, "File_write_at", 200_000, {
                "fid": 0, "offset": offset, "size": BLOCK, "count": BLOCK, "tid": 4})
            if posix:
                half = BLOCK // 2
                nest_posix(write, "w", [("pwrite", _posix_attrs(0, offset, half, half)),
                                        ("pwrite", _posix_attrs(0, offset + half, half, half))])
            add(write, rank)
            accesses.append(Access(rank, "w", offset, BLOCK, write.start_ns, write.end_ns,
                                   FILE_NAME))
            read_offset = (iteration * ranks + (rank + 1) % ranks) * BLOCK
            read = clocks[rank].call(rank, 0, "File_read_at", 150_000, {
                "fid": 0, "offset": read_offset, "size": BLOCK, "count": BLOCK, "tid": 4})
            if posix:
                nest_posix(read, "r", [("pread", _posix_attrs(0, read_offset, BLOCK, BLOCK))])
            add(read, rank)
            accesses.append(Access(rank, "r", read_offset, BLOCK, read.start_ns, read.end_ns,
                                   FILE_NAME))
            tail = clocks[rank].call(rank, 0, "File_write", 80_000, {
                "fid": 0, "offset": tail_offset[rank], "size": TAIL_SIZE, "count": TAIL_SIZE,
                "tid": 4})
            if posix:
                at, rest = tail_offset[rank], TAIL_SIZE - SHORT_WRITE
                nest_posix(tail, "w", [
                    ("write", _posix_attrs(0, at, TAIL_SIZE, SHORT_WRITE)),
                    ("write", _posix_attrs(0, at + SHORT_WRITE, rest, rest)),
                    ("pwrite", _posix_attrs(0, at + TAIL_SIZE, 8, 0, errno=28))])
            add(tail, rank)
            accesses.append(Access(rank, "w", tail_offset[rank], TAIL_SIZE, tail.start_ns,
                                   tail.end_ns, FILE_NAME))
            tail_offset[rank] += TAIL_SIZE

    for rank in range(ranks):
        add(clocks[rank].call(rank, 0, "File_close", 10_000, {"fid": 0}), rank)
        if posix and rank == 0:
            checkpoint(rank, CHECKPOINT_SIZE, CHECKPOINT_SIZE)
        add(clocks[rank].call(rank, 0, "Finalize", 30_000), rank)

    threads = {rank: 1 for rank in range(ranks)}
    second = []
    if second_thread_rank is not None:
        threads[second_thread_rank] = 2
        clock = _Clock(10_500_000)
        for _ in range(iterations):
            call = clock.call(second_thread_rank, 1, "Allreduce", 40_000,
                              {"size": 16, "cid": 1, "count": 2, "tid": 3})
            second.append(call)
            calls.append(call)

    for rank in range(ranks):
        _write_trace(directory, program, rank, 0, per_rank[rank])
    if second_thread_rank is not None:
        _write_trace(directory, program, second_thread_rank, 1, second)
    project = os.path.join(directory, f"{program}.proj")
    _write_project(project, program, ranks, threads)
    return GeneratedRun(project, ranks, threads, calls, messages, accesses, posix_accesses)


def _write_trace(directory, program, rank, thread, calls):
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f"<Program timeAdjustment='{TIME_ADJUSTMENT}'>"]
    for call in calls:
        lines.extend(_element(call))
    lines.append("</Program>")
    with open(os.path.join(directory, f"{program}_{HOST}_{rank}_{thread}.trc"), "w") as out:
        out.write("\n".join(lines) + "\n")


def _write_project(path, program, ranks, threads):
    nodes = "".join(
        f"<Node name='{rank}'>" + "".join(f"<Node name='{t}'/>" for t in range(threads[rank]))
        + "</Node>" for rank in range(ranks))
    world = "".join(f"<Rank global='{r}' local='{r}' cid='0'/>" for r in range(ranks))
    selves = "".join(f"<Communicator name='SELF'><Rank global='{r}' local='0' cid='1'/>"
                     "</Communicator>" for r in range(ranks))
    datatypes = "".join(f"<Rank name='{r}'></Rank>" for r in range(ranks))
    text = f"""<?xml version="1.0" encoding="UTF-8"?>
<Application name='{program}'>
<Description>generated for the view tests</Description>
<FileList><File name='{FILE_NAME}'><InitialSize>0</InitialSize><Distribution implementation='de.hd.pvs.piosim.model.inputOutput.distribution.SimpleStripe'><ChunkSize>64K</ChunkSize></Distribution></File></FileList>
<Topology><Level type='Hostname'><Level type='Rank'><Level type='Thread'></Level></Level></Level>
<Node name='{HOST}'>{nodes}</Node>
</Topology>
<CommunicatorList><Communicator name='WORLD'>{world}</Communicator>{selves}</CommunicatorList>
<Datatypes>{datatypes}</Datatypes>
</Application>
"""
    with open(path, "w") as out:
        out.write(text)
