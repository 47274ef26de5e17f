"""Reading libhdtracempi's output and comparing it with what a test program did.

A test program (programs/*.c, see programs/expect.h) writes one JSON line per
traced call into <expect dir>/<rank>.jsonl. This module runs such programs
under mpiexec, parses the `.trc` (ElementTree) and the `.info` (its own
parser, strict about the layout of docs/format/trace.md), and compares
the trace element by element with the expectations, resolving the ids that
only the wrapper knows (types, communicators, files, requests) through the
`.info`. Every mismatch raises TraceMismatch naming the file, the element's
position and what differs.
"""
from __future__ import annotations

import dataclasses
import decimal
import functools
import json
import os
import pathlib
import re
import socket
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "format"))
import dialect  # noqa: E402

MPIEXEC_TIMEOUT = 90
DERIVED_TYPE_BASE = 1 << 24
PROLOG = b'<?xml version="1.0" encoding="UTF-8"?>'
TIME_RE = re.compile(r"-?[0-9]+\.[0-9]{9}\Z")
INT_RE = re.compile(r"-?[0-9]+\Z")

# Calls the test programs make only to compute their expectations. Whether
# the wrapper traces them is not specified; if it does, they must be
# ordinary (time and end only), and the comparison steps over them.
BOOKKEEPING_CALLS = frozenset("""
    Comm_rank Comm_size Comm_group Comm_remote_group Comm_remote_size Comm_test_inter
    Comm_get_name Group_size Group_rank Group_translate_ranks Group_free Type_size
    Type_get_name Type_get_extent Type_get_envelope Type_get_contents Type_c2f Get_count
    Get_library_version Get_version Pack_size Buffer_attach Buffer_detach Error_string
    Error_class Info_create Info_set Info_free Info_get_nkeys Info_get_nthkey Info_get
    Get_address Comm_set_errhandler
    File_set_errhandler Wtime Wtick Initialized Finalized Topo_test Cartdim_get Cart_coords
    Graphdims_get Get_processor_name
""".split())


# The C library's file calls (the POSIX and stdio layers): the programs'
# expectations are about MPI calls, so the comparison leaves these states
# out (their times are still checked); test_posix.py checks them against
# what the programs did.
_DEFINITION = dialect.load()
POSIX_CALLS = frozenset(tag for tag, call in _DEFINITION.calls.items()
                        if _DEFINITION.layer_of(call).c_library)


def without_posix(elements: list[ET.Element]) -> list[ET.Element]:
    """The elements without POSIX states, and without <Nested> blocks that
    held nothing else."""
    kept = []
    for element in elements:
        if element.tag in POSIX_CALLS:
            continue
        if element.tag == "Nested":
            inner = without_posix(list(element))
            if not inner:
                continue
            if len(inner) != len(element):
                copy = ET.Element("Nested")
                copy.extend(inner)
                element = copy
        kept.append(element)
    return kept


class TraceMismatch(AssertionError):
    """The wrapper's output differs from the specification or the program."""


# ---------------------------------------------------------------- names

def sanitize(part: str) -> str:
    """A file-name part as the wrapper writes it: [A-Za-z0-9.-] kept, others '-'."""
    return re.sub(r"[^A-Za-z0-9.-]", "-", part)


def trace_base(directory: pathlib.Path, program: str, rank: int, thread: int = 0) -> pathlib.Path:
    host = sanitize(socket.gethostname())
    return pathlib.Path(directory) / f"{sanitize(program)}_{host}_{rank}_{thread}"


# ---------------------------------------------------------------- running

