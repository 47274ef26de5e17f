"""The most common sizes of requests or messages, as Darshan keeps them
(four, most frequent first), for a whole run or per group of it (a layer,
a dataset)."""
import numpy as np

#: How many of the most common sizes are kept.
COMMON_SIZES = 4


def common_sizes_by_group(groups, sizes, count, most=COMMON_SIZES):
    """Per group code below count: [(size, times)] of the most frequent
    sizes among its rows, most frequent first (ties: smaller first)."""
    found = [[] for _ in range(count)]
    if not len(groups):
        return found
    pairs, times = np.unique(np.stack([np.asarray(groups, np.int64),
                                       np.asarray(sizes, np.int64)]), axis=1,
                             return_counts=True)
    order = np.lexsort((pairs[1], -times, pairs[0]))
    group, size, times = pairs[0][order], pairs[1][order], times[order]
    # Each group's first `most` only: its place after the group's first row.
    kept = np.arange(len(group)) - np.searchsorted(group, group, side="left") < most
    for code, value, seen in zip(group[kept].tolist(), size[kept].tolist(),
                                 times[kept].tolist()):
        found[code].append((value, seen))
    return found


def common_sizes(sizes, most=COMMON_SIZES):
    """[(size, times)] of the most frequent sizes, most frequent first
    (ties: smaller first)."""
    return common_sizes_by_group(np.zeros(len(sizes), np.int64), sizes, 1, most)[0]
