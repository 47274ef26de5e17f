"""Event: one call of a trace, with its attributes and children."""


class Event:
    """A traced call (or a child element such as Data, For, Info).

    name      -- the tag, the MPI function without "MPI_" (e.g. File_write_at)
    start_ns  -- absolute start in integer nanoseconds since the epoch (None for Data/For/Info)
    end_ns    -- absolute end in integer nanoseconds
    attrs     -- dict of the attributes but time and end; numbers are int or float
    children  -- nested calls (from the <Nested> block before the element), then
                 the element's own children (<Data>, <For>, <Info>), as Events
    rank, thread -- where the call was traced (None for children)
    line      -- line of the element in the trace file
    """

    __slots__ = ("name", "start_ns", "end_ns", "attrs", "children", "rank", "thread", "line")

    def __init__(self, name, start_ns=None, end_ns=None, attrs=None, children=(), rank=None,
                 thread=None, line=0):
        self.name = name
        self.start_ns = start_ns
        self.end_ns = end_ns
        self.attrs = dict(attrs or {})
        self.children = list(children)
        self.rank = rank
        self.thread = thread
        self.line = line

    @classmethod
    def _from_raw(cls, raw, rank=None, thread=None):
        name, start_ns, end_ns, attrs, children, line = raw
        event = cls.__new__(cls)
        event.name = name
        event.start_ns = start_ns
        event.end_ns = end_ns
        event.attrs = attrs
        event.children = [cls._from_raw(child) for child in children] if children else []
        event.rank = rank
        event.thread = thread
        event.line = line
        return event

    @property
    def start(self):
        """Start as absolute float seconds since the epoch (None when the element has no time)."""
        return None if self.start_ns is None else self.start_ns / 1e9

    @property
    def end(self):
        return None if self.end_ns is None else self.end_ns / 1e9

    @property
    def duration(self):
        """end - start in float seconds, computed from the exact nanoseconds."""
        return None if self.start_ns is None else (self.end_ns - self.start_ns) / 1e9

    @property
    def is_call(self):
        return self.start_ns is not None

    @property
    def nested(self):
        """The nested calls (children with times)."""
        return [child for child in self.children if child.start_ns is not None]

    @property
    def elements(self):
        """The child elements without times: Data, For, Info."""
        return [child for child in self.children if child.start_ns is None]

    def data_attrs(self):
        """The attributes of the first <Data> child (where a split collective
        gives its offset and size), or {} where there is none."""
        for child in self.children:
            if child.start_ns is None and child.name == "Data":
                return child.attrs
        return {}

    def __eq__(self, other):
        if not isinstance(other, Event):
            return NotImplemented
        return all(getattr(self, slot) == getattr(other, slot) for slot in self.__slots__)

    def __repr__(self):
        where = "" if self.rank is None else f" rank={self.rank} thread={self.thread}"
        times = "" if self.start_ns is None else f" start={self.start:.9f} end={self.end:.9f}"
        return f"<Event {self.name}{where}{times} attrs={self.attrs}>"
