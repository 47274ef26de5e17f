"""What a finding is, and how the checks say what they found: the
severities, the Finding the report lists, and the figures' wording (bytes,
shares, ranks, the files most concerned)."""
from dataclasses import dataclass, field

import numpy as np

INFO, WARNING, HIGH = "info", "warning", "high"


@dataclass
class Finding:
    id: str
    severity: str
    message: str
    advice: str
    files: list = field(default_factory=list)
    ranks: list = field(default_factory=list)
    values: dict = field(default_factory=dict)

    def as_dict(self):
        return {"id": self.id, "severity": self.severity, "message": self.message,
                "advice": self.advice, "files": self.files, "ranks": self.ranks,
                "values": self.values}


class NotChecked(Exception):
    """A check that cannot look at this run, and why."""


def share_of(part, whole):
    """part / whole, 0 for nothing of nothing."""
    return part / whole if whole else 0.0


def percent(share):
    """A share as the findings print it: "12.5 %"."""
    return f"{100 * share:.1f} %"


def byte_size(count):
    """Bytes as the findings print them: "1.50 MiB", "512 B"."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if count >= size:
            return f"{count / size:.2f} {unit}"
    return f"{int(count)} B"


def top_files(io, rows, most=5):
    """The names of the files most of rows were on, most first."""
    codes = io["file"][rows]
    codes = codes[codes >= 0]
    if len(codes) == 0:
        return []
    # Counted per file code, not sorted: a run's files are few, its calls many.
    counts = np.bincount(codes, minlength=len(io.files))
    top = np.argsort(-counts, kind="stable")[:most]
    return [io.files[int(code)] for code in top if counts[code] > 0]


def ranks_of(io, rows):
    """The ranks rows were made on, in order."""
    ranks = io["rank"][rows]
    return np.flatnonzero(np.bincount(ranks)).tolist() if len(ranks) else []


def calls_named(io, rows, names):
    """Per row of rows: whether its call's name is in names (looked up once
    per name, not once per call)."""
    among = np.fromiter((name in names for name in io.names), dtype=bool, count=len(io.names))
    return among[io["call"][rows]] if len(among) else np.zeros(int(rows.sum()), dtype=bool)
