#!/usr/bin/python3
"""Shifted layouts: one build's libhdtracempi.so linked again with its hot
code moved by a number of bytes, to measure how much a traced call's cost
depends on where its code lands.

    /usr/bin/python3 bench/mpiwrapper/shifted_layouts.py [--build BUILD]
        [--shifts 0,16,32,48,64,96,2048] [--out DIR]
        [--harness RUN.SH --program MPIBENCH [--format compact]
         [--repetitions 7] [--cases fwrite]]

Each library is the build's own link of libhdtracempi.so (its CMake link
command, the same objects) with one object more: padding in a section of
rare code (.text.unlikely.*), which the linker places after the other rare
code and before the hot code. Every hot function moves by the padding's
size and nothing else changes: not the code, not the branch counts, not
the alignment within a function. The script checks the move on a hot
symbol of each library and says where it differs.

With --harness (the shared yardstick's run.sh) and --program (an mpibench
built untraced), it runs the cases untraced and with each library
preloaded, interleaved, and prints the harness's summary; otherwise it
prints the mode arguments to give run.sh. Prints figures; asserts nothing
(docs/dev/performance.md, "Where the code lands").
"""
import argparse
import os
import pathlib
import shlex
import subprocess
import sys

# A function on the path of every traced MPI-IO write: its move is the shift.
HOT_SYMBOL = "MPI_File_write_at"
LINK_COMMAND = "mpiwrapper/CMakeFiles/hdtracempi_shared.dir/link.txt"


def fail(message):
    print(f"shifted_layouts.py: {message}", file=sys.stderr)
    sys.exit(2)


def cache_value(build, name):
    """A variable of the build tree's CMakeCache.txt."""
    for line in (build / "CMakeCache.txt").read_text().splitlines():
        if line.startswith(name + ":"):
            return line.split("=", 1)[1]
    fail(f"{build}/CMakeCache.txt has no {name}")


def padding_object(compiler, shift, directory):
    """An object holding shift bytes of rare code and nothing else."""
    source = directory / f"padding_{shift}.c"
    skip = f"\\n.skip {shift}" if shift > 0 else ""
    source.write_text(
        f'__asm__(".section .text.unlikely.zz_layout_shift,\\"ax\\",@progbits{skip}'
        f'\\n.previous");\n')
    target = directory / f"padding_{shift}.o"
    subprocess.run([compiler, "-c", "-o", str(target), str(source)], check=True)
    return target


def link_shifted(build, command, padding, output):
    """The build's link of libhdtracempi.so, to output, with padding last."""
    words = shlex.split(command)
    if "-o" not in words:
        fail(f"no -o in {build / LINK_COMMAND}")
    words[words.index("-o") + 1] = str(output)
    subprocess.run(words + [str(padding)], cwd=build / "mpiwrapper", check=True)


def symbol_address(library, name):
    listing = subprocess.run(["nm", "--defined-only", str(library)], capture_output=True,
                             text=True, check=True).stdout
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[2] == name and fields[1] in "tT":
            return int(fields[0], 16)
    fail(f"{library} defines no {name}")


def main():
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--build", default="build", type=pathlib.Path)
    parser.add_argument("--shifts", default="0,16,32,48,64,96,2048",
                        help="bytes to move the hot code by, comma-separated")
    parser.add_argument("--out", type=pathlib.Path,
                        help="where the libraries go (default: BUILD/bench/shifted-layouts)")
    parser.add_argument("--harness", type=pathlib.Path, help="the shared yardstick's run.sh")
    parser.add_argument("--program", type=pathlib.Path, help="mpibench, built untraced")
    parser.add_argument("--format", default="compact", choices=("compact", "xml"))
    parser.add_argument("--repetitions", type=int, default=7)
    parser.add_argument("--cases", default="fwrite")
    args = parser.parse_args()
    build = args.build.resolve()
    try:
        shifts = [int(word) for word in args.shifts.split(",")]
    except ValueError:
        fail(f"--shifts: not a list of byte counts: {args.shifts!r}")
    if any(shift < 0 for shift in shifts):
        fail("--shifts: a shift is a number of bytes, 0 or more")
    if (args.harness is None) != (args.program is None):
        fail("--harness and --program go together")
    link_file = build / LINK_COMMAND
    if not link_file.is_file():
        fail(f"{link_file} is missing: is {build} a configured build tree with the MPI wrapper?")
    command = link_file.read_text().strip()
    compiler = cache_value(build, "CMAKE_C_COMPILER")
    out = (args.out or build / "bench" / "shifted-layouts").resolve()
    out.mkdir(parents=True, exist_ok=True)

    libraries = {}
    for shift in shifts:
        library = out / f"libhdtracempi_shift{shift}.so"
        link_shifted(build, command, padding_object(compiler, shift, out), library)
        libraries[shift] = library
    addresses = {shift: symbol_address(library, HOT_SYMBOL)
                 for shift, library in libraries.items()}
    base = addresses[shifts[0]] - shifts[0]
    for shift, library in libraries.items():
        moved = addresses[shift] - base
        note = "" if moved == shift else f"  (moved by {moved} bytes, not {shift})"
        print(f"shift {shift:6d}: {library}  {HOT_SYMBOL} at {addresses[shift]:#x}{note}")

    modes = [f"shift{shift}:{args.program or 'MPIBENCH'}:LD_PRELOAD={library};"
             f"HDTRACE_DIR={{RUNDIR}};HDTRACE_FORMAT={args.format}"
             for shift, library in libraries.items()]
    if args.harness is None:
        print("modes for run.sh (after the untraced one):")
        for mode in modes:
            print(f"  {shlex.quote(mode)}")
        return
    harness_command = [str(args.harness), "-r", str(args.repetitions), "-c", args.cases,
                       "-o", str(out / "results"), f"plain:{args.program}"] + modes
    run = subprocess.run(harness_command, capture_output=True, text=True,
                         env=dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
                                  OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"))
    print(run.stdout, end="")
    if run.returncode != 0:
        print(run.stderr, end="", file=sys.stderr)
        sys.exit(run.returncode)


if __name__ == "__main__":
    main()
