#!/usr/bin/python3
"""Call path pages: which functions of a traced program run in every call,
and how many 4 KiB pages of code they span.

    /usr/bin/python3 bench/mpiwrapper/call_path_pages.py FEW.out MORE.out CALLS BINARY

FEW.out and MORE.out are callgrind profiles (valgrind --tool=callgrind
--callgrind-out-file=...) of the same statically linked program making a
number of calls and CALLS more (for example the shared harness's mpibench
with 10000 and 20000 calls, the wrapper archive linked in). A function runs
in every call where it executed at least one instruction per call more in
MORE.out; its place and size come from the program's symbols (nm). Prints
those functions in address order with their instructions per call, and the
pages of code they span: after a system call (the TLB flushed where the
kernel isolates its page tables) each of those pages costs a page walk
again. Functions of shared libraries (libc, the MPI library) are left out.
Asserts nothing.
"""
import argparse
import collections
import re
import subprocess
import sys

PAGE = 4096


def instructions_by_function(profile):
    """{function name: instructions} of a callgrind profile."""
    listing = subprocess.run(
        ["callgrind_annotate", "--auto=no", "--threshold=100", "--show-percs=no", profile],
        capture_output=True, text=True, check=True).stdout
    counts = collections.Counter()
    for line in listing.splitlines():
        match = re.match(r"\s*([\d,]+)\s+(\S.*)$", line)
        if not match or "PROGRAM TOTALS" in line:
            continue
        name = match.group(2)
        name = name.split(":", 1)[1] if ":" in name else name  # file:function
        name = re.sub(r"\s*\[[^\]]*\]\s*$", "", name)  # [object]
        counts[name] += int(match.group(1).replace(",", ""))
    return counts


def code_symbols(binary):
    """{demangled name: (address, size)} of the program's own functions."""
    listing = subprocess.run(["nm", "-C", "-S", "--defined-only", binary],
                             capture_output=True, text=True, check=True).stdout
    symbols = {}
    for line in listing.splitlines():
        fields = line.split(" ", 3)
        if len(fields) == 4 and fields[2] in "tTwW":
            symbols.setdefault(fields[3], (int(fields[0], 16), int(fields[1], 16)))
    return symbols


def main():
    parser = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("few")
    parser.add_argument("more")
    parser.add_argument("calls", type=int, help="how many more calls MORE.out made")
    parser.add_argument("binary")
    args = parser.parse_args()
    if args.calls <= 0:
        parser.error("calls must be positive")
    few, more = instructions_by_function(args.few), instructions_by_function(args.more)
    per_call = {name: (more[name] - few[name]) / args.calls for name in set(few) | set(more)}
    symbols = code_symbols(args.binary)
    rows = sorted((symbols[name][0], symbols[name][1], value, name)
                  for name, value in per_call.items() if value >= 1 and name in symbols)
    if not rows:
        sys.exit(f"no function of {args.binary} runs in every call: are the profiles of it?")
    pages = set()
    for address, size, value, name in rows:
        pages.update(range(address // PAGE, (address + max(size, 1) - 1) // PAGE + 1))
        print(f"{address:#10x} {size:6d} B {value:8.1f} instructions a call  {name[:100]}")
    print(f"{len(rows)} functions of the program run in every call, "
          f"spanning {len(pages)} pages of code")


if __name__ == "__main__":
    main()
