#!/usr/bin/python3
"""Call lines: the lines of code and data a traced 16-byte MPI_File_write_at
(with its nested pwrite) touches after the kernel, counted by callgrind.

    /usr/bin/python3 bench/mpiwrapper/call_lines.py [--build BUILD] [--format xml|compact]
        [--iterations N] [--top K] [NAME=LIBRARY ...]

Runs bench_mpi_overhead's file-write-at case, one rank, with each library
preloaded (default: this build's libhdtracempi.so) and, after it,
libbench_lines_after_kernel.so, whose pwrite displaces the caches as a
kernel's write path does. Callgrind's cache model (32 KiB 8-way first-level
caches, 512 KiB second level) then counts every line the tracer touches
after the kernel as a miss. N and 3N iterations, the writer thread off;
per iteration, the tracer's functions only (its object, and the code
inlined into it): the lines of code and of data missed, and the
instructions. Under valgrind the clock takes its slow path; its lines are
counted alike for every library. Then the branches the tracer takes per
call on the calling thread (tests taken, jumps, calls and returns), which
after the kernel cost some 0.3 ns more each (docs/dev/performance.md,
"What the kernel takes from a traced call"), less the writer thread's
and the clock's slow path's. Libraries are compared within one run.
Prints figures; asserts nothing.
"""
import argparse
import collections
import os
import pathlib
import re
import subprocess
import sys
import tempfile

EVENTS = ('Ir', 'I1mr', 'D1mr', 'D1mw')


def profile(build, library, form, iterations, directory):
    """The callgrind profile of one run of iterations file writes."""
    output = directory / f'profile.{iterations}'
    environment = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT='1', OMPI_ALLOW_RUN_AS_ROOT_CONFIRM='1')
    displacer = build / 'bench' / 'mpiwrapper' / 'libbench_lines_after_kernel.so'
    command = ['mpiexec', '-n', '1',
               '-x', f'LD_PRELOAD={library}:{displacer}',
               '-x', f'HDTRACE_DIR={directory}', '-x', f'HDTRACE_FORMAT={form}',
               '-x', 'HDTRACE_WRITER_THREAD=0',
               'valgrind', '--tool=callgrind', '--cache-sim=yes',
               '--I1=32768,8,64', '--D1=32768,8,64', '--LL=524288,8,64', '--collect-jumps=yes',
               f'--callgrind-out-file={output}',
               str(build / 'bench' / 'mpiwrapper' / 'bench_mpi_overhead'), 'file-write-at',
               str(iterations), str(directory / 'written')]
    run = subprocess.run(command, env=environment, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f'call_lines.py: {" ".join(command)} failed:\n{run.stderr[-2000:]}')
    return output


def tracer_counts(output, library):
    """{function: [Ir, I1mr, D1mr, D1mw]} of the tracer's lines of a profile."""
    listing = subprocess.run(['callgrind_annotate', '--inclusive=no', '--auto=no',
                              '--threshold=100', '--show=' + ','.join(EVENTS), str(output)],
                             capture_output=True, text=True, check=True).stdout
    counts = collections.defaultdict(lambda: [0] * len(EVENTS))
    real = os.path.realpath(library)
    for line in listing.splitlines():
        tokens, numbers = line.split(), []
        index = 0
        while index < len(tokens) and re.fullmatch(r'[\d,]+|\.', tokens[index]):
            numbers.append(0 if tokens[index] == '.' else int(tokens[index].replace(',', '')))
            index += 1
            if index < len(tokens) and tokens[index].startswith('('):
                while not tokens[index].endswith(')'):
                    index += 1
                index += 1
        if len(numbers) != len(EVENTS) or 'PROGRAM TOTALS' in line:
            continue
        name = ' '.join(tokens[index:])
        found = re.search(r'\[([^\]]+)\]$', name)
        # The library's own functions, and code inlined into them (listed
        # without an object); every other object is not the tracer's.
        if found and os.path.realpath(found.group(1)) != real:
            continue
        function = re.sub(r' \[[^\]]+\]$', '', name).split(':', 1)[-1]
        counts[function] = [a + b for a, b in zip(counts[function], numbers)]
    return counts


# Functions whose branches are not the calling thread's in a normal run:
# the frames' time gathering and zstd (the writer thread's), and the
# clock's slow way (valgrind's: under it the TSC is not used).
OFF_THE_CALL = ('RecordWalk', 'FrameWriter::compress', 'ZSTD', 'Clock::slowNow',
                'Clock::takePair', 'readPair')


