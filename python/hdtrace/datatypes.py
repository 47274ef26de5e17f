"""Datatypes of the project file, decoded into type maps.

Every Datatype knows its size (bytes of data), lower bound and extent, and
its flattened blocks: the (offset, length) byte ranges of one instance, in
type-map order, with touching neighbours merged.

A project merged from traces that record MPI's own figures writes every
derived type in the five forms the PIOsim tools read (NAMED, CONTIGUOUS,
VECTOR, STRUCT, SUBARRAY; see docs/format), and keeps the MPI type on the
element: its combiner, the arguments of MPI_Type_get_contents, and mpiSize,
mpiLb and mpiExtent. Such a type is given back as the MPI type (combiner
RESIZED, INDEXED, DARRAY, ...) with MPI's size, lb and extent; its blocks
come from the written form, which has MPI's byte layout. Elements that are
only parts of another (partOf=) are not listed.

Older projects (the element named by the combiner, with its arguments as
attributes) decode by the MPI standard's type-map rules; STRUCT gets no
alignment padding there (the standard leaves that epsilon to the
implementation). Named types take their size from the LP64 Linux table
below; an unknown named type has size None and a note saying so, and so has
every type built on it. A type map of more than MAX_BLOCKS blocks keeps its
exact size, lb and extent but is not flattened.
"""
import itertools
from dataclasses import dataclass, field

from .errors import read_error

#: Type maps with more blocks than this are not flattened (blocks is None, with a note).
MAX_BLOCKS = 1_000_000

#: (size, extent, blocks) of the predefined types on LP64 Linux.
_PAIR_TYPES = {
    "MPI_FLOAT_INT": (8, 8, ((0, 4), (4, 4))),
    "MPI_DOUBLE_INT": (12, 16, ((0, 8), (8, 4))),
    "MPI_LONG_INT": (12, 16, ((0, 8), (8, 4))),
    "MPI_2INT": (8, 8, ((0, 4), (4, 4))),
    "MPI_SHORT_INT": (6, 8, ((0, 2), (4, 4))),
    "MPI_LONG_DOUBLE_INT": (20, 32, ((0, 16), (16, 4))),
    "MPI_2REAL": (8, 8, ((0, 4), (4, 4))),
    "MPI_2DOUBLE_PRECISION": (16, 16, ((0, 8), (8, 8))),
    "MPI_2INTEGER": (8, 8, ((0, 4), (4, 4))),
}
NAMED_TYPE_SIZES = {
    "MPI_CHAR": 1, "MPI_SIGNED_CHAR": 1, "MPI_UNSIGNED_CHAR": 1, "MPI_BYTE": 1, "MPI_PACKED": 1,
    "MPI_C_BOOL": 1, "MPI_INT8_T": 1, "MPI_UINT8_T": 1, "MPI_CHARACTER": 1, "MPI_INTEGER1": 1,
    "MPI_SHORT": 2, "MPI_UNSIGNED_SHORT": 2, "MPI_INT16_T": 2, "MPI_UINT16_T": 2,
    "MPI_INTEGER2": 2,
    "MPI_INT": 4, "MPI_UNSIGNED": 4, "MPI_FLOAT": 4, "MPI_WCHAR": 4, "MPI_INT32_T": 4,
    "MPI_UINT32_T": 4, "MPI_INTEGER": 4, "MPI_REAL": 4, "MPI_LOGICAL": 4, "MPI_INTEGER4": 4,
    "MPI_REAL4": 4,
    "MPI_LONG": 8, "MPI_UNSIGNED_LONG": 8, "MPI_LONG_LONG_INT": 8, "MPI_LONG_LONG": 8,
    "MPI_UNSIGNED_LONG_LONG": 8, "MPI_DOUBLE": 8, "MPI_INT64_T": 8, "MPI_UINT64_T": 8,
    "MPI_AINT": 8, "MPI_OFFSET": 8, "MPI_COUNT": 8, "MPI_DOUBLE_PRECISION": 8,
    "MPI_INTEGER8": 8, "MPI_REAL8": 8, "MPI_COMPLEX": 8, "MPI_C_FLOAT_COMPLEX": 8,
    "MPI_C_COMPLEX": 8,
    "MPI_LONG_DOUBLE": 16, "MPI_DOUBLE_COMPLEX": 16, "MPI_C_DOUBLE_COMPLEX": 16,
    "MPI_REAL16": 16,
    "MPI_C_LONG_DOUBLE_COMPLEX": 32,
    "MPI_LB": 0, "MPI_UB": 0,
}


