"""The reader's warnings as a command's own lines on stderr.

Python's default form of a warning names a source file and line of the
package (or of the thread pool that read the trace) and repeats a warning
that several threads or steps raise for the same trace. A command prints
each of hdtrace's warnings once, as "hdtrace COMMAND: warning: MESSAGE";
other warnings keep Python's form.
"""
import contextlib
import sys
import threading
import warnings

from .clocks import ClockWarning
from .errors import TraceDamageWarning

#: The warnings that are hdtrace's findings about the run, not about code.
RUN_WARNINGS = (TraceDamageWarning, ClockWarning)


@contextlib.contextmanager
def warnings_as_lines(command, stream=None):
    """Within the block, hdtrace's warnings go to stream (stderr by default)
    as lines of command, each distinct message once."""
    shown = set()
    lock = threading.Lock()  # the traces are read by a pool of threads
    default_show = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if not issubclass(category, RUN_WARNINGS):
            default_show(message, category, filename, lineno, file, line)
            return
        text = str(message)
        with lock:
            if text in shown:
                return
            shown.add(text)
        print(f"hdtrace {command}: warning: {text}", file=stream or sys.stderr, flush=True)

    with warnings.catch_warnings():
        for category in RUN_WARNINGS:
            warnings.simplefilter("always", category)
        warnings.showwarning = show
        yield