def taken_branches(output, library):
    """[tests taken, jumps, calls, returns] in the tracer's functions of a
    profile made with --collect-jumps=yes, less those OFF_THE_CALL."""
    real = os.path.realpath(library)
    known = {'ob': {}, 'fn': {}}

    def name(kind, text):
        # Names are given once as "(id) name", then as "(id)" alone.
        found = re.match(r'\((\d+)\)(?: (.*))?', text.strip())
        if not found:
            return text.strip()
        if found.group(2) is not None:
            known[kind][found.group(1)] = found.group(2)
        return known[kind].get(found.group(1), '')

    def tracers(obj, function):
        return (obj and os.path.realpath(obj) == real
                and not any(part in function for part in OFF_THE_CALL))

    counts = [0, 0, 0, 0]
    obj = function = called_object = called = None
    function_object = None
    for line in output.read_text().splitlines():
        if line.startswith('ob='):
            obj = name('ob', line[3:])
        elif line.startswith('fn='):
            function, function_object = name('fn', line[3:]), obj
        elif line.startswith('cob='):
            called_object = name('ob', line[4:])
        elif line.startswith('cfn='):
            called = name('fn', line[4:])
        elif line.startswith('jcnd='):  # jcnd=taken/executed target
            if tracers(function_object, function):
                counts[0] += int(line[5:].split('/')[0])
        elif line.startswith('jump='):
            if tracers(function_object, function):
                counts[1] += int(line[5:].split()[0])
        elif line.startswith('calls='):
            made = int(line[6:].split()[0])
            if tracers(function_object, function):
                counts[2] += made
            # A call into the tracer is one of its returns.
            if tracers(called_object or function_object, called):
                counts[3] += made
            called_object = None
    return counts


def measure(build, library, form, iterations):
    with tempfile.TemporaryDirectory() as temporary:
        directory = pathlib.Path(temporary)
        few_profile = profile(build, library, form, iterations, directory)
        few = tracer_counts(few_profile, library)
        few_branches = taken_branches(few_profile, library)
        more_profile = profile(build, library, form, 3 * iterations, directory)
        more = tracer_counts(more_profile, library)
        more_branches = taken_branches(more_profile, library)
    per_call = {function: [(b - a) / (2 * iterations)
                           for a, b in zip(few.get(function, [0] * len(EVENTS)), counts)]
                for function, counts in more.items()}
    branches = [(b - a) / (2 * iterations) for a, b in zip(few_branches, more_branches)]
    return per_call, branches


def main():
    here = pathlib.Path(__file__).resolve().parent
    default_build = pathlib.Path(os.environ.get('HDTRACE_BUILD_DIR', here.parents[1] / 'build'))
    parser = argparse.ArgumentParser(description=' '.join(__doc__.split('\n\n')[0].split()))
    parser.add_argument('--build', type=pathlib.Path, default=default_build)
    parser.add_argument('--format', choices=('xml', 'compact'), default='compact')
    parser.add_argument('--iterations', type=int, default=1000)
    parser.add_argument('--top', type=int, default=12, help='functions shown per library')
    parser.add_argument('libraries', nargs='*', metavar='NAME=LIBRARY')
    args = parser.parse_args()
    libraries = [entry.split('=', 1) for entry in args.libraries] or [
        ['this', str(args.build / 'mpiwrapper' / 'libhdtracempi.so')]]
    for name, library in libraries:
        if not os.path.exists(library):
            sys.exit(f'call_lines.py: {library}: no such library')
    print(f'file-write-at, {args.format}, per call: lines of code / data missed after the '
          'kernel, instructions (the tracer\'s functions)')
    for name, library in libraries:
        per_call, branches = measure(args.build, library, args.format, args.iterations)
        total = [sum(counts[event] for counts in per_call.values()) for event in range(4)]
        print(f'{name:<12} {total[1]:6.1f} / {total[2] + total[3]:5.1f} / {total[0]:7.1f}')
        print(f'    taken branches on the calling thread: {sum(branches):.1f} ('
              f'{branches[0]:.1f} tests, {branches[1]:.1f} jumps, {branches[2]:.1f} calls, '
              f'{branches[3]:.1f} returns)')
        ranked = sorted(per_call.items(), key=lambda item: -(item[1][1] + item[1][2]))
        for function, counts in ranked[:args.top]:
            if counts[1] + counts[2] + counts[3] < 0.5:
                continue
            print(f'    {counts[1]:5.1f} / {counts[2] + counts[3]:4.1f} / {counts[0]:6.1f}  '
                  f'{function[:90]}')


if __name__ == '__main__':
    main()
