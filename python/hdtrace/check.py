"""hdtrace check: does a run load in the PIOsim tools?

Checks a project (.proj) and the traces its topology names against what the
PIOsim tools (the simulator PIOsimHD, the viewer HDJumpshot and their Java
trace reader) need, as docs/format/project.md states it:

- every NAMED datatype is one of the predefined types the tools know; any
  other predefined type must be written as a byte layout (the Java reader
  refuses the whole project on an unknown name);
- every datatype element is one of the five the tools read in full (NAMED,
  CONTIGUOUS, VECTOR, STRUCT, SUBARRAY): they refuse any other name, and
  read HINDEXED, HVECTOR and INDEXED_BLOCK as placeholders that move no
  bytes; and its numbers fit the 32-bit integers they read;
- every type references only types defined before it in its rank;
- non-empty communicator names are unique and the world is named WORLD (the
  reader keeps one communicator per name);
- every rooted collective carries rootRank (the simulator reads it for all
  of them and fails on the first Gather or Scatter without it);
- no time is negative (relative to the trace's timeAdjustment);
- every id a trace element uses is defined: cid/newCid in the
  CommunicatorList for that rank, tid-like attributes in the rank's
  Datatypes, fid by a File_open of the rank (but for the C library's calls,
  which the tools skip, nested or not: their files need not be MPI files,
  and their file ids come from the .info);
- every <For rid/> names a request issued before it (in the same trace, or
  by another thread of the rank);
- every trace is there in XML: a trace only in compact form is a problem
  whose message says what writes its XML beside it;
- every layer trace beside a trace (HDF5's <base>.hdf5.trc, either form)
  reads whole and holds its layer's calls only: the tools never read it,
  but HDTrace's readers nest the main trace's calls beneath it.

Each problem is reported as "file:line: problem", with what to do about it:
traces written before these rules need to be merged again (names, type
layouts) or written again (rootRank, times), and the message says which.
"""
import os
import shlex
import xml.parsers.expat

from . import native
from .calls import COMMUNICATOR_ATTRIBUTES as COMM_ATTRIBUTES
from .calls import DATATYPE_ATTRIBUTES as TYPE_ATTRIBUTES
from .calls import FILE_DELETES, FILE_OPENS, POSIX_CALLS, attribute_names, attribute_value
from .calls import ROOTED  # the simulator reads rootRank for each of them
from .calls import LAYERS, layer_key
from .errors import ReadError, read_error
from .layer_traces import layer_trace_paths
from .project import open as open_project

#: The predefined types the PIOsim tools know by name, with the size they
#: assume: hdtrace/include/hdtrace/PiosimTypes.hpp's table, which the wrapper
#: and the merger decide by.
PIOSIM_NAMED_TYPES = native.PIOSIM_NAMED_TYPES
#: The datatype elements the tools read in full, and those they read as a
#: placeholder of size 0; they refuse every other name.
PIOSIM_FULL_FORMS = native.PIOSIM_FULL_FORMS
PIOSIM_PLACEHOLDER_FORMS = native.PIOSIM_PLACEHOLDER_FORMS
#: The attributes of datatype elements the tools read as 32-bit integers.
PIOSIM_INT_ATTRIBUTES = native.PIOSIM_INT_ATTRIBUTES

REMERGE = "merge the run again with this HDTrace's project-merger"
RETRACE = "trace the program again with this HDTrace"


def xml_traces_command(project_path):
    """What writes the XML traces of a compact run beside its compact ones."""
    return f"hdtrace convert --to xml {shlex.quote(project_path)}"


class Problem:
    def __init__(self, path, line, text, piosim=True):
        # piosim: a problem of what the PIOsim tools read (else of a layer
        # trace beside it, which only HDTrace's readers read)
        self.path, self.line, self.text, self.piosim = path, line, text, piosim

    def __str__(self):
        return f"{self.path}:{self.line}: {self.text}"


class _ProjectModel:
    """What the checks of the traces need from the .proj, with line numbers."""

    def __init__(self):
        self.comm_names = []        # (name, line)
        self.cids = {}              # world rank -> set of cids
        self.types = {}             # rank -> set of type ids
        self.trace_names = []       # leaves: (host, rank, thread) as written


def _parse(path, start, end=None):
    """Runs expat over a file; start/end get (name, attributes, line)."""
    parser = xml.parsers.expat.ParserCreate()

    def on_start(name, attributes):
        start(name, attributes, parser.CurrentLineNumber)

    parser.StartElementHandler = on_start
    if end is not None:
        parser.EndElementHandler = lambda name: end(name, parser.CurrentLineNumber)
    with open(path, "rb") as stream:
        try:
            parser.ParseFile(stream)
        except xml.parsers.expat.ExpatError as error:
            return Problem(path, error.lineno,
                           f"not well-formed XML ({xml.parsers.expat.ErrorString(error.code)}): "
                           "the tools cannot read it; a trace cut short is read only up to there")
    return None


