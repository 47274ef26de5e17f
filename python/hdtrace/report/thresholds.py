"""The thresholds the report's findings are checked against.

Each finding has its own keys (`small-requests.share`); the defaults follow
Drishti's published ones where Drishti has the check, and are chosen to the
same spirit where only HDTrace's exact calls allow it. A user overrides any
of them with `--set KEY=VALUE` or a TOML file of tables named by finding:

    [small-requests]
    share = 0.2
    count = 500

The report states every threshold in force.
"""
import tomllib

MIB = 1 << 20

#: {finding id: {key: (default, what it means)}}
DEFAULTS = {
    "small-requests": {
        "size": (MIB, "a request below this many bytes is small"),
        "share": (0.10, "fires above this share of small requests of a layer's reads or writes"),
        "count": (1000, "... and above this many small requests"),
    },
    "misaligned-requests": {
        "alignment": (4096, "a request whose offset is not a multiple of this is misaligned"),
        "share": (0.10, "fires above this share of misaligned requests"),
        "count": (1000, "... and above this many misaligned requests"),
    },
    "random-access": {
        "share": (0.20, "fires above this share of random accesses of a layer's reads or writes"),
        "count": (1000, "... and above this many random accesses"),
    },
    "shared-file-imbalance": {
        "share": (0.15, "fires when (most - least bytes of a rank) / most exceeds this on a "
                        "shared file"),
        "min-bytes": (MIB, "files with fewer bytes than this are left out"),
    },
    "rank-imbalance": {
        "share": (0.15, "fires when (slowest - median I/O time of a rank) / slowest exceeds this"),
        "min-seconds": (0.001, "runs whose slowest rank spends less in I/O are left out (s)"),
    },
    "no-collective-io": {
        "count": (1000, "fires above this many MPI-IO reads and writes, none collective"),
    },
    "independent-hdf5-transfers": {
        "share": (0.5, "fires above this share of independent HDF5 dataset reads and writes "
                       "on files more than one rank used"),
        "count": (1000, "... and above this many independent ones"),
    },
    "broken-hdf5-collectives": {
        "count": (0, "fires above this many HDF5 dataset transfers asked to be collective "
                     "that made MPI-IO calls, none of them collective"),
    },
    "hdf5-metadata-io": {
        "reads": (1000, "fires above this many reads HDF5 made of its own metadata (outside "
                        "dataset transfers), on more than one rank"),
        "writes": (1000, "... or above this many independent writes of its metadata"),
    },
    "blocking-io-only": {
        "count": (1000, "fires above this many MPI-IO reads and writes, none nonblocking"),
    },
    "stdio-heavy": {
        "share": (0.10, "fires above this share of all bytes read and written through stdio"),
        "min-bytes": (MIB, "... and above this many stdio bytes"),
    },
    "metadata-heavy": {
        "seconds": (30.0, "fires when a rank spends more than this in metadata calls (s)"),
    },
    "many-files": {
        "count": (1000, "fires above this many files touched"),
    },
    "redundant-reads": {
        "share": (0.10, "fires above this share of bytes read that had been read before"),
        "min-bytes": (MIB, "... and above this many bytes read again"),
    },
    "overlapping-writes": {
        "min-bytes": (1, "fires when two ranks write at least this many of the same bytes"),
    },
    "conflicting-reads": {
        "min-bytes": (1, "fires when a rank reads at least this many bytes another rank wrote "
                         "without sync, collective, sync between"),
    },
    "io-amplification": {
        "ratio": (1.25, "fires above this ratio of POSIX bytes beneath MPI-IO to bytes "
                        "MPI-IO asked for"),
        "min-bytes": (MIB, "... and when the excess is at least this many bytes"),
    },
    "late-sender": {
        "share": (0.05, "fires above this share of the ranks' run time waiting for late senders"),
    },
    "late-receiver": {
        "share": (0.05, "fires above this share of the ranks' run time waiting for late "
                        "receivers"),
    },
    "wait-at-collective": {
        "share": (0.05, "fires above this share of the ranks' run time waiting in collectives "
                        "for the last rank"),
    },
}


class ThresholdError(ValueError):
    """A --set or a TOML file names an unknown key or gives a bad value."""


def _convert(key, default, text_or_value, where):
    if isinstance(text_or_value, str):
        try:
            value = float(text_or_value)
        except ValueError:
            raise ThresholdError(f"{where}: {key} takes a number, not {text_or_value!r}") from None
    elif isinstance(text_or_value, bool) or not isinstance(text_or_value, (int, float)):
        raise ThresholdError(f"{where}: {key} takes a number, not {text_or_value!r}")
    else:
        value = float(text_or_value)
    if value < 0:
        raise ThresholdError(f"{where}: {key} must not be negative, not {value:g}")
    return int(value) if isinstance(default, int) and value.is_integer() else value


def _known(finding, key, where):
    if finding not in DEFAULTS:
        raise ThresholdError(f"{where}: no finding {finding!r}; the findings are "
                             f"{', '.join(sorted(DEFAULTS))}")
    if key not in DEFAULTS[finding]:
        raise ThresholdError(f"{where}: finding {finding!r} has no threshold {key!r}; it has "
                             f"{', '.join(DEFAULTS[finding])}")
    return DEFAULTS[finding][key][0]


class Thresholds:
    """The thresholds in force: the defaults, then a TOML file, then --set."""

    def __init__(self):
        self.values = {finding: {key: default for key, (default, _) in keys.items()}
                       for finding, keys in DEFAULTS.items()}
        self.changed = set()

    def __call__(self, finding, key):
        return self.values[finding][key]

    def set(self, assignment, where="--set"):
        """Applies one `finding.key=value`."""
        name, equals, text = assignment.partition("=")
        finding, dot, key = name.strip().rpartition(".")
        if not equals or not dot or not finding:
            raise ThresholdError(f"{where}: {assignment!r} is not FINDING.KEY=VALUE "
                                 "(for example small-requests.share=0.2)")
        default = _known(finding, key, where)
        self.values[finding][key] = _convert(f"{finding}.{key}", default, text.strip(), where)
        self.changed.add((finding, key))

    def load_toml(self, path):
        """Applies a TOML file of [finding] tables of key = number."""
        try:
            with open(path, "rb") as source:
                document = tomllib.load(source)
        except tomllib.TOMLDecodeError as error:
            raise ThresholdError(f"{path}: {error}") from None
        for finding, table in document.items():
            if not isinstance(table, dict):
                raise ThresholdError(f"{path}: {finding!r} must be a table ([{finding}]) of "
                                     "thresholds")
            for key, value in table.items():
                default = _known(finding, key, path)
                self.values[finding][key] = _convert(f"{finding}.{key}", default, value, path)
                self.changed.add((finding, key))

    def as_dict(self):
        """{finding: {key: value}} of every threshold in force."""
        return {finding: dict(keys) for finding, keys in self.values.items()}


def thresholds_from(files=(), assignments=()):
    thresholds = Thresholds()
    for path in files:
        thresholds.load_toml(path)
    for assignment in assignments:
        thresholds.set(assignment)
    return thresholds
