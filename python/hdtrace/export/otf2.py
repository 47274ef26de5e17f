"""hdtrace export --otf2: the run as an OTF2 archive, written by hdtrace._otf2 (the OTF2 C library).

This module decides what to record, in OTF2's terms; exporter/ encodes it.
- one location per traced rank and thread, in one location group per rank;
- one region per function name; every call, nested calls too, is an Enter
  at its start and a Leave at its end;
- point-to-point: MpiSend at the start of a blocking send, MpiRecv at the end
  of a blocking receive (Sendrecv has both); MpiIsend / MpiIrecvRequest in the
  non-blocking call, MpiIsendComplete / MpiIrecv in the Wait or Test whose
  <For rid> completes it. Peers are ranks within the communicator, as OTF2
  wants; a receive's peer, tag and size come from its matched send;
- collectives: MpiCollectiveBegin after the Enter, MpiCollectiveEnd (operation,
  communicator, root, bytes) before the Leave. A nonblocking collective
  (Iallreduce, ...) gets the operation of its blocking form, within its own
  call: OTF2 2.x records nothing for the Wait that completes it. The
  neighbourhood collectives have no OTF2 operation: Enter/Leave only, in a
  region with the all-to-all role;
- file reads and writes with a size: IoOperationBegin / IoOperationComplete on
  one I/O handle per rank and file id, the file taken from its File_open;
  the POSIX calls (nested under the MPI call that made them, or not) too,
  on the handle of their file id (shared with MPI-IO), the bytes they asked
  for at the begin and the bytes they did at the completion;
- matched probes: Mrecv is written like Recv, Imrecv like Irecv;
- one-sided communication: one RmaWin definition per window (the n-th window
  each rank made on a communicator is one window), RmaWinCreate at the end of
  its constructor and RmaWinDestroy at the end of Win_free; RmaPut, RmaGet or
  RmaAtomic at the start of each data call (target as a rank in the window's
  communicator), and RmaOpCompleteNonBlocking for it at the end of the Wait/
  Test of its rid (request forms) or of the next call that completes it
  (Win_fence, Win_unlock(_all), Win_flush(_local)(_all) for its target or
  all, Win_complete, Win_free). Synchronisation calls are regions only.
Calls whose communicator the project does not list, and peers that are
MPI_PROC_NULL or wildcards no send resolved, get Enter/Leave only; they are
counted in the summary as skipped.
"""
import array
from dataclasses import dataclass

import numpy as np

from .. import native
from ..calls import (ALL_TO_ONE, BLOCKING_COLLECTIVES, BLOCKING_RECEIVES, BLOCKING_SENDS,
                     COLLECTIVE, COMPLETIONS, FILE_IO, FILE_OPENS, NONBLOCKING_COLLECTIVES,
                     NONBLOCKING_RECEIVES, NONBLOCKING_SENDS, ONE_SIDED_FAMILY, ONE_TO_ALL,
                     POINT_TO_POINT, READ,
                     RMA_ACCUMULATES, RMA_COMPARE_AND_SWAPS, RMA_COMPLETE_ALL,
                     RMA_COMPLETE_TARGET, RMA_FETCHING_ATOMICS, RMA_GETS, RMA_PUTS,
                     SEND_RECEIVES, WINDOW_CONSTRUCTORS, WINDOW_DESTRUCTORS, WRITE,
                     attribute_value, file_access, file_access_values, family_of)
from ..object_bulk import cyclic_gc_paused

ENTER, LEAVE, MPI_SEND, MPI_RECV, MPI_ISEND, MPI_ISEND_COMPLETE, MPI_IRECV_REQUEST, MPI_IRECV, \
    COLLECTIVE_BEGIN, COLLECTIVE_END, IO_BEGIN, IO_COMPLETE, RMA_WIN_CREATE, RMA_WIN_DESTROY, \
    RMA_PUT, RMA_GET, RMA_ATOMIC, RMA_OP_COMPLETE = range(18)
KIND_NAMES = ("ENTER", "LEAVE", "MPI_SEND", "MPI_RECV", "MPI_ISEND", "MPI_ISEND_COMPLETE",
              "MPI_IRECV_REQUEST", "MPI_IRECV", "MPI_COLLECTIVE_BEGIN", "MPI_COLLECTIVE_END",
              "IO_OPERATION_BEGIN", "IO_OPERATION_COMPLETE", "RMA_WIN_CREATE", "RMA_WIN_DESTROY",
              "RMA_PUT", "RMA_GET", "RMA_ATOMIC", "RMA_OP_COMPLETE_NON_BLOCKING")