def _integer(text):
    try:
        return int(text)
    except (TypeError, ValueError):
        return None


def check_project_file(path, problems):
    """The .proj-level checks; returns the model the trace checks use."""
    model = _ProjectModel()
    stack = []
    state = {"rank": None, "defined": set(), "communicator": None}

    def start(name, attributes, line):
        parent = stack[-1] if stack else None
        section = stack[1] if len(stack) > 1 else None
        stack.append(name)
        if section is None and name in ("CommunicatorList", "Datatypes", "Topology"):
            return
        if section == "CommunicatorList":
            if name == "Communicator":
                model.comm_names.append((attributes.get("name", ""), line))
            elif name == "Rank" and parent == "Communicator":
                world, cid = _integer(attributes.get("global")), _integer(attributes.get("cid"))
                if world is not None and cid is not None:
                    model.cids.setdefault(world, set()).add(cid)
        elif section == "Datatypes":
            if parent == "Datatypes" and name == "Rank":
                state["rank"] = _integer(attributes.get("name"))
                state["defined"] = model.types.setdefault(state["rank"], set())
                return
            if len(stack) != 4:  # a type's child: <Type id=.../> of a STRUCT
                if name == "Type":
                    _reference(attributes.get("id"), line, "Type id")
                _check_numbers(stack[-2], attributes, line)
                return
            _check_type(name, attributes, line)

    def _check_numbers(name, attributes, line):
        if name not in PIOSIM_FULL_FORMS:
            return
        for key in PIOSIM_INT_ATTRIBUTES:
            value = _integer(attributes.get(key))
            largest = native.PIOSIM_LARGEST_NUMBER
            if value is not None and not -largest - 1 <= value <= largest:
                problems.append(Problem(path, line, (
                    f"rank {state['rank']}: {key}='{value}' of a <{name}> does not fit the "
                    "32-bit integers the PIOsim tools read: they refuse the whole project "
                    "(the type is too large for them)")))
                return

    def _reference(type_id, line, what):
        if type_id is not None and _integer(type_id) not in state["defined"]:
            problems.append(Problem(path, line, f"rank {state['rank']}: {what}='{type_id}' "
                                    "references a type not defined before it in this rank"))

    def _check_type(name, attributes, line):
        type_name = attributes.get("name", "")
        if name == "NAMED" and type_name not in PIOSIM_NAMED_TYPES:
            problems.append(Problem(path, line, (
                f"rank {state['rank']}: <NAMED name='{type_name}'> is a predefined type the "
                "PIOsim tools do not know: their reader refuses the whole project. "
                f"To fix: {REMERGE}, which writes it as a byte layout; if the merger says "
                f"the .info lines lack size and extent, {RETRACE} first")))
        if name not in PIOSIM_FULL_FORMS:
            how = ("reads it as a placeholder of size 0, so the simulator moves no bytes for it"
                   if name in PIOSIM_PLACEHOLDER_FORMS else "refuses the whole project on it")
            problems.append(Problem(path, line, (
                f"rank {state['rank']}: <{name} id='{attributes.get('id', '')}'> is not a "
                f"datatype element the PIOsim tools read in full: their reader {how}. "
                f"To fix: {REMERGE}, which writes every type as NAMED, CONTIGUOUS, VECTOR, "
                f"STRUCT or SUBARRAY; if the merger says the .info lines lack size, lb and "
                f"extent, {RETRACE} first")))
        _check_numbers(name, attributes, line)
        if "oldType" in attributes:
            _reference(attributes["oldType"], line, "oldType")
        type_id = _integer(attributes.get("id"))
        if type_id is None:
            problems.append(Problem(path, line, f"rank {state['rank']}: <{name}> has no id"))
        else:
            state["defined"].add(type_id)

    def end(name, line):
        stack.pop()

    damage = _parse(path, start, end)
    if damage:
        problems.append(damage)
        return model

    seen = {}
    for name, line in model.comm_names:
        if not name:
            continue
        if name in seen:
            hint = (" (each rank's MPI_COMM_SELF is named 'SELF <rank>' now)"
                    if name == "SELF" else "")
            problems.append(Problem(path, line, (
                f"communicator name '{name}' repeats that of line {seen[name]}: the PIOsim "
                f"reader keeps one communicator per name, so a rank loses one. To fix: "
                f"{REMERGE}{hint}")))
        else:
            seen[name] = line
    if model.comm_names and "WORLD" not in seen:
        problems.append(Problem(path, model.comm_names[0][1],
                                f"no communicator is named WORLD. To fix: {REMERGE}"))
    return model


