"""Building many Python objects at once, without the cyclic collector.

A Timeline (every call of a run as dicts and lists) or a Chrome trace (a
dict per call) makes millions of container objects that stay alive and
never form cycles. Each time allocations outrun frees by the collector's
threshold, CPython's cyclic collector walks the objects made so far, and
its full collections walk all of them: on a run of two million calls,
about as much time as the building itself. Reference counting frees
what these builders drop, so nothing is lost by pausing the collector
while they run.
"""
import contextlib
import gc


@contextlib.contextmanager
def cyclic_gc_paused():
    """The cyclic garbage collector off for the block, as it was after it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
