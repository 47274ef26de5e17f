"""The door to the C++ extensions: the only module that imports hdtrace._core
(the reader, the merger, the clock correction) and hdtrace._otf2 (the OTF2
writer, present only in builds with OTF2).

Everything else in the package reaches the C++ code through this module, so
that the layer below Python is one file to read. Functions are looked up on
the extension when called (a test may swap one for its slow path) and the
build's options (has_merger) when asked.
"""
from . import _core

try:  # an optional part of the build: `hdtrace export --otf2` says what to install without it
    from . import _otf2
except ImportError as error:
    _otf2 = None
    _otf2_missing = str(error)
else:
    _otf2_missing = ""

#: Errors the C++ code raises, as Python exceptions.
ReadError = _core.ReadError
AlignError = _core.AlignError
#: Bad input to the merger (a ValueError where the build has no merger).
MergeError = getattr(_core, "MergeError", ValueError)
#: A filter file that cannot be used (a ValueError): "file:line:column: what was expected".
FilterError = _core.FilterError

#: peer or tag where a call has none.
NO_VALUE_32 = _core.NO_VALUE_32
#: The predefined types the PIOsim tools know by name, with their sizes.
PIOSIM_NAMED_TYPES = dict(_core.PIOSIM_NAMED_TYPES)
PIOSIM_FULL_FORMS = frozenset(_core.PIOSIM_FULL_FORMS)
PIOSIM_PLACEHOLDER_FORMS = frozenset(_core.PIOSIM_PLACEHOLDER_FORMS)
PIOSIM_INT_ATTRIBUTES = tuple(_core.PIOSIM_INT_ATTRIBUTES)
PIOSIM_LARGEST_NUMBER = _core.PIOSIM_LARGEST_NUMBER
DEFAULT_DISTRIBUTION_CLASS = getattr(
    _core, "DEFAULT_DISTRIBUTION_CLASS",
    "de.hd.pvs.piosim.model.inputOutput.distribution.SimpleStripe")
DEFAULT_CHUNK_SIZE = getattr(_core, "DEFAULT_CHUNK_SIZE", "64K")

#: The suffixes of a trace's file in its two forms.
XML_TRACE_SUFFIX = _core.XML_TRACE_SUFFIX
COMPACT_TRACE_SUFFIX = _core.COMPACT_TRACE_SUFFIX

TraceReader = _core.TraceReader
ClockCorrection = _core.ClockCorrection


def has_merger():
    """Whether this build has the merger library (else: the project-merger program)."""
    return bool(getattr(_core, "HAVE_MERGER", False))


def otf2_writer():
    """hdtrace._otf2, or an ImportError saying why this build has none."""
    if _otf2 is None:
        raise ImportError(_otf2_missing or "hdtrace._otf2 is not built")
    return _otf2


# The reader.
def read_project(path):
    return _core.read_project(path)


def trace_form(path):
    """'XML' or 'compact', by the file's first bytes (hdtrace/reader/TraceForm.hpp)."""
    return _core.trace_form(path)


def convert_trace(source, target, form, frame_bytes=0):
    """Writes the trace at source in form ('xml' or 'compact') to target (temporary name,
    renamed); frame_bytes: the compact output's frame size (0: the writer's default)."""
    _core.convert_trace(source, target, form, frame_bytes)


def compact_frames(path):
    """[(byte offset, records, decoded bytes)] of each frame of a compact trace, in file order."""
    return _core.compact_frames(path)


def read_columns(*args, **kwargs):
    return _core.read_columns(*args, **kwargs)


def read_attribute_codes(path, names, attributes, partial=False):
    """The calls of a trace named in names (all where empty) that have a start
    time, in order, with the attributes asked for as codes into their distinct
    texts: {"names", "name_code", "codes": {attribute: int32 array, -1 where a
    call has none}, "texts": {attribute: [text]}, "damage"}."""
    return _core.read_attribute_codes(path, list(names), list(attributes), partial)


def call_costs(path):
    """Per call tag and nesting of a trace: visits, time, and its bytes in the
    XML and the compact form (hdtrace/reader/CallCosts.hpp)."""
    return _core.call_costs(path)


def filtered_call_costs(path, left_out_tags, file_tags, left_out_fids):
    """call_costs of the trace as a run with a filter would have written it
    (hdtrace/reader/FilteredTrace.hpp)."""
    return _core.filtered_call_costs(path, list(left_out_tags), list(file_tags),
                                     list(left_out_fids))


