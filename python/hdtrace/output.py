"""All-or-nothing standard output for the commands that print what they read.

A command reading a damaged trace must not leave half a table on stdout:
what it prints goes to a temporary file first and reaches stdout only when
the command returns. An exception (a ReadError, SystemExit, Ctrl-C) discards
it, so stdout gets nothing and stderr says why. The temporary file, not
memory, holds the output, so a large export costs disk, not RAM.
"""
import contextlib
import shutil
import sys
import tempfile


@contextlib.contextmanager
def all_or_nothing_stdout():
    real = sys.stdout
    # Same encoding and error handling as stdout, so that text stdout cannot
    # take fails while the command runs, not while its output is copied.
    encoding = getattr(real, "encoding", None) or "utf-8"
    errors = getattr(real, "errors", None) or "strict"
    with tempfile.TemporaryFile("w+", encoding=encoding, errors=errors, newline="",
                                prefix="hdtrace-stdout-") as buffer:
        sys.stdout = buffer
        try:
            yield
        finally:
            sys.stdout = real
        buffer.flush()
        buffer.seek(0)
        shutil.copyfileobj(buffer, real)
        real.flush()
