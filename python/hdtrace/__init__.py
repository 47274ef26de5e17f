"""hdtrace: read HDTrace projects (.proj) and traces (.trc) in Python.

    >>> import hdtrace
    >>> p = hdtrace.open("app.proj")
    >>> for event in p.trace(rank=0):
    ...     print(event.name, event.start, event.duration, event.attrs)
    >>> table = p.to_numpy()
    >>> hdtrace.stats(p).functions

The parsing is done by hdtrace._core, a streaming C++ reader (libxml2 SAX2).

The package is built in layers; each module imports only from the layers
below it (tests/python/test_import_graph.py checks it):

1. native       the one door to the C++ extensions (_core, _otf2)
2. the model    errors, calls (every table about call names), events,
                datatypes, table, clocks, frames (to_dask's partitions), project
3. analysis     io_layers, io_calls, statistics, messages: per-part work plus a combine
4. Dask         distributed_frames: the analyses partition by partition
5. seeing       view/, export/, plot_io, report/, text_tables, output
6. commands     one module per `hdtrace` subcommand (commands/, check, align,
                run), and cli, which puts them together
"""
from . import report
from .distributed_frames import match_messages, stats, to_dask
from .errors import MissingTraceError, ReadError, TraceDamageWarning
from .events import Event
from .merging import MergeError, merge
from .messages import MessageMatches
from .project import Communicator, Project, TopologyLeaf, open
from .statistics import Stats
from .table import NO_PEER, NO_TAG, TABLE_COLUMNS

__all__ = [
    "Communicator", "Event", "MergeError", "MessageMatches", "MissingTraceError", "NO_PEER", "NO_TAG",
    "Project", "ReadError", "Stats", "TABLE_COLUMNS", "TopologyLeaf", "TraceDamageWarning",
    "match_messages", "merge", "open", "report", "stats",
    "to_dask",
]
__version__ = "0.1.0"