# exporter/include/hdtrace/exporter/Otf2Run.hpp: RegionRole
ROLE_FUNCTION, ROLE_POINT_TO_POINT, ROLE_ONE_TO_ALL, ROLE_ALL_TO_ONE, ROLE_ALL_TO_ALL, ROLE_FILE_IO, \
    ROLE_RMA = range(7)

# OTF2_CollectiveOp, in the order of its values: OTF2's name of each
# blocking collective operation, which is its call's in capitals.
_OTF2_COLLECTIVE_OPS = ("BARRIER", "BCAST", "GATHER", "GATHERV", "SCATTER", "SCATTERV",
                        "ALLGATHER", "ALLGATHERV", "ALLTOALL", "ALLTOALLV", "ALLTOALLW",
                        "ALLREDUCE", "REDUCE", "REDUCE_SCATTER", "SCAN", "EXSCAN",
                        "REDUCE_SCATTER_BLOCK")
COLLECTIVE_OPS = {name: _OTF2_COLLECTIVE_OPS.index(name.upper()) for name in BLOCKING_COLLECTIVES
                  if name.upper() in _OTF2_COLLECTIVE_OPS}
COLLECTIVE_OPS.update({name: COLLECTIVE_OPS[blocking]
                       for name, blocking in NONBLOCKING_COLLECTIVES.items()})
# One-sided transfers: the OTF2 record and OTF2_RmaAtomicType (ACCUMULATE 0,
# COMPARE_AND_SWAP 3, FETCH_AND_ACCUMULATE 7).
RMA_DATA = {**{name: (RMA_PUT, 0) for name in RMA_PUTS},
            **{name: (RMA_GET, 0) for name in RMA_GETS},
            **{name: (RMA_ATOMIC, 0) for name in RMA_ACCUMULATES},
            **{name: (RMA_ATOMIC, 7) for name in RMA_FETCHING_ATOMICS},
            **{name: (RMA_ATOMIC, 3) for name in RMA_COMPARE_AND_SWAPS}}


def _role(name, family):
    if family == POINT_TO_POINT:
        return ROLE_POINT_TO_POINT
    if family == COLLECTIVE:
        name = NONBLOCKING_COLLECTIVES.get(name, name)
        if name in ONE_TO_ALL:
            return ROLE_ONE_TO_ALL
        if name in ALL_TO_ONE:
            return ROLE_ALL_TO_ONE
        return ROLE_ALL_TO_ALL
    if family == FILE_IO:
        return ROLE_FILE_IO
    if family == ONE_SIDED_FAMILY:
        return ROLE_RMA
    return ROLE_FUNCTION


# OTF2_IoOperationMode: READ 0, WRITE 1.
_IO_MODES = {READ: 0, WRITE: 1}


def _io_mode(name):
    return _IO_MODES.get(file_access(name))


# The record columns' types: array's codes, and numpy's for the same bytes.
_COLUMN_CODES = {"location": "I", "kind": "i", "time": "Q",
                 "a": "q", "b": "q", "c": "q", "d": "q", "e": "q"}
_COLUMN_DTYPES = {"location": np.uint32, "kind": np.int32, "time": np.uint64,
                  "a": np.int64, "b": np.int64, "c": np.int64, "d": np.int64, "e": np.int64}


@dataclass(frozen=True)
class _NameFacts:
    """Which of emit's records a call of one name may make."""
    sends: bool               # a blocking or nonblocking send, or a send-receive
    nonblocking_send: bool
    one_sided: bool
    nonblocking_receive: bool
    receives: bool            # a blocking receive, or a send-receive
    completes: bool           # a Wait or Test, whose <For> children name requests
    collective: bool          # a collective with an OTF2 operation
    opens: bool
    io_mode: object           # OTF2's READ or WRITE for a read or write, else None

    @classmethod
    def of(cls, name):
        return cls(sends=name in BLOCKING_SENDS or name in NONBLOCKING_SENDS
                   or name in SEND_RECEIVES,
                   nonblocking_send=name in NONBLOCKING_SENDS,
                   one_sided=family_of(name) == ONE_SIDED_FAMILY,
                   nonblocking_receive=name in NONBLOCKING_RECEIVES,
                   receives=name in BLOCKING_RECEIVES or name in SEND_RECEIVES,
                   completes=name in COMPLETIONS,
                   collective=name in COLLECTIVE_OPS,
                   opens=name in FILE_OPENS,
                   io_mode=_io_mode(name))

    @property
    def talks(self):
        """Whether its records need its communicator, tag or request."""
        return self.sends or self.nonblocking_receive or self.receives or self.collective


