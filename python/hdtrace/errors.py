"""The errors and warnings of the reader."""
from . import _core

#: Malformed or truncated XML, a DTD, or a value that is not what the format
#: says. A ValueError with .file, .line, .column and .problem; str() reads
#: "file:line:column: problem".
ReadError = _core.ReadError


def read_error(file, line, column, problem):
    """A ReadError raised from Python, with the same attributes as the C++ reader's."""
    where = str(file) + (f":{line}" if line else "") + (f":{column}" if line and column else "")
    error = ReadError(f"{where}: {problem}")
    error.file, error.line, error.column, error.problem = str(file), line, column, problem
    return error


class MissingTraceError(FileNotFoundError):
    """A trace file named by the project's topology does not exist."""

    def __init__(self, project_path, missing):
        self.project_path = str(project_path)
        self.missing = list(missing)
        listed = ", ".join(self.missing[:5]) + (" ..." if len(self.missing) > 5 else "")
        super().__init__(
            f"{self.project_path}: {len(self.missing)} trace file(s) named by the topology "
            f"do not exist: {listed}")


class TraceDamageWarning(UserWarning):
    """A trace read with partial=True ended in damage; the complete calls before it were kept."""
