"""hdtrace: read HDTrace projects (.proj) and traces (.trc) in Python.

    >>> import hdtrace
    >>> p = hdtrace.open("app.proj")
    >>> for event in p.trace(rank=0):
    ...     print(event.name, event.start, event.duration, event.attrs)
    >>> table = p.to_numpy()
    >>> hdtrace.stats(p).functions

The parsing is done by hdtrace._core, a streaming C++ reader (libxml2 SAX2).
"""
from .errors import MissingTraceError, ReadError, TraceDamageWarning
from .events import Event
from .merging import MergeError, merge
from .messages import MessageMatches, match_messages
from .project import Communicator, Project, TopologyLeaf, open
from .statistics import Stats, stats
from .table import NO_PEER, NO_TAG, TABLE_COLUMNS
from .distributed_frames import to_dask  # Dask; Dask itself is imported on use

__all__ = [
    "Communicator", "Event", "MergeError", "MessageMatches", "MissingTraceError", "NO_PEER", "NO_TAG",
    "Project", "ReadError", "Stats", "TABLE_COLUMNS", "TopologyLeaf", "TraceDamageWarning",
    "match_messages", "merge", "open", "stats",
    "to_dask",  # Dask
]
__version__ = "0.1.0"
