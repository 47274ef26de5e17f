"""The errors and warnings of the reader."""
from . import native

#: Malformed or truncated XML, a DTD, or a value that is not what the format
#: says. A ValueError with .file, .line, .column and .problem; str() reads
#: "file:line:column: problem".
ReadError = native.ReadError


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


class TraceNotFoundError(MissingTraceError):
    """A trace of a to_dask() frame that the task reading it cannot find
    where it runs (deleted since, or not on that machine's file system)."""

    def __init__(self, project_path, path, host):
        self.project_path, self.missing, self.host = str(project_path), [str(path)], host
        FileNotFoundError.__init__(
            self, f"{path}: trace file does not exist on host {host}, where a Dask task reads "
                  f"it for {project_path} (the workers must see the traces under the same "
                  "path, e.g. on a shared file system)")

    def __reduce__(self):  # rebuilt from its own arguments when it travels back from a worker
        return type(self), (self.project_path, self.missing[0], self.host)
