"""hdtrace convert: a trace written in one form (XML .trc, compact .ctrc) in the other.

The XML written from a compact trace is, byte for byte, what the writer's
XML mode writes for the same calls, so the PIOsim tools read it as a trace
traced in XML. Each output is written under a temporary name and renamed
when complete: a failure leaves no partial file.
"""
import argparse
import os
import sys

from .. import native
from ..layer_traces import layer_trace_paths
from ..project import open as open_project

XML_SUFFIX = native.XML_TRACE_SUFFIX
COMPACT_SUFFIX = native.COMPACT_TRACE_SUFFIX
SUFFIX_OF_FORM = {"xml": XML_SUFFIX, "compact": COMPACT_SUFFIX}


#: The frame sizes a compact trace may have (hdtrace/codec/FrameFormat.hpp).
MIN_FRAME_BYTES, MAX_FRAME_BYTES = 256, 64 << 20


def frame_bytes(text):
    """--frame-bytes: a whole number of bytes within the container's limits."""
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not MIN_FRAME_BYTES <= value <= MAX_FRAME_BYTES:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a frame size from {MIN_FRAME_BYTES} to {MAX_FRAME_BYTES} bytes")
    return value


def base_of(path):
    """A trace's path without its suffix of either form."""
    for suffix in (XML_SUFFIX, COMPACT_SUFFIX):
        if path.endswith(suffix) and len(os.path.basename(path)) > len(suffix):
            return path[:-len(suffix)]
    return path


def form_of(path):
    """'xml' or 'compact', by the file's first bytes."""
    return native.trace_form(path).lower()


def traces_of(project_path):
    """The trace files a project names (the form found for each, XML where both are),
    each followed by the layer traces beside it (<base>.hdf5.trc)."""
    project = open_project(project_path, partial=True)
    missing = set(project.missing_traces)
    paths = []
    for leaf in project.topology.leaves:
        if leaf.path not in missing:
            paths.append(leaf.path)
            paths += [path for _, path in layer_trace_paths(leaf.path)]
    return paths


def plan(inputs, to, output):
    """[(source, target, form)] for the inputs; raises ValueError on a bad request."""
    jobs = []
    for name in inputs:
        is_project = name.endswith(".proj")
        sources = traces_of(name) if is_project else [name]
        if not is_project and not os.path.isfile(name):
            raise ValueError(f"{name}: no such trace file" if not os.path.exists(name)
                             else f"{name}: not a regular file")
        for source in sources:
            source_form = form_of(source)
            # A project's traces go to XML unless asked otherwise: the
            # PIOsim tools read only XML.
            form = to or ("xml" if is_project or source_form == "compact" else "compact")
            if form == source_form:
                if is_project:
                    continue  # already what was asked
                raise ValueError(f"{source}: already a {form} trace")
            jobs.append((source, base_of(source) + SUFFIX_OF_FORM[form], form))
    if output is not None:
        if len(jobs) != 1:
            raise ValueError(f"-o/--output takes one trace to convert, not {len(jobs)}")
        jobs[0] = (jobs[0][0], output, jobs[0][2])
    return jobs


def command_convert(args):
    try:
        jobs = plan(args.inputs, args.to, args.output)
    except ValueError as error:
        print(f"hdtrace convert: error: {error}", file=sys.stderr)
        return 1
    for source, target, form in jobs:
        if os.path.exists(target) and not args.force:
            print(f"hdtrace convert: error: {target} exists (--force replaces it); "
                  f"nothing written for {source}", file=sys.stderr)
            return 1
    for source, target, form in jobs:
        try:
            native.convert_trace(source, target, form, args.frame_bytes)
        except native.ReadError as error:
            print(f"hdtrace convert: error: {error}\nhdtrace convert: nothing written for "
                  f"{source}", file=sys.stderr)
            return 1
        if not args.quiet:
            print(f"{target}: {form}, {os.path.getsize(target)} bytes "
                  f"(from {source}, {os.path.getsize(source)} bytes)")
    return 0


def register(commands):
    convert = commands.add_parser(
        "convert", help="write a trace in the other form (XML .trc, compact .ctrc)",
        description="Writes each INPUT trace in the other form beside it: <base>.ctrc for an "
                    "XML <base>.trc, <base>.trc for a compact <base>.ctrc. A project (.proj) "
                    "stands for every trace it names, and the layer traces beside them "
                    "(<base>.hdf5.trc), and converts them to XML, the form the "
                    "PIOsim tools read (the project then names the XML traces, which the tools "
                    "and hdtrace prefer where both forms are there). The XML written from a "
                    "compact trace is byte for byte what XML tracing writes. Each output is "
                    "written to a temporary name and renamed when complete. Exit status: 0 "
                    "when every output was written, 1 on bad input (the error names the file "
                    "and the byte offset), 2 on a usage error.")
    convert.add_argument("inputs", nargs="+", metavar="INPUT",
                         help="a trace (.trc or .ctrc, of either form by its content) or a "
                              "project (.proj)")
    convert.add_argument("--to", choices=("xml", "compact"),
                         help="the form to write (default: the other form; for a project, xml)")
    convert.add_argument("-o", "--output", metavar="FILE",
                         help="write to FILE (one trace only; default: beside the input)")
    convert.add_argument("--frame-bytes", type=frame_bytes, default=0, metavar="N",
                         help="compact output: records per frame before compression, "
                              f"{MIN_FRAME_BYTES} to {MAX_FRAME_BYTES} bytes (default: the "
                              "writer's, 1 MiB, or as few as hold a smaller trace whole); "
                              "smaller frames let readers split a trace more finely (Dask "
                              "partitions), at some cost in size")
    convert.add_argument("--force", action="store_true", help="replace outputs that exist")
    convert.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    convert.set_defaults(handler=command_convert)
