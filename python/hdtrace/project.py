"""Project: a .proj and the traces its topology names."""
import heapq
import os
import stat
import warnings
from dataclasses import dataclass, field

from . import native
from .clocks import AS_WRITTEN, load_correction
from .datatypes import decode_datatypes
from .errors import MissingTraceError, TraceDamageWarning, read_error
from .events import Event
from .frames import DEFAULT_SLICE_BYTES, project_to_dask
from .layer_traces import layer_trace_paths, with_layers
from .table import read_table


@dataclass(frozen=True)
class ProjectFile:
    """An entry of <FileList>."""
    name: str
    initial_size: object  # int, or None when absent
    distribution: str
    chunk_size: str


@dataclass(frozen=True)
class TopologyLeaf:
    """One traced process and thread: a leaf of the topology tree."""
    host: str
    rank: int
    thread: int
    path: str            # the trace file: .trc, or .ctrc where only the compact form is there
    labels: tuple = ()   # the labels of every level, as written


@dataclass
class Topology:
    levels: list
    leaves: list
    _index: tuple = field(default=None, repr=False, compare=False)  # (leaves indexed, index)

    def __iter__(self):
        return iter(self.leaves)

    def __len__(self):
        return len(self.leaves)

    @property
    def ranks(self):
        return sorted({leaf.rank for leaf in self.leaves})

    def leaf(self, rank, thread=0):
        # Indexed on first use: a walk over thousands of ranks asks for each.
        # (Two leaves of one rank and thread keep the first, as the walk did.)
        if self._index is None or self._index[0] != len(self.leaves):
            index = {}
            for leaf in self.leaves:
                index.setdefault((leaf.rank, leaf.thread), leaf)
            self._index = (len(self.leaves), index)
        found = self._index[1].get((rank, thread))
        if found is None:
            raise KeyError(f"no trace for rank {rank} thread {thread} in the topology")
        return found


@dataclass(frozen=True)
class Member:
    world: int   # rank in MPI_COMM_WORLD
    local: int   # rank in the communicator
    cid: int     # the id the member's own trace uses for the communicator
    line: int = field(default=0, compare=False, repr=False)  # in the .proj, for messages


@dataclass
class Communicator:
    """One communicator of the run, as listed in <CommunicatorList>."""
    index: int
    name: str
    members: list = field(default_factory=list)

    @property
    def size(self):
        return len(self.members)

    @property
    def world_ranks(self):
        """World ranks of the members, ordered by local rank."""
        return [member.world for member in sorted(self.members, key=lambda m: m.local)]

    def _derived(self, name, make):
        """make(members), kept until the members change in number: a scan of
        the members per lookup was quadratic in the ranks (MPI_COMM_WORLD of
        16,384)."""
        cached = self.__dict__.get(name)
        if cached is None or cached[0] != len(self.members):
            cached = self.__dict__[name] = (len(self.members), make(self.members))
        return cached[1]

    def _members_by(self, key):
        """{the members' key ("world" or "local"): the first such member}."""
        def index(members):
            found = {}
            for member in members:
                found.setdefault(getattr(member, key), member)
            return found
        return self._derived("_by_" + key, index)

    def worlds_by_local(self):
        """[world rank of local rank 0, 1, ...], -1 where no member has the
        local rank; shared by the callers, not to be changed."""
        def worlds(members):
            found = [-1] * (max((m.local for m in members), default=-1) + 1)
            for member in members:
                found[member.local] = member.world
            return found
        return self._derived("_worlds", worlds)

    def member_of(self, world):
        """The Member that world rank `world` is; None where it is none."""
        return self._members_by("world").get(world)

    def to_world(self, local):
        member = self._members_by("local").get(local)
        if member is None:
            raise KeyError(f"communicator {self.index} ({self.name!r}) has no local rank {local}")
        return member.world

    def to_local(self, world):
        member = self.member_of(world)
        if member is None:
            raise KeyError(f"world rank {world} is not in communicator {self.index} "
                           f"({self.name!r})")
        return member.local

    def cid_of(self, world):
        """The id by which world rank `world` refers to this communicator in its trace."""
        member = self.member_of(world)
        if member is None:
            raise KeyError(f"world rank {world} is not in communicator {self.index} "
                           f"({self.name!r})")
        return member.cid