def check_trace(path, rank, model, issued_in_rank, problems, fids_of_rank):
    """The checks of one .trc. issued_in_rank: rids issued in any trace of the rank."""
    issued = set()
    cids = model.cids.get(rank, set())
    types = model.types.get(rank, set())
    stack = []

    def start(name, attributes, line):
        stack.append(name)
        if name in ("Program", "Nested"):
            return
        if name == "For":
            rid = _integer(attribute_value(stack[-2] if len(stack) > 1 else name, attributes,
                                           "request"))
            if rid is not None and rid not in issued and rid not in issued_in_rank:
                problems.append(Problem(path, line, (
                    f"<For rid='{rid}'> in <{stack[-2] if len(stack) > 1 else '?'}> completes "
                    f"a request no call of rank {rank} issued before it")))
            return
        if len(stack) > 1 and stack[-2] not in ("Program", "Nested"):
            check_types(name, attributes, line)  # <Data tid=...>, a child of a call
            return
        for attribute in ("time", "end"):
            value = attributes.get(attribute)
            if value is not None and value.strip().startswith("-"):
                problems.append(Problem(path, line, (
                    f"<{name}> {attribute}='{value}' is negative: timeAdjustment was taken "
                    f"after the call started. To fix: {RETRACE}")))
        root = attribute_names(name, "rooted_by")
        if name in ROOTED and root and root[0] not in attributes:
            problems.append(Problem(path, line, (
                f"<{name}> has no {root[0]}: the simulator reads {root[0]} for every rooted "
                f"collective and fails loading it (NullPointerException). To fix: {RETRACE}")))
        for attribute in COMM_ATTRIBUTES:
            cid = _integer(attributes.get(attribute))
            if cid is not None and cid >= 0 and cid not in cids:
                problems.append(Problem(path, line, (
                    f"<{name}> {attribute}='{cid}': rank {rank} has no communicator with this "
                    "id in the project's CommunicatorList")))
        check_types(name, attributes, line)
        fid = _integer(attribute_value(name, attributes, "file"))
        if name in FILE_OPENS and fid is not None:
            fids_of_rank.add(fid)
        elif fid is not None and fid >= 0 and fid not in fids_of_rank and \
                name not in FILE_DELETES and name not in POSIX_CALLS:
            # A POSIX call's file id is declared by the .info's File line, which
            # the project does not keep per rank; the PIOsim tools skip the call.
            problems.append(Problem(path, line, (
                f"<{name}> fid='{fid}': no File_open of rank {rank} before it gave this id")))
        rid = _integer(attribute_value(name, attributes, "request"))
        if rid is not None:
            issued.add(rid)

    def check_types(name, attributes, line):
        for attribute in TYPE_ATTRIBUTES:
            tid = _integer(attributes.get(attribute))
            if tid is not None and tid >= 0 and tid not in types:
                problems.append(Problem(path, line, (
                    f"<{name}> {attribute}='{tid}': rank {rank} has no datatype with this id "
                    "in the project's Datatypes")))

    def end(name, line):
        stack.pop()

    damage = _parse(path, start, end)
    if damage:
        problems.append(damage)


def check_layer_traces(main_path, problems):
    """The traces of the layers traced apart beside a main trace (HDF5,
    <base>.hdf5.trc): the PIOsim tools never read them, but every reader of
    HDTrace nests the main trace's calls beneath theirs, so each must read
    whole, in either form, and hold its own layer's calls only."""
    for layer, path in layer_trace_paths(main_path):
        try:
            tree = native.read_call_tree(path)
        except ReadError as error:
            problems.append(Problem(path, 0, (
                f"the {LAYERS[layer][0]} layer's trace cannot be read ({error}): HDTrace's "
                f"readers refuse the run until it is. To fix: {RETRACE}, or remove this file "
                "to read the run without the layer"), piosim=False))
            continue
        foreign = [name for name in tree["names"] if layer_key(name) != layer]
        if foreign:
            problems.append(Problem(path, 0, (
                f"<{foreign[0]}> is no call of the {LAYERS[layer][0]} layer"
                + (f" (nor are {len(foreign) - 1} more)" if len(foreign) > 1 else "")
                + f": this is not the layer trace HDTrace writes beside {main_path}"),
                piosim=False))


