"""Runs written call by call for the report's tests, so that every figure a
finding states is known before the report computes it.

A RunBuilder keeps one clock per rank (every call starts 1 us after the
rank's previous call ended, unless `at` places it) and writes the traces
and the project through the view tests' generator (tracegen), on one host.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "views"))

import tracegen  # noqa: E402

MIB = 1 << 20


class RunBuilder:
    def __init__(self, ranks, file_name="data.bin"):
        self.ranks = ranks
        self.now = {rank: 1_000_000 for rank in range(ranks)}
        self.calls = {rank: [] for rank in range(ranks)}
        self.file_name = file_name

    def call(self, rank, element, duration_ns=1000, at=None, nested=(), **attrs):
        """Adds a top-level call; nested: (name, duration_ns, attrs) each, laid
        out one after another inside it. Returns the tracegen.Call."""
        start = (self.now[rank] + 1000) if at is None else at
        call = tracegen.Call(rank, 0, element, start, start + duration_ns, dict(attrs))
        inner_start = start + 1
        for inner_name, inner_duration, inner_attrs in nested:
            inner = tracegen.Call(rank, 0, inner_name, inner_start, inner_start + inner_duration,
                                  dict(inner_attrs), depth=1)
            call.nested.append(inner)
            inner_start += inner_duration + 1
        call.end_ns = max(call.end_ns, inner_start)
        self.calls[rank].append(call)
        self.now[rank] = max(self.now[rank], call.end_ns)
        return call

    def open(self, rank, fid=0, name=None, cid=0):
        return self.call(rank, "File_open", 1000, cid=cid, name=name or self.file_name,
                         flags=37, fid=fid)

    def write_at(self, rank, offset, size, fid=0, name="File_write_at", duration_ns=1000,
                 nested=()):
        return self.call(rank, name, duration_ns, nested=nested, fid=fid, offset=offset,
                         size=size, count=size, tid=4)

    def read_at(self, rank, offset, size, fid=0, name="File_read_at", duration_ns=1000):
        return self.call(rank, name, duration_ns, fid=fid, offset=offset, size=size,
                         count=size, tid=4)

    def write(self, directory, program="run"):
        """Writes <program>.proj and the traces; returns the project's path."""
        os.makedirs(directory, exist_ok=True)
        for rank in range(self.ranks):
            calls = sorted(self.calls[rank], key=lambda call: call.start_ns)
            tracegen._write_trace(str(directory), program, rank, 0, calls)
        project = os.path.join(str(directory), f"{program}.proj")
        tracegen._write_project(project, program, self.ranks, {r: 1 for r in range(self.ranks)})
        return project


def posix(name, fid, offset, asked, done=None):
    """A nested POSIX read or write: (name, duration, attributes)."""
    return (name, 100, {"fid": fid, "offset": offset, "asked": asked,
                        "size": asked if done is None else done})
