"""Timeline: every call of a project (nested ones too) in flat columns, with matched messages.

The HTML view and the Chrome and OTF2 exports are all drawn from this one
model, so that they agree on what a row, a call and a message are.
"""
from dataclasses import dataclass, field

import numpy as np

from ..calls import family_of
from ..layer_traces import is_layer_call
from ..messages import match_messages, sends_any
from ..object_bulk import cyclic_gc_paused


@dataclass(frozen=True)
class Row:
    """One traced process and thread."""
    rank: int
    thread: int
    host: str

    @property
    def label(self):
        return f"rank {self.rank} thread {self.thread}" if self.thread else f"rank {self.rank}"


@dataclass
class Timeline:
    name: str
    rows: list                     # Row, by rank then thread
    names: list                    # distinct call names, sorted
    origin_ns: int                 # the earliest start of any call (absolute ns since the epoch)
    # One entry per call, in row order, then in document order within a row
    # (a call's nested calls right after it).
    row: list = field(default_factory=list)        # index into rows
    name_index: list = field(default_factory=list)  # index into names
    depth: list = field(default_factory=list)       # 0: top level; 1: nested in the call before ...
    parent: list = field(default_factory=list)      # index of the enclosing call, -1 at top level
    start_ns: list = field(default_factory=list)    # absolute ns
    end_ns: list = field(default_factory=list)
    attrs: list = field(default_factory=list)       # dict per call
    # [(tag, attrs dict)] of its <For>, <Data>, <Info>; () where it has none
    elements: list = field(default_factory=list)
    # Matched point-to-point messages: (send call, receive call, tag, size,
    # absolute ns at which the receive completed).
    messages: list = field(default_factory=list)
    unmatched_sends: int = 0
    unmatched_receives: int = 0

    def __len__(self):
        return len(self.row)

    def family(self, call):
        return family_of(self.names[self.name_index[call]])

    def call_name(self, call):
        return self.names[self.name_index[call]]


_NO_ELEMENTS = ()


def build_timeline(project, with_messages=True, ranks=None, window=None, every_row=False):
    """Reads every trace of `project` (an hdtrace.Project) into a Timeline.

    ranks     -- only these ranks' calls (None: every rank)
    window    -- (start, end) in absolute float seconds: only the top-level
                 calls that overlap it, with the calls nested in them; either
                 bound may be None. A message is kept where both its calls are.
    every_row -- a row for every trace, also of the ranks left out (an OTF2
                 archive needs every rank its communicators name)
    """
    with cyclic_gc_paused():
        return _build_timeline(project, with_messages, ranks, window, every_row)


def _build_timeline(project, with_messages, ranks, window, every_row):
    leaves = sorted(project.topology.leaves, key=lambda leaf: (leaf.rank, leaf.thread))
    leaves = [leaf for leaf in leaves if leaf.path not in project.missing_traces
              and (every_row or ranks is None or leaf.rank in ranks)]
    rows = [Row(leaf.rank, leaf.thread, leaf.host) for leaf in leaves]
    timeline = Timeline(project.name, rows, [], 0)
    raw_names = []
    top_level_index = {}

    # The lists' appends bound once: add runs for every call of the run.
    append_row, append_depth = timeline.row.append, timeline.depth.append
    append_parent, append_name = timeline.parent.append, raw_names.append
    append_start, append_end = timeline.start_ns.append, timeline.end_ns.append
    append_attrs, append_elements = timeline.attrs.append, timeline.elements.append
    layer_calls = {}  # name -> is_layer_call(name)

    def add(event, row_index, depth, parent, key=None):
        index = len(raw_names)
        append_row(row_index)
        append_name(event.name)
        append_depth(depth)
        append_parent(parent)
        start = event.start_ns
        append_start(start)
        append_end(event.end_ns if event.end_ns is not None else start)
        append_attrs(event.attrs)
        # The children once: the calls nested in it (with times), then its
        # own elements (<For>, <Data>, <Info>). Most calls have neither,
        # and share one empty tuple rather than a list each.
        nested, elements = [], []
        for child in event.children:
            if child.start_ns is None:
                elements.append((child.name, child.attrs))
            else:
                nested.append(child)
        append_elements(elements or _NO_ELEMENTS)
        if key is not None:
            top_level_index.setdefault(key + (start, event.name), []).append(index)
        if nested:
            # A layer call's children are main-trace calls, which the table's
            # rows (and so the matched messages) name as top-level calls.
            layer_call = layer_calls.get(event.name)
            if layer_call is None:
                layer_call = layer_calls[event.name] = is_layer_call(event.name)
            for child in nested:
                add(child, row_index, depth + 1, index, key if layer_call else None)
        return index

    for row_index, leaf in enumerate(leaves):
        if ranks is not None and leaf.rank not in ranks:
            continue
        for event in project.trace(leaf.rank, leaf.thread, window=window):
            if event.start_ns is None:
                continue
            add(event, row_index, 0, -1, (leaf.rank, leaf.thread))

    timeline.names = sorted(set(raw_names))
    code = {name: i for i, name in enumerate(timeline.names)}
    timeline.name_index = [code[name] for name in raw_names]
    timeline.origin_ns = min(timeline.start_ns) if timeline.start_ns else 0

    if with_messages and timeline.row and sends_any(project.name_codes()):
        matches = match_messages(project)
        pairs = matches.pairs.tolist()
        call_of = _calls_of_table_rows(project.to_numpy(), top_level_index,
                                       {pair[0] for pair in pairs} | {pair[1] for pair in pairs})

        for pair in pairs:
            send, receive = call_of(pair[0]), call_of(pair[1])
            if send is not None and receive is not None:
                # Where the receive completed (its Wait for Irecv); float seconds, so
                # only good to a fraction of a microsecond: for drawing, not for analysis.
                completed = pair[10]
                completed_ns = (timeline.end_ns[receive] if completed != completed
                                else max(int(round(completed * 1e9)), timeline.start_ns[receive]))
                if abs(completed_ns - timeline.end_ns[receive]) < 1000:
                    completed_ns = timeline.end_ns[receive]   # a blocking receive: exact
                timeline.messages.append((send, receive, int(pair[4]), int(pair[6]), completed_ns))
        timeline.unmatched_sends = len(matches.unmatched_sends)
        timeline.unmatched_receives = len(matches.unmatched_recvs)
    return timeline


def _calls_of_table_rows(table, top_level_index, rows):
    """A function giving the call of each of rows (rows of
    project.to_numpy(), which match_messages refers to), None where the
    call is not in the timeline.

    The table holds the top-level calls sorted stably by start, so calls with the
    same rank, thread, start and name keep their document order: the n-th such
    row is the n-th such call. Such rows are next to each other, among the
    rows of the same start."""
    wanted = set(rows)
    if not wanted:
        return {}.get
    start = table["start_ns"]
    # The rows that start with a wanted row, in table order, numbered per
    # (rank, thread, start, name) in one pass (looking back from each
    # wanted row over its start's rows was quadratic where thousands of
    # ranks start their calls at the same nanosecond).
    sharing = np.flatnonzero(np.isin(start, start[np.fromiter(wanted, dtype=np.int64)]))
    keys = zip(table["rank"][sharing].tolist(), table["thread"][sharing].tolist(),
               start[sharing].tolist(), [str(name) for name in table["name"][sharing]])
    seen, calls = {}, {}
    for row, key in zip(sharing.tolist(), keys):
        position = seen.get(key, 0)
        seen[key] = position + 1
        if row in wanted:
            candidates = top_level_index.get(key)
            calls[row] = candidates[position] if candidates and position < len(candidates) \
                else None
    return calls.get