def _rids_issued(path):
    """Every rid attribute of a trace (requests issued there)."""
    rids = set()

    def start(name, attributes, line):
        if name != "For":
            rid = _integer(attribute_value(name, attributes, "request"))
            if rid is not None:
                rids.add(rid)

    _parse(path, start)
    return rids


def check(project_path):
    """All problems of a project and its traces, in file order."""
    problems = []
    if not os.path.isfile(project_path):
        # A directory or FIFO exists: it is no project, but not missing.
        raise read_error(project_path, 0, 0, "not a regular file" if os.path.exists(project_path)
                         else "no such project file")
    model = check_project_file(project_path, problems)
    if problems and problems[-1].text.startswith("not well-formed XML"):
        return problems, 0  # no topology to find the traces by
    project = open_project(project_path, partial=True)
    leaves = [leaf for leaf in project.topology.leaves]
    by_rank = {}
    for leaf in leaves:
        by_rank.setdefault(leaf.rank, []).append(leaf)
    for rank, rank_leaves in sorted(by_rank.items()):
        present = [leaf for leaf in rank_leaves if os.path.isfile(leaf.path)]
        for leaf in rank_leaves:
            if leaf not in present:
                problems.append(Problem(project_path, 0, (
                    f"the trace of rank {rank} thread {leaf.thread} is missing: {leaf.path}")))
        compact = [leaf for leaf in present if native.trace_form(leaf.path) == "compact"]
        for leaf in compact:
            problems.append(Problem(leaf.path, 0, (
                f"the trace of rank {rank} thread {leaf.thread} is only in compact form, which "
                f"the PIOsim tools do not read. To fix: {xml_traces_command(project_path)} "
                "(writes the XML trace beside each compact one; the project then names it)")))
        for leaf in present:
            check_layer_traces(leaf.path, problems)
        present = [leaf for leaf in present if leaf not in compact]
        issued = {leaf.path: _rids_issued(leaf.path) for leaf in present}
        fids = set()
        for leaf in sorted(present, key=lambda leaf: leaf.thread):
            others = set().union(*[rids for path, rids in issued.items() if path != leaf.path])
            check_trace(leaf.path, rank, model, others, problems, fids)
    return problems, len(leaves)


#: Lines printed of one problem (the same text in the same file) before the
#: rest are counted in one line: a program that makes a call a million times
#: makes its problem a million times.
SHOWN_PER_PROBLEM = 3


def problem_lines(problems, shown_per_problem=SHOWN_PER_PROBLEM):
    """The lines that name problems, in file order: each problem's first
    shown_per_problem lines, then how many more there are and the last
    one's line (None: every line)."""
    if shown_per_problem is None:
        return [str(problem) for problem in problems]
    total, last = {}, {}
    for problem in problems:
        key = (problem.path, problem.text)
        total[key] = total.get(key, 0) + 1
        last[key] = problem.line
    lines, seen = [], {}
    for problem in problems:
        key = (problem.path, problem.text)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > shown_per_problem:
            continue
        lines.append(str(problem))
        more = total[key] - shown_per_problem
        if seen[key] == shown_per_problem and more > 0:
            lines.append(f"{problem.path}: the same problem on {more} more line(s), the last "
                         f"at line {last[key]} (--all lists each)")
    return lines


def command_check(args):
    problems, traces = check(args.project)
    for line in problem_lines(problems, None if args.all else SHOWN_PER_PROBLEM):
        print(line)
    if problems:
        failing = "the PIOsim tools" if any(problem.piosim for problem in problems) else \
            "HDTrace's readers (not the PIOsim tools)"
        print(f"hdtrace check: {len(problems)} problem(s): {failing} would fail on "
              f"{args.project}", flush=True)
        return 1
    print(f"{args.project}: {traces} trace(s) pass the PIOsim checks")
    return 0


def register(commands):
    sub = commands.add_parser(
        "check", help="check a run against what the PIOsim tools need",
        description="Checks a project and its traces against what the PIOsim simulator and "
                    "viewer need (docs/format/project.md): known predefined type names or byte layouts, "
                    "rootRank on rooted collectives, unique communicator names, no negative "
                    "time, every id defined, every <For> issued. Prints 'file:line: problem' "
                    "for each failure, with what to do (merge again, or trace again), and "
                    "exits 1 when there is one. A problem repeated in one file is listed "
                    f"{SHOWN_PER_PROBLEM} times, then counted.")
    sub.add_argument("project", help="the project description (.proj)")
    sub.add_argument("--all", action="store_true",
                     help="list every line of a repeated problem")
    sub.set_defaults(handler=command_check)