@dataclass
class Datatype:
    """One datatype of a rank, as decoded from the project file."""
    id: int
    combiner: str                 # NAMED, DUP, CONTIGUOUS, VECTOR, ..., DARRAY
    name: str                     # the MPI name of named types; "" for most derived ones
    params: dict                  # the element's attributes (ints where numeric)
    children: list                # the Datatypes it is built from (in its element's order)
    size: object = None           # bytes of data, None when unknown
    lb: object = None             # lower bound in bytes
    extent: object = None         # extent in bytes
    blocks: object = None         # [(offset, length), ...] of one instance
    note: str = None              # why size is None
    # A predefined type that the project writes as a byte layout (because the
    # PIOsim tools do not know its name) is read back as NAMED with its MPI
    # name; layout is then the element it was written as (CONTIGUOUS, ...).
    layout: str = None
    details: list = field(default_factory=list)  # the raw child elements (BLOCK, Dimension, ...)

    @property
    def ub(self):
        return None if self.lb is None else self.lb + self.extent


class _Huge:
    """Stands for `elements` copies of `old` in more than MAX_BLOCKS blocks."""

    def __init__(self, old, elements, blocks):
        self.id = old.id
        self.size = None if old.size is None else old.size * elements
        self.lb, self.extent = 0, 0
        self.blocks = []
        self.block_estimate = blocks