class _RecordBuilder:
    def __init__(self, timeline, project):
        self.timeline = timeline
        self.project = project
        self.world_ranks = project.ranks_in_traces == "world"
        # Typed arrays, which numpy takes without a conversion of each value.
        self.columns = {key: array.array(_COLUMN_CODES[key], ()) for key in _COLUMN_CODES}
        # add's appends bound once: it runs for every record.
        self._appends = tuple(self.columns[key].append
                              for key in ("location", "kind", "a", "b", "c", "d", "e"))
        self._times = self.columns["time"]
        self._locations = self.columns["location"]
        # What emit asks of a call's name, once per name: [_NameFacts] by name index.
        self.facts = [_NameFacts.of(name) for name in timeline.names]
        self.skipped = 0
        self.files, self.file_index = [], {}
        self.handles, self.handle_index = [], {}
        self.io_matching = 0
        self.windows, self.window_index = [], {}  # RmaWin definitions: (name, communicator)
        self.rank_windows = {}     # (rank, wid) -> (window, communicator)
        self.made_on = {}          # (rank, communicator index) -> windows made so far
        self.rma_matching = 0
        received_by = {}
        for send, receive, tag, size, _ in timeline.messages:
            received_by[receive] = (send, tag, size)
        self.received_by = received_by
        self.children = [[] for _ in range(len(timeline))]
        for call, parent in enumerate(timeline.parent):
            if parent >= 0:
                self.children[parent].append(call)

    # --- helpers
    def add(self, location, kind, time, a=0, b=0, c=0, d=0, e=0):
        times = self._times
        if times and self._locations[-1] == location and times[-1] > time:
            time = times[-1]   # OTF2 needs time order per location
        times.append(time)
        add_location, add_kind, add_a, add_b, add_c, add_d, add_e = self._appends
        add_location(location)
        add_kind(kind)
        add_a(a)
        add_b(b)
        add_c(c)
        add_d(d)
        add_e(e)

    def communicator(self, rank, name, attrs):
        cid = attribute_value(name, attrs, "communicator")
        if cid is None:
            return None
        return self.project.communicators.get(rank, int(cid))

    def local_rank(self, communicator, peer):
        """The peer as a rank in the communicator, or None (PROC_NULL, wildcards, not a member)."""
        if peer is None or int(peer) < 0:
            return None
        peer = int(peer)
        if not self.world_ranks:
            return peer if peer < communicator.size else None
        try:
            return communicator.to_local(peer)
        except KeyError:
            return None

    def sender_of(self, call, rank, communicator, attrs):
        """(sender as local rank, tag, size) of a receive, from its matched send if any."""
        match = self.received_by.get(call)
        if match is not None:
            send, tag, size = match
            sender_world = self.timeline.rows[self.timeline.row[send]].rank
            try:
                local = communicator.to_local(sender_world) if communicator else None
            except KeyError:    # the sender is not in the receive's communicator
                local = None
            return local, tag, size
        name = self.timeline.call_name(call)
        return (self.local_rank(communicator, attribute_value(name, attrs, "receives_from")),
                attribute_value(name, attrs, "receive_tag"), 0)

    def handle(self, rank, fid, file_names):
        key = (rank, fid)
        if key not in self.handle_index:
            name = file_names.get(fid) or f"fid {fid} of rank {rank}"
            if name not in self.file_index:
                self.file_index[name] = len(self.files)
                self.files.append(name)
            self.handle_index[key] = len(self.handles)
            self.handles.append((f"{name} (rank {rank}, fid {fid})", self.file_index[name]))
        return self.handle_index[key]

    def window_created(self, rank, wid, communicator):
        """The window a constructor made: the n-th on its communicator is one
        definition for every member, as MPI makes windows collectively."""
        key = (rank, communicator.index)
        number = self.made_on.get(key, 0)
        self.made_on[key] = number + 1
        unified = (communicator.index, number)
        if unified not in self.window_index:
            self.window_index[unified] = len(self.windows)
            self.windows.append((f"window {number} of {communicator.name or 'communicator'} "
                                 f"#{communicator.index}", communicator.index))
        window = self.window_index[unified]
        self.rank_windows[(rank, wid)] = (window, communicator)
        return window

    def rma(self, call, name, attrs, rank, location, start, state, at_end):
        """The RMA records of a one-sided call (see the module's docstring)."""
        wid = attribute_value(name, attrs, "window")
        found = self.rank_windows.get((rank, wid)) if wid is not None else None
        if name in WINDOW_CONSTRUCTORS:
            communicator = self.communicator(rank, name, attrs)
            if communicator is None or wid is None or int(wid) < 0:
                self.skipped += 1
                return
            window = self.window_created(rank, wid, communicator)
            at_end.append((RMA_WIN_CREATE, window, 0, 0, 0, 0))
            return
        if found is None:
            self.skipped += 1
            return
        window, communicator = found
        pending = state["rma"].setdefault(window, [])
        if name in RMA_DATA:
            target = self.local_rank(communicator, attribute_value(name, attrs, "rma_target"))
            if target is None:  # MPI_PROC_NULL: nothing moves
                self.skipped += 1
                return
            kind, atomic = RMA_DATA[name]
            self.rma_matching += 1
            moved = attribute_value(name, attrs, "asked", 0)
            self.add(location, kind, start, window, target, atomic, max(int(moved), 0),
                     self.rma_matching)
            rid = attribute_value(name, attrs, "request")
            if rid is not None:
                state["pending"][rid] = ("rma", (window, self.rma_matching))
            else:
                pending.append((target, self.rma_matching))
            return
        completes = []
        if name in RMA_COMPLETE_ALL:
            completes, pending[:] = list(pending), []
        elif name in RMA_COMPLETE_TARGET:
            target = self.local_rank(communicator, attribute_value(name, attrs, "rma_target"))
            completes = [op for op in pending if op[0] == target]
            pending[:] = [op for op in pending if op[0] != target]
        for _, matching in completes:
            at_end.append((RMA_OP_COMPLETE, window, 0, 0, 0, matching))
        if name in WINDOW_DESTRUCTORS:
            at_end.append((RMA_WIN_DESTROY, window, 0, 0, 0, 0))

    # --- one call and its nested calls
    def emit(self, call, location, rank, state):
        timeline = self.timeline
        origin = timeline.origin_ns
        name = timeline.call_name(call)
        attrs = timeline.attrs[call]
        start, end = timeline.start_ns[call] - origin, timeline.end_ns[call] - origin
        region = timeline.name_index[call]
        facts = self.facts[region]
        self.add(location, ENTER, start, region)
        at_end = []
        communicator = tag = rid = None
        if facts.talks:
            communicator = self.communicator(rank, name, attrs)
            tag = attribute_value(name, attrs, "send_tag", 0)
            rid = attribute_value(name, attrs, "request")

        if facts.sends:
            receiver = self.local_rank(communicator, attribute_value(name, attrs, "sends_to")) \
                if communicator else None
            size = attribute_value(name, attrs, "asked", 0)
            if receiver is None or int(tag) < 0:
                self.skipped += 1
            elif facts.nonblocking_send and rid is not None:
                self.add(location, MPI_ISEND, start, receiver, communicator.index, tag, size, rid)
                state["pending"][rid] = ("send", call)
            else:
                self.add(location, MPI_SEND, start, receiver, communicator.index, tag, size)
        if facts.one_sided:
            self.rma(call, name, attrs, rank, location, start, state, at_end)
        if facts.nonblocking_receive and rid is not None:
            self.add(location, MPI_IRECV_REQUEST, start, e=rid)
            state["pending"][rid] = ("recv", call)
        if facts.receives:
            sender, recv_tag, size = self.sender_of(call, rank, communicator, attrs) \
                if communicator else (None, None, 0)
            if sender is None or recv_tag is None or int(recv_tag) < 0:
                self.skipped += 1
            else:
                at_end.append((MPI_RECV, sender, communicator.index, recv_tag, size, 0))
        if facts.completes:
            for tag_name, child in timeline.elements[call]:
                completed = attribute_value(name, child, "request") if tag_name == "For" else None
                if completed is None:
                    continue
                pending = state["pending"].pop(completed, None)
                if pending is None:
                    continue
                kind, request_call = pending
                if kind == "rma":
                    window, matching = request_call
                    at_end.append((RMA_OP_COMPLETE, window, 0, 0, 0, matching))
                    continue
                if kind == "send":
                    at_end.append((MPI_ISEND_COMPLETE, 0, 0, 0, 0, completed))
                    continue
                request_attrs = timeline.attrs[request_call]
                request_comm = self.communicator(rank, timeline.call_name(request_call),
                                                 request_attrs)
                sender, recv_tag, size = self.sender_of(request_call, rank, request_comm, request_attrs) \
                    if request_comm else (None, None, 0)
                if sender is None or recv_tag is None or int(recv_tag) < 0:
                    self.skipped += 1
                    continue
                at_end.append((MPI_IRECV, sender, request_comm.index, recv_tag, size, completed))
        if facts.collective:
            if communicator is None:
                self.skipped += 1
            else:
                self.add(location, COLLECTIVE_BEGIN, start)
                root = attribute_value(name, attrs, "peer")
                local_root = self.local_rank(communicator, root) if root is not None else None
                size = attribute_value(name, attrs, "asked", 0)
                received = attribute_value(name, attrs, "received", size)
                at_end.append((COLLECTIVE_END, COLLECTIVE_OPS[name], communicator.index,
                               -1 if local_root is None else local_root, max(size, 0), max(received, 0)))
        mode = facts.io_mode
        fid = attribute_value(name, attrs, "file") if facts.opens or mode is not None else None
        if facts.opens and fid is not None:
            state["files"][fid] = str(attribute_value(name, attrs, "opened_name", ""))
        if mode is not None and fid is not None:
            def data_attrs():
                data = [child for tag_name, child in timeline.elements[call] if tag_name == "Data"]
                return data[0] if data else {}

            # A C library call asked for some bytes and did others; an MPI
            # call's asked bytes are both (the trace has no count of what it did).
            _, _, asked, size = file_access_values(name, attrs, data_attrs)
            if size is not None:
                handle = self.handle(rank, fid, state["files"])
                self.io_matching += 1
                asked = size if asked is None else asked
                self.add(location, IO_BEGIN, start, handle, mode, max(int(asked), 0),
                         self.io_matching)
                at_end.append((IO_COMPLETE, handle, 0, max(int(size), 0), self.io_matching, 0))

        for child in self.children[call]:
            self.emit(child, location, rank, state)
        for kind, a, b, c, d, e in at_end:
            self.add(location, kind, end, a, b, c, d, e)
        self.add(location, LEAVE, end, region)

    def build(self):
        timeline = self.timeline
        calls_of_row = [[] for _ in timeline.rows]
        for call in range(len(timeline)):
            if timeline.parent[call] < 0:
                calls_of_row[timeline.row[call]].append(call)
        for location, row in enumerate(timeline.rows):
            state = {"pending": {}, "files": {}, "rma": {}}
            for call in calls_of_row[location]:
                self.emit(call, location, row.rank, state)
        return {key: np.frombuffer(values, dtype=_COLUMN_DTYPES[key])
                for key, values in self.columns.items()}


def write_otf2(timeline, project, directory):
    """Writes the archive into directory (which must not exist or be empty); returns a summary."""
    try:
        _otf2 = native.otf2_writer()
    except ImportError as error:
        raise SystemExit("hdtrace export: this build has no OTF2 writer (hdtrace._otf2; build "
                         f"exporter/ with Debian's libotf2-trace-dev): {error}") from None
    builder = _RecordBuilder(timeline, project)
    with cyclic_gc_paused():
        records = builder.build()
    regions = [(name, _role(name, family_of(name))) for name in timeline.names]
    locations = [(row.rank, row.thread, row.host) for row in timeline.rows]
    communicators = [(c.name, [int(rank) for rank in c.world_ranks]) for c in project.communicators]
    try:
        result = _otf2.write_archive(str(directory), timeline.name, timeline.origin_ns, regions,
                                     locations, communicators, builder.files, builder.handles, records,
                                     builder.windows)
    except RuntimeError as error:
        raise SystemExit(f"hdtrace export: {error}") from None
    counts = dict(zip(KIND_NAMES, result["events_by_kind"]))
    counts["skipped"] = builder.skipped
    counts["anchor"] = result["anchor"]
    return counts
