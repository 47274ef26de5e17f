"""hdtrace.merge: the project merger (hdtrace::merger::merge) from Python."""
import os

from . import _core


def merge(inputs, output=None, description="", distribution_class=None, chunk_size=None,
          force=False):
    """Unifies the .info files of a traced run into a .proj; returns a dict with
    output_path, warnings, program and the counts of ranks, traces, files,
    communicators and datatypes. Raises hdtrace.MergeError on bad input.

    inputs -- .info or .trc files, trace base names, directories or program prefixes
    """
    if not getattr(_core, "HAVE_MERGER", False):
        raise RuntimeError("this build of hdtrace has no merger (configure with "
                           "-DHDTRACE_BUILD_MERGER=ON); run project-merger instead")
    if isinstance(inputs, (str, bytes)) or hasattr(inputs, "__fspath__"):
        inputs = [inputs]
    # Paths as bytes, as the file system has them (invalid UTF-8 included).
    return _core.merge([os.fsencode(path) for path in inputs], os.fsencode(output or ""),
                       description,
                       distribution_class or _core.DEFAULT_DISTRIBUTION_CLASS,
                       chunk_size or _core.DEFAULT_CHUNK_SIZE, force)


#: Bad input to the merger: a ValueError with .file, .line and .detail.
MergeError = getattr(_core, "MergeError", ValueError)