class Communicators:
    """The communicators of a project; lookup(rank, cid) finds the one a trace means."""

    def __init__(self, communicators):
        self._list = communicators
        self._by_rank_cid = {}
        for communicator in communicators:
            for member in communicator.members:
                self._by_rank_cid.setdefault((member.world, member.cid), communicator)

    def __iter__(self):
        return iter(self._list)

    def __len__(self):
        return len(self._list)

    def __getitem__(self, index):
        return self._list[index]

    def lookup(self, rank, cid):
        """The communicator that world rank `rank` calls `cid` in its trace."""
        try:
            return self._by_rank_cid[(rank, cid)]
        except KeyError:
            raise KeyError(f"rank {rank} has no communicator with cid {cid}") from None

    def get(self, rank, cid, default=None):
        return self._by_rank_cid.get((rank, cid), default)

    def local_to_world_table(self, rank):
        """{cid: [world rank of local rank 0, 1, ...]} for the traces of world rank `rank`."""
        table = {}
        for communicator in self._list:
            member = communicator.member_of(rank)
            if member is None:
                continue
            table[member.cid] = communicator.worlds_by_local()
        return table


def _check_local_ranks(communicators, leaves, project_path):
    """Local ranks index per-communicator tables (local_to_world_table), so
    one must lie below the number of ranks the run holds (every rank a
    communicator or the topology names): a local='300000000' in a small
    project is an error, not a table of 300 million entries."""
    world = {member.world for communicator in communicators for member in communicator.members}
    world.update(leaf.rank for leaf in leaves)
    for communicator in communicators:
        for member in communicator.members:
            if not 0 <= member.local < len(world):
                raise read_error(project_path, member.line, 0,
                                 f"communicator {communicator.index} ({communicator.name!r}): "
                                 f"world rank {member.world} has local rank {member.local}, "
                                 f"but the run has {len(world)} ranks")


def _as_int(label, what, project_path, line):
    try:
        return int(label)
    except ValueError:
        raise read_error(project_path, line, 0,
                         f"topology {what} label {label!r} is not an integer") from None


def open(path, partial=False, ranks=None, align=True):  # noqa: A001 - the package's entry point
    """Opens a project description (.proj).

    partial -- read damaged (e.g. truncated) traces up to the damage, with a
               TraceDamageWarning, instead of raising ReadError; missing trace
               files are then warned about and read as empty.
    ranks   -- "world" or "local": whether ranks in trace attributes are world
               ranks or local to their communicator. Default: decided per
               dialect (see Project.ranks_in_traces).
    align   -- put every trace on rank 0's clock where the run measured the
               clock offsets (the .info files' Clock lines; see hdtrace.clocks):
               every time this project gives (events, tables, messages,
               statistics, views, exports) is then corrected. False: the
               times as written. A run already rewritten by `hdtrace align`
               is read as written either way.
    """
    return Project(path, partial=partial, ranks=ranks, align=align)