def mpi_env(**overrides) -> dict:
    """The environment for mpiexec: no inherited HDTRACE_* settings, root allowed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HDTRACE_")}
    env.pop("LD_PRELOAD", None)
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    for key, value in overrides.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = str(value)
    return env


@functools.lru_cache(maxsize=None)
def launcher() -> tuple:
    """The build's own mpiexec (MPIEXEC_EXECUTABLE in $HDTRACE_BUILD_DIR/CMakeCache.txt,
    Open MPI or MPICH) and the flags it needs, as a tuple of arguments."""
    build = pathlib.Path(os.environ.get("HDTRACE_BUILD_DIR",
                                        pathlib.Path(__file__).resolve().parents[2] / "build"))
    match = re.search(r"^MPIEXEC_EXECUTABLE:\w+=(.+)$",
                      (build / "CMakeCache.txt").read_text(), re.M)
    if not match:
        raise AssertionError(f"{build}/CMakeCache.txt names no MPIEXEC_EXECUTABLE")
    executable = match.group(1).strip()
    version = subprocess.run([executable, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    if "Open MPI" in version or "OpenRTE" in version:
        return (executable, "--oversubscribe", "--bind-to", "none")
    return (executable,)  # MPICH's Hydra: oversubscribes and passes the environment


def mpiexec(program: pathlib.Path, nranks: int, env: dict, cwd: pathlib.Path,
            args=(), timeout: int = MPIEXEC_TIMEOUT, prefix=()) -> subprocess.CompletedProcess:
    """Run program on nranks ranks; never hangs (timeout), never raises on exit codes.
    prefix: a command the launcher runs under (e.g. strace)."""
    command = [*map(str, prefix), *launcher(), "-n", str(nranks), str(program),
               *map(str, args)]
    try:
        return subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True,
                              errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired as error:
        raise AssertionError(f"{' '.join(command)} did not finish within {timeout} s; "
                             f"stdout: {error.stdout!r} stderr: {error.stderr!r}") from None


def per_rank_lines(stdout: str) -> list[str]:
    """The program's 'r<rank> ...' lines, grouped by rank, each rank's in its order."""
    def rank_of(line):
        match = re.match(r"r([0-9]+) ", line)
        return int(match.group(1)) if match else -1
    return sorted(stdout.splitlines(), key=rank_of)


def read_expectations(expect_dir: pathlib.Path, rank: int) -> list[dict]:
    path = pathlib.Path(expect_dir) / f"{rank}.jsonl"
    if not path.is_file():
        raise TraceMismatch(f"{path}: the test program wrote no expectations")
    return [json.loads(line) for line in path.read_text().splitlines() if line]


# ---------------------------------------------------------------- .info

_ENTITY_RE = re.compile(r"&(amp|lt|gt|apos|quot|#[0-9]+|#x[0-9a-fA-F]+);|&")
_NAMED_ENTITIES = {"amp": "&", "lt": "<", "gt": ">", "apos": "'", "quot": '"'}


def xml_unescape(text: str, where: str) -> str:
    def replace(match):
        entity = match.group(1)
        if entity is None:
            raise TraceMismatch(f"{where}: bare '&' in an escaped value: {text!r}")
        if entity.startswith("#x"):
            return chr(int(entity[2:], 16))
        if entity.startswith("#"):
            return chr(int(entity[1:]))
        return _NAMED_ENTITIES[entity]
    return _ENTITY_RE.sub(replace, text)


_FIELD_RE = re.compile(r"([A-Za-z][A-Za-z0-9_-]*)=(?:'([^']*)'|\"([^\"]*)\"|([^\s'\"]+))")

# The exact layout of each line kind: (key, quote) in order.
_LAYOUTS = {
    "File": [("name", '"'), ("Size", ""), ("id", "")],
    "Comm": [("map", "'"), ("id", ""), ("name", "'")],
    "InterComm": [("map", "'"), ("remote", "'"), ("id", ""), ("name", "'")],
    "NamedType": [("id", "'"), ("combiner", "'"), ("name", "'"), ("size", "'"),
                  ("extent", "'")],
    # A predefined type with holes also lists its data blocks.
    "NamedTypeBlocks": [("id", "'"), ("combiner", "'"), ("name", "'"), ("size", "'"),
                        ("extent", "'"), ("blocks", "'")],
    # What MPI says of a derived type follows its arguments.
    "DerivedType": [("id", "'"), ("combiner", "'"), ("name", "'"), ("integers", "'"),
                    ("addresses", "'"), ("types", "'"), ("size", "'"), ("lb", "'"),
                    ("extent", "'")],
    # One-sided communication (docs/format/info.md, "Window lines")
    "Win": [("id", ""), ("cid", ""), ("size", ""), ("dispUnit", ""), ("kind", "'")],
    # --- Clocks (docs/format/info.md, "Clock lines")
    "Clock": [("at", "'"), ("time", ""), ("offset", ""), ("rtt", ""), ("leader", ""),
              ("exchanges", "")],
    "ClockAligned": [("backup", "'")],
}
WIN_KINDS = ("create", "allocate", "shared", "dynamic")
_HEADER_RE = re.compile(
    r"Mpi library='([^']*)' order_c=(-?[0-9]+) order_fortran=(-?[0-9]+) "
    r"distribute_block=(-?[0-9]+) distribute_cyclic=(-?[0-9]+) distribute_none=(-?[0-9]+) "
    r"distribute_dflt_darg=(-?[0-9]+)\Z")


def _fields(line: str, start: int, where: str) -> list[tuple[str, str, str]]:
    """key, quote, raw value of each field of line from start (single spaces between)."""
    fields, pos = [], start
    while pos < len(line):
        match = _FIELD_RE.match(line, pos)
        if not match:
            raise TraceMismatch(f"{where}: cannot read a key=value field at column {pos + 1}: "
                                f"{line!r}")
        quote = "'" if match.group(2) is not None else '"' if match.group(3) is not None else ""
        value = next(g for g in match.groups()[1:] if g is not None)
        fields.append((match.group(1), quote, value))
        pos = match.end()
        if pos < len(line):
            if line[pos] != " ":
                raise TraceMismatch(f"{where}: expected one space after {match.group(0)!r}")
            pos += 1
            if pos == len(line):
                raise TraceMismatch(f"{where}: trailing space")
    return fields


def parse_semicolon_list(text: str, where: str) -> list[int]:
    """'a;b;' -> [a, b]; '' -> []. Every element must be followed by ';'."""
    if text == "":
        return []
    if not text.endswith(";"):
        raise TraceMismatch(f"{where}: list {text!r} does not end with ';'")
    items = text[:-1].split(";")
    for item in items:
        if not INT_RE.match(item):
            raise TraceMismatch(f"{where}: list {text!r} holds the non-integer {item!r}")
    return [int(item) for item in items]


def compact_map(worlds: list[int]) -> str:
    """The map the wrapper writes for world ranks listed by local rank: runs
    of world step 1 as w1..w2->l1..l2, runs of 3 or more members with another
    constant world step S as w1..w2:S->l1..l2, everything else member by member."""
    parts, first = [], 0
    while first < len(worlds):
        step = worlds[first + 1] - worlds[first] if first + 1 < len(worlds) else 1
        last = first
        while last + 1 < len(worlds) and worlds[last + 1] - worlds[last] == step:
            last += 1
        if step != 1 and last - first < 2:
            last = first
        if last == first:
            parts.append(f"{worlds[first]}->{first};")
        else:
            stride = "" if step == 1 else f":{step}"
            parts.append(f"{worlds[first]}..{worlds[last]}{stride}->{first}..{last};")
        first = last + 1
    return "".join(parts)


def parse_map(text: str, where: str) -> list[tuple[int, int]]:
    """A communicator map 'w->l;w1..w2->l1..l2;w1..w2:S->l1..l2;' as (world,
    local) pairs, in written order.

    Runs must have equal lengths, and the map must be written in its compact
    form: a maximal run of consecutive members as one range, a run of 3 or
    more members with another constant world step as one strided range
    (docs/format/info.md)."""
    if not text.endswith(";"):
        raise TraceMismatch(f"{where}: map {text!r} does not end with ';'")
    pairs, runs = [], []
    for entry in text[:-1].split(";"):
        match = re.fullmatch(r"([0-9]+)(?:\.\.([0-9]+)(?::(-?[0-9]+))?)?->([0-9]+)(?:\.\.([0-9]+))?",
                             entry)
        if not match or (match.group(2) is None) != (match.group(5) is None):
            raise TraceMismatch(f"{where}: bad map entry {entry!r} in {text!r}")
        w1, l1 = int(match.group(1)), int(match.group(4))
        w2 = int(match.group(2)) if match.group(2) else w1
        l2 = int(match.group(5)) if match.group(5) else l1
        step = int(match.group(3)) if match.group(3) else 1
        if match.group(2) is not None and (
                l2 <= l1 or step == 0 or (w2 - w1) % step != 0 or (w2 - w1) // step != l2 - l1):
            raise TraceMismatch(f"{where}: map run {entry!r} has unequal or empty ranges")
        if step == 1 and runs and runs[-1][4] == 1 and runs[-1][1] + 1 == w1 and \
                runs[-1][3] + 1 == l1:
            raise TraceMismatch(f"{where}: map {text!r} splits the run of consecutive members "
                                f"before {entry!r}; it must be written as one range w1..w2->l1..l2")
        runs.append((w1, w2, l1, l2, step))
        pairs.extend((w1 + k * step, l1 + k) for k in range(l2 - l1 + 1))
    worlds = [w for w, _ in pairs]
    locals_ = sorted(l for _, l in pairs)
    if len(set(worlds)) != len(worlds) or locals_ != list(range(len(pairs))):
        raise TraceMismatch(f"{where}: map {text!r} is not a bijection onto 0..n-1")
    by_local = [w for w, _ in sorted(pairs, key=lambda pair: pair[1])]
    if text != compact_map(by_local):
        raise TraceMismatch(f"{where}: map {text!r} is not in its compact form "
                            f"{compact_map(by_local)!r}")
    return pairs


@dataclasses.dataclass
class Info:
    path: pathlib.Path
    header: dict
    files: dict      # fid -> {"name", "size", "line"}
    comms: dict      # cid -> {"map": {world: local}, "map_text", "remote", "name", "line"}
    types: dict      # tid -> {"combiner", "name", "integers", "addresses", "types", "line",
                     #         "size", "extent", and "lb" of derived types}
    comm_order: list
    file_order: list
    type_order: list
    wins: dict = dataclasses.field(default_factory=dict)  # wid -> {"cid", "size", "dispUnit", "kind", "line"}
    win_order: list = dataclasses.field(default_factory=list)
    # --- Clocks: {"at", "time", "offset", "rtt", "leader", "exchanges", "line"} per line
    clocks: list = dataclasses.field(default_factory=list)


def parse_info(path: pathlib.Path) -> Info:
    path = pathlib.Path(path)
    if not path.is_file():
        raise TraceMismatch(f"{path}: missing")
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise TraceMismatch(f"{path}: not UTF-8 ({error})") from None
    if not text.endswith("\n"):
        raise TraceMismatch(f"{path}: does not end with a newline")
    lines = text[:-1].split("\n")
    match = _HEADER_RE.match(lines[0])
    if not match:
        raise TraceMismatch(f"{path}:1: header line is not the layout of docs/format/trace.md: "
                            f"{lines[0]!r}")
    keys = ["order_c", "order_fortran", "distribute_block", "distribute_cyclic",
            "distribute_none", "distribute_dflt_darg"]
    header = {"library": xml_unescape(match.group(1), f"{path}:1")}
    header.update({k: int(v) for k, v in zip(keys, match.groups()[1:])})
    info = Info(path, header, {}, {}, {}, [], [], [])
    for number, line in enumerate(lines[1:], start=2):
        where = f"{path}:{number}"
        kind, _, _ = line.partition(" ")
        fields = _fields(line, len(kind) + 1, where)
        layout = [(k, q) for k, q, _ in fields]
        values = {k: v for k, _, v in fields}
        if kind == "File":
            _expect_layout(layout, "File", where)
            fid = _int(values["id"], where)
            if fid in info.files:
                raise TraceMismatch(f"{where}: file id {fid} defined twice")
            info.files[fid] = {"name": xml_unescape(values["name"], where),
                               "size": _int(values["Size"], where), "line": number}
            info.file_order.append(fid)
        elif kind == "Comm":
            inter = "remote" in values
            _expect_layout(layout, "InterComm" if inter else "Comm", where)
            cid = _int(values["id"], where)
            if cid in info.comms:
                raise TraceMismatch(f"{where}: communicator id {cid} defined twice")
            info.comms[cid] = {
                "map": dict(parse_map(values["map"], where)), "map_text": values["map"],
                "remote": dict(parse_map(values["remote"], where)) if inter else None,
                "name": xml_unescape(values["name"], where), "line": number}
            info.comm_order.append(cid)
        elif kind == "Type":
            named = values.get("combiner") == "MPI_COMBINER_NAMED"
            kind = "DerivedType"
            if named:
                kind = "NamedTypeBlocks" if "blocks" in values else "NamedType"
            _expect_layout(layout, kind, where)
            tid = _int(values["id"], where)
            if tid in info.types:
                raise TraceMismatch(f"{where}: type id {tid} defined twice (ids are never reused)")
            entry = {"combiner": values["combiner"], "name": xml_unescape(values["name"], where),
                     "line": number, "integers": [], "addresses": [], "types": []}
            if named:
                entry["size"] = _int(values["size"], where)
                entry["extent"] = _int(values["extent"], where)
                entry["blocks"] = [(0, entry["size"])] if entry["size"] else []
                if "blocks" in values:
                    entry["blocks"] = [tuple(_int(n, where) for n in block.split(":"))
                                       for block in values["blocks"].rstrip(";").split(";")]
            else:
                for key in ("integers", "addresses", "types"):
                    entry[key] = parse_semicolon_list(values[key], f"{where}: {key}")
                for key in ("size", "lb", "extent"):
                    entry[key] = _int(values[key], where)
                for child in entry["types"]:
                    if child not in info.types:
                        raise TraceMismatch(f"{where}: type {tid} references type {child}, "
                                            "which no earlier line defines (children first)")
            info.types[tid] = entry
            info.type_order.append(tid)
        elif kind == "Win":
            _parse_win_line(info, layout, values, where, number)
        elif kind in ("Clock", "ClockAligned"):  # --- Clocks
            _expect_layout(layout, kind, where)
            if kind == "Clock":
                entry = {key: _int(values[key], where)
                         for key in ("time", "offset", "rtt", "leader", "exchanges")}
                if values["at"] not in ("init", "finalize"):
                    raise TraceMismatch(f"{where}: Clock at={values['at']!r} is not init or "
                                        "finalize")
                info.clocks.append(dict(entry, at=values["at"], line=number))
        else:
            raise TraceMismatch(f"{where}: unknown line kind {kind!r}: {line!r}")
    return info


def _parse_win_line(info, layout, values, where, number):
    """Win id=<wid> cid=<cid> size=<bytes> dispUnit=<n> kind='<kind>' (one-sided communication).
    (Another thread's .info declares windows at first use, so ids need not be in order.)"""
    _expect_layout(layout, "Win", where)
    wid = _int(values["id"], where)
    if wid in info.wins:
        raise TraceMismatch(f"{where}: window id {wid} defined twice")
    cid = _int(values["cid"], where)
    if cid not in info.comms:
        raise TraceMismatch(f"{where}: window {wid} names communicator {cid}, which no earlier "
                            "line defines")
    if values["kind"] not in WIN_KINDS:
        raise TraceMismatch(f"{where}: window kind {values['kind']!r} is not one of {WIN_KINDS}")
    info.wins[wid] = {"cid": cid, "size": _int(values["size"], where),
                      "dispUnit": _int(values["dispUnit"], where), "kind": values["kind"],
                      "line": number}
    info.win_order.append(wid)


def _int(text: str, where: str) -> int:
    if not INT_RE.match(text):
        raise TraceMismatch(f"{where}: {text!r} is not an integer")
    return int(text)


def _expect_layout(layout, kind, where):
    if layout != _LAYOUTS[kind]:
        want = " ".join(f"{k}={q}..{q}" for k, q in _LAYOUTS[kind])
        got = " ".join(f"{k}={q}..{q}" for k, q in layout)
        raise TraceMismatch(f"{where}: {kind} line layout is '{got}', expected '{want}'")


# ---------------------------------------------------------------- .trc

@dataclasses.dataclass
class Trace:
    path: pathlib.Path
    root: ET.Element
    time_adjustment: int

    @property
    def elements(self) -> list[ET.Element]:
        """The MPI calls' elements (POSIX states left out, see POSIX_CALLS)."""
        return without_posix(list(self.root))

    @property
    def all_elements(self) -> list[ET.Element]:
        return list(self.root)


def parse_trc(path: pathlib.Path) -> Trace:
    path = pathlib.Path(path)
    if not path.is_file():
        raise TraceMismatch(f"{path}: missing")
    raw = path.read_bytes()
    if not raw.startswith(PROLOG):
        raise TraceMismatch(f"{path}: does not start with the prolog {PROLOG!r}: {raw[:60]!r}")
    try:
        root = ET.fromstring(raw)
    except ET.ParseError as error:
        raise TraceMismatch(f"{path}: not well-formed XML: {error}") from None
    if root.tag != "Program" or list(root.attrib) != ["timeAdjustment"]:
        raise TraceMismatch(f"{path}: root is <{root.tag} {root.attrib}>, expected "
                            "<Program timeAdjustment='S'>")
    if not re.fullmatch(r"[0-9]+", root.attrib["timeAdjustment"]):
        raise TraceMismatch(f"{path}: timeAdjustment {root.attrib['timeAdjustment']!r} "
                            "is not whole seconds")
    double_quoted = re.search(rb"<[A-Za-z][^<>]*?=\"", raw[len(PROLOG):])
    if double_quoted:
        raise TraceMismatch(f"{path}: attribute values must use single quotes: "
                            f"{double_quoted.group(0)!r}")
    trace = Trace(path, root, int(root.attrib["timeAdjustment"]))
    check_times(trace)
    return trace


def parse_trc_prefix(path: pathlib.Path) -> list[ET.Element]:
    """The complete top-level elements of a trace that may be cut short, as
    Trace.elements gives them (POSIX states left out)."""
    parser = ET.XMLPullParser(events=("start", "end"))
    elements, depth = [], 0
    try:
        parser.feed(pathlib.Path(path).read_bytes())
        for event, element in parser.read_events():
            if event == "start":
                depth += 1
            else:
                depth -= 1
                if depth == 1:
                    elements.append(element)
    except ET.ParseError:
        pass
    return without_posix(elements)


def _timed(element: ET.Element) -> bool:
    return element.tag not in ("Nested", "For", "Data", "Info", "Block", "Type")


def _check_time_attrs(element, where):
    for key in ("time", "end"):
        value = element.attrib.get(key)
        if value is None or not TIME_RE.match(value):
            raise TraceMismatch(f"{where}: <{element.tag}> {key}={value!r} is not SEC.FRAC "
                                "with 9 fraction digits")
    start, end = decimal.Decimal(element.attrib["time"]), decimal.Decimal(element.attrib["end"])
    if end < start:
        raise TraceMismatch(f"{where}: <{element.tag}> ends ({end}) before it starts ({start})")
    return start, end


def check_times(trace: Trace):
    """time/end format, end >= time, calls in order, nested calls inside their caller."""
    def walk(elements, where, lower, upper):
        previous_end = lower
        pending_nested = []
        for index, element in enumerate(elements):
            here = f"{where}[{index}]"
            if element.tag == "Nested":
                if element.attrib:
                    raise TraceMismatch(f"{here}: <Nested> has attributes {element.attrib}")
                pending_nested.append((element, here))
                continue
            start, end = _check_time_attrs(element, here)
            if previous_end is not None and start < previous_end:
                raise TraceMismatch(f"{here}: <{element.tag}> starts at {start}, before the "
                                    f"previous call ended ({previous_end})")
            if upper is not None and end > upper:
                raise TraceMismatch(f"{here}: nested <{element.tag}> ends after its caller")
            for nested, nested_where in pending_nested:
                walk(list(nested), nested_where, start, end)
            pending_nested = []
            previous_end = end
        if pending_nested:
            raise TraceMismatch(f"{pending_nested[0][1]}: <Nested> block not followed by the "
                                "call that contains it")
    walk(trace.all_elements, str(trace.path), None, None)


def is_ordinary(element: ET.Element) -> bool:
    return list(element.attrib) == ["time", "end"] and len(element) == 0


def describe(element: ET.Element) -> str:
    return ET.tostring(element, encoding="unicode").strip()[:400]


# ---------------------------------------------------------------- comparison

class Checker:
    """Compares one rank's trace and .info with that rank's expectations."""

    def __init__(self, trace: Trace, info: Info, expectations: list[dict]):
        self.trace, self.info = trace, info
        self.calls = [r for r in expectations if r["kind"] == "call"]
        self.typedefs = {r["label"]: r for r in expectations if r["kind"] == "typedef"}
        self._definitions = {}
        self.file_lines = {}
        for record in expectations:
            if record["kind"] == "file":
                self.file_lines.setdefault(record["name"], record["size"])
        self.mpi = next((r for r in expectations if r["kind"] == "mpi"), None)
        self.win_lines = {r["label"]: r for r in expectations if r["kind"] == "win"}
        self.mids, self.wins = {}, {}  # label -> mid / wid
        self.rids, self.types, self.comms, self.files = {}, {}, {}, {}
        self.type_aliases = []
        self.rid_order = []

    # -- the whole comparison
    def check(self, allow_nested: bool = False, type_findings: bool = True):
        """type_findings=False leaves the names and ids of constructor arguments
        in Type lines (self.type_aliases) to the tests about datatypes."""
        self.check_header()
        elements = self.trace.elements
        position = 0
        for number, expected in enumerate(self.calls):
            while True:
                if position >= len(elements):
                    raise TraceMismatch(
                        f"{self.trace.path}: trace ends before expected call #{number} "
                        f"<{expected['tag']}> {self._show(expected)}")
                element = elements[position]
                if element.tag == "Nested" and not allow_nested:
                    raise TraceMismatch(f"{self.trace.path}[{position}]: <Nested> block although "
                                        "nested calls are not traced (HDTRACE_NESTED=0)")
                if element.tag == expected["tag"]:
                    break
                if element.tag == "Nested" or (element.tag in BOOKKEEPING_CALLS
                                               and is_ordinary(element)):
                    position += 1
                    continue
                raise TraceMismatch(
                    f"{self.trace.path}[{position}]: found {describe(element)}, expected call "
                    f"#{number} <{expected['tag']}> {self._show(expected)}")
            self.compare(expected, element, f"{self.trace.path}[{position}]", timed=True)
            position += 1
        for index, element in enumerate(elements[position:], start=position):
            if not (element.tag in BOOKKEEPING_CALLS and is_ordinary(element)):
                raise TraceMismatch(f"{self.trace.path}[{index}]: unexpected trailing element "
                                    f"{describe(element)}")
        if self.type_aliases and type_findings:
            raise TraceMismatch(f"{self.info.path}: Type lines differ from the program's types "
                                "(a type passed to a constructor must be referenced by the id it "
                                "has in the trace, under its own name):\n  "
                                + "\n  ".join(self.type_aliases))

    @staticmethod
    def _show(expected):
        return json.dumps(expected)[:400]

    def check_header(self):
        if self.mpi is None:
            return
        header = self.info.header
        # (the library name is checked by its own test, check_library_line)
        for key in ("order_c", "order_fortran", "distribute_block",
                    "distribute_cyclic", "distribute_none", "distribute_dflt_darg"):
            if header[key] != self.mpi[key]:
                raise TraceMismatch(f"{self.info.path}:1: {key} is {header[key]!r}, the MPI "
                                    f"library says {self.mpi[key]!r}")
        world, self_ = self.info.comms.get(0), self.info.comms.get(1)
        size = self.mpi["world_size"]
        if not world or world["name"] != "WORLD" or world["map"] != {r: r for r in range(size)}:
            raise TraceMismatch(f"{self.info.path}: no Comm line id=0 name='WORLD' mapping "
                                f"0..{size - 1} to itself: {world}")
        if size >= 2 and world["map_text"] != f"0..{size - 1}->0..{size - 1};":
            raise TraceMismatch(f"{self.info.path}: WORLD map is {world['map_text']!r}, expected "
                                f"'0..{size - 1}->0..{size - 1};'")
        if not self_ or self_["name"] != "SELF" or len(self_["map"]) != 1:
            raise TraceMismatch(f"{self.info.path}: no Comm line id=1 name='SELF': {self_}")
        if self.info.comm_order[:2] != [0, 1]:
            raise TraceMismatch(f"{self.info.path}: the first Comm lines must be WORLD (0) and "
                                f"SELF (1), found ids {self.info.comm_order[:2]}")

    def check_library_line(self):
        """library= is the first line of MPI_Get_library_version (docs/format/info.md)."""
        if self.info.header["library"] != self.mpi["library"]:
            raise TraceMismatch(f"{self.info.path}:1: library is {self.info.header['library']!r}, "
                                "the first line of MPI_Get_library_version is "
                                f"{self.mpi['library']!r}")

    def compare(self, expected: dict, element: ET.Element, where: str, timed: bool):
        names = [name for name, _ in expected["attrs"]] + (["time", "end"] if timed else [])
        if list(element.attrib) != names:
            raise TraceMismatch(f"{where}: <{element.tag}> has attributes {list(element.attrib)}, "
                                f"expected {names} (the order of docs/format/calls.md, then time, end); "
                                f"element: {describe(element)}")
        for name, value in expected["attrs"]:
            self.compare_value(value, element.attrib[name], f"{where} <{element.tag}> {name}")
        children = list(element)
        if len(children) != len(expected["children"]):
            raise TraceMismatch(f"{where}: <{element.tag}> has {len(children)} children, expected "
                                f"{len(expected['children'])}: {describe(element)} vs "
                                f"{self._show(expected)}")
        for index, (child_expected, child) in enumerate(zip(expected["children"], children)):
            if child.tag != child_expected["tag"]:
                raise TraceMismatch(f"{where}/{index}: child <{child.tag}>, expected "
                                    f"<{child_expected['tag']}>")
            self.compare(child_expected, child, f"{where}/{child.tag}[{index}]", timed=False)

    def compare_value(self, expected, actual: str, where: str):
        if isinstance(expected, int):
            if not INT_RE.match(actual) or int(actual) != expected:
                raise TraceMismatch(f"{where}: is {actual!r}, expected {expected}")
            return
        if "str" in expected:
            if actual != expected["str"]:
                raise TraceMismatch(f"{where}: is {actual!r}, expected {expected['str']!r}")
            return
        if not INT_RE.match(actual):
            raise TraceMismatch(f"{where}: {actual!r} is not an integer")
        value = int(actual)
        if "any" in expected:
            return
        if "range" in expected:
            low, high = expected["range"]
            if not low <= value <= high:
                raise TraceMismatch(f"{where}: is {value}, expected {low}..{high}")
            return
        if "named" in expected or "dtype" in expected:
            self.resolve_type(expected, value, where)
        elif "comm" in expected:
            self.resolve_comm(expected, value, where)
        elif "file" in expected:
            self.resolve_file(expected["file"], value, where)
        elif "rid" in expected:
            self.resolve_rid(expected["rid"], value, where)
        elif "mid" in expected:
            self.resolve_label(self.mids, "message", "mid", expected["mid"], value, where)
        elif "win" in expected:
            self.resolve_win(expected["win"], value, where)
        else:
            raise AssertionError(f"unknown expectation {expected!r}")

    def resolve_rid(self, label: str, rid: int, where: str):
        split = label.startswith("split:")
        if label in self.rids:
            if self.rids[label] != rid:
                raise TraceMismatch(f"{where}: rid {rid}, but request '{label}' was logged as "
                                    f"rid {self.rids[label]}")
            return
        if rid < 0:
            raise TraceMismatch(f"{where}: negative rid {rid}")
        for other, other_rid in self.rids.items():
            if other_rid == rid and not (split and other.startswith("split:")):
                raise TraceMismatch(f"{where}: rid {rid} of request '{label}' is already the rid "
                                    f"of request '{other}' (rids are never reused)")
        self.rids[label] = rid
        self.rid_order.append(rid)

    # -- matched probes and one-sided communication
    @staticmethod
    def resolve_label(seen: dict, what: str, key: str, label: str, value: int, where: str):
        """Same label, same id; different labels, different ids; ids >= 0."""
        if label in seen:
            if seen[label] != value:
                raise TraceMismatch(f"{where}: {key} {value}, but {what} '{label}' was logged as "
                                    f"{key} {seen[label]}")
            return
        if value < 0:
            raise TraceMismatch(f"{where}: negative {key} {value} for {what} '{label}'")
        for other, other_value in seen.items():
            if other_value == value:
                raise TraceMismatch(f"{where}: {key} {value} of {what} '{label}' is already the "
                                    f"{key} of '{other}' (ids are never reused)")
        seen[label] = value

    def resolve_win(self, label: str, wid: int, where: str):
        self.resolve_label(self.wins, "window", "wid", label, wid, where)
        entry = self.info.wins.get(wid)
        if entry is None:
            raise TraceMismatch(f"{where}: wid {wid} has no Win line in {self.info.path}")
        want = self.win_lines.get(label)
        if want is None:
            raise AssertionError(f"test program bug: no expect_win_line for window '{label}'")
        line = f"{self.info.path}:{entry['line']}"
        for key, expected_key in (("size", "size"), ("dispUnit", "dispUnit"), ("kind", "winKind")):
            if entry[key] != want[expected_key]:
                raise TraceMismatch(f"{line}: window '{label}' (wid {wid}): {key} is "
                                    f"{entry[key]!r}, the program made it with "
                                    f"{want[expected_key]!r}")
        self.resolve_comm(want["comm"], entry["cid"], f"{line}: cid of window '{label}'")

    def resolve_type(self, expected: dict, tid: int, where: str):
        entry = self.info.types.get(tid)
        if entry is None:
            raise TraceMismatch(f"{where}: type id {tid} has no Type line in {self.info.path}")
        if "named" in expected:
            if tid != expected["id"]:
                raise TraceMismatch(f"{where}: {expected['named']} logged as {tid}, expected its "
                                    f"MPI_Type_c2f value {expected['id']}")
            if entry["combiner"] != "MPI_COMBINER_NAMED" or entry["name"] != expected["named"]:
                raise TraceMismatch(f"{where}: Type line of {tid} (line {entry['line']}) says "
                                    f"{entry['combiner']} {entry['name']!r}, expected "
                                    f"MPI_COMBINER_NAMED {expected['named']!r}")
            for key in ("size", "extent"):
                if key in expected and entry[key] != expected[key]:
                    raise TraceMismatch(f"{where}: Type line of {tid} (line {entry['line']}) "
                                        f"says {key} {entry[key]}, the program's "
                                        f"MPI_Type_{'size' if key == 'size' else 'get_extent'} "
                                        f"says {expected[key]}")
            return
        label = expected["dtype"]
        alias = False
        if label in self.types:
            if self.types[label] == tid:
                return
            if " types of " not in where:
                raise TraceMismatch(f"{where}: type '{label}' logged as {tid}, earlier as "
                                    f"{self.types[label]}")
            # A constructor's argument written under another id: compare the
            # line with what the program passed, and report the alias at the end.
            self.type_aliases.append(f"'{label}' is {self.types[label]} in the trace but "
                                     f"{tid} at {where}")
            alias = True
        for other, other_tid in self.types.items():
            if other_tid == tid and other != label and not self.same_definition(label, other):
                raise TraceMismatch(f"{where}: types '{label}' and '{other}' share id {tid} "
                                    "(only types of one definition may share a derived id)")
        if tid < DERIVED_TYPE_BASE:
            raise TraceMismatch(f"{where}: derived type '{label}' has id {tid} < 2^24")
        if not alias:
            self.types[label] = tid
        typedef = self.typedefs.get(label)
        if typedef is None:
            raise AssertionError(f"test program bug: no typedef for '{label}'")
        line = f"{self.info.path}:{entry['line']}"
        for key in ("combiner", "name", "integers", "addresses"):
            if key == "name" and entry[key] != typedef[key]:
                # reported at the end, so that the rest is still compared
                self.type_aliases.append(f"{line}: type '{label}' (id {tid}) is named "
                                         f"{entry[key]!r}, the program's type is named "
                                         f"{typedef[key]!r}")
                continue
            if entry[key] != typedef[key]:
                raise TraceMismatch(f"{line}: type '{label}' (id {tid}): {key} is {entry[key]!r}, "
                                    f"the program passed {typedef[key]!r}")
        if len(entry["types"]) != len(typedef["types"]):
            raise TraceMismatch(f"{line}: type '{label}': types {entry['types']}, the program "
                                f"passed {typedef['types']}")
        for child_tid, child in zip(entry["types"], typedef["types"]):
            self.resolve_type(child, child_tid, f"{line}: types of '{label}'")

    def definition(self, label: str):
        """What the program passed to make one of its types, its inputs
        described alike: two types with one definition were made alike (the
        wrapper gives them one id). None for a label without a typedef."""
        known = self._definitions.get(label)
        if known is not None or label in self._definitions:
            return known
        typedef = self.typedefs.get(label)
        described = None
        if typedef is not None:
            inputs = tuple(("named", child["named"]) if "named" in child
                           else self.definition(child["dtype"]) for child in typedef["types"])
            described = (typedef["combiner"], typedef["name"], tuple(typedef["integers"]),
                         tuple(typedef["addresses"]), inputs)
        self._definitions[label] = described
        return described

    def same_definition(self, first: str, second: str) -> bool:
        if first == second:
            return True
        one = self.definition(first)
        return one is not None and one == self.definition(second)

    def resolve_comm(self, expected: dict, cid: int, where: str):
        label = expected["comm"]
        if label in self.comms:
            if self.comms[label] != cid:
                raise TraceMismatch(f"{where}: communicator '{label}' logged as cid {cid}, "
                                    f"earlier as {self.comms[label]}")
        else:
            for other, other_cid in self.comms.items():
                if other_cid == cid:
                    raise TraceMismatch(f"{where}: communicators '{label}' and '{other}' share "
                                        f"cid {cid}")
            self.comms[label] = cid
        fixed = {"WORLD": 0, "SELF": 1}
        if label in fixed and cid != fixed[label]:
            raise TraceMismatch(f"{where}: MPI_COMM_{label} logged as cid {cid}, "
                                f"expected {fixed[label]}")
        entry = self.info.comms.get(cid)
        if entry is None:
            raise TraceMismatch(f"{where}: cid {cid} has no Comm line in {self.info.path}")
        line = f"{self.info.path}:{entry['line']}"
        members = {w: l for l, w in enumerate(expected["members"])}
        if entry["map"] != members:
            raise TraceMismatch(f"{line}: map of communicator '{label}' (cid {cid}) is "
                                f"{entry['map_text']!r}, its members (world ranks by local "
                                f"rank) are {expected['members']}")
        remote = expected.get("remote")
        if remote is None and entry["remote"] is not None:
            raise TraceMismatch(f"{line}: intracommunicator '{label}' has a remote= group")
        if remote is not None:
            want = {w: l for l, w in enumerate(remote)}
            if entry["remote"] != want:
                raise TraceMismatch(f"{line}: remote group of '{label}' is {entry['remote']}, "
                                    f"expected world ranks {remote}")

    def resolve_file(self, name: str, fid: int, where: str):
        if name in self.files and self.files[name] != fid:
            raise TraceMismatch(f"{where}: file {name!r} logged as fid {fid}, earlier as "
                                f"{self.files[name]}")
        for other, other_fid in self.files.items():
            if other_fid == fid and other != name:
                raise TraceMismatch(f"{where}: files {name!r} and {other!r} share fid {fid}")
        self.files[name] = fid
        entry = self.info.files.get(fid)
        if entry is None:
            raise TraceMismatch(f"{where}: fid {fid} has no File line in {self.info.path}")
        if entry["name"] != name:
            raise TraceMismatch(f"{self.info.path}:{entry['line']}: fid {fid} is named "
                                f"{entry['name']!r}, expected {name!r}")
        if name in self.file_lines and entry["size"] != self.file_lines[name]:
            raise TraceMismatch(f"{self.info.path}:{entry['line']}: Size of {name!r} is "
                                f"{entry['size']}, it had {self.file_lines[name]} bytes at its "
                                "first open")


def check_calls_before_kill(base: pathlib.Path, elements, expect_dir, tags):
    """The calls a killed rank 0 recorded (expect_dir) are tags, and the
    elements read from its trace before the cut are those calls, each with
    the values the program passed (info: base's .info)."""
    info = parse_info(base.with_suffix(".info"))
    expected = [r for r in read_expectations(expect_dir, 0) if r["kind"] == "call"]
    assert [r["tag"] for r in expected] == tags
    calls = [e for e in elements if e.tag not in BOOKKEEPING_CALLS]
    assert [e.tag for e in calls] == tags
    checker = Checker(Trace(base, None, 0), info, [])
    for record, element in zip(expected, calls):
        checker.compare(record, element, str(base), timed=True)


def _rid_label(value):
    return value.get("rid") if isinstance(value, dict) else None


def filtered_expectations(expectations: list[dict], keep) -> list[dict]:
    """A rank's expectations under a filter that writes only the calls whose
    tag keep(tag) accepts: the others go, and a request one of them made
    has no rid, so a <For> naming it goes too and a later call that names it
    (Start) writes -1."""
    dropped = set()
    kept = []
    for record in expectations:
        if record["kind"] == "call" and not keep(record["tag"]):
            dropped |= {_rid_label(value) for _, value in record["attrs"]} - {None}
        else:
            kept.append(record)

    def without_dropped(record):
        record = dict(record)
        record["attrs"] = [[name, -1 if _rid_label(value) in dropped else value]
                           for name, value in record["attrs"]]
        record["children"] = [without_dropped(child) for child in record["children"]
                              if not (child["tag"] == "For" and any(
                                  _rid_label(value) in dropped for _, value in child["attrs"]))]
        return record
    return [without_dropped(record) if record["kind"] == "call" else record for record in kept]


def load_rank(trace_dir, expect_dir, program: str, rank: int, keep=None):
    base = trace_base(trace_dir, program, rank)
    trace = parse_trc(base.with_suffix(".trc"))
    info = parse_info(base.with_suffix(".info"))
    expectations = read_expectations(expect_dir, rank)
    if keep is not None:
        expectations = filtered_expectations(expectations, keep)
    return Checker(trace, info, expectations)


def check_run(trace_dir, expect_dir, program: str, nranks: int, allow_nested=False,
              type_findings=True, keep=None):
    """Compare every rank's trace with its expectations (with keep, those
    of the calls a filter writes: filtered_expectations); returns the checkers."""
    trace_dir = pathlib.Path(trace_dir)
    checkers = []
    for rank in range(nranks):
        checker = load_rank(trace_dir, expect_dir, program, rank, keep)
        checker.check(allow_nested=allow_nested, type_findings=type_findings)
        checkers.append(checker)
    extra = sorted(p.name for p in trace_dir.glob("*.trc")
                   if p.with_suffix("") not in {trace_base(trace_dir, program, r)
                                                for r in range(nranks)})
    if extra:
        raise TraceMismatch(f"{trace_dir}: unexpected trace files {extra}")
    return checkers