def read_call_tree(path, partial=False, layers=False, sizes_only=False):
    """Every call of a trace at every depth as columns, each nested call with its
    parent's row (hdtrace/reader/CallTree.hpp); with layers, the calls of the
    layer traces beside it above the calls they made (LayerTraces.hpp). With
    sizes_only, name_code, depth and size only (the other columns empty): for
    sums of bytes, without the memory of the rest."""
    return _core.read_call_tree(path, partial, layers, sizes_only)


def sum_call_sizes(paths, partial, kind_of):
    """For each trace of paths, read on every core: the bytes (read_call_tree's
    size) and number of the calls kind_of ({name: 0 read, 1 write}) names, at
    every depth: [{'read': (bytes, calls), 'write': (bytes, calls), 'unsized':
    a call summed had no size or one not a number, 'damage': text or None}]."""
    return _core.sum_call_sizes(list(paths), partial, kind_of)


def usable_cores():
    """The cores this process may run on (its CPU affinity: taskset, a batch
    system's cpuset), as the C++ reader counts them for its work on every core:
    the threads to read traces on."""
    return _core.usable_cores()


def read_io_calls(traces, describe, name_files, partial=False, layers=False):
    """The calls on files of several traces' call trees ((path, rank, thread)
    each) as one set of columns, made in C++ (hdtrace/reader/IoCalls.hpp):
    describe(names) (asked again only for names unlike the last trace's) gives
    each name's (layer, kind, counts_done, call_code)
    arrays, name_files(trace index, open names, unnamed fids) the file codes."""
    return _core.read_io_calls(list(traces), partial, layers, describe, name_files)


def fill_table(*args, **kwargs):
    return _core.fill_table(*args, **kwargs)


def start_order_rows(starts_by_trace):
    """The table row of each call of the traces one after another: start
    order, ties in trace order (a stable argsort's inverse), merged in C++."""
    return _core.start_order_rows(list(starts_by_trace))


def align_table_times(correction, table):
    """to_numpy()'s table on rank 0's clock, in place; (order, new_row) where its
    rows must change places, else None (TableAlignment.cpp)."""
    return _core.align_table_times(correction, table)


def reorder_table_rows(table, order):
    """table[i] = table[order[i]] as it was, whole rows, in place, in C++
    (order: a permutation of the rows)."""
    return _core.reorder_table_rows(table, order)


def empty_array(rows, dtype):
    """numpy.empty(rows, dtype) in the reader's column memory (reused once freed)."""
    return _core.empty_array(rows, dtype)


def sum_call_bytes(*args, **kwargs):
    """The bytes and the number of named reads and writes at every depth of a trace."""
    return _core.sum_call_bytes(*args, **kwargs)


def read_run_table(*args, **kwargs):
    """Every trace of a project in one table, read in C++ (hdtrace/reader/RunTable.hpp)."""
    return _core.read_run_table(*args, **kwargs)


# The merger.
def merge(inputs, output, description, distribution_class, chunk_size, force, progress=False):
    # progress: a bar on stderr when it is a terminal (project-merger's).
    return _core.merge(inputs, output, description, distribution_class, chunk_size, force,
                       progress)


# The clocks.
def run_clocks(project_path):
    return _core.run_clocks(project_path)


def correct_table(*args, **kwargs):
    return _core.correct_table(*args, **kwargs)


def align_run(project_path):
    return _core.align_run(project_path)


def undo_alignment(project_path):
    return _core.undo_alignment(project_path)


def rewrite_trace_times(text, path, correct):
    return _core.rewrite_trace_times(text, path, correct)


# The message pairing.
#: communicator key of a cid the project does not list: this plus the cid.
UNKNOWN_COMMUNICATOR_KEY = _core.UNKNOWN_COMMUNICATOR_KEY


def pair_posts(sends, receives):
    return _core.pair_posts(sends, receives)


# Filters: the wrapper's own rules (hdtrace/filter/TraceFilter.hpp).
def read_filter(path):
    """The rules of a filter file, as the wrapper reads them: a _core.TraceFilter
    (traces_call(tag), traces_file(path), traces_rank(rank), warnings)."""
    rules = _core.TraceFilter()
    rules.add_file(path)
    return rules


def dialect_calls():
    """(tag, name a call rule matches, layer, [groups]) of every call."""
    return _core.dialect_calls()


def dialect_groups():
    """(name, what it holds, whether it is a layer) of every group."""
    return _core.dialect_groups()


def writer_memory_bytes(compact):
    """The memory one open trace holds with the writer's defaults (per traced thread)."""
    return _core.writer_memory_bytes(compact)
