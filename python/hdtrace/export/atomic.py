"""Writing output files whole or not at all: a temporary file beside the target, then rename."""
import os
import tempfile


def write_atomically(path, write, mode="w"):
    """Calls write(file object) on a temporary file in path's directory and renames it to path.

    On any error the temporary file is removed and path is left as it was."""
    path = os.fspath(path)
    directory = os.path.dirname(os.path.abspath(path))
    descriptor, temporary = tempfile.mkstemp(prefix=".hdtrace-", dir=directory)
    try:
        encoding = None if "b" in mode else "utf-8"
        with os.fdopen(descriptor, mode, encoding=encoding) as out:
            write(out)
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