class _Selection:
    """The indices one dimension of a SUBARRAY or DARRAY takes, described
    rather than listed: blocks of `block` consecutive indices, the first at
    `first`, one every `period` indices, up to `span` indices past `first`.
    Counting its elements and runs costs nothing, however large the array."""

    def __init__(self, first, span, block, period):
        self.first, self.span, self.block, self.period = first, max(span, 0), block, period
        if self.span == 0:
            self.blocks = 0
        elif period <= block:  # the blocks touch: one run
            self.block, self.period, self.blocks = self.span, self.span, 1
        else:
            self.blocks = -(-self.span // period)
        last = self.span - (self.blocks - 1) * self.period if self.blocks else 0
        self.elements = (self.blocks - 1) * self.block + min(self.block, last) if self.blocks else 0
        self.pieces = self.blocks

    def iter_pieces(self):
        """(first index, count) of each run of consecutive indices."""
        for number in range(self.blocks):
            start = number * self.period
            yield self.first + start, min(self.block, self.span - start)

    def iter_indices(self):
        for first, count in self.iter_pieces():
            yield from range(first, first + count)


def _number(text):
    try:
        return int(text)
    except (TypeError, ValueError):
        return text


class _Decoder:
    def __init__(self, rank, elements, project_path):
        self.rank = rank
        self.path = project_path
        self.types = {}
        self.parts = {}  # elements written only as parts of another type
        for element in elements:
            self.decode(element)

    def fail(self, element, problem):
        raise read_error(self.path, element["line"], 0,
                         f"<{element['combiner']}> of rank {self.rank}: {problem}")

    def param(self, element, params, *names):
        for name in names:
            if name in params and isinstance(params[name], int):
                return params[name]
        self.fail(element, f"needs an integer {names[0]}= attribute")

    def referenced(self, element, type_id):
        if type_id in self.parts:
            return self.parts[type_id]
        if type_id not in self.types:
            self.fail(element, f"references type {type_id}, which is not defined before it")
        return self.types[type_id]

    def decode(self, element):
        params = {name: _number(value) for name, value in element["attributes"]}
        combiner = element["combiner"]
        if not isinstance(params.get("id"), int):
            self.fail(element, "has no integer id= attribute")
        details = [{name: _number(value) for name, value in child["attributes"]}
                   for child in element["children"]]
        datatype = Datatype(params["id"], combiner, str(params.get("name", "")), params, [],
                            details=details)
        handler = getattr(self, "decode_" + combiner.lower(), None)
        if handler is None:
            datatype.note = f"combiner {combiner} is not known to this reader"
        else:
            result = handler(element, params, details, datatype)
            if result is not None:
                runs, lb_ub = result
                self.combine(datatype, runs, lb_ub)
        if "combiner" in params:
            self.as_mpi_type(element, params, datatype)
        elif combiner != "NAMED" and datatype.name.startswith("MPI_"):
            # Only the MPI standard's predefined types have MPI_ names.
            datatype.layout, datatype.combiner = combiner, "NAMED"
        if "partOf" in params:
            self.parts[datatype.id] = datatype
        else:
            self.types[datatype.id] = datatype

    def as_mpi_type(self, element, params, datatype):
        """The MPI type an element in one of the tools' forms stands for."""
        figures = [params.get(name) for name in ("mpiSize", "mpiLb", "mpiExtent")]
        if not all(isinstance(value, int) for value in figures):
            self.fail(element, "has a combiner= but no integer mpiSize, mpiLb and mpiExtent")
        arrays = {}
        for name in ("integers", "addresses", "types"):
            text = str(params.get(name, ""))
            try:
                arrays[name] = [int(value) for value in text.split(";") if value]
            except ValueError:
                self.fail(element, f"{name}={text!r} is not a list of integers")
        params.update(arrays)
        if datatype.combiner != str(params["combiner"]):
            datatype.layout = datatype.combiner
        datatype.combiner = str(params["combiner"])
        datatype.children = [self.referenced(element, type_id) for type_id in arrays["types"]]
        datatype.size, datatype.lb, datatype.extent = figures
        if datatype.note is not None and datatype.blocks is None:
            return  # a note says why the blocks are not listed
        datatype.note = None

    # A type map built from copies of other types. Each run is
    # (start, count, step, old, outer_count, outer_step): copies of old at the
    # byte displacements start + j * outer_step + i * step, j outer, i inner,
    # so a million-element CONTIGUOUS or VECTOR stays one run.
    def combine(self, datatype, runs, lb_ub=None):
        runs = [run for run in runs if run[1] > 0 and run[4] > 0]
        unknown = [run[3] for run in runs if run[3].size is None]
        if unknown:
            datatype.note = f"built on type {unknown[0].id}, whose size is unknown"
            return
        datatype.size = sum(count * outer * old.size for _, count, _, old, outer, _ in runs)
        if lb_ub is not None:
            datatype.lb, ub = lb_ub
        elif runs:
            low = high = None
            for start, count, step, old, outer, outer_step in runs:
                first = start + min(0, (count - 1) * step) + min(0, (outer - 1) * outer_step)
                last = start + max(0, (count - 1) * step) + max(0, (outer - 1) * outer_step)
                low = first + old.lb if low is None else min(low, first + old.lb)
                top = last + old.lb + old.extent
                high = top if high is None else max(high, top)
            datatype.lb, ub = low, high
        else:
            datatype.lb, ub = 0, 0
        datatype.extent = ub - datatype.lb

        def collapses(count, step, old):  # the copies touch: one block per run
            return len(old.blocks) == 1 and old.blocks[0][1] == step and count > 1
        estimate = sum(getattr(old, "block_estimate", 0) or
                       (outer if collapses(count, step, old) else count * outer * len(old.blocks))
                       for _, count, step, old, outer, _ in runs)
        if estimate > MAX_BLOCKS:
            datatype.note = (f"its type map has about {estimate} blocks, more than are "
                             f"flattened ({MAX_BLOCKS}); size, lb and extent are exact")
            return
        blocks = []

        def append(offset, length):
            if length == 0:
                return
            if blocks and blocks[-1][0] + blocks[-1][1] == offset:
                blocks[-1] = (blocks[-1][0], blocks[-1][1] + length)
            else:
                blocks.append((offset, length))

        for start, count, step, old, outer, outer_step in runs:
            for j in range(outer):
                base = start + j * outer_step
                if collapses(count, step, old):
                    append(base + old.blocks[0][0], count * step)
                    continue
                for i in range(count):
                    for offset, length in old.blocks:
                        append(base + i * step + offset, length)
        datatype.blocks = blocks

    def decode_named(self, element, params, details, datatype):
        name = datatype.name
        if name in _PAIR_TYPES:
            size, extent, blocks = _PAIR_TYPES[name]
        elif name in NAMED_TYPE_SIZES:
            size = extent = NAMED_TYPE_SIZES[name]
            blocks = ((0, size),) if size else ()
        else:
            datatype.note = f"named type {name!r} is not in the LP64 size table"
            return None
        merged = []
        for offset, length in blocks:
            if merged and merged[-1][0] + merged[-1][1] == offset:
                merged[-1] = (merged[-1][0], merged[-1][1] + length)
            else:
                merged.append((offset, length))
        datatype.size, datatype.lb, datatype.extent, datatype.blocks = size, 0, extent, merged
        return None

    def old(self, element, params, datatype):
        old = self.referenced(element, self.param(element, params, "oldType"))
        datatype.children = [old]
        return old

    def decode_dup(self, element, params, details, datatype):
        old = self.old(element, params, datatype)
        return [(0, 1, 0, old, 1, 0)], None

    def decode_contiguous(self, element, params, details, datatype):
        old = self.old(element, params, datatype)
        count = self.param(element, params, "count")
        return [(0, count, old.extent or 0, old, 1, 0)], None

    def _vector(self, element, params, datatype, stride_in_bytes):
        old = self.old(element, params, datatype)
        count = self.param(element, params, "count")
        blocklength = self.param(element, params, "blocklength", "blockLength")
        stride = self.param(element, params, "stride")
        extent = old.extent or 0
        step = stride if stride_in_bytes else stride * extent
        return [(0, blocklength, extent, old, count, step)], None

    def decode_vector(self, element, params, details, datatype):
        return self._vector(element, params, datatype, False)

    def decode_hvector(self, element, params, details, datatype):
        return self._vector(element, params, datatype, True)

    decode_hvector_integer = decode_hvector

    def decode_resized(self, element, params, details, datatype):
        old = self.old(element, params, datatype)
        lb = self.param(element, params, "lowerBound", "lb")
        extent = self.param(element, params, "extend", "extent")  # the PIOsim tools spell it "extend"
        return [(0, 1, 0, old, 1, 0)], (lb, lb + extent)

    def _indexed(self, element, params, details, datatype, in_bytes, block_length=None):
        old = self.old(element, params, datatype)
        extent = old.extent or 0
        runs = []
        for detail in details:
            length = block_length if block_length is not None else detail.get("len")
            index = detail.get("index", detail.get("displacement"))
            if not isinstance(length, int) or not isinstance(index, int):
                self.fail(element, f"has a block without integer length and index: {detail}")
            runs.append((index if in_bytes else index * extent, length, extent, old, 1, 0))
        return runs, None

    def decode_indexed(self, element, params, details, datatype):
        return self._indexed(element, params, details, datatype, False)

    def decode_hindexed(self, element, params, details, datatype):
        return self._indexed(element, params, details, datatype, True)

    decode_hindexed_integer = decode_hindexed

    def decode_indexed_block(self, element, params, details, datatype):
        length = self.param(element, params, "blockLength", "blocklength")
        return self._indexed(element, params, details, datatype, False, length)

    def decode_hindexed_block(self, element, params, details, datatype):
        length = self.param(element, params, "blockLength", "blocklength")
        return self._indexed(element, params, details, datatype, True, length)

    def decode_struct(self, element, params, details, datatype):
        runs, upper_bounds, added_marker = [], [], False
        for detail in details:
            old = self.referenced(element, detail.get("id"))
            datatype.children.append(old)
            displacement, length = detail.get("displacement"), detail.get("blocklen")
            if not isinstance(displacement, int) or not isinstance(length, int):
                self.fail(element, f"has a <Type> without integer displacement and blocklen: {detail}")
            if old.combiner == "NAMED" and old.name == "MPI_UB":
                # An upper bound marker: it sets the type's ub.
                upper_bounds.append(displacement)
                added_marker = added_marker or old.params.get("partOf") == "*"
            else:
                runs.append((displacement, length, old.extent or 0, old, 1, 0))
        if not upper_bounds:
            return runs, None
        if added_marker:
            # The merger's marker: the form is written for the PIOsim tools,
            # for which every type starts at 0 and ends at its marker.
            return runs, (0, max(upper_bounds))
        self.combine(datatype, runs)
        if datatype.size is not None:
            datatype.extent = max(upper_bounds) - datatype.lb
        return None

    decode_struct_integer = decode_struct

    def _order_c(self, element, params):
        order = params.get("order", "MPI_ORDER_C")
        if order not in ("MPI_ORDER_C", "MPI_ORDER_FORTRAN"):
            self.fail(element, f"order={order!r} is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN")
        return order == "MPI_ORDER_C"

    def _array_runs(self, old, sizes, selections, order_c):
        """Elements of a multi-dimensional array in type-map order, as runs
        along the fastest dimension; the extent is the whole array's.
        selections: one _Selection per dimension, the indices taken."""
        extent = old.extent or 0
        dims = len(sizes)
        order = list(reversed(range(dims))) if order_c else list(range(dims))  # fastest first
        strides = [0] * dims
        step = extent
        for dim in order:
            strides[dim] = step
            step *= sizes[dim]
        if dims == 0:
            return [], (0, step)
        fastest = order[0]
        slower_dims = list(reversed(order[1:]))  # slowest first
        # Counted before anything is listed: the sizes in a project may
        # describe arrays of 10^11 elements.
        run_count = selections[fastest].pieces
        for dim in slower_dims:
            run_count *= selections[dim].elements
        if run_count == 0:
            return [], (0, step)
        if run_count > MAX_BLOCKS:
            # Too many rows to list: one stand-in run with the exact size and
            # extent, whose block count makes combine() decline to flatten it.
            elements = 1
            for selection in selections:
                elements *= selection.elements
            return [(0, 1, 0, _Huge(old, elements, run_count), 1, 0)], (0, step)
        # Every dimension now has at most run_count (<= MAX_BLOCKS) entries.
        pieces = list(selections[fastest].iter_pieces())
        slower = [list(selections[dim].iter_indices()) for dim in slower_dims]
        runs = []
        for combo in itertools.product(*slower):
            base = sum(index * strides[dim] for index, dim in zip(combo, slower_dims))
            for first, count in pieces:
                runs.append((base + first * strides[fastest], count, extent, old, 1, 0))
        return runs, (0, step)

    def decode_subarray(self, element, params, details, datatype):
        old = self.old(element, params, datatype)
        order_c = self._order_c(element, params)
        sizes, index_lists = [], []
        for detail in details:
            size, subsize, start = (detail.get(key) for key in ("size", "subsize", "start"))
            if not all(isinstance(v, int) for v in (size, subsize, start)):
                self.fail(element, f"has a <Dimension> without integer size, subsize, start: {detail}")
            if start < 0 or subsize < 0 or start + subsize > size:
                self.fail(element, f"<Dimension size={size} subsize={subsize} start={start}> "
                                   "does not fit")
            sizes.append(size)
            index_lists.append(_Selection(start, subsize, subsize, subsize))
        ndims = params.get("ndims", len(details))
        if ndims != len(details):
            self.fail(element, f"ndims={ndims} but {len(details)} <Dimension> elements")
        return self._array_runs(old, sizes, index_lists, order_c)

    def decode_darray(self, element, params, details, datatype):
        old = self.old(element, params, datatype)
        order_c = self._order_c(element, params)
        nprocs = self.param(element, params, "size")
        rank = self.param(element, params, "rank")
        psizes = [detail.get("psize") for detail in details]
        if any(not isinstance(p, int) or p < 1 for p in psizes):
            self.fail(element, "needs a positive integer psize= on every <Dimension>")
        product = 1
        for p in psizes:
            product *= p
        if product != nprocs:
            self.fail(element, f"the process grid {psizes} does not hold size={nprocs} processes")
        # The process grid is always row-major, whatever the array order.
        coords, rest = [], rank
        for p in reversed(psizes):
            coords.append(rest % p)
            rest //= p
        coords.reverse()
        sizes, index_lists = [], []
        for detail, coord, psize in zip(details, coords, psizes):
            gsize, distrib, darg = detail.get("gsize"), detail.get("distrib"), detail.get("darg")
            if not isinstance(gsize, int):
                self.fail(element, f"has a <Dimension> without an integer gsize: {detail}")
            default = darg in ("MPI_DISTRIBUTE_DFLT_DARG", None) or (isinstance(darg, int) and darg < 0)
            if not default and not isinstance(darg, int):
                self.fail(element, f"darg={darg!r} is neither an integer nor MPI_DISTRIBUTE_DFLT_DARG")
            if gsize < 0:
                self.fail(element, f"gsize={gsize} is negative")
            if distrib == "MPI_DISTRIBUTE_BLOCK":
                block = -(-gsize // psize) if default else darg
                first = min(coord * block, gsize)
                length = min((coord + 1) * block, gsize) - first
                indices = _Selection(first, length, length, length)
            elif distrib == "MPI_DISTRIBUTE_CYCLIC":
                block = 1 if default else darg
                if block < 1:
                    self.fail(element, f"darg={darg} is not a positive block size")
                # Blocks coord, coord + psize, ... of `block` indices each.
                indices = _Selection(coord * block, gsize - coord * block, block, block * psize)
            elif distrib == "MPI_DISTRIBUTE_NONE":
                indices = _Selection(0, gsize, gsize, gsize)
            else:
                self.fail(element, f"distrib={distrib!r} is not an MPI_DISTRIBUTE_ constant")
            sizes.append(gsize)
            index_lists.append(indices)
        return self._array_runs(old, sizes, index_lists, order_c)


def decode_datatypes(raw_ranks, project_path):
    """{rank: {id: Datatype}} from _core.read_project()'s 'datatypes'."""
    result = {}
    for rank_text, _thread, elements, line in raw_ranks:
        try:
            rank = int(rank_text)
        except ValueError:
            raise read_error(project_path, line, 0, f"<Rank name={rank_text!r}> in <Datatypes> "
                             "is not an integer rank") from None
        decoded = _Decoder(rank, elements, project_path).types
        result.setdefault(rank, {}).update(decoded)
    return result
