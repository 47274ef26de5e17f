"""hdtrace.merge: the project merger (hdtrace::merger::merge) from Python, or where the
build has no merger library, the project-merger program to run instead."""
import os
import shutil

from . import native


def merge(inputs, output=None, description="", distribution_class=None, chunk_size=None,
          force=False):
    """Unifies the .info files of a traced run into a .proj; returns a dict with
    output_path, warnings, program and the counts of ranks, traces, files,
    communicators and datatypes. Raises hdtrace.MergeError on bad input.

    inputs -- .info, .trc or .ctrc files, trace base names, directories or program prefixes
    """
    if not native.has_merger():
        raise RuntimeError("this build of hdtrace has no merger (configure with "
                           "-DHDTRACE_BUILD_MERGER=ON); run project-merger instead")
    if isinstance(inputs, (str, bytes)) or hasattr(inputs, "__fspath__"):
        inputs = [inputs]
    # Paths as bytes, as the file system has them (invalid UTF-8 included).
    return native.merge([os.fsencode(path) for path in inputs], os.fsencode(output or ""),
                        description, distribution_class or native.DEFAULT_DISTRIBUTION_CLASS,
                        chunk_size or native.DEFAULT_CHUNK_SIZE, force)


#: Bad input to the merger: a ValueError with .file, .line and .detail.
MergeError = native.MergeError


def find_project_merger():
    """The project-merger program of this build or installation, else on PATH
    (for a build without the merger library); None when there is none."""
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = [os.path.join(here, "..", "..", "merger", "project-merger"),
                  os.path.join(here, "..", "..", "..", "..", "bin", "project-merger")]
    for candidate in candidates:
        if os.access(candidate, os.X_OK):
            return os.path.normpath(candidate)
    return shutil.which("project-merger")
