"""The most common sizes of requests or messages, as Darshan keeps them
(four, most frequent first), for a whole run or per group of it (a layer,
a dataset)."""
import numpy as np

#: How many of the most common sizes are kept.
COMMON_SIZES = 4


def _pair_counts(groups, sizes, count):
    """The distinct (group, size) pairs, in order, and how often each comes.
    Both as one number where that cannot overflow, so that numpy sorts one
    column of integers (a unique over pairs of columns sorts rows as bytes,
    some ten times slower: a second of a report of a million calls)."""
    low, high = int(sizes.min()), int(sizes.max())
    span = high - low + 1
    if count * span < 1 << 62:
        keys, times = np.unique(groups * span + (sizes - low), return_counts=True)
        return keys // span, keys % span + low, times
    order = np.lexsort((sizes, groups))
    group, size = groups[order], sizes[order]
    starts = np.flatnonzero(np.concatenate(
        ([True], (group[1:] != group[:-1]) | (size[1:] != size[:-1]))))
    return group[starts], size[starts], np.diff(np.append(starts, len(group)))


def common_sizes_by_group(groups, sizes, count, most=COMMON_SIZES):
    """Per group code below count: [(size, times)] of the most frequent
    sizes among its rows, most frequent first (ties: smaller first)."""
    found = [[] for _ in range(count)]
    if not len(groups):
        return found
    group, size, times = _pair_counts(np.asarray(groups, np.int64),
                                      np.asarray(sizes, np.int64), count)
    order = np.lexsort((size, -times, group))
    group, size, times = group[order], size[order], times[order]
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