class Project:
    """A project: its metadata, topology, communicators, datatypes and traces."""

    def __init__(self, path, partial=False, ranks=None, align=True):
        self.path = os.fspath(path)
        self.partial = partial
        self.align = align
        self._times = None  # AS_WRITTEN or a ClockCorrection, once loaded (see times)
        raw = native.read_project(self.path)
        self.name = raw["name"]
        self.description = raw["description"]
        self.files = [ProjectFile(**entry) for entry in raw["files"]]
        self.distribution_style = raw["distribution_style"]
        leaves = []
        for labels, trace_path, line in raw["leaves"]:
            if len(labels) < 3:
                raise read_error(self.path, line, 0,
                                 f"topology leaf {'_'.join(labels)} has {len(labels)} levels, "
                                 "expected host, rank and thread")
            leaves.append(TopologyLeaf(labels[0], _as_int(labels[1], "rank", self.path, line),
                                       _as_int(labels[2], "thread", self.path, line),
                                       trace_path, tuple(labels)))
        leaves.sort(key=lambda leaf: (leaf.rank, leaf.thread))
        self.topology = Topology(raw["levels"], leaves)
        self.communicators = Communicators([
            Communicator(index, name, [Member(*member) for member in members])
            for index, (name, members) in enumerate(raw["communicators"])])
        _check_local_ranks(self.communicators, leaves, self.path)
        self._raw_datatypes = raw["datatypes"]
        self._datatypes = None
        self._table = None
        self._raw = None  # the table as written until _full_table takes it

        # One look at each trace. A FIFO, directory or device in place of a
        # trace exists but is not a trace: say so rather than "does not
        # exist" (and never open it).
        missing, self.trace_bytes = [], {}
        for leaf in leaves:
            try:
                status = os.stat(leaf.path)
            except OSError:
                missing.append(leaf.path)
                continue
            if not stat.S_ISREG(status.st_mode):
                raise read_error(leaf.path, 0, 0, "not a regular file")
            self.trace_bytes[leaf.path] = status.st_size
        self.missing_traces = missing
        if missing:
            error = MissingTraceError(self.path, missing)
            if not partial:
                raise error
            warnings.warn(str(error), TraceDamageWarning, stacklevel=3)

        if ranks not in (None, "world", "local"):
            raise ValueError(f"ranks must be 'world', 'local' or None, not {ranks!r}")
        self.ranks_in_traces = ranks or self._detect_rank_kind()

    # --- Clocks (hdtrace.clocks)
    @property
    def times(self):
        """What every time this project gives goes through: hdtrace.clocks'
        AS_WRITTEN, or the run's ClockCorrection (loaded on first use)."""
        if self._times is None:
            self._times = load_correction(self) if self.align else AS_WRITTEN
        return self._times

    @property
    def clock_correction(self):
        """The ClockCorrection applied to this project's times, or None (align
        off, no measurements, or a run already aligned by `hdtrace align`)."""
        times = self.times
        return None if times is AS_WRITTEN else times

    # --- dialects
    def _detect_rank_kind(self):
        """'world' for what our merger writes (<Distribution implementation=>),
        'local' for the original implementation and the older layout (class=). Without
        any <Distribution>, a trace with 9 fraction digits in its times is ours."""
        if self.distribution_style == "implementation":
            return "world"
        if self.distribution_style == "class":
            return "local"
        for leaf in self.topology.leaves:
            if leaf.path in self.missing_traces:
                continue
            reader = native.TraceReader(leaf.path, partial=True)
            for _ in reader:
                break
            digits = reader.time_fraction_digits
            if digits >= 0:
                return "world" if digits == 9 else "local"
        return "world"

    @property
    def dialect(self):
        """'hdtrace' (our wrapper and merger) or 'original' (the original implementation, the older layout)."""
        return "hdtrace" if self.ranks_in_traces == "world" else "original"

    @property
    def directory(self):
        return os.path.dirname(self.path)

    @property
    def datatypes(self):
        """{rank: {type id: Datatype}} decoded from <Datatypes>."""
        if self._datatypes is None:
            self._datatypes = decode_datatypes(self._raw_datatypes, self.path)
        return self._datatypes

    # --- events
    def _window_ns(self, window):
        if window is None:
            return None, None
        start, end = window
        to_ns = lambda seconds: None if seconds is None else int(round(seconds * 1e9))  # noqa: E731
        return to_ns(start), to_ns(end)

    def _reader(self, leaf, names, window):
        from_ns, to_ns = self._window_ns(window)
        return native.TraceReader(leaf.path, list(names or ()), from_ns, to_ns, self.partial)

    def _warn_damage(self, damage):
        if damage:
            warnings.warn(f"trace is damaged, kept every complete call before the damage: {damage}",
                          TraceDamageWarning, stacklevel=4)

    def trace(self, rank, thread=0, names=None, window=None, layers=True):
        """Iterates the top-level calls of one trace as Event objects.

        names  -- only calls with these names (others are skipped unparsed)
        window -- (start, end) in absolute float seconds; calls that overlap it.
                  Either bound may be None.
        layers -- with the calls of the layers traced beside the main trace
                  (HDF5): each is a top-level call with the main trace's
                  calls it made as its children (hdtrace.layer_traces);
                  False: the main trace alone, as the PIOsim tools read it.
        """
        leaf = self.topology.leaf(rank, thread)
        if leaf.path in self.missing_traces:
            return
        times = self.times
        raw_window = times.raw_window(window)
        readers = [self._reader(leaf, names, raw_window)]
        if layers:
            from_ns, to_ns = self._window_ns(raw_window)
            readers += [native.TraceReader(path, list(names or ()), from_ns, to_ns, self.partial)
                        for _, path in layer_trace_paths(leaf.path)]
        streams = [(Event._from_raw(raw, leaf.rank, leaf.thread) for raw in reader)
                   for reader in readers]
        events = with_layers(streams[0], streams[1:])
        yield from times.correct_events(events, leaf.rank, leaf.thread,
                                        None if window is None else self._window_ns(window))
        for reader in readers:
            self._warn_damage(reader.damage)

    def events(self, names=None, window=None, layers=True):
        """Every top-level call of every trace, merged in start-time order
        (layers: as for trace)."""
        streams = [self.trace(leaf.rank, leaf.thread, names, window, layers)
                   for leaf in self.topology.leaves if leaf.path not in self.missing_traces]
        return heapq.merge(*streams, key=lambda event: (event.start_ns is None, event.start_ns or 0))

    # --- tables
    def to_numpy(self, names=None, window=None):
        """A numpy structured array, one row per top-level call of every trace,
        sorted by start time. Columns: see hdtrace.TABLE_COLUMNS."""
        if names is None and window is None:
            return self._full_table().array
        times = self.times
        table = read_table(self, names, times.raw_window(window))
        return times.correct_table(table, None if window is None else self._window_ns(window)).array

    def name_codes(self):
        """(names, codes) of to_numpy()'s rows: the distinct call names,
        sorted, and each row's index in them (an int32 array), so that work
        per call name need not compare the rows' strings."""
        table = self._full_table()
        return list(table.names), table.name_code

    def to_dataframe(self, names=None, window=None):
        """to_numpy() as a pandas DataFrame; needs pandas."""
        try:
            import pandas
        except ImportError:
            raise ImportError("Project.to_dataframe() needs pandas, which is not installed; "
                              "use Project.to_numpy() instead") from None
        return pandas.DataFrame(self.to_numpy(names, window))

    # --- Dask: the table as a dask.dataframe (hdtrace.frames)
    def to_dask(self, names=None, window=None, slice_bytes=DEFAULT_SLICE_BYTES):
        """A dask.dataframe of to_numpy()'s columns and dtypes, the traces in
        topology order (each in the trace's order), read by the C++ reader
        inside the tasks. A trace of our dialect larger than slice_bytes
        becomes several partitions, in order (None or 0: never): byte ranges
        of about slice_bytes of an XML trace; whole frames of a compact trace,
        about as many calls each as an XML slice of slice_bytes holds
        (slice_bytes / hdtrace.frames.XML_BYTES_PER_CALL). Whole traces share
        partitions, one after another, up to slice_bytes in all and
        hdtrace.frames.PARTITION_TRACES traces. Needs Dask and pandas; the
        workers must see the trace files under the same (absolute) paths."""
        return project_to_dask(self, names, window, slice_bytes)
    # --- end Dask

    def _full_table(self):
        """The whole table, its times through self.times; read once."""
        if self._table is None:
            times = self.times
            self._table = times.correct_table(self._raw_table())
            self._raw = None
        return self._table

    def _raw_table(self):
        """The table with the times as written, read once: the clock
        correction and _full_table share it."""
        if self._raw is None:
            self._raw = read_table(self, None, None)
        return self._raw

    def __repr__(self):
        return (f"<hdtrace.Project {self.name!r} {len(self.topology)} traces, "
                f"{len(self.communicators)} communicators, dialect {self.dialect}>")
