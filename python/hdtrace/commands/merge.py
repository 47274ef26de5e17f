"""hdtrace merge: a run's .info files into a project (.proj)."""
import os
import subprocess
import sys

from .. import native
from ..merging import find_project_merger


def command_merge(args):
    """The merger through the bindings (or, in a build without it, the project-merger program)."""
    if not native.has_merger():
        merger = find_project_merger()
        if merger is None:
            print("hdtrace merge: this build has no merger library, and no project-merger "
                  "program was found (build with -DHDTRACE_BUILD_MERGER=ON)", file=sys.stderr)
            return 1
        return subprocess.call([merger, *args.original_argv])
    try:
        # File names as the file system has them (bytes), invalid UTF-8 included.
        result = native.merge([os.fsencode(name) for name in args.inputs],
                              os.fsencode(args.output or ""), args.description or "",
                              args.distribution_class, args.chunk_size, args.force,
                              progress=not args.quiet)
    except (native.MergeError, OSError) as error:
        print(f"hdtrace merge: error: {error}\nhdtrace merge: no project file written",
              file=sys.stderr)
        return 1
    for warning in result["warnings"]:
        print(f"hdtrace merge: warning: {warning}", file=sys.stderr)
    if not args.quiet:
        print(f"{result['output_path']}: {result['ranks']} ranks, {result['traces']} traces, "
              f"{result['files']} files, {result['communicators']} communicators, "
              f"{result['datatypes']} datatypes")
    return 0


def register(commands):
    merge = commands.add_parser(
        "merge", help="merge the .info files of a run into a project (.proj)",
        description="Unifies the .info files of a traced run into <program>.proj, like "
                    "project-merger. An INPUT is a .info file, a .trc or .ctrc file, a trace base name "
                    "(dir/app_host_0_0), a directory holding the run, or a program prefix "
                    "(dir/app), in any mix. Exit status: 0 when the project was written, 1 on "
                    "bad input (nothing is written then), 2 on a usage error.")
    merge.add_argument("inputs", nargs="+", metavar="INPUT")
    merge.add_argument("-o", "--output", metavar="FILE",
                       help="write the project to FILE (default: <program>.proj beside the traces)")
    merge.add_argument("-d", "--description", metavar="TEXT", help="TEXT of the <Description>")
    merge.add_argument("--distribution-class", metavar="CLASS",
                       default=native.DEFAULT_DISTRIBUTION_CLASS,
                       help="CLASS of the file distribution (default %(default)s)")
    merge.add_argument("--chunk-size", metavar="SIZE", default=native.DEFAULT_CHUNK_SIZE,
                       help="SIZE of the distribution's chunks (default %(default)s)")
    merge.add_argument("--force", action="store_true",
                       help="write what can be merged and list what was dropped as warnings")
    merge.add_argument("-q", "--quiet", action="store_true",
                       help="print nothing but errors and warnings (no progress either)")
    merge.set_defaults(handler=command_merge)
